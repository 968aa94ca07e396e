"""Compare, tax, Unicode lab and sweep pages and their JSON endpoints (TestClient)."""

from __future__ import annotations

import re
import time

import pytest

from app.services.compare import MAX_COLUMNS
from tokenizers_core import pretrained

SMALL = (
    "low low low low low lower lower newest newest newest newest newest newest "
    "widest widest widest\n"
) * 3


@pytest.fixture(scope="module")
def small_corpus(client) -> str:
    return client.post("/api/corpora", json={"text": SMALL}).json()["sha256"]


def metric(html: str, name: str) -> list[int]:
    return [int(v) for v in re.findall(rf'data-metric="{name}">(\d+)<', html)]


def test_compare_bundled_columns_with_metrics_and_marks(client):
    r = client.get(
        "/compare", params={"text": "Dr. Who left.", "col": ["word", "char", "sentence"], "ref": 0}
    )
    assert r.status_code == 200
    # word: Dr . Who left . = 5; char: 13; sentence: 1
    assert metric(r.text, "tokens") == [5, 13, 1]
    # char cuts inside words where word does not: D, r, W, h, o, l, e, f, t each have a cut
    # the word tokeniser lacks -> 9 differ; sentence's cuts (0 and 13) are all word cuts
    assert metric(r.text, "differs") == [9, 0]
    assert 'class="chip chip-0 differs"' not in r.text.split('data-col="1"')[0]


def test_compare_fragment_and_permalink(client):
    params = {"text": "naïve café", "col": ["word", "char"]}
    frag = client.get("/compare", params=params, headers={"HX-Request": "true"})
    assert "<html" not in frag.text and "compare-col" in frag.text
    full = client.get("/compare", params=params)
    assert "naïve café</textarea>" in full.text


def test_trained_column_is_a_placeholder_then_trains(client, small_corpus):
    params = {
        "text": "lowest widest",
        "col": ["bpe", "word"],
        "corpus": small_corpus,
        "vocab": 40,
        "ref": 1,
    }
    page = client.get("/compare", params=params)
    assert page.status_code == 200 and "/compare/column?" in page.text and "training" in page.text
    col = client.get("/compare/column", params={**params, "i": 0}, headers={"HX-Request": "true"})
    assert col.status_code == 200 and metric(col.text, "tokens")
    # now cached: the page renders the column directly
    again = client.get("/compare", params=params)
    assert "/compare/column?" not in again.text and len(metric(again.text, "tokens")) == 2


def test_compare_api(client, small_corpus):
    r = client.get(
        "/api/compare",
        params={
            "text": "lowest",
            "col": ["bpe", "char"],
            "corpus": small_corpus,
            "vocab": 40,
            "ref": 1,
        },
    )
    assert r.status_code == 200
    bpe, char = r.json()
    assert char["tokens"] == list("lowest") and char["differs"] == []
    assert "".join(t.replace("</w>", "") for t in bpe["tokens"]) == "lowest"
    assert bpe["metrics"]["tokens"] == len(bpe["tokens"])


def test_compare_bad_input(client):
    r = client.get("/compare", params={"text": "x", "col": ["nope", "word"]})
    assert r.status_code == 200 and "unknown tokeniser" in r.text  # one column fails, not the page
    r = client.get("/compare", params={"text": "x", "col": ["word"], "vocab": 0})
    assert r.status_code == 422 and "vocab size" in r.text
    r = client.get("/compare", params={"text": "x", "col": ["word"] * (MAX_COLUMNS + 1)})
    assert r.status_code == 422 and "at most" in r.text
    r = client.get(
        "/api/compare", params={"text": "x", "col": ["bpe"], "corpus": "nope", "vocab": 50}
    )
    assert r.status_code == 200 and "unknown corpus" in r.json()[0]["error"]


def test_tax_page_and_api(client):
    r = client.get("/api/tax", params={"tok": ["bert-base-uncased"]})
    assert r.status_code == 200
    body = r.json()
    assert len(body["languages"]) == 33
    rel = body["relative_to_english"]["bert-base-uncased"]
    assert rel["eng"] == 1.0 and rel["amh"] > 1.0
    rtl = {l["code"] for l in body["languages"] if l["direction"] == "rtl"}
    assert "arb" in rtl
    page = client.get("/tax", params={"tok": ["bert-base-uncased"]})
    assert page.status_code == 200 and "<svg" in page.text and 'dir="rtl"' in page.text
    assert "English = 1" in page.text
    assert client.get("/tax", params={"tok": ["nope"]}).status_code == 404


def test_unicode_lab(client):
    r = client.get("/unicode", params={"text": "\ufb01ne", "tok": ["word"]})
    assert r.status_code == 200
    assert "U+FB01" in r.text and "latin small ligature fi" in r.text
    body = client.get("/api/unicode", params={"text": "\ufb01ne", "tok": ["char"]}).json()
    forms = {f["form"]: f for f in body}
    assert forms["NFC"]["text"] == "\ufb01ne" and forms["NFKC"]["text"] == "fine"
    assert forms["NFKC"]["tokenizations"][0]["count"] == 4
    assert forms["original"]["tokenizations"][0]["count"] == 3
    decomposed = {
        f["form"]: f for f in client.get("/api/unicode", params={"text": "cafe\u0301"}).json()
    }
    assert decomposed["NFC"]["chars"] == 4 and decomposed["NFD"]["chars"] == 5
    assert client.get("/unicode", params={"text": "x", "tok": ["nope"]}).status_code == 404


def wait_job(client, job_id, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/api/sweep/{job_id}").json()
        if job["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


def test_sweep_runs_and_bpe_never_gets_worse_with_more_merges(client, small_corpus):
    r = client.post(
        "/api/sweep",
        json={
            "corpus": small_corpus,
            "heldout": small_corpus,
            "algorithms": ["bpe"],
            "sizes": [20, 25, 30, 40],
        },
    )
    assert r.status_code == 202
    job = wait_job(client, r.json()["id"])
    assert job["status"] == "done" and job["done"] == 4
    tpw = [row["tokens_per_word"] for row in job["results"]]
    # a BPE model with more merges applies the same merges and more: never more tokens
    assert tpw == sorted(tpw, reverse=True) and tpw[0] > tpw[-1]
    page = client.get(
        "/sweep",
        params={
            "corpus": small_corpus,
            "heldout": small_corpus,
            "algo": ["bpe"],
            "sizes": "20,25,30,40",
        },
    )
    assert page.status_code == 200 and "<svg" in page.text and "tokens per word" in page.text


def test_sweep_can_be_cancelled(client):
    r = client.post(
        "/api/sweep",
        json={
            "corpus": "botchan",
            "heldout": "udhr/eng",
            "algorithms": ["bpe"],
            "sizes": [3000, 3100, 3200, 3300],
        },
    )
    job_id = r.json()["id"]
    assert client.delete(f"/api/sweep/{job_id}").status_code == 200
    job = wait_job(client, job_id)
    assert job["status"] == "cancelled" and job["done"] < 4


def test_sweep_bad_input(client):
    r = client.post("/api/sweep", json={"algorithms": ["nope"], "sizes": [10]})
    assert r.status_code == 422 and "unknown algorithm" in r.json()["detail"]
    r = client.post("/api/sweep", json={"algorithms": ["bpe"], "sizes": [1]})
    assert r.status_code == 422
    r = client.get("/sweep", params={"sizes": "ten"})
    assert r.status_code == 422 and "whole numbers" in r.text
    assert client.get("/api/sweep/nope").status_code == 404
    r = client.post(
        "/sweep/run", data={"corpus": "nope", "heldout": "udhr/eng", "algo": ["bpe"], "sizes": "50"}
    )
    assert r.status_code == 422 and "unknown corpus" in r.text


def test_columns_wait_for_a_reference_that_is_still_training(client, small_corpus):
    params = {
        "text": "lowest newer",
        "col": ["word", "bpe"],
        "corpus": small_corpus,
        "vocab": 45,
        "ref": 1,
    }
    page = client.get("/compare", params=params)
    # the word column cannot be compared yet: it is a placeholder too, not "differs 0"
    assert page.text.count("/compare/column?") == 2 and "differs" not in page.text
    col = client.get("/compare/column", params={**params, "i": 0}, headers={"HX-Request": "true"})
    assert metric(col.text, "differs") and metric(col.text, "tokens") == [2]


def test_compare_fragment_sends_the_column_picker_out_of_band(client):
    """The Reference dropdown lists exactly the ticked columns after every change (issue 13)."""
    r = client.get(
        "/compare",
        params={"text": "x", "col": ["word", "char", "cl100k_base"], "ref": 2},
        headers={"HX-Request": "true"},
    )
    picker = r.text.split('id="compare-cols"', 1)[1].split("</fieldset>", 1)[0]
    assert 'hx-swap-oob="true"' in picker
    assert picker.count("<option") == 3 and '<option value="2" selected>3. cl100k_base' in picker
    r = client.get(
        "/compare", params={"text": "x", "col": ["word"], "ref": 2}, headers={"HX-Request": "true"}
    )
    assert '<option value="0" selected>1. word' in r.text  # the reference was unticked


@pytest.mark.heavy
def test_compare_form_disables_a_column_past_the_most(client):
    full = [n for n in pretrained.bundled()][:MAX_COLUMNS]
    html = client.get("/compare", params={"text": "x", "col": full}).text
    picker = html.split('id="compare-cols"', 1)[1].split("</fieldset>", 1)[0]
    assert picker.count(" checked") == MAX_COLUMNS and " disabled" in picker
    assert "untick one to add another" in picker
    assert 'data-testid="cols-full" hidden' not in picker


def test_chips_show_the_tokens_a_normaliser_made_with_the_text_on_hover(client):
    """BERT uncased reads "Café Llama" as `cafe`, `ll`, `##ama`: its chips say so (not the
    input's "Café", "Ll"), and the hover names the characters they came from."""
    page = client.get("/compare", params={"text": "Café Llama", "col": ["bert-base-uncased"]}).text
    labels = re.findall(r'<span class="tok">([^<]*)</span>', page)
    assert labels == ["[CLS]", "cafe", "ll", "ama", "[SEP]"]
    assert "from the text Café" in page and "from the text Ll" in page
    visualiser = client.get("/", params={"text": "Café", "tokenizer": "bert-base-uncased"}).text
    assert '<span class="tok">cafe</span>' in visualiser and "from the text “Café”" in visualiser
