"""The Hugging Face models (BPE with every option, WordPiece, WordLevel, Unigram) against
`tokenizers` 0.23.3 itself.

Each model is trained (or built) with `tokenizers`, saved as a tokenizer.json with no normalizer
and no pre-tokenizer, and loaded by both libraries; then every distinct word of botchan and of a
few UDHR texts (English, Chinese, Amharic, Hindi, Arabic, Russian) is encoded by both, one word
at a time: ids, tokens, offsets (characters) and any error must agree.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import hf_json
from tokenizers_core.models.bpe.hf import HFBpe
from tokenizers_core.models.bpe.model import BPE, BpeEncodeStep
from tokenizers_core.models.unigram.hf import HFUnigram
from tokenizers_core.models.unigram.model import BYTE, UNKNOWN, Unigram
from tokenizers_core.steps import step_from_dict

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

BYTES = [f"<0x{b:02X}>" for b in range(256)]
LANGS = ["eng", "cmn_hans", "amh", "hin", "arb", "rus"]


@pytest.fixture(scope="module")
def training_lines():
    return load_corpus("botchan").splitlines()[:2500]


@pytest.fixture(scope="module")
def words():
    """Distinct whitespace-separated words: 1,500 of botchan and 300 of each UDHR text."""
    out = sorted(set(re.findall(r"\S+", load_corpus("botchan"))))[::7][:1500]
    for lang in LANGS:
        out += sorted(set(re.findall(r"\S+", load_corpus(f"udhr/{lang}"))))[:300]
    return out


def _train(model, trainer, lines):
    tok = Tokenizer(model)
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(lines, trainer)
    tok.pre_tokenizer = None
    return tok


def _outcome(encode, word):
    try:
        enc = encode(word)
    except Exception as exc:  # noqa: BLE001  (either library's error)
        return ("error", type(exc).__name__ == "ValueError" or "Exception" in type(exc).__name__)
    return enc.ids, enc.tokens, [tuple(o) for o in enc.offsets]


def assert_same(ref: Tokenizer, words: list[str]) -> None:
    """Load `ref`'s tokenizer.json ourselves and compare every word."""
    ours = hf_json.load_bytes(ref.to_str().encode())
    for word in words:
        expected = _outcome(ref.encode, word)
        got = _outcome(ours.encode, word)
        if expected[0] == "error":
            assert got[0] == "error", (word, got)
        else:
            assert got == expected, word


BPE_CASES = {
    "unk": (dict(unk_token="<unk>"), dict(special_tokens=["<unk>"])),
    "fuse_unk": (dict(unk_token="<unk>", fuse_unk=True), dict(special_tokens=["<unk>"])),
    "no_unk": (dict(), dict()),
    "prefix": (
        dict(unk_token="<unk>", continuing_subword_prefix="##"),
        dict(special_tokens=["<unk>"], continuing_subword_prefix="##"),
    ),
    "suffix": (
        dict(unk_token="<unk>", end_of_word_suffix="</w>"),
        dict(special_tokens=["<unk>"], end_of_word_suffix="</w>"),
    ),
    "byte_fallback": (
        dict(unk_token="<unk>", byte_fallback=True),
        dict(special_tokens=["<unk>"] + BYTES),
    ),
    "byte_fallback_fuse": (
        dict(unk_token="<unk>", byte_fallback=True, fuse_unk=True),
        dict(special_tokens=["<unk>"] + BYTES[:128]),
    ),
    "ignore_merges": (dict(unk_token="<unk>", ignore_merges=True), dict(special_tokens=["<unk>"])),
}


@pytest.mark.parametrize("case", sorted(BPE_CASES))
def test_bpe_option_against_hf(case, training_lines, words):
    model_options, trainer_options = BPE_CASES[case]
    ref = _train(
        models.BPE(**model_options),
        trainers.BpeTrainer(vocab_size=700, show_progress=False, **trainer_options),
        training_lines,
    )
    assert_same(ref, words)


def test_bpe_merges_as_strings_or_pairs(training_lines, words):
    """tokenizer.json files hold merges as "a b" (older) or ["a", "b"] (0.20+): same model."""
    ref = _train(
        models.BPE(unk_token="<unk>"),
        trainers.BpeTrainer(vocab_size=500, special_tokens=["<unk>"], show_progress=False),
        training_lines,
    )
    config = json.loads(ref.to_str())
    assert isinstance(config["model"]["merges"][0], list)
    as_strings = dict(
        config, model=dict(config["model"], merges=[" ".join(m) for m in config["model"]["merges"]])
    )
    a = hf_json.from_dict(config)
    b = hf_json.from_dict(as_strings)
    assert a.model.merges == b.model.merges
    old = Tokenizer.from_str(json.dumps(as_strings))
    for word in words[:400]:
        assert b.encode(word).ids == old.encode(word).ids == a.encode(word).ids


def test_bpe_duplicate_merge_keeps_last_rank():
    """A pair listed twice has its last rank (Hugging Face's merge map is a HashMap)."""
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}
    merges = [["a", "b"], ["b", "c"], ["a", "b"]]
    config = {"model": {"type": "BPE", "vocab": vocab, "merges": merges}}
    ref = Tokenizer.from_str(json.dumps(config))
    ours = hf_json.from_dict(config)
    assert ours.encode("abc").tokens == ref.encode("abc").tokens == ["a", "bc"]


def test_byte_fallback_keeps_a_pending_unknown_after_the_bytes():
    """Hugging Face's ordering quirk: an unknown token waiting to be added stays pending while
    byte pieces are added, so it comes after them."""
    vocab = {"<unk>": 0, "a": 1, "<0xC3>": 2, "<0xA9>": 3}
    config = {
        "model": {
            "type": "BPE",
            "vocab": vocab,
            "merges": [],
            "unk_token": "<unk>",
            "byte_fallback": True,
        }
    }
    ref = Tokenizer.from_str(json.dumps(config))
    ours = hf_json.from_dict(config)
    for word in ["a日éa", "日é", "é日日a", "日"]:
        assert _outcome(ours.encode, word) == _outcome(ref.encode, word), word


def test_bpe_dropout_is_explicit_and_seeded(training_lines, words):
    ref = _train(
        models.BPE(unk_token="<unk>", dropout=0.5, ignore_merges=True),
        trainers.BpeTrainer(vocab_size=500, special_tokens=["<unk>"], show_progress=False),
        training_lines,
    )
    tok = hf_json.load_bytes(ref.to_str().encode())
    model = tok.model
    assert model.dropout == 0.5
    # default: deterministic, no dropout (as Hugging Face with dropout off)
    plain = Tokenizer.from_str(ref.to_str().replace('"dropout":0.5', '"dropout":null'))
    assert json.loads(plain.to_str())["model"]["dropout"] is None
    for word in words[:300]:
        assert tok.encode(word).ids == plain.encode(word).ids
    # dropout 1.0 skips every merge (and, as in HF, ignore_merges): characters, as HF gives
    every = Tokenizer.from_str(ref.to_str().replace('"dropout":0.5', '"dropout":1.0'))
    full = model.with_dropout(1.0, seed=1)
    for word in words[:300]:
        assert [t for t, *_ in full.tokenize(word)] == every.encode(word).tokens
    # a seed gives the same sample twice; samples are valid segmentations of the word
    a = [model.with_dropout(0.5, seed=7).tokenize(w) for w in words[:200]]
    b = [model.with_dropout(0.5, seed=7).tokenize(w) for w in words[:200]]
    assert a == b
    assert any(x != model.tokenize(w) for x, w in zip(a, words))
    with pytest.raises(ValueError, match="dropout"):
        model.with_dropout(1.5)
    # on a whole tokenizer: the pipeline with the model sampled, the tokenizer left as it was
    from tokenizers_core.models.bpe.hf import sample

    text = " ".join(words[:50])
    assert sample(tok, text, dropout=1.0, seed=3).tokens == every.encode(text).tokens
    assert tok.encode(text).ids == plain.encode(text).ids


def test_wordpiece_against_hf(training_lines, words):
    ref = _train(
        models.WordPiece(unk_token="[UNK]"),
        trainers.WordPieceTrainer(vocab_size=700, special_tokens=["[UNK]"], show_progress=False),
        training_lines,
    )
    assert_same(ref, words)
    config = json.loads(ref.to_str())
    config["model"]["max_input_chars_per_word"] = 6
    assert_same(Tokenizer.from_str(json.dumps(config)), words)


def test_wordpiece_without_unk_token_is_valid_until_a_word_fails(training_lines, words):
    ref = _train(
        models.WordPiece(unk_token="[UNK]"),
        trainers.WordPieceTrainer(vocab_size=700, special_tokens=[], show_progress=False),
        training_lines,
    )
    assert "[UNK]" not in ref.get_vocab()
    assert_same(ref, words)
    ours = hf_json.load_bytes(ref.to_str().encode())
    assert ours.encode("the").tokens == ref.encode("the").tokens
    with pytest.raises(ValueError, match="no unknown token"):
        ours.encode("日本")


def test_wordlevel_against_hf(training_lines, words):
    ref = _train(
        models.WordLevel(unk_token="<unk>"),
        trainers.WordLevelTrainer(vocab_size=700, special_tokens=["<unk>"], show_progress=False),
        training_lines,
    )
    assert_same(ref, words)
    ours = hf_json.load_bytes(ref.to_str().encode())
    assert ours.algorithm == "wordlevel"


@pytest.mark.heavy
@pytest.mark.parametrize("byte_fallback", [False, True])
def test_unigram_against_hf(byte_fallback, training_lines, words):
    specials = ["<unk>"] + (BYTES if byte_fallback else [])
    ref = _train(
        models.Unigram(byte_fallback=byte_fallback),
        trainers.UnigramTrainer(
            vocab_size=700, special_tokens=specials, unk_token="<unk>", show_progress=False
        ),
        training_lines,
    )
    assert_same(ref, words)


def test_unigram_unknowns_fuse_and_missing_unk_id_fails():
    pieces = [["<unk>", 0.0], ["a", -1.0], ["b", -1.0], ["ab", -1.5], ["xy", -20.0]]
    for unk_id in (0, None):
        config = {"model": {"type": "Unigram", "vocab": pieces, "unk_id": unk_id}}
        ref = Tokenizer.from_str(json.dumps(config))
        ours = hf_json.from_dict(config)
        for text in ["abxxa", "xy", "zzz", "a<unk>b", "ab"]:
            expected = _outcome(ref.encode, text)
            got = _outcome(ours.encode, text)
            assert got == expected if expected[0] != "error" else got[0] == "error", text


def test_unigram_with_only_byte_pieces_does_not_overflow():
    """min_score is FLT_MAX when no piece is normal (sentencepiece); sums overflow to inf."""
    pieces = [("<unk>", 0.0)] + [(b, 0.0) for b in BYTES]
    sp = Unigram(pieces, types=[UNKNOWN] + [BYTE] * 256, byte_fallback=True)
    assert [t for t, *_ in sp.tokenize("aé")] == ["<0x61>", "<0xC3>", "<0xA9>"]
    config = {
        "model": {
            "type": "Unigram",
            "vocab": [list(p) for p in pieces],
            "unk_id": 0,
            "byte_fallback": True,
        }
    }
    ref = Tokenizer.from_str(json.dumps(config))
    assert _outcome(hf_json.from_dict(config).encode, "aé日") == _outcome(ref.encode, "aé日")


# ---- the steps the encode view shows ---------------------------------------------------------------
def _final_parts(model, piece):
    steps = list(model.encode_steps(piece))
    parts = list(model.initial_parts(piece))
    if steps and steps[0].action == "whole_word":
        return [steps[0].merged], steps
    for s in steps:
        if s.action == "merge":
            parts = list(s.parts[: s.chosen]) + [s.merged] + list(s.parts[s.chosen + 2 :])
    return parts, steps


@pytest.mark.heavy
def test_encode_steps_show_byte_fallback_and_whole_words(training_lines, words):
    ref = _train(
        models.BPE(unk_token="<unk>", byte_fallback=True, ignore_merges=True),
        trainers.BpeTrainer(vocab_size=700, special_tokens=["<unk>"] + BYTES, show_progress=False),
        training_lines,
    )
    model = hf_json.load_bytes(ref.to_str().encode()).model
    seen = set()
    for word in words:
        parts, steps = _final_parts(model, word)
        assert parts == [t for t, *_ in model.tokenize(word)], word
        for s in steps:
            assert step_from_dict(s.to_dict()) == s
            seen.add(s.action)
    assert seen == {"merge", "whole_word", "byte_fallback"}
    [step] = model.encode_steps("the")
    assert step.action == "whole_word" and step.merged == "the"
    first = next(model.encode_steps("日x"))
    assert first.action == "byte_fallback"
    assert first.replaced == ((0, "日", ("<0xE6>", "<0x97>", "<0xA5>")),)


def test_encode_steps_show_unknown_and_prefix_merges():
    model = HFBpe(
        {"<unk>": 0, "a": 1, "##b": 2, "ab": 3},
        [("a", "##b")],
        unk_token="<unk>",
        continuing_subword_prefix="##",
        fuse_unk=True,
    )
    steps = list(model.encode_steps("abzz"))
    assert steps[0].action == "unknown"
    assert steps[0].replaced == ((2, "##z", ("<unk>",)), (3, "##z", ()))
    assert steps[1].merged == "ab" and steps[1].parts == ("a", "##b", "<unk>")
    assert [t for t, *_ in model.tokenize("abzz")] == ["ab", "<unk>"]
    assert model.merge_tree("ab")["children"][1]["token"] == "##b"


def test_textbook_end_of_word_unknown_stays_inside_the_word():
    """An unknown symbol ending in "</w>" covers only the word's characters."""
    model = BPE({"<unk>": 0, "a": 1, "b": 2}, [], end_of_word="</w>", unk_token="<unk>")
    assert model.tokenize("ab") == [("a", 1, 0, 1), ("b", 2, 1, 2), ("<unk>", 0, 2, 2)]
    assert all(end <= 2 for *_, end in model.tokenize("ab"))


def test_bpe_step_round_trip_and_old_fields():
    s = BpeEncodeStep(0, ("a", "b"), ((0, 0),), 0, 0, "ab")
    assert s.action == "merge" and s.replaced == ()
    assert step_from_dict(s.to_dict()) == s


@settings(max_examples=150)
@given(st.text(alphabet="ab日é ##<>z", max_size=12))
def test_hf_bpe_options_agree_with_hf_on_any_text(text):
    vocab = {
        "<unk>": 0,
        "a": 1,
        "b": 2,
        "##a": 3,
        "##b": 4,
        "ab": 5,
        "ba": 6,
        "aba": 7,
        "<0xC3>": 8,
        "<0xA9>": 9,
        "b</w>": 10,
        "##b</w>": 11,
        "abab": 12,
        "a</w>": 13,
        "##a</w>": 14,
        "ab</w>": 15,
    }
    merges = [["a", "b"], ["b", "a"], ["ab", "a"], ["ab", "ab"], ["a", "b</w>"]]
    for options in (
        dict(unk_token="<unk>", byte_fallback=True),
        dict(unk_token="<unk>", fuse_unk=True, ignore_merges=True),
        dict(end_of_word_suffix="</w>", unk_token="<unk>"),
        dict(),
    ):
        config = {"model": dict(type="BPE", vocab=vocab, merges=merges, **options)}
        ref = Tokenizer.from_str(json.dumps(config))
        ours = hf_json.from_dict(config)
        assert _outcome(ours.encode, text) == _outcome(ref.encode, text), options


def test_bad_models_name_the_problem():
    bad = [
        ({"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "b"]]}, "'b', which is not in"),
        ({"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}, "'ab'"),
        ({"type": "BPE", "vocab": {"a": 0}, "merges": ["a b c"]}, "merge 1"),
        ({"type": "BPE", "vocab": {"a": "x"}, "merges": []}, "ids are integers"),
        ({"type": "BPE", "vocab": {}, "merges": [], "dropout": 3}, "dropout"),
        ({"type": "Unigram", "vocab": [["a", "x"]]}, "not \\[piece, score\\]"),
        ({"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 5}, "unk_id"),
        ({"type": "Nope"}, "unknown type 'Nope'"),
        ({"type": "WordPiece", "vocab": [1]}, "vocab must be an object"),
    ]
    for model, message in bad:
        with pytest.raises(ValueError, match=message):
            hf_json.from_dict({"model": model})
    assert isinstance(
        hf_json.from_dict({"model": {"vocab": [["<unk>", 0.0]], "unk_id": 0}}).model, HFUnigram
    )


def test_unigram_lattice_steps_follow_hf_scores(training_lines, words):
    """The lattice view's Viterbi steps (64-bit sums here) end on the path `tokenize` takes."""
    ref = _train(
        models.Unigram(),
        trainers.UnigramTrainer(
            vocab_size=700, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False
        ),
        training_lines,
    )
    model = hf_json.load_bytes(ref.to_str().encode()).model
    for word in words[::10]:
        steps = list(model.viterbi_steps(word))
        path = [s.piece for s in steps if s.kind == "viterbi_backtrack"][::-1]
        assert path == [word[s:e] for s, e, _ in model.encode_spans(word)], word
        for s in steps:
            assert step_from_dict(s.to_dict()) == s


def test_byte_fallback_with_a_suffix_never_runs_past_the_word():
    """Hugging Face counts the suffix's bytes under byte fallback ("x</w>" is 5 pieces of length
    1), so its offsets run past the word; ours agree on ids and tokens and stop at the end."""
    vocab = {"a": 0, **{f"<0x{b:02X}>": 1 + b for b in range(256)}}
    config = {
        "model": {
            "type": "BPE",
            "vocab": vocab,
            "merges": [],
            "byte_fallback": True,
            "end_of_word_suffix": "</w>",
        }
    }
    ref = Tokenizer.from_str(json.dumps(config))
    ours = hf_json.from_dict(config)
    for word in ["ax", "日", "ab日"]:
        e, o = ref.encode(word), ours.encode(word)
        assert (o.ids, o.tokens) == (e.ids, e.tokens)
        assert max(end for _, end in e.offsets) > len(word)  # Hugging Face's overrun
        assert all(0 <= s <= end <= len(word) for s, end in o.offsets)


def test_a_prefix_longer_than_a_merge_side_is_refused():
    """Hugging Face cuts the prefix's bytes off every right side and panics when it cannot."""
    config = {
        "model": {
            "type": "BPE",
            "vocab": {"a": 0, "b": 1, "ab": 2},
            "merges": [["a", "b"]],
            "continuing_subword_prefix": "##",
        }
    }
    # (tokenizers 0.23.3 panics on this file: "slice index starts at 1 but ends at 0")
    with pytest.raises(ValueError, match="shorter than the prefix"):
        hf_json.from_dict(config)
