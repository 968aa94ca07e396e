"""One rule for every byte-level tokenizer: a character cut across tokens is
drawn once, by the token that completes it; the tokens before it show their share of its bytes
as <XX> hex. The same ids give the same chips whether they come from a tiktoken ranks file, a
Hugging Face tokenizer.json (ByteLevel) or a GPT-2 vocab.json + merges.txt, in the visualiser,
compare and the terminal."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from app import display
from app.cli.terminal import chip_line
from tests.shared_data import INTEROP

LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"
LLAMA3_RANKS = INTEROP / "raw" / "llama3" / "tokenizer.model"
needs_interop = pytest.mark.skipif(
    not LLAMA3_JSON.is_file() or not LLAMA3_RANKS.is_file(),
    reason="the Llama 3 files of shared/data/interop are absent",
)

TEXTS = ["fi 👍 ﬁ", "a 東京 👍🏽 naïve\n\tx", "𝔘𝔫𝔦 code  ok", "👨‍👩‍👧 ﬁne 🇫🇷"]


@pytest.fixture(scope="module")
def llama3():
    as_json = tc.load(str(LLAMA3_JSON))
    ranks = tc.load(
        str(LLAMA3_RANKS),
        pattern="llama3",
        special_tokens={"<|begin_of_text|>": 128000, "<|end_of_text|>": 128001},
    )
    return as_json, ranks


@pytest.fixture(scope="module")
def gpt2_three_ways(tmp_path_factory):
    """The bundled r50k ranks, the same as a tokenizer.json, and as vocab.json + merges.txt."""
    ranks = tc.load("gpt2")
    config = ranks.to_hf_json()
    folder = tmp_path_factory.mktemp("gpt2")
    (folder / "tokenizer.json").write_text(json.dumps(config), encoding="utf-8")
    files = tmp_path_factory.mktemp("gpt2-vocab-merges")
    (files / "vocab.json").write_text(json.dumps(config["model"]["vocab"]), encoding="utf-8")
    (files / "merges.txt").write_text(
        "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in config["model"]["merges"]),
        encoding="utf-8",
    )
    return ranks, tc.load(str(folder / "tokenizer.json")), tc.load(str(files))


def chip_labels(tok, text, **kw):
    enc = tok.encode(text, **kw)
    return [(c.id, c.text, c.partial) for c in display.chips(tok, text, enc)]


@needs_interop
@pytest.mark.parametrize("text", TEXTS)
def test_llama3_json_and_ranks_file_draw_the_same_chips(llama3, text):
    as_json, ranks = llama3
    from_json = chip_labels(as_json, text, add_special_tokens=False)
    assert from_json == chip_labels(ranks, text)
    shown = re.sub(r"<[0-9A-F ]+>", "", "".join(label for _, label, _ in from_json))
    assert shown == display.visible(text)  # each character drawn exactly once


@needs_interop
def test_llama3_json_cuts_the_thumbs_up_as_the_ranks_file_does(llama3):
    """`·<F0 9F 91>` then `👍`: never `·👍` then `👍`; `ﬁ` is drawn (on its last byte)."""
    as_json, ranks = llama3
    text = "fi 👍 ﬁ <|begin_of_text|>"
    json_chips = display.chips(as_json, text, as_json.encode(text))
    assert [c.text for c in json_chips] == [
        "<|begin_of_text|>",
        "fi",
        "·<F0 9F 91>",
        "👍",
        "·<EF>",
        "ﬁ",
        "·",
        "<|begin_of_text|>",
    ]
    assert [c.partial for c in json_chips][2:6] == [True, False, True, False]
    enc = ranks.encode(text, allowed_special="all")
    assert [c.text for c in display.chips(ranks, text, enc)] == [c.text for c in json_chips[1:]]


@pytest.mark.parametrize("text", TEXTS + ["ok <|endoftext|> 👍"])
def test_gpt2_ranks_tokenizer_json_and_vocab_merges_draw_the_same_chips(gpt2_three_ways, text):
    ranks, as_json, vocab_merges = gpt2_three_ways
    expected = chip_labels(ranks, text, disallowed_special=())
    assert chip_labels(as_json, text, encode_special_tokens=True) == expected
    assert chip_labels(vocab_merges, text) == expected


def test_gpt2_draws_the_ligature_on_its_last_byte():
    assert [c.text for c in display.chips(tc.load("gpt2"), "ﬁ", tc.load("gpt2").encode("ﬁ"))] == [
        "<EF>",
        "<AC>",
        "ﬁ",
    ]


@needs_interop
def test_the_terminal_draws_the_same_labels(llama3):
    as_json, ranks = llama3
    text = "fi 👍 ﬁ"
    line = chip_line(as_json, text, as_json.encode(text, add_special_tokens=False), colour=False)
    assert line == chip_line(ranks, text, ranks.encode(text), colour=False)
    assert line == "fi ·<F0 9F 91> 👍 ·<EF> ﬁ"


def test_labels_of_bytes_that_no_token_completes_are_hex():
    """A byte that starts no valid character stays hex wherever it is; a special token between
    two tokens ends whatever character was left open."""
    assert display.byte_labels([b"\xffa", b"b"]) == [("<FF>a", False), ("b", False)]
    assert display.byte_labels([b"\xe6\x9d", None, b"\xb1"]) == [
        ("<E6 9D>", False),
        ("", False),
        ("<B1>", False),
    ]


@pytest.mark.heavy
@needs_interop
def test_tokvis_encode_prints_the_same_chips_for_both_files(capsys):
    from app import cli

    assert cli.main(["encode", "-t", str(LLAMA3_JSON), "--no-color", "fi 👍 ﬁ"]) == 0
    from_json = capsys.readouterr().out.splitlines()[0]
    assert (
        cli.main(
            ["encode", "-t", str(LLAMA3_RANKS), "--pattern", "llama3", "--no-color", "fi 👍 ﬁ"]
        )
        == 0
    )
    from_ranks = capsys.readouterr().out.splitlines()[0]
    assert (
        from_json
        == "<|begin_of_text|> " + from_ranks
        == "<|begin_of_text|> fi ·<F0 9F 91> 👍 ·<EF> ﬁ"
    )


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12),
    st.lists(st.integers(0, 40), max_size=6),
    st.binary(max_size=3),
)
def test_tokens_of_whole_characters_are_drawn_as_character_by_character(text, cuts, junk):
    """The shortcut for a run whose every token holds whole characters gives the labels the
    character-by-character rule gives, and any run with a cut character or stray bytes takes
    that rule itself."""
    data = text.encode("utf-8") + junk
    points = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    run = [data[a:b] for a, b in zip(points, points[1:])]
    assert display._run_labels(run) == display.run_labels_by_character(run)
