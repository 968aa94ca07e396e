"""/unigram/lattice and /unigram/train, the Unigram step-through pages: the lattice stepped
(best scores filled, then the walk back), its n-best and samples, uploaded model files, training
round by round (the rounds add up and say why round one repeats the seed), a trained model opened
in the lattice, and bad input said in place, as full pages, htmx fragments and permalinks."""

from __future__ import annotations

import gzip
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.services.training import SAMPLED_WORDS, frequent_long_words
from tokenizers_core.formats.sentencepiece_model import _DATA

HX = {"HX-Request": "true"}


def what(html: str) -> str:
    m = re.search(r'data-testid="what">(.*?)</p>', html, re.S)
    return m.group(1) if m else ""


def final(html: str) -> list[str]:
    m = re.search(r'data-testid="final">(.*?)</p>', html, re.S)
    return re.findall(r"<code[^>]*>(.*?)</code>", m.group(1)) if m else []


# ---- the lattice ---------------------------------------------------------------------------------
def test_lattice_default_is_the_cats_demo(client):
    r = client.get("/unigram/lattice")
    assert r.status_code == 200 and "<html" in r.text
    assert 'value="cats"' in r.text
    assert "step <b>0</b> / 7" in r.text
    assert "best[0] = 0" in what(r.text)
    assert r.text.count("arc-future") > 5  # nothing reached yet


def test_lattice_steps_fill_best_then_walk_back(client):
    r = client.get("/unigram/lattice?model=tiny&text=cats&step=5")
    assert "best[5] = -5.000 and back[5] = 4" in what(r.text)
    assert re.search(r'<tr class="winner">.*?<code class="piece">s</code>', r.text, re.S)
    r = client.get("/unigram/lattice?model=tiny&text=cats&step=6")
    assert "on the best path" in what(r.text)
    assert 'data-testid="path-piece">s<' in r.text
    end = client.get("/unigram/lattice?model=tiny&text=cats&step=99")
    assert "step <b>7</b> / 7" in end.text
    assert final(end.text) == ["▁cat", "s"]
    assert end.text.count('class="arc-path') == 2


def test_lattice_fragment_and_permalink(client):
    url = "/unigram/lattice?model=botchan_en_unigram_1000&text=Hello+world&step=4"
    full = client.get(url)
    frag = client.get(url, headers=HX)
    assert frag.status_code == 200
    assert "<html" not in frag.text and "stepper" in frag.text
    assert what(frag.text) == what(full.text) != ""
    assert what(client.get(url).text) == what(full.text)  # same URL, same state


def test_lattice_nbest_and_sample(client):
    r = client.get("/unigram/lattice?model=tiny&text=cats&n=3&seed=4&alpha=0.5&nbest_size=-1")
    nbest = re.search(r'data-testid="nbest">(.*?)</ol>', r.text, re.S).group(1)
    assert nbest.count("<li>") == 3 and "(-5.0000)" in nbest
    assert 'data-testid="sample"' in r.text
    again = client.get("/unigram/lattice?model=tiny&text=cats&n=3&seed=4&alpha=0.5&nbest_size=-1")
    sample = re.search(r'data-testid="sample">(.*?)</p>', r.text, re.S).group(1)
    assert sample == re.search(r'data-testid="sample">(.*?)</p>', again.text, re.S).group(1)


def test_lattice_unknown_characters_and_escaping(client):
    r = client.get("/unigram/lattice?model=tiny&text=%3Cb%3Edog&step=99")
    assert r.status_code == 200
    assert "<b>dog" not in r.text and "&lt;b&gt;dog" in r.text
    assert "arc-unk" in r.text


def test_lattice_accepts_the_visualisers_chip_links(client):
    # the visualiser links a chip to its word, which may carry the visible ▁
    r = client.get("/unigram/lattice?model=botchan_en_unigram_1000&text=%E2%96%81world&step=99")
    assert r.status_code == 200 and final(r.text) == ["▁world"]


def test_lattice_bad_input(client):
    r = client.get("/unigram/lattice?model=botchan_en_bpe_1000&text=cats")
    assert r.status_code == 422 and "Unigram" in r.text and 'value="cats"' in r.text
    r = client.get("/unigram/lattice?model=nope&text=cats%20and%20dogs")
    assert r.status_code == 404 and 'value="cats and dogs"' in r.text
    r = client.get("/unigram/lattice?text=" + "x" * 500)
    assert r.status_code == 422 and "at most" in r.text
    r = client.get("/unigram/lattice?n=0")
    assert r.status_code == 422
    r = client.get("/unigram/lattice?seed=1&alpha=-2")
    assert r.status_code == 422 and "alpha" in r.text


def test_upload_a_model_file(client):
    with gzip.open(os.path.join(_DATA, "botchan_en_unigram_1000.model.gz"), "rb") as fh:
        data = fh.read()
    r = client.post(
        "/unigram/lattice",
        data={"text": "Hello"},
        files={"file": ("m.model", data, "application/octet-stream")},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "model=upload-" in r.headers["location"]
    page = client.get(r.headers["location"] + "&step=99")
    assert page.status_code == 200 and final(page.text) == ["▁He", "ll", "o"]


def test_upload_rejects_bad_files(client):
    r = client.post(
        "/unigram/lattice",
        data={"text": "kept text"},
        files={"file": ("x.model", b"not a model at all", "application/octet-stream")},
    )
    assert r.status_code == 422 and "sentencepiece" in r.text and 'value="kept text"' in r.text
    with gzip.open(os.path.join(_DATA, "botchan_en_bpe_1000.model.gz"), "rb") as fh:
        bpe = fh.read()
    r = client.post(
        "/unigram/lattice",
        data={"text": "x"},
        files={"file": ("b.model", bpe, "application/octet-stream")},
    )
    assert r.status_code == 422 and "Unigram" in r.text


def test_lattice_api(client):
    r = client.get("/api/unigram/lattice", params={"text": "cats", "model": "tiny", "n": 2})
    body = r.json()
    assert r.status_code == 200 and body["normalized"] == "▁cats"
    assert [s["kind"] for s in body["steps"]].count("viterbi") == 5
    assert body["nbest"][0] == {"tokens": ["▁cat", "s"], "score": -5.0}
    assert (
        client.get("/api/unigram/lattice", params={"text": "x", "model": "nope"}).status_code == 404
    )
    assert (
        client.get("/api/unigram/lattice", params={"text": "x", "model": "cl100k_base"}).status_code
        == 422
    )


# ---- training ------------------------------------------------------------------------------------
def test_train_default_page_and_steps(client):
    r = client.get("/unigram/train")
    assert r.status_code == 200 and "seed vocabulary" in what(r.text)
    assert 'data-testid="curve"' in r.text and "<svg" in r.text
    r1 = client.get("/unigram/train?corpus=udhr/eng&vocab_size=300&step=1")
    assert "Round 1" in what(r1.text) and 'data-testid="pruned"' in r1.text
    total = int(re.search(r"step <b>\d+</b> / (\d+)", r1.text).group(1))
    last = client.get(f"/unigram/train?corpus=udhr/eng&vocab_size=300&step={total}")
    assert "Done" in what(last.text) and ">final<" in last.text
    frag = client.get("/unigram/train?corpus=udhr/eng&vocab_size=300&step=1", headers=HX)
    assert "<html" not in frag.text and what(frag.text) == what(r1.text)


def test_train_sample_words_and_edited_corpus(client):
    r = client.get("/unigram/train?corpus=udhr/eng&vocab_size=300&step=1&words=freedom+dignity")
    samples = re.search(r'data-testid="samples">(.*?)</ul>', r.text, re.S).group(1)
    assert "freedom" in samples and "dignity" in samples
    corpus = "\n".join(["the cat sat on the mat with another cat"] * 30 + ["cats and dogs"] * 20)
    post = client.post(
        "/unigram/train", data={"corpus_text": corpus, "vocab_size": "22"}, follow_redirects=False
    )
    assert post.status_code == 303
    page = client.get(post.headers["location"])
    assert page.status_code == 200 and "seed vocabulary" in what(page.text)


def test_train_bad_input(client):
    r = client.get("/unigram/train?corpus=udhr/eng&vocab_size=100000")
    assert r.status_code == 422 and "vocab_size" in r.text
    r = client.get("/unigram/train?corpus=udhr/eng&vocab_size=5000")
    assert r.status_code == 422 and "too large" in r.text
    r = client.get("/unigram/train?corpus=nosuch")
    assert r.status_code == 404
    r = client.post("/unigram/train", data={"corpus_text": "   ", "vocab_size": "50"})
    assert r.status_code == 422 and "empty" in r.text


def test_trained_model_opens_in_the_lattice_view(client):
    page = client.get("/unigram/train?corpus=udhr/eng&vocab_size=300&step=99")
    assert 'data-testid="use-form"' in page.text
    r = client.post(
        "/unigram/train/use",
        data={"corpus": "udhr/eng", "vocab_size": "300", "text": "freedom"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "model=unigram-300-" in r.headers["location"]
    lattice = client.get(r.headers["location"] + "&step=99")
    assert lattice.status_code == 200 and final(lattice.text) == ["▁freedom"]
    bad = client.post("/unigram/train/use", data={"corpus": "nosuch", "vocab_size": "300"})
    assert bad.status_code == 404


@pytest.mark.heavy
def test_long_training_shows_progress_then_the_rounds(client, monkeypatch):
    import time

    import app.routers.unigram as views

    monkeypatch.setattr(views, "WAIT_SECONDS", 0.0)
    url = "/unigram/train?corpus=botchan&vocab_size=3000"
    first = client.get(url)
    assert first.status_code in (200, 202) and 'data-testid="progress"' in first.text
    assert 'hx-trigger="load delay:1s"' in first.text  # htmx polls this fragment
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        page = client.get(url + "&step=99", headers=HX)
        if 'data-testid="progress"' not in page.text:
            break
        time.sleep(0.5)
    assert "Done" in what(page.text)


def test_train_says_what_its_negative_numbers_mean(client):
    """The pruned pieces' losses and the log-likelihood are negative numbers: the page says
    what they are (the log-likelihood: closer to 0 is better; a loss below 0: the piece's
    split is more likely than the piece, so dropping it costs nothing)."""
    page = client.get("/unigram/train?step=1").text
    assert re.search(r'<td class="num">-\d', page.split('data-testid="pruned"')[1])
    note = re.search(r'data-testid="loss-note">([^<]*)<', page).group(1)
    assert "Below 0" in note and "costs nothing" in note
    assert "always negative, closer to 0 is better" in page


def test_unigram_rounds_add_up_and_say_why_round_one_repeats_the_seed(client):
    html = client.get("/unigram/train", params={"step": 99}).text
    table = html.split('data-testid="rounds"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(
        r"<tr[^>]*>\s*<td>([^<]*)</td>\s*<td class=\"num\">([\d,]+)</td>\s*"
        r"<td class=\"num\" data-col=\"dropped\">([^<]*)(?:<span[^>]*>[^<]*</span>)?"
        r"</td>\s*<td class=\"num\" data-col=\"pruned\">([\d,]+)</td>",
        table,
    )
    num = lambda s: int(s.replace(",", "").strip())  # noqa: E731
    assert len(rows) >= 3 and rows[0][0] == "seed" and rows[-1][0] == "final"
    for (_, before, _, _), (_, after, dropped, pruned) in zip(rows, rows[1:]):
        assert num(before) - num(dropped) - num(pruned) == num(after)
    assert "round 1 shows the seed model's likelihood" in html


def _frequent_long_words_as_said(text: str) -> tuple[str, ...]:
    """The default sample as its docstring says it, word by word over the first words."""
    counts: dict[str, int] = {}
    for word in text.split()[:SAMPLED_WORDS]:
        word = word.strip(".,;:!?\"'()[]")
        if len(word) >= 7 and word.isalpha():
            counts[word.lower()] = counts.get(word.lower(), 0) + 1
    return tuple(sorted(counts, key=lambda w: (-counts[w], w))[:6])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(alphabet="abcdefgÉéİı.,;!'( \t\n\u00a0\u30001", min_size=0, max_size=12),
        max_size=40,
    ).map(" ".join)
)
def test_the_default_sample_is_the_frequent_long_words(text):
    assert frequent_long_words(text) == _frequent_long_words_as_said(text)


def test_the_default_sample_counts_only_the_first_words():
    later = "dictionary " * 5
    text = "tokenizer " * SAMPLED_WORDS + later
    assert frequent_long_words(text) == ("tokenizer",)
