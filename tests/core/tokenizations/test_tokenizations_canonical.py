"""Canonicality: `is_canonical(tok, ids)` is None exactly when encode(text(ids)) ==
ids, and otherwise names the first break, where re-encoding really differs.

- Canonical ids are canonical, for every family (and for random texts, by Hypothesis).
- Every uniform sample, shortest sequence, BPE-dropout sample and StochasTok split that differs
  from the canonical ids gets a break, checked independently: a "pairwise" break's pair
  re-encodes otherwise by tiktoken's own BPE of those bytes alone (`_encode_single_piece`), a
  "pre_token" break's token crosses a piece of tiktoken's own regex split, a "reencode" break is
  where the ids and encode's ids part.
- The pairwise test of Canonical BPE (arXiv 2506.07956), made exact for pre-tokenised BPE,
  agrees with the whole re-encode on tiktoken's, Hugging Face's (Llama 3: `ignore_merges`) and
  sentencepiece's BPE (Hypothesis).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
from tokenizers_core.models.bpe.model import BPE
from tokenizers_core.pipeline import Tokenizer
from tokenizers_core.pre_tokenizers import PRESETS
from tokenizers_core.tokenizations import is_canonical, pairwise, tokenizations
from tokenizers_core.tokenizations.space import ordinary_ids

tiktoken = pytest.importorskip("tiktoken")

from tests.shared_data import DATA, INTEROP, missing_reason

NAMES = [
    "cl100k_base",
    "o200k_base",
    "qwen3",
    "mistral_v1",
    "botchan_en_bpe_1000",
    "botchan_en_unigram_1000",
    "bert-base-uncased",
    "clip",
]
BPE_NAMES = ["cl100k_base", "o200k_base", "qwen3", "mistral_v1", "botchan_en_bpe_1000"]
TEXTS = [
    "The quick brown fox jumps over the lazy dog",
    "Hello, world! It's 2024: naïve café.",
    "東京では 🙂 tokens   split\n\tstrangely 12345",
    "Всеобщая декларация прав человека",
]


@cache
def _load(name):
    """A tokenizer by name, Llama 3's tokenizer.json (read once) for "llama3"."""
    if name == "llama3":
        if missing_reason():
            pytest.skip(missing_reason())
        return tc.load(str(INTEROP / "converted" / "llama3.tokenizer.json"))
    return tc.load(name)


def _tiktoken(name):
    preset, specials = ENCODINGS[name]
    return tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
    )


def _snippets():
    if missing_reason():
        return TEXTS
    folder = DATA / "corpora" / "udhr"
    return TEXTS + [
        (folder / f"{lang}.txt").read_text(encoding="utf-8")[300:420]
        for lang in ("fra", "jpn", "hin", "arb", "kor", "tha")
    ]


@pytest.mark.parametrize("name", [*NAMES, "llama3"])
@pytest.mark.parametrize("text", TEXTS)
def test_canonical_ids_are_canonical(name, text):
    """...unless they hold the unknown token, whose decoded text ("⁇") encodes otherwise."""
    tok = _load(name)
    t = tokenizations(tok, text)
    ids = t.canonical()
    assert ids == ordinary_ids(tok, text)
    if t.space.unk_id in ids:
        found = is_canonical(tok, ids)
        assert found.method == "reencode" and found.index <= ids.index(t.space.unk_id)
    else:
        assert is_canonical(tok, ids) is None


@pytest.mark.heavy
@pytest.mark.parametrize("name", [*NAMES, "llama3"])
def test_every_other_sequence_breaks_where_reencoding_differs(name):
    tok = _load(name)
    bpe = name in BPE_NAMES or name == "llama3"
    reference = _tiktoken(name) if name in ("cl100k_base", "o200k_base") else None
    methods = set()
    for text in _snippets():
        t = tokenizations(tok, text)
        others = t.sample(15, seed=1) + t.shortest(4) + [t.stochastok(0.5, seed=2)]
        if bpe:
            others += t.dropout(5, 0.2, seed=3)
        for ids in others:
            found = is_canonical(tok, ids)
            # encode of what the ids decode to (the canonical path's own, but for an <unk>)
            again = ordinary_ids(tok, tok.decode(ids))
            if ids == again:
                assert found is None
                continue
            assert found is not None, ids
            methods.add(found.method)
            _check_break(tok, ids, again, found, reference)
    if reference is not None:
        assert methods == {"pairwise", "pre_token"}
    elif bpe:
        assert "pairwise" in methods
    else:
        assert methods == {"reencode"}


def _check_break(tok, ids, canonical, found, reference):
    i = found.index
    assert found.ids == tuple(ids) and found.canonical_ids == tuple(canonical)
    assert 0 <= i < len(ids)
    d = found.differs_at
    assert ids[:d] == canonical[:d] and (
        d == min(len(ids), len(canonical)) or ids[d] != canonical[d]
    )
    assert len(found.tokens) == len(ids) and len(found.canonical_tokens) == len(canonical)
    if found.method == "byte_fallback":  # a character of the vocabulary spelled by bytes
        assert found.pair_ids == tuple(ids[i : i + len(found.pair_ids)])
        (piece,) = found.pair_encoding  # the one piece of the vocabulary they spell
        assert tok.id_to_token(piece) is not None and not tok.id_to_token(piece).startswith("<0x")
    if found.method == "pairwise" and len(found.pair_ids) > 2:  # byte pieces of a character
        assert found.pair_ids == tuple(ids[i : i + len(found.pair_ids)]) != found.pair_encoding
    elif found.method == "pairwise":
        assert found.pair_ids == (ids[i], ids[i + 1]) != found.pair_encoding
        assert d <= i + 1  # the pair never occurs in the canonical encoding
        if reference is not None:  # tiktoken's own BPE of the pair's bytes, with no regex
            left, right = (reference.decode_single_token_bytes(j) for j in ids[i : i + 2])
            assert reference._encode_single_piece(left + right) != [ids[i], ids[i + 1]]
    elif found.method == "pre_token" and reference is not None:
        # token i crosses a boundary of tiktoken's own regex split of the text
        text = reference.decode_bytes(ids).decode()
        bounds, pos = set(), 0
        for m in regex.finditer(reference._pat_str, text):
            pos += len(m.group().encode())
            bounds.add(pos)
        start = len(reference.decode_bytes(ids[:i]))
        end = start + len(reference.decode_single_token_bytes(ids[i]))
        assert any(start < b < end for b in bounds)
    elif found.method == "reencode":
        assert i == d


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_a_token_across_a_pre_token_is_a_break(name):
    """ "1234" is cut "123" + "4" by the pattern; "1" + "234" has a token across the cut."""
    tok = tc.load(name)
    one, rest = tok.encode("1").ids[0], tok.encode_single_token("234")
    found = is_canonical(tok, [one, rest])
    assert (found.method, found.index, found.tokens) == ("pre_token", 1, ("1", "234"))
    assert [tok.decode([i]) for i in found.canonical_ids] == ["123", "4"]


def test_golden_pairwise():
    """a, b, ab, abb, merges a+b then ab+b: [ab, b] is canonical for "abb"? No: it merges to
    abb, so the pair (ab, b) breaks at 0; [a, bb]... bb is no token."""
    tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2, "abb": 3}, [("a", "b"), ("ab", "b")]))
    assert is_canonical(tok, [3]) is None
    found = is_canonical(tok, [2, 1])
    assert (found.index, found.method, found.pair_encoding, found.canonical_ids) == (
        0,
        "pairwise",
        (3,),
        (3,),
    )
    assert json.loads(json.dumps(found.to_dict()))["canonical_tokens"] == ["abb"]


def test_the_non_bpe_families_re_encode():
    bert = tc.load("bert-base-uncased")
    ids = [bert.token_to_id(t) for t in ("un", "##af", "##f", "##able")]  # BERT has no ##aff
    found = is_canonical(bert, ids)
    assert (found.method, found.index, found.canonical_tokens) == (
        "reencode",
        0,
        ("una", "ffa", "ble"),
    )
    assert found.tokens == ("un", "af", "f", "able")
    with pytest.raises(InvalidInput, match="pairwise test is for BPE"):
        pairwise(bert, ids)


@pytest.mark.parametrize(
    "ids, message",
    [
        ([10**9], "not in the vocabulary"),
        ([100257], "special or added token"),
        (["a"], "not a token id"),
        ("abc", "list of token ids"),
        ([1] * 2001, "at most 2,000"),
    ],
)
def test_bad_ids_are_invalid_input(ids, message):
    with pytest.raises(InvalidInput, match=message):
        is_canonical(tc.load("cl100k_base"), ids)


def test_a_sentencepiece_sequence_without_its_prefix_is_not_canonical():
    mistral = tc.load("mistral_v1")
    hello = mistral.token_to_id("Hello")
    found = is_canonical(mistral, [hello])
    assert found.method == "reencode" and found.canonical_tokens == ("▁Hello",)


# ---- Hypothesis ---------------------------------------------------------------------------------
TEXT_PIECES = list("aabbe tTh1203.,!'\n日本語éßñ🙂Жя") + ["  ", "'s", "the", " of"]
TEXT = st.lists(st.sampled_from(TEXT_PIECES), max_size=16).map("".join)


@pytest.fixture(scope="module")
def bpe_tokenizers():
    names = ["cl100k_base", "o200k_base", "mistral_v1", "botchan_en_bpe_1000", "qwen3"]
    toks = [tc.load(n) for n in names]
    if not missing_reason():
        toks.append(_load("llama3"))
    return toks


@pytest.mark.heavy
@settings(max_examples=60)
@given(text=TEXT, seed=st.integers(0, 2**32))
def test_pairwise_agrees_with_the_whole_re_encode(bpe_tokenizers, text, seed):
    """Where the pairwise rule decides (it hands what it cannot read, an unknown token or bytes
    cut inside a character, to the whole re-encode: "reencode"), its verdict is the whole
    re-encode's."""
    for tok in bpe_tokenizers:
        t = tokenizations(tok, text)
        for ids in t.sample(8, seed=seed) + t.shortest(3) + [t.stochastok(1.0, seed=seed)]:
            whole = ordinary_ids(tok, tok.decode(ids)) == ids
            assert (pairwise(tok, ids) is None) == whole, (tok.name, text, ids)
            assert (is_canonical(tok, ids) is None) == whole


def test_the_pairwise_rule_decides_by_itself(bpe_tokenizers):
    """Sequences without an unknown token are all decided by the rule itself."""
    rng = random.Random(0)
    pieces = TEXT_PIECES
    decided = Counter()
    for tok in bpe_tokenizers:
        for _ in range(25):
            text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 16)))
            t = tokenizations(tok, text)
            for ids in t.sample(8, seed=rng.random()):
                if t.space.unk_id not in ids:
                    found = pairwise(tok, ids)
                    decided["canonical" if found is None else found.method] += 1
    assert decided["reencode"] == 0 and decided["pairwise"] > 100, decided
    assert decided["byte_fallback"] and decided["pre_token"] and decided["canonical"], decided


@settings(max_examples=40)
@given(text=TEXT)
def test_canonical_ids_of_random_texts_are_canonical(text):
    """(Unless they hold the unknown token, whose text does not read back.)"""
    for name in ("cl100k_base", "mistral_v1", "botchan_en_unigram_1000", "bert-base-uncased"):
        tok = tc.load(name)
        t = tokenizations(tok, text)
        if t.space.unk_id not in t.canonical():
            assert is_canonical(tok, t.canonical()) is None
