"""/wordpiece/encode and /wordpiece/train, the WordPiece step-through pages: greedy longest
match stepped window by window, training merge by merge beside BPE's pick (its scores in one
notation), custom and trained vocabularies, the step APIs, and bad input said in place (to htmx,
the message alone), as full pages, htmx fragments and permalinks."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

HX = {"HX-Request": "true"}


def what(html: str) -> str:
    m = re.search(r'data-testid="what">(.*?)</p>', html, re.S)
    return m.group(1) if m else ""


# ---- encoding --------------------------------------------------------------------------------
def test_encode_default_page(client):
    r = client.get("/wordpiece/encode")
    assert r.status_code == 200
    assert "<html" in r.text and "Greedy longest match" in r.text
    assert "unaffable playing" in r.text  # the default text, in the form
    assert "##aff" in r.text  # the editable small vocabulary


def test_encode_steps_through_unaffable(client):
    """unaffable: windows 0:9 ... 0:3 miss, 0:2 "un" hits (probe 8); then ##affable ...
    ##affa miss, ##aff hits (probe 13); then ##able hits at once (probe 14)."""
    r = client.get("/wordpiece/encode?text=unaffable&step=8")
    assert r.status_code == 200
    assert "is in the vocabulary: keep it" in what(r.text)
    assert 'data-testid="candidate">un<' in r.text
    r = client.get("/wordpiece/encode?text=unaffable&step=1")
    assert "not in the vocabulary: shrink the window" in what(r.text)
    assert 'data-testid="candidate">unaffable<' in r.text
    assert (
        'data-testid="candidate">##aff<'
        in client.get("/wordpiece/encode?text=unaffable&step=13").text
    )
    last = client.get("/wordpiece/encode?text=unaffable&step=999")  # clamped to the end
    assert "step <b>14</b> / 14" in last.text
    assert "the word is done" in what(last.text)
    final = re.search(r'data-testid="final">(.*?)</p>', last.text, re.S).group(1)
    assert re.findall(r">([^<]+)</code>", final) == ["un", "##aff", "##able"]


def test_encode_whole_word_unk(client):
    r = client.get("/wordpiece/encode?text=unaffablx&step=999")
    assert "the whole word" in what(r.text) and "[UNK]" in what(r.text)


def test_encode_fragment_and_permalink(client):
    url = "/wordpiece/encode?vocab=small&text=playing+unaffable&step=4"
    full = client.get(url)
    frag = client.get(url, headers=HX)
    assert frag.status_code == 200
    assert "<html" not in frag.text and 'class="stepper"' in frag.text
    assert what(frag.text) == what(full.text)  # the URL alone fixes the state
    assert 'rel="next"' in frag.text and "step=5" in frag.text
    assert 'aria-current="step"' in frag.text  # a pseudocode line is current


def test_encode_bert_and_visualiser_link(client):
    # The visualiser links each chip of a WordPiece tokeniser to this URL.
    r = client.get("/wordpiece/encode?vocab=bert-base-uncased&text=tokenization&step=999")
    assert r.status_code == 200
    final = re.search(r'data-testid="final">(.*?)</p>', r.text, re.S).group(1)
    assert re.findall(r">([^<]+)</code>", final) == ["token", "##ization"]


def test_encode_trained_handle(client):
    r = client.post(
        "/api/train", json={"algorithm": "wordpiece", "corpus_name": "udhr/eng", "vocab_size": 300}
    )
    assert r.status_code in (200, 201), r.text
    handle = r.json()["tokenizer"]
    page = client.get(f"/wordpiece/encode?vocab={handle}&text=freedom&step=999")
    assert page.status_code == 200 and 'data-testid="final"' in page.text


def test_encode_custom_vocab_permalink(client):
    vocab = "[UNK]\nab\n##c"
    url = f"/wordpiece/encode?vocab=small&vocab_text={quote(vocab)}&text=abc&step=999"
    r = client.get(url)
    assert r.status_code == 200
    assert "vocab_text=%5BUNK%5D%0Aab%0A%23%23c" in r.text  # carried in the step links
    assert re.findall(
        r">([^<]+)</code>", re.search(r'data-testid="final">(.*?)</p>', r.text, re.S).group(1)
    ) == ["ab", "##c"]


@pytest.mark.parametrize(
    "query, status, message",
    [
        ("vocab=small&vocab_text=play%0A%23%23ing&text=playing", 422, "no unknown token"),
        ("vocab=small&vocab_text=%5BUNK%5D%0Aa%0Aa&text=a", 422, "repeats"),
        ("vocab=no-such-thing&text=a", 404, "unknown tokeniser"),
        ("vocab=cl100k_base&text=a", 422, "WordPiece"),
    ],
)
def test_encode_bad_input(client, query, status, message):
    r = client.get(f"/wordpiece/encode?{query}")
    assert r.status_code == status
    assert message in r.text and 'role="alert"' in r.text
    assert 'name="text"' in r.text  # the form is still there


def test_encode_bad_input_keeps_the_vocab(client):
    r = client.get("/wordpiece/encode?vocab=small&vocab_text=mine%0A%23%23only&text=xyz")
    assert r.status_code == 422
    assert "mine\n##only</textarea>" in r.text and 'value="xyz"' in r.text


def test_encode_steps_api(client):
    r = client.get("/api/wordpiece/encode_steps?text=playing")
    assert r.status_code == 200
    data = r.json()
    assert data["words"] == [["playing", 0, 7]]
    assert data["steps"][-1]["kind"] == "wordpiece_probe" and data["steps"][-1]["found"]
    assert client.get("/api/wordpiece/encode_steps?text=a&vocab=nope").status_code == 404
    bad = client.get("/api/wordpiece/encode_steps?text=a&vocab=small&vocab_text=a")
    assert bad.status_code == 422 and "unknown token" in bad.json()["detail"]


def test_autoescape(client):
    r = client.get(
        "/wordpiece/encode?vocab=bert-base-uncased&text=%3Cscript%3Ealert(1)%3C/script%3E&step=3"
    )
    assert r.status_code == 200 and "<script>alert(1)" not in r.text


# ---- training --------------------------------------------------------------------------------
def test_train_default_page(client):
    r = client.get("/wordpiece/train")
    assert r.status_code == 200
    for part in (
        'data-testid="word-table"',
        'data-testid="pair-table"',
        "BPE would pick",
        "WordPiece training",
        "newest",
    ):
        assert part in r.text


def test_train_step_shows_the_merge_and_bpe(client):
    r = client.get("/wordpiece/train?step=1")
    assert r.status_code == 200
    assert "Merged" in what(r.text) and "was the best score" in what(r.text)
    assert 'data-testid="new-symbol"' in r.text and 'data-testid="merge-list"' in r.text
    assert 'class="changed"' in r.text


def test_train_fragment_and_permalink(client):
    url = "/wordpiece/train?corpus=udhr/eng&vocab_size=300&step=7"
    full, frag = client.get(url), client.get(url, headers=HX)
    assert frag.status_code == 200 and "<html" not in frag.text
    assert what(frag.text) == what(full.text)
    again = client.get(url, headers=HX)  # from the checkpoints
    assert again.text == frag.text


def test_train_matches_the_library(client):
    import tokenizers_core as tc
    from tokenizers_core.corpora import load_corpus

    tok = tc.train("wordpiece", load_corpus("udhr/eng").splitlines(), vocab_size=300)
    a, b = tok.model.merges[2]
    r = client.get("/wordpiece/train?corpus=udhr/eng&vocab_size=300&step=3")
    assert f"“{a}” + “{b}”" in what(r.text).replace("&#34;", '"')


def test_train_edit_corpus_redirects_to_permalink(client):
    r = client.post(
        "/wordpiece/train",
        data={"corpus_text": "xz xz th th th the", "vocab_size": "30"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    location = r.headers["location"]
    assert re.match(r"/wordpiece/train\?corpus=[0-9a-f]{64}&vocab_size=30$", location)
    page = client.get(location + "&step=1")
    assert page.status_code == 200 and "Merged" in what(page.text)


@pytest.mark.parametrize(
    "query, status, message",
    [
        ("vocab_size=0", 422, "vocab_size must be"),
        ("min_frequency=-1", 422, "min_frequency"),
        ("corpus=nonexistent", 404, "unknown corpus"),
        ("corpus=" + "0" * 64, 404, "no stored corpus"),
    ],
)
def test_train_bad_input(client, query, status, message):
    r = client.get(f"/wordpiece/train?{query}")
    assert r.status_code == status and message in r.text and 'role="alert"' in r.text


def test_train_empty_corpus_keeps_form(client):
    r = client.post("/wordpiece/train", data={"corpus_text": "   ", "vocab_size": "30"})
    assert r.status_code == 422 and "empty" in r.text and 'name="corpus_text"' in r.text


def test_train_non_number_is_4xx(client):
    assert client.get("/wordpiece/train?vocab_size=lots").status_code == 422
    assert client.get("/wordpiece/encode?step=x").status_code == 422


def test_visualiser_chips_link_here(client):
    """A chip's popover on the visualiser links to this page (chip 1: [CLS] is chip 0)."""
    form = {"tokenizer": "bert-base-uncased", "text": "Tokenization rocks", "i": 1}
    r = client.post("/visualiser/token", data=form)
    assert r.status_code == 200
    assert (
        "/wordpiece/encode?vocab=bert-base-uncased&amp;text=Tokenization" in r.text
    )  # the word as typed; the page normalises it


def test_train_steps_api(client):
    r = client.get("/api/wordpiece/train_steps?vocab_size=30")
    assert r.status_code == 200
    steps = r.json()["steps"]
    assert steps and steps[0]["kind"] == "wordpiece_merge"
    assert {"pair", "new_symbol", "count", "freq_left", "freq_right", "bpe_pair"} <= steps[0].keys()
    assert client.get("/api/wordpiece/train_steps?vocab_size=0").status_code == 422
    assert client.get("/api/wordpiece/train_steps?corpus=nope").status_code == 404


def test_wordpiece_scores_share_one_notation_and_the_bpe_pick_sits_in_the_pair_cell(client):
    html = client.get("/wordpiece/train", params={"step": 3}).text
    table = html.split('data-testid="pair-table"', 1)[1].split("</table>", 1)[0]
    scores = re.findall(r'<td class="num score">([^<]*)</td>', table)
    assert scores and all(re.fullmatch(r"\d\.\d{3}e[-+]\d\d", s) for s in scores), scores
    assert "<th><abbr" not in table  # no narrow trailing BPE column to clip
    assert 'style="' not in html


def test_an_error_answering_htmx_is_the_message_alone(client):
    """An error from the app's handlers (here a parameter that does not parse) lands where the
    htmx request's answer would: the message, not a whole page inside the page."""
    r = client.get("/wordpiece/train?vocab_size=lots", headers={"HX-Request": "true"})
    assert r.status_code == 422 and 'data-testid="error"' in r.text and "<html" not in r.text
    full = client.get("/wordpiece/train?vocab_size=lots")
    assert full.status_code == 422 and "<html" in full.text


# ---- training on a counts file (`tokvis count --algorithm wordpiece`) ------------------------
def _upload_counts(client, data: bytes, **form):
    return client.post(
        "/wordpiece/train/counts",
        files={"file": ("small.counts", data)},
        data=form,
        follow_redirects=False,
    )


def _tables(page_html: str) -> list[str]:
    """Step k as the page shows it: the sentence, the word table, the pairs by score and the
    merges so far."""
    merges = page_html.split("Merges so far", 1)[1].split("</div>", 1)[0]
    return [what(page_html), merges] + [
        page_html.split(f'data-testid="{name}"', 1)[1].split("</table>", 1)[0]
        for name in ("word-table", "pair-table")
    ]


def test_train_on_a_counts_file_shows_the_steps_of_the_text(store_client):
    """The upload is stored by its digest; `?counts=SHA256` opens the same merges, word
    table and pair scores as the same training on the text, the downloads left out (they
    train on a corpus)."""
    import tokenizers_core as tc
    from tokenizers_core.corpora import load_corpus

    client = store_client
    assert 'action="/wordpiece/train/counts"' in client.get("/wordpiece/train").text
    text = "\n".join(load_corpus("botchan").splitlines()[:300])
    corpus = client.post("/api/corpora", json={"text": text}).json()["sha256"]
    answer = _upload_counts(
        client, tc.count(text.splitlines(), "wordpiece").to_bytes(), vocab_size="250"
    )
    assert answer.status_code == 303
    where = answer.headers["location"]
    assert re.match(r"/wordpiece/train\?counts=[0-9a-f]{64}&vocab_size=250$", where)
    for k in (0, 1, 20, 120):
        from_counts = client.get(f"{where}&step={k}")
        on_text = client.get(
            "/wordpiece/train", params={"corpus": corpus, "vocab_size": 250, "step": k}
        )
        assert from_counts.status_code == on_text.status_code == 200
        assert _tables(from_counts.text) == _tables(on_text.text)
    assert 'data-testid="counts-info"' in from_counts.text
    assert "/api/download/wordpiece" not in from_counts.text
    assert "/api/download/wordpiece" in on_text.text
    page = client.get(f"{where}&step=20&page=1", headers=HX)  # the word table's next page
    assert page.status_code == 200 and "counts=" in page.text


def test_train_on_counts_refuses_what_it_cannot_train(store_client, monkeypatch):
    import html

    import tokenizers_core as tc

    client = store_client
    lines = ["low lower newest widest", "low low lower"]
    answer = _upload_counts(client, tc.count(lines, "byte_bpe").to_bytes())
    assert answer.status_code == 422
    assert "these counts were made for byte_bpe, and cannot train wordpiece" in html.unescape(
        answer.text
    )
    assert _upload_counts(client, b"low lower\n").status_code == 422  # not a counts file
    page = client.get("/wordpiece/train", params={"counts": "0" * 64})
    assert page.status_code == 404 and "no stored counts file" in page.text
    corpus = client.post("/api/corpora", json={"text": "low lower"}).json()["sha256"]
    assert client.get("/wordpiece/train", params={"counts": corpus}).status_code == 422
    wordpiece = tc.count(lines, "wordpiece").to_bytes()
    assert _upload_counts(client, wordpiece, vocab_size="0").status_code == 422
    from app.services import counted

    monkeypatch.setattr(counted, "MAX_VIEW_WORDS", 3)
    answer = _upload_counts(client, wordpiece)
    assert answer.status_code == 413 and "tokvis train NAME --from-counts" in answer.text
