"""The visualiser's "special tokens in text" switch (`special`) works for every tokenizer kind:
left out, the tokenizer's own library's default (Hugging Face matches them, tiktoken refuses the
text); true, special tokens; false, ordinary text (tiktoken's encode_ordinary, Hugging Face's
encode_special_tokens). Where a tokenizer has none to read, the switch is disabled and says why.
The decode below keeps special tokens, as decode does, and its note says what happened (Llama 3
chat text: the post-processor's <|begin_of_text|>, nothing about the decoder)."""

from __future__ import annotations

import html
import json

import pytest

import tokenizers_core as tc
from app.roundtrip import round_trip_notes
from tests.shared_data import INTEROP

LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"
needs_llama3 = pytest.mark.skipif(not LLAMA3_JSON.is_file(), reason="shared/data/interop is absent")


def chat_text() -> str:
    return json.loads((INTEROP / "special_texts.json").read_text())["llama3.tokenizer.json"][0]


def page(client, text, tokenizer, special=None, **headers):
    switch = {} if special is None else {"special": "true" if special else "false"}
    params = {"text": text, "tokenizer": tokenizer, **switch}
    return client.get("/", params=params, headers=headers).text


def token_count(body: str) -> int:
    return int(body.split('data-testid="token-count">')[1].split("<")[0])


def decoded(body: str) -> str:
    return html.unescape(body.split('data-testid="decoded">')[1].split("</p>")[0])


@pytest.fixture(scope="module")
def llama3(client):
    r = client.post("/api/tokenizers", files={"file": ("tokenizer.json", LLAMA3_JSON.read_bytes())})
    assert r.status_code == 201, r.text
    return r.json()["tokenizer"]


@pytest.mark.heavy
@needs_llama3
def test_the_switch_changes_a_tokenizer_json(client, llama3):
    """Left out, Hugging Face's default: the typed specials are matched, as on."""
    text = chat_text()
    on, off = page(client, text, llama3, special=True), page(client, text, llama3, special=False)
    assert token_count(on) == 22 and token_count(off) > 40
    assert token_count(page(client, text, llama3)) == 22
    assert 'data-testid="special-why"' not in on


@pytest.mark.heavy
@needs_llama3
def test_llama3_chat_decode_keeps_the_specials_and_the_note_names_the_post_processor(
    client, llama3
):
    text = chat_text()
    for body in (page(client, text, llama3), page(client, text, llama3, special=False)):
        assert decoded(body).replace("·", " ").replace("↵", "\n") == "<|begin_of_text|>" + text
        notes = body.split('data-testid="round-trip">')[1].split("</ul>")[0]
        assert "the post-processor added" in notes and "&lt;|begin_of_text|&gt;" in notes
        assert "joins" not in notes and "left out" not in notes


@pytest.mark.heavy
@needs_llama3
def test_llama3_notes_say_which_decode_left_the_specials_out():
    tok = tc.load(str(LLAMA3_JSON))
    text = chat_text()
    enc = tok.encode(text)
    assert round_trip_notes(tok, text, enc, tok.decode(enc.ids)) == [
        "decode keeps the special token “<|begin_of_text|>” the post-processor added."
    ]
    skipped = round_trip_notes(tok, text, enc, tok.decode(enc.ids, skip_special_tokens=True))
    assert len(skipped) == 1 and "(skip_special_tokens=True)" in skipped[0]
    assert "<|eot_id|>" in skipped[0]


def test_bert_reads_typed_special_tokens_as_hugging_face_unless_switched_off(client):
    on, off, default = (
        page(client, "[MASK] hi", "bert-base-uncased", special=True),
        page(client, "[MASK] hi", "bert-base-uncased", special=False),
        page(client, "[MASK] hi", "bert-base-uncased"),
    )
    assert token_count(on) == 4 and token_count(off) == 6 and token_count(default) == 4
    assert "default: special (Hugging Face)" in default


def test_openai_encodings_refuse_a_typed_special_token_by_default_as_tiktoken(client):
    on, off = (
        page(client, "a<|endoftext|>", "cl100k_base", special=True),
        page(client, "a<|endoftext|>", "cl100k_base", special=False),
    )
    assert token_count(on) == 2 and token_count(off) > 2
    r = client.get("/", params={"text": "a<|endoftext|>", "tokenizer": "cl100k_base"})
    assert r.status_code == 422
    assert "tiktoken&#39;s encode refuses" in r.text and "special=true" in r.text
    assert "default: refused (tiktoken)" in r.text  # the switch says what the default does


@pytest.mark.parametrize("name", ["botchan_en_unigram_1000", "char"])
def test_the_box_is_disabled_with_a_reason_where_it_cannot_apply(client, name):
    body = page(client, "<s> hi", name, special=True)
    box = body.split('id="special-box"')[1].split("</div>")[0]
    select = box.split("<select")[1].split(">")[0]
    assert "disabled" in select
    assert "reads no special tokens from the text" in box


def test_htmx_gets_the_box_out_of_band(client):
    body = page(client, "hi", "char", **{"HX-Request": "true"})
    assert 'id="special-box" hx-swap-oob="true"' in body and "disabled" in body
    body = page(client, "hi", "bert-base-uncased", **{"HX-Request": "true"})
    assert 'id="special-box" hx-swap-oob="true"' in body
    assert "disabled" not in body.split('id="special-box"')[1].split("</div>")[0]
