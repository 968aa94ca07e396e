"""The notes of /corpora and /sweep: /corpora gives each bundled corpus its size, and the sweep
says why WordPiece needs more tokens per word than BPE when both are in it."""

from __future__ import annotations

from tokenizers_core.corpora import corpus_names, load_corpus


def test_the_bundled_corpora_are_listed_with_their_sizes(client):
    page = client.get("/corpora").text
    table = page.split('data-testid="bundled-corpora"')[1].split("</table>")[0]
    assert table.count("<tr>") == len(corpus_names()) + 1  # and the header
    botchan_lines = load_corpus("botchan").count("\n")
    assert "botchan" in table and f"{botchan_lines:,}" in table and "udhr/all" in table


def test_the_sweep_says_why_wordpiece_needs_more_tokens_and_measures_bytes(client):
    from tests.polling import wait_until

    spec = {"corpus": "udhr/fra", "heldout": "udhr/eng", "algorithms": ["bpe", "wordpiece"],
            "sizes": [200]}  # fmt: skip
    started = client.post("/api/sweep", json=spec)
    assert started.status_code == 202
    job_id = started.json()["id"]
    job = wait_until(
        lambda: (j := client.get(f"/api/sweep/{job_id}").json())["status"] not in
        ("queued", "running") and j,
        timeout=180,
    )  # fmt: skip
    assert job["status"] == "done"
    assert all(r["bytes_per_token"] > 1 for r in job["results"])
    query = {"corpus": "udhr/fra", "heldout": "udhr/eng", "algo": ["bpe", "wordpiece"],
             "sizes": "200"}  # fmt: skip
    page = client.get("/sweep", params=query).text
    assert 'data-testid="why-wordpiece"' in page and "bytes/token" in page
