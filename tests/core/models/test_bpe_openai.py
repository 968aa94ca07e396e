"""The bundled OpenAI encodings against tiktoken, built offline from the same ranks files
(`tiktoken.Encoding(name, pat_str=..., mergeable_ranks=..., special_tokens=...)`; never
`tiktoken.get_encoding`, which downloads)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests import corpora
from tokenizers_core.byte_level import str_to_byte_level
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
from tokenizers_core.models.bpe.model import token_text
from tokenizers_core.pre_tokenizers import PRESETS

NAMES = ["r50k_base", "cl100k_base", "o200k_base"]


@pytest.fixture(scope="module", params=NAMES)
def pair(request):
    import tiktoken

    name = request.param
    preset, specials = ENCODINGS[name]
    ref = tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
    )
    return tc.load(name), ref


def test_aliases_and_hello_world():
    assert tc.load("gpt2").encode("Hello, world!").ids == [15496, 11, 995, 0]
    assert tc.load("gpt-4").encode("Hello, world!").ids == [9906, 11, 1917, 0]
    assert tc.load("gpt-4o").encode("Hello, world!").ids == [13225, 11, 2375, 0]
    assert tc.load("gpt-4") is tc.load("cl100k_base")


@pytest.mark.heavy
def test_every_bundled_corpus_matches_tiktoken(pair):
    ours, ref = pair
    for name, text in corpora.texts().items():  # udhr/all as its seams: its parts are here
        ids = ours.encode(text).ids
        assert ids == ref.encode_ordinary(text), name
        assert ours.decode(ids) == text


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60) | st.text(alphabet=" \t\n\r\u00a0\u3000ab1'’-", max_size=30))
def test_hypothesis_text_matches_tiktoken(pair, text):
    """Any text as ordinary text (Hypothesis also tries the strings of the code it tests, such
    as "<|endoftext|>", which `encode` refuses by default): `encode_ordinary`'s ids."""
    ours, ref = pair
    enc = ours.encode(text, disallowed_special=())
    assert enc.ids == ref.encode_ordinary(text)
    assert ours.decode(enc.ids) == text
    for token, (start, end) in zip(enc.tokens, enc.offsets):
        assert token in str_to_byte_level(text[start:end])  # partial characters get their span


def test_fast_path_equals_the_pipeline(pair):
    ours, _ = pair
    text = load_corpus("udhr/jpn")[:2000] + "\n\n  <|endoftext|> naïve 🙂🙂  \t x"
    as_text = {"disallowed_special": ()}
    assert ours.encode(text, **as_text) == ours.trace(text, **as_text)[0]
    for run in (ours.encode, ours.trace):  # both refuse it by default, as tiktoken's encode
        with pytest.raises(ValueError, match="special token"):
            run(text)
    allowed = ours.encode(text, allowed_special="all")
    assert allowed == ours.trace(text, allowed_special="all")[0]


def test_special_tokens_as_tiktoken_reads_them(pair):
    """tiktoken's defaults: `encode` refuses a typed special token, `disallowed_special=()`
    reads it as text (`encode_ordinary`), `allowed_special` as its special id."""
    ours, ref = pair
    text = "a<|endoftext|>b"
    with pytest.raises(ValueError):
        ref.encode(text)
    with pytest.raises(ValueError, match="disallowed"):
        ours.encode(text)
    assert ours.encode(text, disallowed_special=()).ids == ref.encode_ordinary(text)
    assert ours.encode(text, disallowed_special=()).ids == ref.encode(text, disallowed_special=())
    enc = ours.encode(text, allowed_special={"<|endoftext|>"})
    assert enc.ids == ref.encode(text, allowed_special={"<|endoftext|>"})
    i = enc.tokens.index("<|endoftext|>")
    assert enc.special_tokens_mask[i] == 1 and enc.offsets[i] == (1, 14)
    with pytest.raises(ValueError, match="not a special token"):
        ours.encode(text, allowed_special={"<|nope|>"})


def test_partial_character_tokens_show_as_bytes():
    tok = tc.load("cl100k_base")
    enc = tok.encode("𝔘")  # 4 bytes, split by cl100k
    shown = [token_text(t, True) for t in enc.tokens]
    assert len(enc.tokens) > 1 and all(s.startswith("<") for s in shown)
    assert all(o == (0, 1) for o in enc.offsets)
    assert "\ufffd" not in "".join(shown)


def test_merge_tree_of_a_real_token():
    tok = tc.load("r50k_base")
    tree = tok.model.merge_tree("Ġworld")
    leaves = []

    def walk(node):
        if not node["children"]:
            leaves.append(node["token"])
        for child in node["children"]:
            walk(child)

    walk(tree)
    assert "".join(leaves) == "Ġworld" and tree["id"] == 995 and len(tree["children"]) == 2


def test_listing_without_loading():
    from tokenizers_core.pretrained import bundled

    info = bundled()
    assert info["cl100k_base"].algorithm == "byte_bpe"
    for name in NAMES:
        assert info[name].vocab_size == tc.load(name).vocab_size
