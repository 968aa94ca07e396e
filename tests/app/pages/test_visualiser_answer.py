"""/, the visualiser's answer to a keystroke: one encode of the text for the chips, the counts,
the round trip and the budget; the pipeline's steps and the copy buttons' tokens and JSON
fetched when asked for (POST /visualiser/pipeline, POST /visualiser/copy), equal to what the
whole page and /api/encode give."""

from __future__ import annotations

import re

import pytest

from app.services import tokenizers as tokenizer_service
from tokenizers_core.corpora import load_corpus

HTMX = {"HX-Request": "true"}


def botchan(n: int) -> str:
    text = load_corpus("botchan")
    return text[text.index("CHAPTER I") :][:n]


class Counted:
    """A tokenizer whose encode and trace calls are counted (by the text they were given)."""

    def __init__(self, tok):
        self._tok = tok
        self.calls: list[tuple[str, str]] = []

    def __getattr__(self, name):
        return getattr(self._tok, name)

    def encode(self, text, *args, **kwargs):
        self.calls.append(("encode", text))
        return self._tok.encode(text, *args, **kwargs)

    def trace(self, text, *args, **kwargs):
        self.calls.append(("trace", text))
        return self._tok.trace(text, *args, **kwargs)


@pytest.fixture
def counted(monkeypatch):
    """Every tokenizer the visualiser resolves, counted; the list of those handed out."""
    handed: list[Counted] = []
    resolve = tokenizer_service.resolve_tokenizer

    def counting(*args, **kwargs):
        handed.append(Counted(resolve(*args, **kwargs)))
        return handed[-1]

    from app.services import visualiser

    monkeypatch.setattr(visualiser, "resolve_tokenizer", counting)
    return handed


def of_text(handed: list[Counted], text: str) -> list[str]:
    return [kind for tok in handed for kind, given in tok.calls if given == text]


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "bert-base-uncased", "qwen3"])
def test_one_encode_per_answer(client, counted, tokenizer):
    """A keystroke's answer (htmx) encodes the text once, with a budget and with a decode
    note; the budget's pieces are encoded on their own (that is what it counts), not the text."""
    text = botchan(2048) + " naïve ☃"
    form = {"text": text, "tokenizer": tokenizer, "budget": "100"}
    r = client.post("/", data=form, headers=HTMX)
    assert r.status_code == 200 and 'data-testid="budget-panel"' in r.text
    assert 'data-testid="round-trip"' in r.text or tokenizer != "bert-base-uncased"
    assert of_text(counted, text) == ["encode"]


def test_one_trace_for_the_whole_page(client, counted):
    """A plain GET (no JavaScript) draws the pipeline inline: one trace, no encode besides."""
    text = "Hello, world! naïve"
    r = client.get("/", params={"text": text, "tokenizer": "cl100k_base"})
    assert r.status_code == 200 and "3 · Model" in r.text
    assert of_text(counted, text) == ["trace"]


def test_a_long_text_s_count_and_tokens_each_encode_once(client, counted, monkeypatch):
    from app.routers import visualiser as router

    monkeypatch.setattr(router, "DEFER_CHARS", 100)  # the app's own bound is 20,000
    text = botchan(500)
    form = {"text": text, "tokenizer": "cl100k_base"}
    assert 'data-testid="tokens-loading"' in client.post("/", data=form, headers=HTMX).text
    assert of_text(counted, text) == ["encode"]
    assert "<li " in client.post("/tokens", data=form, headers=HTMX).text
    assert of_text(counted, text) == ["encode", "encode"]


def test_a_whole_answer_is_at_most_150_bytes_of_html_a_token(client):
    """Issue 42's bar for a plain text: the whole keystroke answer (count, chips, the input cut
    at token boundaries, ids, decode) at 2 KB of English in cl100k_base."""
    text = botchan(2048)
    r = client.post("/", data={"text": text, "tokenizer": "cl100k_base"}, headers=HTMX)
    n = len(
        client.post("/api/encode", json={"text": text, "tokenizer": "cl100k_base"}).json()["ids"]
    )
    assert len(r.content) / n <= 150, len(r.content) / n


def test_a_long_text_its_popover_and_copy_read_one_encode(client, monkeypatch):
    """The count of a long text, then its tokens (POST /tokens), a chip's popover and a copy:
    one encode of the text between them (the app keeps its last encodings), made by the very
    tokenizer the request resolved."""
    from app.routers import visualiser as router
    from app.services import visualiser

    monkeypatch.setattr(router, "DEFER_CHARS", 100)
    tok = Counted(tokenizer_service.resolve_tokenizer(client.app.state.app_state, "cl100k_base"))
    monkeypatch.setattr(visualiser, "resolve_tokenizer", lambda *args, **kwargs: tok)
    text = botchan(500)
    form = {"text": text, "tokenizer": "cl100k_base"}
    assert 'data-testid="tokens-loading"' in client.post("/", data=form, headers=HTMX).text
    tokens = client.post("/tokens", data=form, headers=HTMX).text
    first = re.search(r"data-id=(\d+)>", tokens).group(1)
    pop = client.post("/visualiser/token", data={**form, "i": 0, "id": first}, headers=HTMX)
    assert pop.status_code == 200 and 'data-testid="chip-facts"' in pop.text
    assert client.post("/visualiser/copy?what=tokens", data=form).status_code == 200
    assert of_text([tok], text) == ["encode"]
    client.post("/", data={**form, "special": "false"}, headers=HTMX)  # other switches: again
    assert of_text([tok], text) == ["encode", "encode"]


def test_a_keystroke_after_a_keystroke_re_encodes_where_the_text_changed(client, monkeypatch):
    """Past INCREMENTAL_CHARS the next text is re-encoded from the last one's encoding
    (`incremental.reencode`), and the answer is the one the whole encode gives: the count, the
    tokens' block and the copy button's JSON, against a state that kept nothing."""
    from app.services import visualiser

    monkeypatch.setattr(visualiser, "INCREMENTAL_CHARS", 1_000)
    spliced = []
    real = visualiser.reencode
    monkeypatch.setattr(
        visualiser, "reencode", lambda *a, **k: spliced.append(a[3]) or real(*a, **k)
    )
    state = client.app.state.app_state
    text = botchan(3_000)
    keystrokes = [text, text[:1500] + "x" + text[1500:], "A" + text[:1500] + "x" + text[1500:]]

    def answer(typed: str, special: str) -> list:
        form = {"text": typed, "tokenizer": "cl100k_base", "special": special}
        return [
            client.post("/", data=form, headers=HTMX).text,
            client.post("/tokens", data=form, headers=HTMX).text,
            client.post("/visualiser/copy?what=json", data=form).json(),
        ]

    whole = {}
    for special in ("", "true"):
        for typed in keystrokes:
            state.encodings.clear(), state.last_encodings.clear()
            whole[typed, special] = answer(typed, special)
    assert spliced == []
    state.encodings.clear(), state.last_encodings.clear()
    for special in ("", "true"):
        for typed in keystrokes:
            assert answer(typed, special) == whole[typed, special]
    assert spliced == keystrokes[1:] * 2  # each keystroke after the first, under each switch


def test_the_pipeline_loads_when_opened_and_is_the_page_s(client):
    form = {"text": "Hello, world! naïve", "tokenizer": "cl100k_base"}
    answer = client.post("/", data=form, headers=HTMX).text
    assert 'hx-post="/visualiser/pipeline"' in answer and "3 · Model" not in answer
    steps = client.post("/visualiser/pipeline", data=form, headers=HTMX).text
    page = client.get("/", params=form).text
    panel = re.search(r'<div class="pipeline-body">(.*?)</div>\s*</details>', page, re.S).group(1)
    assert "3 · Model" in steps and steps.strip() == panel.strip()


def test_a_bad_tokenizer_s_pipeline_is_an_error_not_a_500(client):
    r = client.post("/visualiser/pipeline", data={"text": "a", "tokenizer": "nope"}, headers=HTMX)
    assert 400 <= r.status_code < 500 and 'role="alert"' in r.text


def test_the_copy_buttons_copy_what_the_api_encodes(client):
    text = "Hello world, <|endoftext|>"
    form = {"text": text, "tokenizer": "cl100k_base", "special": "true"}
    api = client.post(
        "/api/encode", json={"text": text, "tokenizer": "cl100k_base", "special": True}
    ).json()
    tokens = client.post("/visualiser/copy?what=tokens", data=form).json()
    whole = client.post("/visualiser/copy?what=json", data=form).json()
    assert tokens == api["tokens"]
    assert whole["tokenizer"] == "cl100k_base"
    assert whole["ids"] == api["ids"] and whole["offsets"] == api["offsets"]
    answer = client.post("/", data=form, headers=HTMX).text
    assert 'data-copy-post="/visualiser/copy?what=json"' in answer
    assert 'id="copy-json"' not in answer  # no longer carried in every answer


def test_copy_refuses_a_bad_choice_and_a_bad_tokenizer(client):
    form = {"text": "a", "tokenizer": "cl100k_base"}
    assert client.post("/visualiser/copy?what=bytes", data=form).status_code == 422
    r = client.post("/visualiser/copy", data={**form, "tokenizer": "nope"})
    assert 400 <= r.status_code < 500 and "nope" in r.text
