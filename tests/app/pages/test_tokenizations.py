"""The space of tokenisations over HTTP and in a terminal: `GET /api/tokenizations`, `POST
/api/canonical`, `GET /api/heal`, the `/tokenizations` page and `tokvis tokenizations`. The
counts themselves are proved against brute force in tests/core/tokenizations; here, that the
app answers what the core computes, says the bounds, and escapes what a user types."""

from __future__ import annotations

import json
import pickle
import re

import pytest

import tokenizers_core as tc
from app.cli import main as tokvis
from app.services import tokenizations_work

TEXTS = ["Hello world", "naïve café", "東京タワー", "🙂 ok"]


# ---- /tokenizations and its APIs -----------------------------------------------------------------
@pytest.mark.parametrize("text", TEXTS)
def test_the_api_answers_the_cores_count_and_encodes_canonical(client, text):
    r = client.get(
        "/api/tokenizations",
        params={"tokenizer": "cl100k_base", "text": text, "k": 3, "samples": 4, "seed": 7},
    )
    assert r.status_code == 200
    body = r.json()
    space = tc.tokenizations(tc.load("cl100k_base"), text)
    assert body["count"] == str(space.count()) and body["unit"] == "byte"
    enc = client.post("/api/encode", json={"tokenizer": "cl100k_base", "text": text}).json()
    assert body["canonical"] == enc["ids"]
    assert len(body["shortest"][0]) <= len(enc["ids"])
    assert body["samples"] == space.sample(4, seed=7)
    for ids in body["samples"]:  # every sample decodes to the text
        decoded = client.post("/api/decode", json={"tokenizer": "cl100k_base", "ids": ids})
        assert decoded.json()["text"] == text


def test_another_seed_for_the_same_text_draws_from_the_kept_lattice():
    """A child keeps the last few texts' lattices: a second seed for one text finds no edges
    again, and draws what a fresh lattice draws."""
    space = tc.tokenizations(tc.load("cl100k_base"), "Hello world, hello")
    spaced = pickle.dumps(space.space)
    args = ("cl100k_base", space.units, space.path, 2, 3)
    first = tokenizations_work.answer("test-index", spaced, *args, 1)
    kept = tokenizations_work._LATTICES.get(("test-index", space.units, space.path))
    assert kept is not None and "out" in vars(kept)  # its edges found once, kept
    again = tokenizations_work.answer("test-index", None, *args, 2)
    assert tokenizations_work._LATTICES.get(("test-index", space.units, space.path)) is kept
    assert json.loads(again)["samples"] == space.sample(3, seed=2)
    assert json.loads(first)["samples"] == space.sample(3, seed=1)


def test_a_text_over_the_bound_is_422_saying_the_bound(client):
    r = client.get("/api/tokenizations", params={"tokenizer": "cl100k_base", "text": "é" * 1001})
    assert r.status_code == 422
    assert "2,000" in r.json()["detail"]
    ok = client.get("/api/tokenizations", params={"tokenizer": "cl100k_base", "text": "a" * 2000})
    assert ok.status_code == 200 and len(ok.json()["count"]) > 100  # exact, hundreds of digits


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        ({"tokenizer": "nope", "text": "x"}, 404, "unknown tokeniser"),
        ({"tokenizer": "char", "text": "x"}, 422, "no fixed subword vocabulary"),
        ({"tokenizer": "cl100k_base", "text": "x", "k": 101}, 422, "k must be"),
        ({"tokenizer": "cl100k_base", "text": "x", "samples": 5000}, 422, "samples must be"),
    ],
)
def test_bad_requests_are_answered_plainly(client, params, status, words):
    r = client.get("/api/tokenizations", params=params)
    assert r.status_code == status and words in r.json()["detail"]


BIG = {"tokenizer": "cl100k_base", "text": "tokenization " * 150, "k": 100, "samples": 1000}


@pytest.mark.heavy
def test_the_paths_are_worked_out_outside_the_serving_process(client, monkeypatch):
    """The serving process only spells the text (an encode); the lattice, the count, the
    shortest sequences and the samples are a child's work (`tokenizations_work`): with the
    lattice's search broken here, the answers are still the core's, four at once too."""
    import importlib
    from concurrent.futures import ThreadPoolExecutor

    core = importlib.import_module(
        "tokenizers_core.tokenizations"
    )  # the module (tc's is a function)
    expected = core.tokenizations(tc.load("cl100k_base"), BIG["text"])
    want = [
        {"count": str(expected.count()), "shortest": expected.shortest(100)},
        [expected.sample(1000, seed=seed) for seed in range(4)],
    ]

    def broken(*_args):
        raise AssertionError("the serving process searched the lattice")

    monkeypatch.setattr(core, "find_edges", broken)
    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(
                lambda seed: client.get("/api/tokenizations", params={**BIG, "seed": seed}),
                range(4),
            )
        )
    assert [r.status_code for r in answers] == [200] * 4
    bodies = [r.json() for r in answers]
    assert all({"count": b["count"], "shortest": b["shortest"]} == want[0] for b in bodies)
    assert [b["samples"] for b in bodies] == want[1]
    assert all(b["canonical"] == expected.canonical() and b["unit"] == "byte" for b in bodies)


def test_work_over_its_budget_is_a_422_saying_so(client, monkeypatch):
    """The child's budget holds: with a memory budget of 1 MB, a fresh child cannot even take
    in the vocabulary index (2.5 MB pickled), and the answer says which budget stopped it.
    (A fresh pool: a child that has worked before may reuse the memory it freed.)"""
    from app.sandbox import Budget
    from app.services import tokenizations_work

    fresh = tokenizations_work.SpacePool(workers=1)
    fresh.start()
    try:
        monkeypatch.setattr(client.app.state, "tokenizations", fresh)
        tight = Budget(10, 1, 40, "its fixed budget", "its fixed budget")
        monkeypatch.setattr(tokenizations_work, "BUDGET", tight)
        r = client.get("/api/tokenizations", params={**BIG, "seed": 1})
        assert r.status_code == 422
        assert "memory budget of 1 MB" in r.json()["detail"]
    finally:
        fresh.stop()
    monkeypatch.undo()
    ok = client.get("/api/tokenizations", params={**BIG, "text": "Hello", "seed": 1})
    assert ok.status_code == 200 and ok.json()["count"] == "14"


@pytest.mark.heavy
def test_a_crafted_vocabulary_over_the_lattices_bound_is_refused(store_client):
    """A Unigram tokenizer.json whose pieces are "a" .. "a" * 300: 2,000 "a"s would be a
    lattice of 600,000 edges; the answer is a 422 naming the bound of 500,000."""
    pieces = [["<unk>", 0.0]] + [["a" * n, -1.0] for n in range(1, 301)]
    crafted = {"version": "1.0", "model": {"type": "Unigram", "unk_id": 0, "vocab": pieces}}
    upload = ("tokenizer.json", json.dumps(crafted).encode())
    handle = store_client.post("/api/tokenizers", files={"file": upload}).json()["tokenizer"]
    r = store_client.get("/api/tokenizations", params={"tokenizer": handle, "text": "a" * 2000})
    assert r.status_code == 422 and "500,000" in r.json()["detail"]
    small = store_client.get("/api/tokenizations", params={"tokenizer": handle, "text": "aaa"})
    assert small.status_code == 200 and small.json()["count"] == "4"


def test_canonical_ids_and_a_break(client):
    ids = client.post("/api/encode", json={"tokenizer": "gpt2", "text": "Hello world"}).json()
    r = client.post("/api/canonical", json={"tokenizer": "gpt2", "ids": ids["ids"]})
    assert r.json() == {"canonical": True, "first_break": None, "canonical_ids": ids["ids"]}
    split = tc.load("gpt2").encode("H").ids + tc.load("gpt2").encode("ello world").ids
    r = client.post("/api/canonical", json={"tokenizer": "gpt2", "ids": split})
    body = r.json()
    assert body["canonical"] is False and body["canonical_ids"] == ids["ids"]
    assert 0 <= body["first_break"] < len(split)
    bad = client.post("/api/canonical", json={"tokenizer": "gpt2", "ids": [10**9]})
    assert bad.status_code == 422


def test_healing_lists_tokens_that_extend_the_removed_text(client):
    r = client.get("/api/heal", params={"tokenizer": "cl100k_base", "prompt": "The quick bro"})
    body = r.json()
    assert body["removed"] == " bro" and body["healed_ids"] == body["ids"][:-1]
    assert body["n_allowed"] >= len(body["allowed"]) > 1
    assert all(text.startswith(" bro") for _id, text in body["allowed"])


def test_the_page_shows_the_space_and_escapes_the_text(client):
    xss = "<script>alert(1)</script>"
    r = client.get(
        "/tokenizations", params={"tokenizer": "cl100k_base", "text": xss, "ids": "39 4896"}
    )
    assert r.status_code == 200
    assert "<script>alert(1)" not in r.text and "&lt;script&gt;" in r.text
    assert 'data-testid="tok-lattice"' in r.text and 'data-testid="tok-check"' in r.text
    assert "Not canonical" in r.text


def test_the_pages_dropout_panel_says_when_a_piece_is_too_long(client):
    """400 spaces are one piece of 400 characters: BPE-dropout (n^2 draws a sample) is refused
    in its panel, naming the bound, and the rest of the page stands."""
    r = client.get("/tokenizations", params={"tokenizer": "cl100k_base", "text": " " * 400})
    assert r.status_code == 200
    panel = r.text.split('data-testid="tok-dropout-error">')[1].split("</p>")[0]
    assert "at most 300 characters" in panel and "400" in panel
    assert 'data-testid="tok-lattice"' in r.text


def test_the_page_keeps_its_form_on_bad_input(client):
    r = client.get("/tokenizations", params={"tokenizer": "word", "text": "hi"})
    assert r.status_code == 422
    assert "no fixed subword vocabulary" in r.text and 'id="tok-form"' in r.text


def test_the_terminal_prints_the_count_and_checks_ids(capsys):
    assert tokvis(["tokenizations", "cl100k_base", "Hello world", "--json", "--seed", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == "336" and out["canonical"] == [9906, 1917]
    assert tokvis(["tokenizations", "cl100k_base", "-", "--check", "39 4896"]) == 1
    assert "not canonical" in capsys.readouterr().out


def test_the_visualisers_paste_ids_box_says_whether_they_are_canonical(client):
    page = client.get("/", params={"tokenizer": "cl100k_base", "text": "hi", "decode": "39 4896"})
    note = page.text.split('data-testid="ids-canonical">')[1].split("</p>")[0]
    assert "Not canonical" in note and "&#39;H&#39; + &#39;ello&#39;" in note
    assert "/tokenizations?" in note  # onward: every tokenization of the text
    page = client.get("/", params={"tokenizer": "cl100k_base", "text": "hi", "decode": "9906"})
    assert "<strong>Canonical</strong>" in page.text


def test_an_id_a_tokenizer_json_lacks_is_named_and_breaks_canonicality(store_client):
    """decode drops it (as Hugging Face's does), so encode cannot give it back: not canonical,
    the break at that id, `dropped` naming it; the page says it and checks the rest."""
    from tests.app.test_api import gap_tokenizer_json

    r = store_client.post(
        "/api/tokenizers", files={"file": ("tokenizer.json", gap_tokenizer_json())}
    )
    handle = r.json()["tokenizer"]
    body = store_client.post("/api/canonical", json={"tokenizer": handle, "ids": [263, 265, 264]})
    got = body.json()
    assert body.status_code == 200, got
    assert got["canonical"] is False and got["first_break"] == 1 and got["dropped"] == [265]
    assert got["canonical_ids"] == [263, 264] and "265 is not in the vocabulary" in got["reason"]
    page = store_client.get(
        "/tokenizations", params={"tokenizer": handle, "text": "hello world", "ids": "263 265 264"}
    )
    assert page.status_code == 200
    assert "<code>265</code>" in page.text.split('data-testid="tok-check-dropped"')[1]
    assert "breaks at token 2 of 3" in page.text  # first_break 1: counted from 0 in the API


def test_the_page_puts_the_verdict_under_the_count_and_counts_tokens_from_1(client):
    """The canonicality verdict of pasted ids comes right after the count (it was 2,100 px
    down, under the lattice and the samples), and names the breaking tokens counted from 1:
    "Hello" + " w" + "orld" first breaks at the pair of tokens 2 and 3 (the API's first_break
    is 1, counted from 0)."""
    params = {"tokenizer": "cl100k_base", "text": "Hello world", "ids": "9906 289 1410"}
    page = client.get("/tokenizations", params=params).text
    order = [page.index(f'data-testid="{t}"') for t in ("tok-count", "tok-check", "tok-lattice")]
    assert order == sorted(order)
    verdict = re.search(r'data-testid="tok-check-verdict">(.*?)</p>', page).group(1)
    assert "breaks at token 2 of 3, the pair of tokens 2 and 3 (counted from 1" in verdict
    assert (
        client.post(
            "/api/canonical", json={"tokenizer": "cl100k_base", "ids": [9906, 289, 1410]}
        ).json()["first_break"]
        == 1
    )
