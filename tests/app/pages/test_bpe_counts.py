"""/bpe/train on uploaded counts files (`tokvis count`), for BPE and its family: the upload
is stored by its digest and the view opens at `?counts=SHA256&variant=...`, a permalink any
worker (and a restarted server) reopens; the steps are those of training on the text the
counts were made from: bpe and byte_bpe's merges, pair and word tables; picky_bpe's merges,
IoS and removals (byte_bpe counts); parity_bpe's merges, language bars and Gini (one byte_bpe
counts file per language, named by the file or a field). Refusals: counts made for another
algorithm (a 422 with the core's reason), superbpe (a 422: its stage 2 needs the lines),
counts too large for the view (a 413 that names `tokvis train --from-counts`), an unknown
digest (404)."""

from __future__ import annotations

import html
import re

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus

SMALL = "\n".join(load_corpus("botchan").splitlines()[:300])  # trains within the request


def _upload_counts(client, data: bytes, **form):
    return client.post(
        "/bpe/train/counts",
        files={"file": ("small.counts", data)},
        data=form,
        follow_redirects=False,
    )


def _merges_and_pairs(page_html: str) -> tuple[list[str], str]:
    merges = re.findall(r'<li value="\d+"><code>.*?</li>', page_html)
    pairs = page_html.split('data-testid="pair-table"', 1)[1].split("</table>", 1)[0]
    return merges, pairs


@pytest.mark.parametrize("variant, vocab_size", [("byte_bpe", 330), ("bpe", 200)])
def test_the_training_view_on_a_counts_file_shows_the_steps_of_the_text(
    client, variant, vocab_size
):
    corpus = client.post("/api/corpora", json={"text": SMALL}).json()["sha256"]
    data = tc.count(SMALL.splitlines(), variant).to_bytes()
    answer = _upload_counts(client, data, vocab_size=str(vocab_size))
    assert answer.status_code == 303
    where = answer.headers["location"]
    assert f"variant={variant}" in where and "counts=" in where
    for k in (1, 25, 60):
        from_counts = client.get(f"{where}&step={k}")
        on_text = client.get(
            "/bpe/train",
            params={"corpus": corpus, "variant": variant, "vocab_size": vocab_size, "step": k},
        )
        assert from_counts.status_code == on_text.status_code == 200
        assert _merges_and_pairs(from_counts.text) == _merges_and_pairs(on_text.text)
        assert f'<li value="{k}">' in _merges_and_pairs(from_counts.text)[0][0]  # (newest first)
    assert 'data-testid="counts-info"' in from_counts.text
    assert "/api/download/bpe/train" not in from_counts.text  # (those train on a corpus)


def test_a_counts_file_survives_a_restart_of_the_server(client, settings):
    from fastapi.testclient import TestClient

    from app.main import create_app

    data = tc.count(SMALL.splitlines(), "byte_bpe").to_bytes()
    where = _upload_counts(client, data).headers["location"]
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as again:
        page = again.get(f"{where}&vocab_size=290&step=3")  # (not the cached run: read back)
    assert page.status_code == 200
    assert len(_merges_and_pairs(page.text)[0]) == 3  # (at most 40 are listed)


def test_counts_the_view_cannot_train_are_refused_with_the_reason(client):
    wordpiece = tc.count(SMALL.splitlines(), "wordpiece").to_bytes()
    answer = _upload_counts(client, wordpiece)
    assert answer.status_code == 422
    assert "these counts were made for wordpiece" in html.unescape(answer.text)
    answer = _upload_counts(client, b"low lower newest\n")
    assert answer.status_code == 422
    assert "is not a tokvis counts file" in answer.text
    byte = tc.count(SMALL.splitlines(), "byte_bpe").to_bytes()
    where = _upload_counts(client, byte).headers["location"]
    page = client.get(where.replace("variant=byte_bpe", "variant=bpe"))
    assert page.status_code == 422
    assert "these counts were made for byte_bpe, and cannot train bpe" in page.text
    page = client.get("/bpe/train", params={"counts": "0" * 64})
    assert page.status_code == 404
    assert "no stored counts file" in page.text
    corpus = client.post("/api/corpora", json={"text": SMALL}).json()["sha256"]
    assert client.get("/bpe/train", params={"counts": corpus}).status_code == 422


def test_counts_too_large_for_the_view_say_where_to_train_them(client, monkeypatch):
    from app.services import counted

    monkeypatch.setattr(counted, "MAX_VIEW_WORDS", 100)
    answer = _upload_counts(client, tc.count(SMALL.splitlines(), "bpe").to_bytes())
    assert answer.status_code == 413
    assert "tokvis train NAME --from-counts FILE" in answer.text


# ---- the BPE family on counts: picky_bpe and parity_bpe -----------------------------------------
def _family_regions(page_html: str) -> list[str]:
    """What the family's view shows of step k: the sentence, the vocabulary line, the
    variant's panel and the merges so far (parity_bpe's panel heading names what it measures
    on, which counts say in their own words: left out)."""
    regions = [
        re.search(r'data-testid="what">(.*?)</p>', page_html, re.S).group(1),
        re.search(r'data-testid="family-vocab">(.*?)</p>', page_html, re.S).group(1),
        page_html.split('data-testid="family-merges"', 1)[1].split("</ol>", 1)[0],
    ]
    if 'data-testid="picky-panel"' in page_html:
        regions.append(page_html.split('data-testid="picky-panel"', 1)[1].split("</ol>", 1)[0])
    else:
        regions.append(page_html.split('data-testid="lang-bars"', 1)[1].split("</ol>", 1)[0])
        regions.append(page_html.split('data-testid="gini-curve"', 1)[1].split("</svg>", 1)[0])
    return regions


def test_picky_bpe_on_a_byte_bpe_counts_file_shows_the_merges_and_removals_of_the_text(
    store_client,
):
    """The family's form sends the variant and the threshold with the file; step k shows
    the same merge, IoS bars and removals as the same training on the text."""
    client = store_client
    form = client.get("/bpe/train", params={"variant": "picky_bpe"}).text
    assert 'data-testid="counts-form"' in form and 'name="variant" value="picky_bpe"' in form
    corpus = client.post("/api/corpora", json={"text": SMALL}).json()["sha256"]
    data = tc.count(SMALL.splitlines(), "byte_bpe").to_bytes()
    answer = _upload_counts(client, data, variant="picky_bpe", vocab_size="600", threshold="0.8")
    assert answer.status_code == 303
    where = answer.headers["location"]
    assert "variant=picky_bpe" in where and "counts=" in where and "threshold=0.8" in where
    params = {"corpus": corpus, "variant": "picky_bpe", "vocab_size": 600, "threshold": 0.8}
    for k in (0, 1, 40, 200, 362):
        from_counts = client.get(f"{where}&step={k}")
        on_text = client.get("/bpe/train", params={**params, "step": k})
        assert from_counts.status_code == on_text.status_code == 200
        assert _family_regions(from_counts.text) == _family_regions(on_text.text)
    assert "freed)" in from_counts.text  # (the run removes tokens: the removals compared too)
    assert 'data-testid="counts-info"' in from_counts.text
    assert 'data-testid="stop-reason"' in from_counts.text  # (362 is the run's last merge)
    step = re.search(r'href="([^"]*step=41[^"]*)"', client.get(f"{where}&step=40").text)
    assert "counts=" in html.unescape(step.group(1))  # the stepper keeps to the counts


def _head(text: str, chars: int = 6000) -> list[str]:
    """The first lines of `text`, about `chars` characters (three such train within the
    request, so the view on the text does not wait on the job pool)."""
    return text[:chars].rsplit("\n", 1)[0].splitlines()


def test_parity_bpe_on_one_counts_file_per_language_shows_the_steps_of_the_text(store_client):
    """Each file's name is its language (eng.counts), or the `language` fields say it; the
    view on them is the view on the same text tagged "code<TAB>line"."""
    client = store_client
    texts = {code: _head(load_corpus(f"udhr/{code}")) for code in ("eng", "fra", "rus")}
    tagged = "\n".join(f"{code}\t{line}" for code, lines in texts.items() for line in lines)
    corpus = client.post("/api/corpora", json={"text": tagged}).json()["sha256"]
    files = [
        ("file", (f"{code}.counts", tc.count(lines, "byte_bpe").to_bytes()))
        for code, lines in texts.items()
    ]
    answer = client.post(
        "/bpe/train/counts",
        files=files,
        data={"variant": "parity_bpe", "vocab_size": "700"},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    where = answer.headers["location"]
    params = {"corpus": corpus, "variant": "parity_bpe", "vocab_size": 700}
    assert len(tagged) <= 20_000
    for k in (1, 30, 150):
        from_counts = client.get(f"{where}&step={k}")
        on_text = client.get("/bpe/train", params={**params, "step": k})
        assert from_counts.status_code == on_text.status_code == 200
        assert _family_regions(from_counts.text) == _family_regions(on_text.text)
    info = re.search(r'data-testid="counts-info">(.*?)</p>', from_counts.text, re.S).group(1)
    assert "3 languages (eng, fra, rus)" in info
    named = client.post(
        "/bpe/train/counts",
        files=[("file", ("a.counts", files[0][1][1])), ("file", ("b.counts", files[1][1][1]))],
        data={"variant": "parity_bpe", "language": ["eng", "fra"]},
        follow_redirects=False,
    )
    assert named.status_code == 303
    page = client.get(named.headers["location"])
    assert "2 languages (eng, fra)" in page.text
    assert client.get(where.replace("parity_bpe", "picky_bpe")).status_code == 422  # (a set)


def test_the_family_refuses_what_it_cannot_train_from_counts(store_client, monkeypatch):
    client = store_client
    byte = tc.count(SMALL.splitlines(), "byte_bpe").to_bytes()
    answer = _upload_counts(client, byte, variant="superbpe")
    assert answer.status_code == 422
    assert "superbpe cannot train from counts: its stage 2" in html.unescape(answer.text)
    assert (
        'data-testid="counts-form"'
        not in client.get("/bpe/train", params={"variant": "superbpe"}).text
    )
    where = _upload_counts(client, byte, variant="picky_bpe").headers["location"]
    page = client.get(where.replace("picky_bpe", "superbpe"))
    assert page.status_code == 422 and "superbpe cannot train from counts" in page.text
    page = client.get(where.replace("picky_bpe", "parity_bpe"))  # one file, not a set
    assert page.status_code == 422 and "one counts file per language" in page.text
    bpe = tc.count(SMALL.splitlines(), "bpe").to_bytes()
    answer = _upload_counts(client, bpe, variant="picky_bpe")
    assert answer.status_code == 422
    assert "these counts were made for bpe, and cannot train picky_bpe" in answer.text
    mixed = [("file", ("eng.counts", byte)), ("file", ("fra.counts", bpe))]
    answer = client.post(
        "/bpe/train/counts", files=mixed, data={"variant": "parity_bpe"}, follow_redirects=False
    )
    assert answer.status_code == 422
    assert "these counts were made for bpe, and cannot train parity_bpe" in answer.text
    for names, why in [
        ({"language": ["eng"]}, "2 counts files and 1 languages"),
        ({"language": ["eng", "eng"]}, "two counts files for the language 'eng'"),
        ({"language": ["eng", "a b"]}, "does not name a language"),
    ]:
        pair = [("file", ("x.counts", byte)), ("file", ("y.counts", byte))]
        answer = client.post(
            "/bpe/train/counts",
            files=pair,
            data={"variant": "parity_bpe", **names},
            follow_redirects=False,
        )
        assert answer.status_code == 422 and why in html.unescape(answer.text)
    two = [("file", ("x.counts", byte)), ("file", ("y.counts", byte))]
    answer = client.post(
        "/bpe/train/counts", files=two, data={"variant": "picky_bpe"}, follow_redirects=False
    )
    assert answer.status_code == 422 and "one counts file, not 2" in answer.text
    page = client.get("/bpe/train", params={"variant": "parity_bpe", "counts": "0" * 64})
    assert page.status_code == 404
    from app.services import counted

    monkeypatch.setattr(counted, "MAX_VIEW_WORDS", 1000)  # each is under it, not both
    eng = tc.count(load_corpus("udhr/eng").splitlines(), "byte_bpe").to_bytes()
    fra = tc.count(load_corpus("udhr/fra").splitlines(), "byte_bpe").to_bytes()
    answer = client.post(
        "/bpe/train/counts",
        files=[("file", ("eng.counts", eng)), ("file", ("fra.counts", fra))],
        data={"variant": "parity_bpe"},
        follow_redirects=False,
    )
    assert answer.status_code == 413 and "tokvis train NAME --from-counts" in answer.text
