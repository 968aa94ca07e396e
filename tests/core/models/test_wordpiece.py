"""WordPiece encoding: greedy longest match, its probe steps, vocabulary loading."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizers_core.models.wordpiece.model import WordPiece, WordPieceProbeStep, vocab_from_text
from tokenizers_core.steps import step_from_dict

SMALL = ["[UNK]", "play", "##ing", "un", "##aff", "##able", "p", "##l", "##a", "##y", "a", "##b"]


@pytest.fixture(scope="module")
def small() -> WordPiece:
    return WordPiece.from_lines(SMALL)


def tokens(model: WordPiece, word: str) -> list[str]:
    return [t for t, *_ in model.tokenize(word)]


def test_playing_golden(small):
    """The 'How it works' guide's "playing" -> play, ##ing. At start 0 the window shrinks from "playing" to
    "play" (4 probes: playing, playin, playi, play); at start 4, "##ing" matches at once."""
    assert small.tokenize("playing") == [("play", 1, 0, 4), ("##ing", 2, 4, 7)]
    probes = list(small.probes("playing"))
    assert [(p.start, p.end, p.candidate, p.found) for p in probes] == [
        (0, 7, "playing", False),
        (0, 6, "playin", False),
        (0, 5, "playi", False),
        (0, 4, "play", True),
        (4, 7, "##ing", True),
    ]
    assert probes[-1].pieces == ("play", "##ing")
    assert probes[3].pieces == ("play",)


def test_unaffable_golden(small):
    """STYLE.md's textbook case: un + ##aff + ##able."""
    assert tokens(small, "unaffable") == ["un", "##aff", "##able"]
    hits = [p.candidate for p in small.probes("unaffable") if p.found]
    assert hits == ["un", "##aff", "##able"]


def test_whole_word_unk(small):
    """ "plax": p-l-a match, then no "##x" at all -> the WHOLE word is [UNK], offsets (0, 4)."""
    assert small.tokenize("plax") == [("[UNK]", 0, 0, 4)]
    probes = list(small.probes("plax"))
    assert probes[-1].status == "unk" and probes[-1].candidate == "##x"
    assert probes[-1].pieces == ("[UNK]",)
    assert all(p.status in ("miss", "hit") for p in probes[:-1])


def test_too_long_word_is_unk(small):
    word = "a" + "b" * 100  # 101 characters > 100
    assert small.tokenize(word) == [("[UNK]", 0, 0, 101)]
    assert [p.status for p in small.probes(word)] == ["too_long"]
    ok = "a" + "b" * 99  # exactly 100: encoded
    assert tokens(small, ok) == ["a"] + ["##b"] * 99


def test_empty_word(small):
    assert small.tokenize("") == []
    assert list(small.probes("")) == []


def test_probe_steps_round_trip(small):
    for word in ("playing", "plax", "unaffable", "x" * 101):
        for p in small.probes(word):
            assert step_from_dict(p.to_dict()) == p
            assert p.kind == "wordpiece_probe"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="playingunafbex#", max_size=14))
def test_fast_path_equals_stepper(word):
    """`tokenize` (no steps) and the last probe step agree on every word."""
    model = WordPiece.from_lines(SMALL)
    fast = tokens(model, word)
    probes = list(model.probes(word))
    stepped = list(probes[-1].pieces) if probes else []
    assert fast == stepped
    if fast != ["[UNK]"]:
        # offsets tile the word and the pieces spell it
        spans = [(s, e) for _, _, s, e in model.tokenize(word)]
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        assert "".join(t[2:] if i else t for i, t in enumerate(fast)) == word


def test_vocab_rejects_missing_unk():
    with pytest.raises(ValueError, match="no unknown token"):
        vocab_from_text("play\n##ing\n")


def test_vocab_rejects_duplicates():
    with pytest.raises(ValueError, match=r"repeats 'play' \(lines 2 and 4\)"):
        vocab_from_text("[UNK]\nplay\n##ing\nplay\n")


def test_vocab_from_file(tmp_path):
    path = tmp_path / "vocab.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(SMALL) + "\n")
    model = WordPiece.from_file(str(path))
    assert model.get_vocab_size() == len(SMALL)
    assert model.token_to_id("##ing") == 2 and model.id_to_token(2) == "##ing"
    assert model.vocab["play"] == 1


def test_bad_options():
    with pytest.raises(ValueError):
        WordPiece({"[UNK]": 0}, max_input_chars_per_word=0)
    with pytest.raises(ValueError):
        WordPiece({})
    with pytest.raises(ValueError, match="the vocabulary is empty"):
        vocab_from_text("")


def test_custom_prefix():
    model = WordPiece({"[UNK]": 0, "play": 1, "@@ing": 2}, continuing_subword_prefix="@@")
    assert tokens(model, "playing") == ["play", "@@ing"]


def test_probe_dataclass_is_frozen():
    p = WordPieceProbeStep("ab", 0, 2, "ab", True, ("ab",), "hit")
    with pytest.raises(Exception):
        p.start = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    "module",
    [
        "tokenizers_core.models.wordpiece.model",
        "tokenizers_core.models.wordpiece.trainer",
        "tokenizers_core.implementations.bert",
        "tokenizers_core.processors",
    ],
)
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
