"""`tc.check` on deliberately wrong implementations: each classic mistake is written here the way
a student would write it (independently of the checker's own replays), and the checker must find
the first merge / word where it goes wrong and name the mistake.

The corpora are the textbooks' ones: Sennrich et al.'s low x5, lower x2, newest x6,
widest x3 (the 'How it works' guide's "lowest" example), and LeetLLM's "low low low low lowest lowest newer
newer newer wider wider".
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given as hypothesis_given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests.students import (
    minbpe_model_file,
    student_bpe,
    student_encode_by_count,
    student_minbpe,
    student_viterbi_no_penalty,
    student_wordpiece,
)
from tokenizers_core.corpora import load_corpus

SENNRICH = [
    "low low low low low",
    "lower lower",
    "newest newest newest newest newest newest",
    "widest widest widest",
]
LOW_NEWER_WIDER = ["low low low low lowest lowest newer newer newer wider wider"]


def _reference(lines, vocab_size):
    return tc.train("bpe", lines, vocab_size=vocab_size).model.merges


def test_a_correct_student_matches():
    ours = _reference(SENNRICH, 24)
    report = tc.check("bpe", SENNRICH, student_bpe(SENNRICH, len(ours)), vocab_size=24)
    assert report.first_divergence is None and report.ok and not report.mistakes


def test_merges_as_text_or_json_pairs():
    theirs = student_bpe(SENNRICH, 3)  # vocab_size 15: three merges
    as_text = "\n".join(f"{a} {b}" for a, b in theirs)
    as_json = "[" + ", ".join(f'["{a}", "{b}"]' for a, b in theirs) + "]"
    for given in (as_text, as_json, theirs):
        assert tc.check("bpe", SENNRICH, given, vocab_size=15).first_divergence is None


def test_unweighted_pair_counts():
    """Each distinct word counts once: in LOW_NEWER_WIDER, (l, o) is in all four distinct words and
    wins merge 1 either way, but later the words' frequencies decide."""
    theirs = student_bpe(LOW_NEWER_WIDER, 8, weight=False)
    report = tc.check("bpe", LOW_NEWER_WIDER, theirs, vocab_size=30)
    k = report.first_divergence
    assert k is not None and theirs[: k - 1] == _reference(LOW_NEWER_WIDER, 30)[: k - 1]
    assert [m.name for m in report.mistakes] == ["unweighted_counts"]
    assert report.state["winner"] == list(report.expected)
    # the reference's pair occurs more often, weighted, than theirs
    assert report.state["count"] > report.state["their_count"]
    assert "weighted by how often the word occurs" in report.explanation


def test_forgetting_end_of_word():
    theirs = student_bpe(SENNRICH, 6, end_of_word=False)
    report = tc.check("bpe", SENNRICH, theirs, vocab_size=24)
    assert report.first_divergence == 2  # (t, </w>) ties with (es, t); theirs has no </w>
    assert report.expected == ("t", "</w>") and report.got == ("es", "t")
    assert [m.name for m in report.mistakes] == ["no_end_of_word"]
    assert report.mistakes[0].agrees == 6


def test_merging_across_words():
    """The whole line as one sequence: the space is a symbol, and pairs such as (w, ' ') span
    two words."""
    theirs = student_bpe(LOW_NEWER_WIDER, 6, per_line=True)
    report = tc.check("bpe", LOW_NEWER_WIDER, theirs, vocab_size=30)
    assert report.first_divergence is not None
    assert [m.name for m in report.mistakes] == ["across_words"]
    assert (
        report.state.get("their_count") is None
        or report.state["their_count"] < report.state["count"]
    )


def test_breaking_ties_by_dict_order():
    """max(stats, key=stats.get) keeps the first pair counted: in SENNRICH (low first) the
    tie at merge 4 between (l, o) and (o, w) and others goes by corpus order, not by ids."""
    theirs = student_bpe(SENNRICH, 12, dict_ties=True)
    report = tc.check("bpe", SENNRICH, theirs, vocab_size=30)
    k = report.first_divergence
    assert k is not None
    assert report.state["count"] == report.state["their_count"]  # a tie
    assert "tie-break" in report.explanation
    assert list(report.got) in report.state["tied"] or report.state["n_tied"] >= 1
    assert [m.name for m in report.mistakes] == ["dict_order_ties"]


def test_stopping_early_and_going_on():
    ours = _reference(SENNRICH, 20)
    short = tc.check("bpe", SENNRICH, ours[:3], vocab_size=20)
    assert short.first_divergence == 4 and short.got is None and "stopped" in short.explanation
    long = tc.check("bpe", SENNRICH, ours + [("x", "y")], vocab_size=20)
    assert long.first_divergence == len(ours) + 1 and "extra" in long.explanation


# ---- WordPiece ------------------------------------------------------------------------------
def test_wordpiece_correct_and_raw_count():
    ours = tc.train("wordpiece", SENNRICH, vocab_size=40).model.merges
    assert student_wordpiece(SENNRICH, len(ours)) == ours
    assert (
        tc.check("wordpiece", SENNRICH, student_wordpiece(SENNRICH, 6), vocab_size=40).ok is False
    )
    good = tc.check("wordpiece", SENNRICH, ours, vocab_size=40)
    assert good.ok
    theirs = student_wordpiece(SENNRICH, 6, by_count=True)
    report = tc.check("wordpiece", SENNRICH, theirs, vocab_size=40)
    k = report.first_divergence
    assert k is not None and report.got == theirs[k - 1]
    assert [m.name for m in report.mistakes] == ["raw_count_score"]
    assert "score" in report.explanation and "/" in report.explanation
    # the same mistake found from the vocabulary the student's run ends with
    vocab = ["[UNK]"] + sorted(
        {
            s
            for w in ("low", "lower", "newest", "widest")
            for s in [w[0]] + ["##" + c for c in w[1:]]
        }
    )
    vocab += [a + b[2:] for a, b in theirs]
    by_vocab = tc.check("wordpiece", SENNRICH, "\n".join(vocab), vocab_size=40)
    assert by_vocab.kind == "vocab" and by_vocab.first_divergence == k
    assert [m.name for m in by_vocab.mistakes] == ["raw_count_score"]


# ---- encoding -------------------------------------------------------------------------------
def test_encoding_in_count_order():
    """The merges learned from "abab bba ba" are (b, a), (ba, </w>), (a, ba), (b, </w>). By
    rank, "aaba" is a a b a </w> -> a a ba </w> -> a a ba</w> (merge 2 before merge 3). By
    count, after a a ba </w> both known pairs occur once and the first counted, (a, ba), wins:
    a aba </w>."""
    lines = ["abab bba ba"]
    tok = tc.train("bpe", lines, vocab_size=8)
    merges = tok.model.merges
    assert merges == [("b", "a"), ("ba", "</w>"), ("a", "ba"), ("b", "</w>")]
    text = "aaba ab"
    theirs = [t for w in text.split() for t in student_encode_by_count(w, merges)]
    assert theirs != tok.encode(text).tokens
    report = tc.check("bpe", lines, theirs, vocab_size=8, text=text)
    assert report.kind == "tokens" and report.first_divergence == 1
    assert report.expected == ["a", "a", "ba</w>"] and report.got == ["a", "aba", "</w>"]
    assert [m.name for m in report.mistakes] == ["count_order_encoding"]
    assert report.state["steps"] and report.state["steps"][0]["merge"] >= 1
    ok = tc.check("bpe", lines, tok.encode(text).tokens, vocab_size=8, text=text)
    assert ok.ok


def test_viterbi_without_unknown_penalty():
    """Pieces: ▁ -1, c -3, ▁c -2, xy -8, y -3 and no 'x': for "▁xy" the reference takes xy
    (-8 beats <unk> x at min-10 = -18 + -3); without the penalty <unk> + y (0 + -3) wins."""
    pieces = "<unk>\t0\n▁\t-1\nc\t-3\n▁c\t-2\nxy\t-8\ny\t-3\n"
    scores = {"▁": -1.0, "c": -3.0, "▁c": -2.0, "xy": -8.0, "y": -3.0}
    text = "c xy"
    theirs = student_viterbi_no_penalty("▁c▁xy", scores)
    assert "<unk>" in theirs
    report = tc.check("unigram", [], theirs, vocab_size=8, text=text, pieces=pieces)
    assert report.first_divergence == 2 and report.expected == ["▁", "xy"]
    assert [m.name for m in report.mistakes] == ["no_unk_penalty"]
    assert any(s["position"] for s in report.state["steps"])


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="unknown algorithm"):
        tc.check("nope", SENNRICH, "a b", vocab_size=10)
    with pytest.raises(ValueError, match="two symbols"):
        tc.check("bpe", SENNRICH, "l o w", vocab_size=10)
    with pytest.raises(ValueError, match="text"):
        tc.check("bpe", SENNRICH, "a b", vocab_size=10, kind="tokens")
    with pytest.raises(ValueError):
        tc.check("bpe", SENNRICH, "", vocab_size=10)


def test_report_is_json_safe():
    import json

    report = tc.check("bpe", SENNRICH, student_bpe(SENNRICH, 4, end_of_word=False), vocab_size=20)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["first_divergence"] == 2 and data["mistakes"][0]["name"] == "no_end_of_word"


def test_the_checkers_replays_equal_the_engine_without_mistakes():
    """The slow textbook replays, with every switch off, are the real trainers (so a mistake
    they reproduce is that mistake, not a difference of bookkeeping)."""
    from tokenizers_core.checker import _bpe_sequences
    from tokenizers_core.checker import replay as textbook
    from tokenizers_core.implementations.bert import count_words

    udhr = load_corpus("udhr/eng").splitlines()[:40]
    for lines in (SENNRICH, LOW_NEWER_WIDER, udhr):
        for variant, size in (("bpe", 120), ("byte_bpe", 300)):
            ours = tc.train(variant, lines, vocab_size=size).model.merges
            right, _ = _bpe_sequences(variant, lines, {})
            assert textbook.textbook_merges(right, len(ours)) == ours
        ours = tc.train("wordpiece", lines, vocab_size=120).model.merges
        words = count_words(lines)
        seqs = [((w[0], *["##" + c for c in w[1:]]), f) for w, f in words.items()]
        assert (
            textbook.textbook_merges(
                seqs, len(ours), score="likelihood", join=lambda a, b: a + b[2:]
            )
            == ours
        )


def test_sentencepiece_bpe_and_unigram_pieces():
    ours = tc.train("sentencepiece_bpe", SENNRICH, vocab_size=24).model.merges
    assert tc.check("sentencepiece_bpe", SENNRICH, ours, vocab_size=24).ok
    wrong = tc.check("sentencepiece_bpe", SENNRICH, ours[:2] + ours[3:], vocab_size=24)
    assert wrong.first_divergence == 3
    lines = load_corpus("udhr/eng").splitlines()[:30]
    pieces = tc.train("unigram", lines, vocab_size=100).model.pieces
    assert tc.check("unigram", lines, pieces, vocab_size=100).ok
    text = "\n".join(f"{p}\t{s}" for p, s in pieces[:50] + pieces[51:])
    report = tc.check("unigram", lines, text, vocab_size=100)
    assert report.kind == "pieces" and report.first_divergence == 51


def test_far_divergences_say_the_mistakes_were_not_replayed():
    lines = load_corpus("udhr/eng").splitlines()
    ours = tc.train("bpe", lines, vocab_size=700).model.merges
    swapped = ours[:449] + [ours[450], ours[449]] + ours[451:]
    report = tc.check("bpe", lines, swapped, vocab_size=700)
    assert report.first_divergence == 450 and not report.mistakes
    assert report.notes and "not replayed" in report.notes[0]


# ---- minbpe's files and its tie-break (issue 20, item 14) -------------------------------------
MINBPE_TEXT = " ".join(load_corpus("botchan").splitlines()[40:90])  # one line: no line breaks


@pytest.fixture(scope="module")
def minbpe_merges():
    from tokenizers_core.pre_tokenizers import PRESETS

    return PRESETS["gpt2"], student_minbpe(MINBPE_TEXT, PRESETS["gpt2"], 40)


def test_a_minbpe_model_file_checks_identical_under_minbpe_ties(minbpe_merges):
    pattern, merges = minbpe_merges
    model = minbpe_model_file(pattern, merges, {"<|endoftext|>": 296})
    report = tc.check("byte_bpe", [MINBPE_TEXT], model, vocab_size=256 + 40, ties="minbpe")
    assert report.first_divergence is None, report.explanation
    assert report.compared == 40


@pytest.mark.parametrize("shape", ["lines", "json", "list"])
def test_integer_merges_in_every_shape(minbpe_merges, shape):
    _pattern, merges = minbpe_merges
    theirs = {
        "lines": "\n".join(f"{a} {b}" for a, b in merges),
        "json": json.dumps([list(m) for m in merges]),
        "list": [list(m) for m in merges],
    }[shape]
    report = tc.check("byte_bpe", [MINBPE_TEXT], theirs, vocab_size=296, ties="minbpe")
    assert report.first_divergence is None, report.explanation


def test_minbpe_merges_under_hugging_faces_rule_name_the_tie_break(minbpe_merges):
    """Under the default rule the first tie decided differently is the divergence, and the
    mistake is named as minbpe's rule."""
    pattern, merges = minbpe_merges
    report = tc.check("byte_bpe", [MINBPE_TEXT], minbpe_model_file(pattern, merges), vocab_size=296)
    assert report.first_divergence is not None
    assert report.state["count"] == report.state["their_count"]  # a tie
    assert [m.name for m in report.mistakes] == ["dict_order_ties"]
    assert "minbpe" in report.mistakes[0].title and "ties=minbpe" in report.mistakes[0].explanation


def test_minbpe_ties_on_the_textbook_corpus():
    theirs = student_bpe(SENNRICH, 12, dict_ties=True)
    assert tc.check("bpe", SENNRICH, theirs, vocab_size=24, ties="minbpe").first_divergence is None
    wrong = tc.check("bpe", SENNRICH, student_bpe(SENNRICH, 12), vocab_size=24, ties="minbpe")
    assert wrong.first_divergence is not None
    assert "the pair seen first wins" in wrong.explanation


def test_the_file_pattern_is_the_reference_pattern():
    """A minbpe file trained with the GPT-4 pattern: the reference splits with it too."""
    from tokenizers_core.pre_tokenizers import PRESETS

    merges = student_minbpe(MINBPE_TEXT, PRESETS["cl100k"], 30)
    model = minbpe_model_file(PRESETS["cl100k"], merges)
    assert (
        tc.check("byte_bpe", [MINBPE_TEXT], model, vocab_size=286, ties="minbpe").first_divergence
        is None
    )


@pytest.mark.parametrize(
    "theirs,algorithm,message",
    [
        ("minbpe v1\n\n0\n32 116\n", "bpe", "check them as byte_bpe"),
        ("[[32, 116]]", "bpe", "check them as byte_bpe"),
        ("32 116\n104 400\n", "byte_bpe", "names id 400"),
        ("minbpe v1\n\nx\n", "byte_bpe", "number of special tokens"),
        ("minbpe v1\n\n0\n32 116 7\n", "byte_bpe", "not a merge of two token ids"),
    ],
)
def test_bad_minbpe_input_says_what_is_wrong(theirs, algorithm, message):
    with pytest.raises(ValueError, match=message):
        tc.check(algorithm, ["a b"], theirs, vocab_size=300)


def test_minbpe_ties_only_for_bpe_merges():
    with pytest.raises(ValueError, match="merges check of bpe or byte_bpe"):
        tc.check("wordpiece", SENNRICH, "e s", vocab_size=30, ties="minbpe")
    with pytest.raises(ValueError, match="unknown tie-break"):
        tc.check("bpe", SENNRICH, "e s", vocab_size=30, ties="random")


# ---- minbpe's tie-break, incrementally (checker/first_seen.py) ---------------------------------
def _first_seen_merges(table, vocab_size, **options):
    from tokenizers_core.checker.first_seen import FirstSeenBpe

    trainer, merges = FirstSeenBpe(table, vocab_size, **options), []
    while (step := trainer.merge_next()) is not None:
        merges.append(step)
    return merges


def _recounted_merges(table, vocab_size, **options):
    from tokenizers_core.textbook.bpe_train import bpe_train

    return [(s.pair, s.count) for s in bpe_train(dict(table), vocab_size, ties="dict", **options)]


@hypothesis_given(
    st.lists(
        st.tuples(st.text("abc", min_size=1, max_size=8).map(tuple), st.integers(1, 3)),
        min_size=1,
        max_size=6,
        unique_by=lambda wf: wf[0],
    ),
    st.integers(1, 30),
    st.sampled_from([0, 0, 2]),
)
@hypothesis_settings(max_examples=150, deadline=None)
def test_the_incremental_first_seen_trainer_equals_the_textbook_recount(table, size, min_freq):
    """Every merge and count of `textbook.bpe_train(ties="dict")`, which recounts all pairs at
    every merge and takes `max(stats, key=stats.get)`, on small tables full of ties (runs such
    as "aaa" included, where a pair overlaps itself)."""
    assert _first_seen_merges(table, size, min_frequency=min_freq) == _recounted_merges(
        table, size, min_frequency=min_freq
    )


@pytest.mark.parametrize("variant", ["bpe", "byte_bpe"])
def test_the_incremental_first_seen_trainer_on_botchan(variant):
    from tokenizers_core.byte_level import bytes_to_unicode
    from tokenizers_core.checker import _whole_text_table

    table = _whole_text_table(variant, load_corpus("botchan").splitlines()[:60], {})
    options = {
        "alphabet": list(bytes_to_unicode().values()) if variant == "byte_bpe" else [],
        "special_tokens": ["<unk>"] if variant == "bpe" else [],
    }
    fast = _first_seen_merges(table, 600, **options)
    assert len(fast) > 150 and fast == _recounted_merges(table, 600, **options)


def test_a_minbpe_check_goes_past_the_textbook_recounts_cap():
    """A check under minbpe's tie-break runs incrementally, so 450 merges (past the 400 the
    textbook recount was capped at) are answered, identical, not refused."""
    from tokenizers_core.pre_tokenizers import PRESETS

    merges = student_minbpe(MINBPE_TEXT, PRESETS["gpt2"], 450)
    model = minbpe_model_file(PRESETS["gpt2"], merges)
    report = tc.check("byte_bpe", [MINBPE_TEXT], model, vocab_size=256 + 450, ties="minbpe")
    assert report.first_divergence is None, report.explanation
    swapped = merges[:300] + [merges[301], merges[300]] + merges[302:]
    report = tc.check("byte_bpe", [MINBPE_TEXT], swapped, vocab_size=256 + 450, ties="minbpe")
    assert report.first_divergence == 301 and report.explanation.startswith("Merge 301:")


# ---- what the reference calls a word, and the slot <unk> takes --------------------------------
@pytest.mark.parametrize("ties", ["hf", "minbpe"])
def test_a_bpe_report_says_what_a_word_is(ties):
    report = tc.check("bpe", SENNRICH, student_bpe(SENNRICH, 5), vocab_size=16, ties=ties)
    assert r"\w+|[^\w\s]+" in report.state["words"] and "</w>" in report.state["words"]
    byte = tc.check("byte_bpe", SENNRICH, [("l", "o")], vocab_size=257)
    assert "words" not in byte.state


@pytest.mark.parametrize("ties", ["hf", "minbpe"])
def test_one_merge_too_many_names_the_unk_slot(ties):
    """vocab_size 25 on the textbook corpus: <unk> + 11 initial symbols (</w> among them) + 13
    merges. A student without <unk> makes 14: the report says where the 25th slot went."""
    theirs = student_bpe(SENNRICH, 14, dict_ties=ties == "minbpe")
    report = tc.check("bpe", SENNRICH, theirs, vocab_size=25, ties=ties)
    assert report.first_divergence == 14 and report.reference == 13
    assert "counts the reference's <unk> (one slot)" in report.explanation
    assert "1 + 11 + 13 = 25" in report.explanation
