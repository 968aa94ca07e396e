"""Unigram paths that tie, scored as sentencepiece 0.2.3 scores them.

AI21's `j2-tokenizer.model` scores `▁▁` exactly twice `▁` and `▁▁▁▁` four times, so a run of
spaces has several segmentations of the same real score; which one wins depends on how the sums
round. sentencepiece 0.2.3's `EncodeOptimized` (src/unigram_model.cc):

- sums are `float + float`: every candidate is rounded to 32 bits before it is compared, and a
  later start must be strictly greater to replace the kept one;
- a user-defined piece scores `GetUserDefinedScore(length) = 0.1 * (length - 1)` as a float
  (length in UTF-8 bytes there, in characters in the lattice), not `length * max_score - 0.1`
  as older releases did: after a `)` the running score differs, and so do the roundings;
- once the best score at a start passes +-100,000 (`kScoreResetThreshold`), the kept scores from
  there to the furthest end reached are shifted by it, which changes later roundings on long
  texts.

Each test writes a small model with our own writer and compares with sentencepiece itself.
"""

from __future__ import annotations

import random

import pytest

from tokenizers_core.formats.sentencepiece_model import (
    ModelProto,
    load_bytes,
    serialize_model_proto,
)
from tokenizers_core.models.unigram import viterbi as viterbi_module
from tokenizers_core.models.unigram.lattice import f32
from tokenizers_core.models.unigram.model import user_defined_score

spm = pytest.importorskip("sentencepiece")

NORMAL, UNKNOWN, USER_DEFINED = 1, 2, 4


def _model_bytes(pieces: list[tuple[str, float, int]]) -> bytes:
    """A Unigram `.model` with <unk> first and an identity normaliser (no dummy prefix)."""
    proto = ModelProto(
        [("<unk>", 0.0, UNKNOWN), *pieces],
        {"model_type": 1, "unk_id": 0, "bos_id": -1, "eos_id": -1},
        {
            "name": "identity",
            "add_dummy_prefix": False,
            "remove_extra_whitespaces": False,
            "escape_whitespaces": False,
        },
    )
    return serialize_model_proto(proto)


def _both(pieces: list[tuple[str, float, int]]):
    data = _model_bytes(pieces)
    return spm.SentencePieceProcessor(model_proto=data), load_bytes(data)


def _run_pieces(scale: float) -> list[tuple[str, float, int]]:
    """`a`, `aa`, `aaaa` scoring s, 2s, 4s exactly: every split of a run of a's ties."""
    s = f32(-scale)
    return [("a", s, NORMAL), ("aa", 2 * s, NORMAL), ("aaaa", 4 * s, NORMAL)]


def test_user_defined_score_is_sentencepiece_0_2_3s():
    """0.1 per unit past the first, as a float: `)` scores 0, a 4-byte piece 0.3."""
    assert user_defined_score(1) == 0.0
    assert user_defined_score(4) == f32(0.3)


def test_a_run_after_user_defined_pieces_splits_as_sentencepiece():
    """`))aaaaa`: the user-defined `)` scores 0, so the run is scored from 0 and `a|aaaa` keeps
    the earlier start on the tie (the old `-0.1` per `)` made the sums round the other way and
    gave `aaaa|a`)."""
    sp, tok = _both([*_run_pieces(2.6801559925079346), (")", 0.0, USER_DEFINED)])
    text = "))aaaaa"
    assert sp.encode(text, out_type=str) == [")", ")", "a", "aaaa"]
    assert tok.encode(text, add_special_tokens=False).tokens == [")", ")", "a", "aaaa"]


@pytest.mark.parametrize("seed", range(4))
def test_runs_of_tied_pieces_match_sentencepiece(seed):
    """Random prefixes (normal letters and user-defined brackets) before runs of a's: the ids
    equal sentencepiece's on every text (the 64-bit comparison or the old user-defined score
    each fail some of these)."""
    rng = random.Random(seed)
    for _ in range(8):
        pieces = _run_pieces(rng.uniform(0.5, 4))
        pieces += [(c, f32(-rng.uniform(0.5, 12)), NORMAL) for c in "bcdefg"]
        pieces += [("(", 0.0, USER_DEFINED), (")", 0.0, USER_DEFINED), ("((", 0.0, USER_DEFINED)]
        sp, tok = _both(pieces)
        for _ in range(25):
            prefix = "".join(rng.choice("bcdefg()") for _ in range(rng.randint(1, 14)))
            text = prefix + "a" * rng.randint(2, 9)
            assert tok.encode(text, add_special_tokens=False).ids == sp.encode(text), text


def test_a_long_text_shifts_scores_as_sentencepiece(monkeypatch):
    """Past a path score of -100,000 sentencepiece shifts the kept scores; a long text of runs
    comes out as sentencepiece's only with the same shift (without it, it does not)."""
    rng = random.Random(7)
    pieces = _run_pieces(2.1716766357421875) + [
        (c, f32(-rng.uniform(5, 12)), NORMAL) for c in "bcdefg"
    ]
    sp, tok = _both(pieces)
    text = "".join(
        "".join(rng.choice("bcdefg") for _ in range(rng.randint(1, 4))) + "a" * rng.randint(2, 7)
        for _ in range(4000)
    )
    expected = sp.encode(text)
    assert tok.encode(text, add_special_tokens=False).ids == expected
    monkeypatch.setattr(viterbi_module, "_RESET_AT", float("inf"))
    assert tok.encode(text, add_special_tokens=False).ids != expected
