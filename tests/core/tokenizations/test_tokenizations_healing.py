"""Token healing at a prompt's end (Guidance, Phan et al. arXiv 2410.09303): back
off the prompt's last token and allow only the tokens that extend its text.

"The quick bro" with cl100k_base ends on " bro"; the healed prompt is "The quick" and the next
token must start with " bro" (" brown", " broad", ...): each one, appended to the healed prompt,
decodes to a text that extends the prompt.
"""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput
from tokenizers_core.tokenizations import heal

tiktoken = pytest.importorskip("tiktoken")


@pytest.fixture(scope="module")
def cl100k():
    return tc.load("cl100k_base")


def test_the_quick_bro(cl100k):
    h = heal(cl100k, "The quick bro", limit=200)
    assert h.ids == tuple(cl100k.encode("The quick bro").ids)
    assert (h.healed_ids, h.removed_id, h.removed) == (h.ids[:-1], h.ids[-1], " bro")
    assert cl100k.decode(list(h.healed_ids)) == "The quick"
    texts = [text for _id, text in h.allowed]
    assert all(text.startswith(" bro") for text in texts)
    assert " brown" in texts and h.removed_id in [i for i, _t in h.allowed]
    assert h.n_allowed >= len(h.allowed) > 10
    for id_, _text in h.allowed:
        assert cl100k.decode_bytes([*h.healed_ids, id_]).startswith(b"The quick bro")


def test_every_extending_token_is_found(cl100k):
    """Against a scan of tiktoken's own vocabulary: the tokens whose bytes start with b" bro"."""
    from tokenizers_core.implementations.openai_public import load_ranks

    ranks = load_ranks("cl100k_base")
    want = sorted((token, rank) for token, rank in ranks.items() if token.startswith(b" bro"))
    h = heal(cl100k, "The quick bro", limit=200)
    assert h.n_allowed == len(want) > 10
    assert [i for i, _t in h.allowed] == [rank for _token, rank in want[:200]]


def test_allowed_tokens_are_sorted_and_capped(cl100k):
    h = heal(cl100k, "I like the", limit=5)
    assert len(h.allowed) == 5 < h.n_allowed
    data = [cl100k.decode_single_token_bytes(i) for i, _t in h.allowed]
    assert data == sorted(data) and data[0] == b" the"
    assert json.loads(json.dumps(h.to_dict()))["allowed"][0] == [h.allowed[0][0], " the"]


def test_a_partial_character_is_extended_by_its_bytes():
    """o200k: a prompt ending in a character split across tokens; the allowed tokens' bytes
    start with the removed token's bytes."""
    o200k = tc.load("o200k_base")
    h = heal(o200k, "Hello 🙂")
    removed = o200k.decode_single_token_bytes(h.removed_id)
    for id_, _text in h.allowed:
        assert o200k.decode_single_token_bytes(id_).startswith(removed)


def test_wordpiece_and_sentencepiece_keep_their_word_marks():
    bert = tc.load("bert-base-uncased")
    h = heal(bert, "the quick bro")
    assert all(not bert.id_to_token(i).startswith("##") for i, _t in h.allowed)
    assert all(bert.id_to_token(i).startswith(h.removed) for i, _t in h.allowed)
    mistral = tc.load("mistral_v1")
    h = heal(mistral, "The quick bro")
    assert all(mistral.id_to_token(i).startswith("▁bro") for i, _t in h.allowed)
    for id_, _text in h.allowed:
        assert mistral.decode([*h.healed_ids, id_]).startswith("The quick bro")


@pytest.mark.parametrize(
    "prompt, message",
    [("", "empty"), ("x" * 2001, "at most 2,000"), (None, "must be a string")],
)
def test_bad_prompts(cl100k, prompt, message):
    with pytest.raises(InvalidInput, match=message):
        heal(cl100k, prompt)


def test_limit_is_bounded(cl100k):
    with pytest.raises(InvalidInput, match="limit"):
        heal(cl100k, "The quick bro", limit=0)
