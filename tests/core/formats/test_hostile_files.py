"""A hostile tokenizer file cannot make the engine run without bounds.

1. A pattern of the file's (Split, Replace normaliser and decoder, a ranks file's pattern, the
   custom regex rule) runs under one time limit once `limit_regex_time` is set; the limit covers
   all the pattern's searches in one encode, not each piece's, and the error names the pattern.
   `(a|a)*$` on "a" * n + "!" backtracks 2^n times: a dozen more a's than the limit allows.
2. Padding and truncation lengths are bounded when the file loads.
3. WordPiece probes never look past the longest vocabulary entry, so a word of n characters
   costs O(n * longest) lookups whatever `max_input_chars_per_word` says; the tokens stay HF's.
16. `WordPiece::default()` (an empty vocabulary) loads and saves back as `tokenizers` writes it.
"""

from __future__ import annotations

import base64
import copy
import json
import pickle

import pytest
from tokenizers import (
    Regex,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
)
from tokenizers import (
    Tokenizer as HFTokenizer,
)

import tokenizers_core as tc
from tokenizers_core.implementations.rules import regex_tokenizer

EVIL = "(a|a)*$"
SLOW = "a" * 24 + "!"  # ~2^24 backtracking steps: seconds without a limit
LIMIT = 0.05  # CPU seconds; a runaway search is stopped by the wall backstop, 10x + 1 s: 1.5 s


def evil_json(**sections) -> bytes:
    """A WordLevel tokenizer.json written by Hugging Face `tokenizers`, with `sections` set."""
    vocab = {"a": 0, "!": 1, "[UNK]": 2, "[PAD]": 3, SLOW: 4}
    tok = HFTokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    for name, value in sections.items():
        setattr(tok, name, value)
    return tok.to_str().encode()


def with_config(edit) -> bytes:
    """The plain WordLevel file, its JSON edited by `edit(config)`."""
    config = json.loads(evil_json(pre_tokenizer=pre_tokenizers.WhitespaceSplit()))
    edit(config)
    return json.dumps(config).encode()


# ---- 1. regex time limit ----------------------------------------------------------------------
def test_a_split_pattern_that_backtracks_is_stopped_and_named():
    tok = tc.load(evil_json(pre_tokenizer=pre_tokenizers.Split(Regex(EVIL), "isolated")))
    tok.limit_regex_time(LIMIT)
    with pytest.raises(ValueError, match=r"\(a\|a\)\*\$.*longer than 0.05 s"):
        tok.encode(SLOW)
    assert tok.encode("aa!").tokens == ["[UNK]"]  # a short text runs as before


def test_a_replace_normalizer_pattern_is_stopped_and_named():
    tok = tc.load(
        evil_json(
            normalizer=normalizers.Replace(Regex(EVIL), "a"),
            pre_tokenizer=pre_tokenizers.WhitespaceSplit(),
        )
    )
    tok.limit_regex_time(LIMIT)
    with pytest.raises(ValueError, match=r"\(a\|a\)\*\$"):
        tok.encode(SLOW)


def test_a_replace_decoder_pattern_is_stopped_and_named():
    tok = tc.load(
        evil_json(
            decoder=decoders.Replace(Regex(EVIL), "a"),
            pre_tokenizer=pre_tokenizers.WhitespaceSplit(),
        )
    )
    tok.limit_regex_time(LIMIT)
    with pytest.raises(ValueError, match=r"\(a\|a\)\*\$"):
        tok.decode([4])


def test_a_ranks_file_pattern_is_stopped_and_named():
    ranks = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))
    tok = tc.load(ranks, format="tiktoken", pattern=EVIL)
    tok.limit_regex_time(LIMIT)
    with pytest.raises(ValueError, match=r"\(a\|a\)\*\$"):
        tok.encode(SLOW)


def test_the_custom_regex_rule_names_its_pattern():
    with pytest.raises(ValueError, match=r"\(a\|a\)\*\$.*longer than 0.05 s"):
        regex_tokenizer(EVIL, timeout=LIMIT).encode(SLOW)


def test_the_limit_covers_the_whole_text_not_each_piece():
    """Each piece ("a" * 12 + "!") stays far under the limit (~3 ms of CPU: a twentieth of it,
    so a busy machine's slower CPU seconds do not reach it); two hundred of them do not (ten
    times the limit), and the one encode is stopped."""
    tok = tc.load(
        evil_json(
            pre_tokenizer=pre_tokenizers.Sequence(
                [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Split(Regex(EVIL), "isolated")]
            )
        )
    )
    tok.limit_regex_time(LIMIT)
    tok.encode("a" * 12 + "!")
    with pytest.raises(ValueError, match=r"\(a\|a\)\*\$"):
        tok.encode(("a" * 12 + "! ") * 200)


def test_without_a_limit_a_file_runs_as_hugging_face_runs_it():
    """The library (and the CLI) run a file's patterns unbounded, as `tokenizers` does."""
    data = evil_json(pre_tokenizer=pre_tokenizers.Split(Regex(EVIL), "isolated"))
    ref = HFTokenizer.from_str(data.decode())
    text = "a" * 12 + "!"
    assert tc.load(data).encode(text).ids == ref.encode(text).ids


def test_the_limit_survives_pickling_and_leaves_the_file_unchanged():
    data = evil_json(pre_tokenizer=pre_tokenizers.Split(Regex(EVIL), "isolated"))
    tok = tc.load(data)
    tok.limit_regex_time(LIMIT)
    again = pickle.loads(pickle.dumps(tok))
    with pytest.raises(ValueError, match="longer than"):
        again.encode(SLOW)
    assert tok.to_hf_json()["pre_tokenizer"] == json.loads(data)["pre_tokenizer"]


# ---- 2. padding and truncation lengths ----------------------------------------------------------
@pytest.mark.parametrize(
    "section, value",
    [
        ("padding", {"strategy": {"Fixed": 3_000_000}}),
        ("padding", {"strategy": {"Fixed": 10**12}}),
        ("padding", {"strategy": {"Fixed": 1e12}}),
        ("padding", {"strategy": "BatchLongest", "pad_to_multiple_of": 3_000_000}),
        ("truncation", {"max_length": 10**12}),
    ],
)
def test_huge_padding_and_truncation_lengths_are_refused_at_load(section, value):
    def edit(config):
        config[section] = dict(
            {"direction": "Right", "pad_id": 3, "pad_type_id": 0, "pad_token": "[PAD]"}
            if section == "padding"
            else {"direction": "Right", "stride": 0, "strategy": "LongestFirst"},
            **value,
        )

    with pytest.raises(ValueError, match=f"{section}.*at most [0-9,]+"):
        tc.load(with_config(edit))


def test_ordinary_padding_still_loads_and_pads_as_hugging_face():
    data = with_config(
        lambda c: c.update(
            padding={
                "strategy": {"Fixed": 512},
                "direction": "Right",
                "pad_to_multiple_of": None,
                "pad_id": 3,
                "pad_type_id": 0,
                "pad_token": "[PAD]",
            }
        )
    )
    enc = tc.load(data).encode("a !")
    ref = HFTokenizer.from_str(data.decode()).encode("a !")
    assert (enc.ids, enc.attention_mask) == (ref.ids, ref.attention_mask)


# ---- 3. WordPiece probes bounded by the longest vocabulary entry --------------------------------
def wordpiece_json(max_input_chars: float) -> bytes:
    vocab = {
        "[UNK]": 0,
        "a": 1,
        "b": 2,
        "##a": 3,
        "##b": 4,
        "ab": 5,
        "##ab": 6,
        "##aba": 7,
        "##bb": 8,
    }
    config = json.loads(HFTokenizer(models.WordPiece(vocab, unk_token="[UNK]")).to_str())
    config["model"]["max_input_chars_per_word"] = max_input_chars
    return json.dumps(config).encode()


LONG_WORDS = ["ab" * 3000, "abba" * 1500, "a" * 5999 + "c", "b" * 6000]


@pytest.mark.heavy
def test_long_words_with_a_huge_max_input_chars_match_hugging_face():
    """Words of 2,000 characters (Hugging Face itself takes seconds on 6,000: its probes are
    not bounded), of 1,999 and of 2,000 characters around the longest entry's edge."""
    data = wordpiece_json(10**9)
    ref = HFTokenizer.from_str(data.decode())
    tok = tc.load(data)
    for word in [w[:2000] for w in LONG_WORDS] + ["ab" * 999 + "abb", "b" + "aba" * 666]:
        assert tok.encode(word).tokens == ref.encode(word).tokens, word[:12]


class CountingDict(dict):
    lookups = 0

    def get(self, key, default=None):
        CountingDict.lookups += 1
        return super().get(key, default)

    def __contains__(self, key):
        CountingDict.lookups += 1
        return super().__contains__(key)


@pytest.mark.parametrize("word", LONG_WORDS, ids=["ab", "abba", "a-c", "b"])
def test_each_probe_looks_no_further_than_the_longest_vocabulary_entry(word):
    """A word of n characters costs at most n * (longest entry + 1) lookups, not n^2 / 2."""
    model = copy.copy(tc.load(wordpiece_json(10**9)).model)
    model._cache = {}
    model.vocab = CountingDict(model.vocab)
    CountingDict.lookups = 0
    model.tokenize(word)
    assert CountingDict.lookups <= len(word) * (len("##aba") + 1)


# ---- 16. an empty WordPiece vocabulary --------------------------------------------------------------
def test_an_empty_wordpiece_vocabulary_loads_and_saves_back_as_tokenizers_writes_it(tmp_path):
    written = HFTokenizer(models.WordPiece()).to_str()
    tok = tc.load(written.encode())
    assert tok.vocab_size == 0
    assert tok.to_hf_json() == json.loads(written)
    out = tmp_path / "tokenizer.json"
    tok.save(str(out))
    assert json.loads(out.read_text()) == json.loads(written)
    assert HFTokenizer.from_file(str(out)).to_str() == written
    with pytest.raises(ValueError, match="unknown token"):
        tok.encode("a")
