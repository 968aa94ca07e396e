"""The new BPE family's step view (`/bpe/train?variant=superbpe|picky_bpe|parity_bpe`): the page
after k merges shows the trainer's own step k (not a redrawing of it), and what the variant adds:
SuperBPE's transition and superwords, Picky BPE's IoS and removals, parity-aware BPE's languages
and Gini. Bad options are answered in place."""

from __future__ import annotations

import html
import re

import pytest

from app.views.common import shower
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.bpe_runs import family_run

show = shower(True)


def what(page: str) -> str:
    found = re.search(r'data-testid="what">([^<]*)<', page)
    assert found, page[:2000]
    return html.unescape(found.group(1))


def test_superbpe_shows_its_stages_and_superwords(client):
    params = {"variant": "superbpe", "corpus": "udhr/eng", "vocab_size": 700, "transition": 600}
    run = family_run("superbpe", load_corpus("udhr/eng").splitlines(), 700, transition=600)
    first = run.first_after_transition()
    assert first is not None
    before = client.get("/bpe/train", params={**params, "step": first - 1}).text
    assert "Stage 1" in before
    k = next(i for i, s in enumerate(run.steps, 1) if s.superword)
    page = client.get("/bpe/train", params={**params, "step": k}).text
    step = run.steps[k - 1]
    assert what(page).startswith(f"Merge {k}: {show(step.pair[0])} + {show(step.pair[1])}")
    assert "a superword" in what(page) and "Stage 2" in page
    assert html.escape(show(step.new_symbol)) in page.split('data-testid="superwords"')[1]


def test_picky_bpe_shows_ios_and_each_removal(client):
    params = {"variant": "picky_bpe", "corpus": "udhr/eng", "vocab_size": 600, "threshold": 0.6}
    run = family_run("picky_bpe", load_corpus("udhr/eng").splitlines(), 600, threshold=0.6)
    k = next(i for i, s in enumerate(run.steps, 1) if s.removed)
    page = client.get("/bpe/train", params={**params, "step": k}).text
    removed = run.steps[k - 1].removed[0]
    assert f"{show(removed[0])} removed (IoS {removed[1]:.2f})" in what(page)
    assert 'data-testid="removed-now"' in page
    assert f"merge {k}:" in page.split('data-testid="removals"')[1]


def test_parity_bpe_groups_an_untagged_corpus_by_script(store_client):
    text = load_corpus("udhr/eng")[:3000] + "\n" + load_corpus("udhr/rus")[:3000]
    sha = store_client.post("/api/corpora", json={"text": text}).json()["sha256"]
    page = store_client.get(
        "/bpe/train", params={"variant": "parity_bpe", "corpus": sha, "vocab_size": 300, "step": 5}
    ).text
    bars = page.split('data-testid="lang-bars"')[1].split("</ol>")[0]
    assert bars.count("<li") == 2 and "Latin" in bars and "Cyrillic" in bars
    assert "chosen for" in what(page) and 'data-testid="gini-curve"' in page


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"variant": "superbpe", "vocab_size": 500, "transition": 900}, "transition must be"),
        ({"variant": "superbpe", "transition": "nan"}, "transition must be a number"),
        ({"variant": "superbpe", "transition": "inf"}, "transition must be between"),
        ({"variant": "superbpe", "transition": "-inf"}, "transition must be between"),
        ({"variant": "picky_bpe", "threshold": "many"}, "threshold must be a number"),
        ({"variant": "picky_bpe", "threshold": "NaN"}, "threshold must be a number"),
        ({"variant": "picky_bpe", "threshold": 0}, "threshold"),
        ({"variant": "parity_bpe", "vocab_size": 100}, "between 257"),
    ],
)
def test_bad_options_are_shown_in_place(client, params, message):
    r = client.get("/bpe/train", params={"corpus": "udhr/eng", **params})
    assert r.status_code == 422
    assert message in r.text and 'id="train-form"' in r.text


def test_the_family_trains_by_name_and_appears_in_compare(client):
    r = client.get(
        "/api/compare",
        params={"text": "of the people", "col": ["byte_bpe", "superbpe"], "corpus": "udhr/eng",
                "vocab": 600},
    )  # fmt: skip
    plain, superbpe = r.json()
    assert superbpe["error"] is None and superbpe["title"] == "SuperBPE"
    assert "".join(superbpe["tokens"]) == "".join(plain["tokens"])  # the same bytes


def test_the_bpe_training_form_offers_the_family_and_sends_it_to_its_view(client):
    page = client.get("/bpe/train").text
    assert '<option value="superbpe"' in page and '<option value="parity_bpe"' in page
    r = client.post(
        "/bpe/train",
        data={"variant": "picky_bpe", "corpus": "udhr/eng", "use": "pick"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert r.headers["location"] == "/bpe/train?variant=picky_bpe&corpus=udhr%2Feng"


@pytest.mark.parametrize("variant", ["superbpe", "picky_bpe", "parity_bpe"])
def test_each_view_opens_before_its_first_merge(client, variant):
    r = client.get(
        "/bpe/train", params={"variant": variant, "corpus": "udhr/eng", "vocab_size": 300}
    )
    assert r.status_code == 200 and what(r.text).startswith("Before any merge")


def test_picky_bpe_says_why_it_stops_and_numbers_removals_in_order(client):
    """udhr/eng runs out of pairs at 816 of 1,000 tokens (855 removals freed ids): the last
    step says so in the engine's words; "Removed so far" numbers each removal in the order it
    happened (the newest, shown first, has the highest number), not the newest as 1."""
    params = {"variant": "picky_bpe", "corpus": "udhr/eng", "vocab_size": 1000}
    run = family_run("picky_bpe", load_corpus("udhr/eng").splitlines(), 1000)
    last = client.get("/bpe/train", params={**params, "step": run.total}).text
    stop = html.unescape(re.search(r'data-testid="stop-reason">([^<]*)<', last).group(1))
    assert stop.startswith(f"Training stopped after merge {run.total:,}: no pair is left to merge")
    assert "the vocabulary at 816 of 1,000" in stop and f"{run.removals:,} removals" in stop
    assert f"step <b>{run.total:,}</b> / {run.total:,}" in last  # the stepper's, as the rest
    removals = last.split('data-testid="removals"')[1].split("</ol>")[0]
    numbers = [int(n) for n in re.findall(r'<li value="(\d+)">', removals)]
    assert numbers[0] == run.removals and numbers == sorted(numbers, reverse=True)
    assert (
        "newest first" in last
        and 'data-testid="stop-reason"'
        not in client.get("/bpe/train", params={**params, "step": 3}).text
    )


def test_the_family_form_shows_its_defaults_and_counts_read_alike(client):
    """The vocab_size box's default is in its label (the box read "defau"), and every count has
    separators and its noun in the singular for 1 ("1 occurrence", not "1 occurrences")."""
    page = client.get("/bpe/train", params={"variant": "picky_bpe", "step": 0}).text
    assert re.search(r'vocab_size <span class="muted small">\(default 1,000\)</span>', page)
    assert 'placeholder="1000"' in page and "default (" not in page
    params = {"variant": "picky_bpe", "corpus": "udhr/eng", "vocab_size": 1000}
    run = family_run("picky_bpe", load_corpus("udhr/eng").splitlines(), 1000)
    page = client.get("/bpe/train", params={**params, "step": run.total}).text
    assert f"vocabulary 816 of 1,000 · {run.total:,} merges in all" in page
    from app.views.bpe_train import sentence
    from tokenizers_core.models.bpe.session import training_session

    once = training_session("ab", "bpe", 20)  # one word, once: each merge occurs once
    assert sentence(once, 1).startswith("Merged a + b → ab, 1 occurrence; 1 other pair tied")
