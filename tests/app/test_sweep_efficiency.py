"""/sweep shows Renyi efficiency (Zouhar et al. 2023) beside tokens per word, for each vocab
size, with an alpha that recomputes from the stored token counts without re-running the sweep
(issue 22, item 4)."""

from __future__ import annotations

import math
import re
import time

import pytest

import tokenizers_core as tc
from app.jobs.tasks import sweep
from tokenizers_core.audit.efficiency import counts_of_histogram, renyi_efficiency, unigram_counts
from tokenizers_core.corpora import load_corpus

SPEC = {
    "corpus": "udhr/fra",
    "heldout": "udhr/eng",
    "algorithms": ["bpe", "unigram"],
    "sizes": [150, 300],
}
QUERY = {
    "corpus": "udhr/fra",
    "heldout": "udhr/eng",
    "algo": ["bpe", "unigram"],
    "sizes": "150,300",
}


def expected(algorithm: str, size: int, alpha: float) -> float:
    tok = tc.train(algorithm, load_corpus("udhr/fra").splitlines(), size)
    enc = tok.encode(load_corpus("udhr/eng"))
    ids = [i for i, s in zip(enc.ids, enc.special_tokens_mask) if not s]
    return renyi_efficiency(unigram_counts(ids).values(), tok.vocab_size, alpha)


def test_the_sweep_task_keeps_what_the_formula_needs():
    rows, _ = sweep(
        {**SPEC, "algorithms": ["bpe"], "sizes": [150]}, load_corpus, lambda *a, **k: None
    )
    row = rows[0]
    assert row["tokens"] == sum(counts_of_histogram(row["count_histogram"]))
    got = renyi_efficiency(counts_of_histogram(row["count_histogram"]), row["vocab_size"], 2.5)
    assert got == pytest.approx(expected("bpe", 150, 2.5))


@pytest.fixture(scope="module")
def done(client):
    r = client.post("/api/sweep", json=SPEC)
    assert r.status_code == 202
    deadline = time.monotonic() + 120
    while (job := client.get(f"/api/sweep/{r.json()['id']}").json())["status"] in (
        "queued",
        "running",
    ) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert job["status"] == "done"
    return job


def efficiencies(html: str) -> dict[tuple[str, int], float]:
    return {
        (a, int(s)): float(v)
        for a, s, v in re.findall(
            r'<tr data-algorithm="([^"]+)" data-size="(\d+)">.*?<td class="num renyi">([\d.]+)</td>',
            html,
            re.S,
        )
    }


@pytest.mark.heavy
def test_the_page_shows_the_efficiency_at_the_default_alpha_without_javascript(client, done):
    page = client.get("/sweep", params=QUERY)
    assert page.status_code == 200
    got = efficiencies(page.text)
    assert set(got) == {(a, s) for a in SPEC["algorithms"] for s in SPEC["sizes"]}
    assert got[("bpe", 300)] == pytest.approx(expected("bpe", 300, 2.5), abs=6e-4)
    assert "Rényi efficiency (α = 2.5)" in page.text
    assert page.text.count("<svg") == 3  # tokens per word, characters per token, Renyi
    assert 'name="alpha"' in page.text and 'type="range"' in page.text


@pytest.mark.heavy
def test_another_alpha_recomputes_from_the_stored_counts(client, done):
    for alpha in ("1", "0", "inf"):
        frag = client.get(
            "/sweep", params={**QUERY, "alpha": alpha}, headers={"HX-Request": "true"}
        )
        assert frag.status_code == 200 and "<html" not in frag.text
        got = efficiencies(frag.text)
        want = expected("unigram", 150, float(alpha))
        assert got[("unigram", 150)] == pytest.approx(want, abs=6e-4)
    shannon = efficiencies(client.get("/sweep", params={**QUERY, "alpha": "1"}).text)
    assert shannon != efficiencies(client.get("/sweep", params=QUERY).text)


@pytest.mark.parametrize("alpha", ["-1", "nan", "abc", '"><script>alert(1)</script>'])
def test_a_bad_alpha_is_shown_in_place(client, done, alpha):
    page = client.get("/sweep", params={**QUERY, "alpha": alpha})
    assert page.status_code == 422
    assert "alpha" in page.text and "<script>alert(1)" not in page.text


def test_a_sweep_stored_before_the_counts_says_to_run_it_again():
    from app.services.analytics import sweep_efficiency

    rows = [{"algorithm": "bpe", "size": 10, "vocab_size": 10, "tokens_per_word": 1.0}]
    assert sweep_efficiency(rows, 2.5) == [None]
    assert not math.isnan(
        sweep_efficiency([{**rows[0], "count_histogram": [[1, 2], [3, 1]]}], 2.5)[0]
    )
