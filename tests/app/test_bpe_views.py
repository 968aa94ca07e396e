"""The BPE step-through pages through TestClient: full pages, htmx fragments, permalinks, the
API, and bad input (a 4xx with the message on the page and the input kept)."""

from __future__ import annotations

import re

import pytest

HX = {"HX-Request": "true"}


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_train_page_default_corpus(client):
    r = client.get("/bpe/train")
    assert r.status_code == 200
    assert "BPE training" in r.text and 'data-testid="word-table"' in r.text
    assert "low low low low low" in r.text  # the editable default corpus
    assert "Nothing merged yet" in r.text
    # step 0: the next merge is e + s (9, tied with s t and t </w>)
    assert re.search(r'class="winner">\s*<td class="mono">e s</td>', r.text)
    assert r.text.count('class="tie"') == 2


def test_train_step_shows_merge_ties_and_changed_rows(client):
    r = client.get("/bpe/train?step=2")
    assert r.status_code == 200
    text = _text(r.text)
    assert "Merged t + &lt;/w&gt; → t&lt;/w&gt;, 9 occurrences" in text
    assert "1 other pair tied at 9" in text
    assert r.text.count('<tr class="changed">') == 2  # newest, widest
    assert re.search(r'aria-current="step"', r.text)  # the pseudocode line


def test_fragment_is_only_the_step_block(client):
    r = client.get("/bpe/train?step=1", headers=HX)
    assert r.status_code == 200
    assert "<html" not in r.text and 'class="stepper"' in r.text
    assert 'data-testid="pair-table"' in r.text


def test_permalink_reproduces_the_state(client):
    a = client.get("/bpe/train?variant=byte_bpe&vocab_size=270&step=7")
    b = client.get("/bpe/train?variant=byte_bpe&vocab_size=270&step=6")
    c = client.get("/bpe/train?variant=byte_bpe&vocab_size=270&step=7")
    assert a.status_code == b.status_code == c.status_code == 200
    assert a.text == c.text and a.text != b.text


def test_edited_corpus_is_stored_and_redirected(client):
    r = client.post(
        "/bpe/train",
        data={"corpus_text": "aaa aab aab\nbaa", "variant": "bpe", "vocab_size": "8"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    url = r.headers["location"]
    assert re.search(r"corpus=[0-9a-f]{64}", url)
    page = client.get(url + "&step=1")
    assert page.status_code == 200 and "aaa aab aab" in page.text


@pytest.mark.parametrize("variant,vocab", [("sentencepiece_bpe", 150), ("byte_bpe", 300)])
def test_other_variants_on_udhr(client, variant, vocab):
    r = client.get(f"/bpe/train?corpus=udhr/eng&variant={variant}&vocab_size={vocab}&step=5")
    assert r.status_code == 200
    assert 'data-testid="merge-list"' in r.text


@pytest.mark.parametrize(
    "query,status,message",
    [
        ("variant=nope", 422, "unknown BPE variant"),
        ("vocab_size=3", 422, "below the 12 symbols"),
        ("variant=byte_bpe&vocab_size=100", 422, "below the 256"),
        ("variant=byte_bpe&pattern=zzz", 422, "unknown pattern"),
        ("corpus=" + "0" * 64, 404, "no stored corpus"),
        ("corpus=nonsense", 404, "unknown corpus"),
    ],
)
def test_bad_training_input(client, query, status, message):
    r = client.get(f"/bpe/train?{query}")
    assert r.status_code == status
    assert message in _text(r.text).replace("&#39;", "'")
    assert 'name="vocab_size"' in r.text  # the form is still there


def test_empty_edited_corpus_keeps_the_form(client):
    r = client.post("/bpe/train", data={"corpus_text": "   ", "variant": "bpe", "vocab_size": "30"})
    assert r.status_code == 422 and "empty" in r.text and "<textarea" in r.text


def test_encode_page_steps_and_trees(client):
    r = client.get("/bpe/encode?tokenizer=gpt2&text=lowest&step=99")
    assert r.status_code == 200
    assert 'data-testid="trees"' in r.text and "these are the tokens" in r.text
    first = client.get("/bpe/encode?tokenizer=gpt2&text=lowest&step=1")
    assert "Merged e + s → es" in _text(first.text)
    frag = client.get("/bpe/encode?tokenizer=gpt2&text=lowest&step=1", headers=HX)
    assert "<html" not in frag.text and 'data-testid="candidates"' in frag.text


def test_encode_page_shows_partial_bytes_not_replacement_chars(client):
    r = client.get("/bpe/encode", params={"tokenizer": "cl100k_base", "text": "𝔘"})
    assert r.status_code == 200
    assert "&lt;F0" in r.text and "\ufffd" not in r.text


def test_visualiser_chip_link_works_for_aliases_and_trained_handles(client):
    assert (
        client.get("/bpe/encode", params={"tokenizer": "gpt-4o", "text": " world"}).status_code
        == 200
    )
    handle = client.post(
        "/api/train", json={"algorithm": "bpe", "corpus": "low lower newest\n", "vocab_size": 20}
    ).json()["tokenizer"]
    r = client.get("/bpe/encode", params={"tokenizer": handle, "text": "lowest"})
    assert r.status_code == 200 and "&lt;/w&gt;" in r.text


@pytest.mark.parametrize(
    "params,status",
    [
        ({"tokenizer": "nope", "text": "x"}, 404),
        ({"tokenizer": "bert-base-uncased", "text": "x"}, 422),
        ({"tokenizer": "gpt2", "text": "x" * 3000}, 422),
    ],
)
def test_bad_encode_input(client, params, status):
    r = client.get("/bpe/encode", params=params)
    assert r.status_code == status
    assert 'role="alert"' in r.text and "<textarea" in r.text


@pytest.mark.parametrize("algorithm", ["bpe", "byte_bpe", "sentencepiece_bpe"])
def test_api_train_and_encode(client, algorithm):
    corpus = "\n".join(["low low low lower lowest newer wider"] * 3 + ["ünïcode text 日本"])
    vocab = {"bpe": 30, "byte_bpe": 270, "sentencepiece_bpe": 30}[algorithm]
    r = client.post(
        "/api/train", json={"algorithm": algorithm, "corpus": corpus, "vocab_size": vocab}
    )
    assert r.status_code == 200, r.text
    handle = r.json()["tokenizer"]
    enc = client.post("/api/encode", json={"tokenizer": handle, "text": "lowest wider"})
    assert enc.status_code == 200 and enc.json()["tokens"]


def test_api_train_bad_input(client):
    r = client.post("/api/train", json={"algorithm": "byte_bpe", "corpus": "abc", "vocab_size": 10})
    assert r.status_code == 422 and "below" in r.json()["detail"]
    r = client.post(
        "/api/train",
        json={"algorithm": "byte_bpe", "corpus": "abc", "vocab_size": 300, "pattern": "(("},
    )
    assert r.status_code == 422


def test_encode_special_tokens_option(client):
    plain = client.get(
        "/bpe/encode", params={"tokenizer": "cl100k_base", "text": "a<|endoftext|>b"}
    )
    assert plain.status_code == 200 and ">special</span>" not in plain.text
    r = client.get(
        "/bpe/encode", params={"tokenizer": "cl100k_base", "text": "a<|endoftext|>b", "special": 1}
    )
    assert r.status_code == 200 and ">special</span>" in r.text
    assert "&lt;|endoftext|&gt;" in r.text


def test_blank_vocab_size_means_the_default(client):
    r = client.get("/bpe/train?corpus=udhr/eng&variant=bpe&vocab_size=&pattern=gpt2&step=2")
    assert r.status_code == 200 and "of 1,000" in r.text
    r = client.get("/bpe/train?vocab_size=lots")
    assert r.status_code == 422 and "whole number" in r.text


def test_long_training_shows_progress_then_the_step(client, monkeypatch):
    import time as _time

    from app.jobs import runs as step_jobs
    from app.routers import bpe as bpe_router

    monkeypatch.setattr(bpe_router, "SYNC_SECONDS", 0.0)
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 0)  # trained in the job pool
    url = "/bpe/train?corpus=udhr/fra&variant=byte_bpe&vocab_size=700&step=3"
    r = client.get(url)
    assert r.status_code == 200 and 'data-testid="training"' in r.text
    deadline = _time.monotonic() + 120  # a busy machine may take long; poll, never assume
    while 'data-testid="training"' in r.text and _time.monotonic() < deadline:
        # the worker first counts the words, then reports merges: either way the panel polls
        assert ("counting words" in r.text or "merges so far" in r.text) and "hx-trigger" in r.text
        _time.sleep(0.05)
        r = client.get(url, headers=HX)
    assert 'data-testid="pair-table"' in r.text


def test_json_step_apis(client):
    r = client.get("/api/bpe/train_steps")
    assert r.status_code == 200
    steps = r.json()["steps"]
    assert steps[0]["kind"] == "bpe_merge" and steps[0]["pair"] == ["e", "s"]
    from tokenizers_core.steps import step_from_dict

    assert step_from_dict(steps[1]).new_symbol == "t</w>"
    assert client.get("/api/bpe/train_steps?variant=zzz").status_code == 422
    assert client.get("/api/bpe/train_steps?corpus=" + "a" * 64).status_code == 404
    r = client.get("/api/bpe/encode_steps", params={"tokenizer": "gpt2", "text": "lowest"})
    assert r.status_code == 200
    piece = r.json()["pieces"][0]
    assert (
        piece["tokens"] == [["low", 9319], ["est", 395]]
        and piece["steps"][0]["kind"] == "bpe_encode"
    )
    assert (
        client.get("/api/bpe/encode_steps", params={"tokenizer": "x", "text": "a"}).status_code
        == 404
    )
