"""Bytes in and out, against tiktoken built offline from the same ranks:
`encode_single_token(b"...")`, `encode_bytes` (tiktoken's `_encode_bytes`), `decode_bytes`,
`decode_single_token_bytes` and `decode_tokens_bytes`, for the bundled OpenAI encodings and for
a byte-level Hugging Face tokenizer.json (Llama 3, against tiktoken on Llama 3's own ranks)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.byte_api import NotAToken
from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
from tokenizers_core.pre_tokenizers import PRESETS

NAMES = ["r50k_base", "cl100k_base", "o200k_base"]
from tests.shared_data import INTEROP


def _reference(name):
    import tiktoken

    preset, specials = ENCODINGS[name]
    return tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
    )


@pytest.fixture(scope="module", params=NAMES)
def pair(request):
    return tc.load(request.param), _reference(request.param)


@pytest.mark.heavy
def test_every_token_has_tiktokens_bytes_and_back(pair):
    ours, ref = pair
    for id_ in range(ref.n_vocab + 2):
        try:
            theirs = ref.decode_single_token_bytes(id_)
        except KeyError:
            with pytest.raises(KeyError):
                ours.decode_single_token_bytes(id_)
            continue
        assert ours.decode_single_token_bytes(id_) == theirs, id_
        assert ours.encode_single_token(theirs) == ref.encode_single_token(theirs), id_


def test_special_tokens_encode_as_single_tokens(pair):
    ours, ref = pair
    for special in ref.special_tokens_set:
        assert ours.encode_single_token(special) == ref.encode_single_token(special)
        assert ours.encode_single_token(special.encode()) == ref.encode_single_token(
            special.encode()
        )


@pytest.mark.parametrize(
    "non_token", [b"zzzqqqxx", "hello world, how are you", b"\xff\xfe\xfd", b""]
)
def test_a_non_token_is_a_key_error_as_in_tiktoken(pair, non_token):
    ours, ref = pair
    with pytest.raises(KeyError):
        ref.encode_single_token(non_token)
    with pytest.raises(KeyError) as info:
        ours.encode_single_token(non_token)
    assert isinstance(info.value, ValueError) and "is not a single token of" in str(info.value)


def test_an_unknown_id_is_a_key_error_that_reads_plainly(pair):
    ours, _ = pair
    for bad in (-1, 10**9, "7", True):
        with pytest.raises(NotAToken, match="is not in the vocabulary of"):
            ours.decode_bytes([bad])
        with pytest.raises(KeyError):
            ours.decode_single_token_bytes(bad)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 50255), max_size=12))
def test_decode_bytes_keeps_partial_characters(pair, ids):
    ours, ref = pair
    assert ours.decode_bytes(ids) == ref.decode_bytes(ids)
    assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)


def test_decode_bytes_of_a_character_cut_across_tokens(pair):
    ours, ref = pair
    ids = ours.encode("naïve 🙂 日本").ids
    for end in range(len(ids) + 1):
        assert ours.decode_bytes(ids[:end]) == ref.decode_bytes(ids[:end])
    with_special = ours.encode("a<|endoftext|>b", allowed_special="all").ids
    assert ours.decode_bytes(with_special) == ref.decode_bytes(with_special) == b"a<|endoftext|>b"


TIKTOKEN_CASES = [
    b" \xec\x8b\xa4\xed",
    b"\xff",
    b"hello \xe2\x80",
    b"a\n\n \xf0\x9f",
    b"  \t\n\xc3",
    b"\xf0\x9f\x99\x82\xf0\x9f",
    b"",
    b"plain text",
    b"<|endoftext|>\xe2",
]


@pytest.mark.parametrize("data", TIKTOKEN_CASES)
def test_encode_bytes_as_tiktoken(pair, data):
    ours, ref = pair
    assert ours.encode_bytes(data) == ref._encode_bytes(data)
    assert ours.decode_bytes(ours.encode_bytes(data)) == data


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=24)
    | st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")[:-1])
)
def test_encode_bytes_matches_tiktoken_on_any_bytes(pair, data):
    ours, ref = pair
    assert ours.encode_bytes(data) == ref._encode_bytes(data)
    assert ours.decode_bytes(ours.encode_bytes(data)) == data


# ---- a byte-level Hugging Face tokenizer.json ---------------------------------------------------
@pytest.fixture(scope="module")
def llama3():
    path = INTEROP / "converted" / "llama3.tokenizer.json"
    if not path.is_file():
        pytest.skip(f"needs the shared interop files ({path})")
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    config = json.loads(path.read_text(encoding="utf-8"))
    specials = {t["content"]: t["id"] for t in config["added_tokens"]}
    ref = tiktoken.Encoding(
        "llama3",
        pat_str=PRESETS["llama3"],
        special_tokens=specials,
        mergeable_ranks=load_tiktoken_bpe(str(INTEROP / "raw" / "llama3" / "tokenizer.model")),
    )
    return tc.load(str(path)), ref


@pytest.mark.heavy
def test_hf_byte_level_tokens_have_the_ranks_files_bytes(llama3):
    ours, ref = llama3
    for id_ in range(ref.n_vocab):
        theirs = ref.decode_single_token_bytes(id_)
        assert ours.decode_single_token_bytes(id_) == theirs, id_
    for id_ in range(0, ref.n_vocab, 97):
        theirs = ref.decode_single_token_bytes(id_)
        assert ours.encode_single_token(theirs) == id_


@pytest.mark.heavy
def test_hf_byte_level_decode_bytes_joins_the_tokens(llama3):
    ours, ref = llama3
    enc = ours.encode("Hello 👍 naïve ﬁ 日本語")
    for end in range(len(enc.ids) + 1):
        assert ours.decode_bytes(enc.ids[:end]) == ref.decode_bytes(enc.ids[:end])
    assert ours.decode_bytes(enc.ids) == "<|begin_of_text|>Hello 👍 naïve ﬁ 日本語".encode()
    with pytest.raises(ValueError, match="not UTF-8"):
        ours.encode_bytes(b"\xff")
    assert ours.encode_bytes("naïve".encode()) == ref.encode_ordinary("naïve")


# ---- tokenisers that are not byte-level ---------------------------------------------------------
def test_other_tokenisers_give_their_entries_and_text_as_utf8():
    bert = tc.load("bert-base-uncased")
    ids = bert.encode("Héllo, playing").ids
    assert bert.decode_bytes(ids) == bert.decode(ids).encode("utf-8")
    assert bert.decode_single_token_bytes(bert.token_to_id("##ing")) == b"##ing"
    assert bert.encode_single_token(b"[CLS]") == 101
    with pytest.raises(KeyError):
        bert.encode_single_token(b"\xff")


@pytest.mark.parametrize("extra", [[10**9], [100256], [100261], [199998], [50257]])
def test_decode_of_an_id_the_vocabulary_lacks_raises_as_tiktoken(pair, extra):
    """tiktoken 0.14's decode raises KeyError ("Invalid token for decoding: 100256") for an id
    that is no token; ours raises a KeyError too (NotAToken, also a ValueError), never drops it."""
    ours, ref = pair
    ids = [0, *extra]
    try:
        expected = ref.decode(ids)
    except KeyError:
        with pytest.raises(KeyError, match="is not in the vocabulary of"):
            ours.decode(ids)
        assert ours.unknown_ids(ids) == extra and not ours.drops_unknown_ids
    else:
        assert ours.decode(ids) == expected


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_decode_of_any_ids_is_tiktokens_and_skips_the_special_ones(pair, data):
    """`decode` reads each token's bytes from a table kept per model: the same text as
    tiktoken's decode (U+FFFD for a character cut across the end), the special tokens kept, or
    left out with `skip_special_tokens`; the table kept from one call serves the next."""
    ours, ref = pair
    specials = sorted(ref._special_tokens.values())
    ids = data.draw(
        st.lists(st.one_of(st.integers(0, 50255), st.sampled_from(specials)), max_size=16)
    )
    assert ours.decode(ids) == ref.decode(ids)
    plain = [i for i in ids if i not in specials]
    assert ours.decode(ids, skip_special_tokens=True) == ref.decode(plain)
    with pytest.raises(KeyError, match="is not in the vocabulary of"):
        ours.decode([*ids, 10**9])
    with pytest.raises(tc.InvalidInput):
        ours.decode([*ids, True])
