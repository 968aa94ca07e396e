"""/tax, /unicode and /sweep, the analytics pages, and their JSON endpoints: the tokenisation tax
names its tokenisers in the boxes and the heads and keeps every column; the Unicode lab shows
byte-level tokens as text; a sweep runs, can be cancelled and refuses bad input."""

from __future__ import annotations

import re
import time

import pytest


# ---- /tax --------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_tax_names_its_tokenisers_in_the_boxes_and_the_heads(client):
    html = client.get("/tax").text
    form = html.split('class="panel tax-form"', 1)[1].split("</form>", 1)[0]
    assert "GPT-2 (r50k_base, byte-level BPE)</label>" in form
    assert "BERT base uncased (WordPiece)</label>" in form
    assert "> r50k_base</label>" not in form  # not the raw id alone
    head = re.search(r'<th class="num tok-head[^"]*" data-tok="cl100k_base".*?</th>', html).group(0)
    assert '<span class="head-name">GPT-4</span>' in head
    assert '<span class="head-id">cl100k_base</span>' in head
    assert 'title="GPT-4 (cl100k_base, byte-level BPE): sort by it' in head
    assert "<wbr>" not in html  # the heads are not broken at underscores or hyphens


def test_tax_says_the_table_scrolls_sideways(client):
    html = client.get("/tax", params=[("tok", "r50k_base"), ("tok", "clip")]).text
    assert 'data-testid="scroll-hint"' in html and "scroll the table sideways" in html
    hint = html.index('data-testid="scroll-hint"')
    assert hint < html.index('<div class="tax-scroll">') < html.index("<table")


def test_line_chart_labels_never_overlap():
    from app.charts import MIN_TICK_GAP, line_chart

    chart = line_chart(
        {"nats per word": [(300, 9), (330, 9), (370, 8), (498, 9), (1980, 9)]},
        x_label="vocab",
        y_label="nats",
    )
    xs = [x for x, _ in chart.x_ticks]
    assert all(b - a >= MIN_TICK_GAP for a, b in zip(xs, xs[1:]))
    assert chart.x_ticks[0][1] == "300" and chart.x_ticks[-1][1] == "1980"


@pytest.mark.heavy
def test_tax_table_keeps_every_column_and_the_unk_badge_whole(client):
    html = client.get("/tax").text
    assert 'class="num tok-head"' in html and "unk-badge" in html
    assert 'style="' not in html


def test_unicode_lab_shows_byte_level_tokens_as_text(client):
    html = client.get("/unicode", params={"text": "café naïve", "tok": "cl100k_base"}).text
    pieces = re.findall(r'<li class="piece[^"]*"[^>]*>([^<]*)</li>', html)
    assert pieces and not any(c in p for p in pieces for c in "ĠÃ"), pieces
    assert "·na" in "".join(pieces) or "·naïve" in pieces


SMALL = (
    "low low low low low lower lower newest newest newest newest newest newest "
    "widest widest widest\n"
) * 3


@pytest.fixture(scope="module")
def small_corpus(client) -> str:
    return client.post("/api/corpora", json={"text": SMALL}).json()["sha256"]


def test_tax_page_and_api(client):
    r = client.get("/api/tax", params={"tok": ["bert-base-uncased"]})
    assert r.status_code == 200
    body = r.json()
    assert len(body["languages"]) == 33
    rel = body["relative_to_english"]["bert-base-uncased"]
    assert rel["eng"] == 1.0 and rel["amh"] > 1.0
    rtl = {lang["code"] for lang in body["languages"] if lang["direction"] == "rtl"}
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
