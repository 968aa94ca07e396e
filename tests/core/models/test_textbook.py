"""The textbook layer (`tokenizers_core/textbook/`) equals the fast engines, step by step.

Each textbook module recounts or rescans everything at every step; each fast engine keeps
incremental counts, heaps and tries. They must yield the same step values: every field of
every step (`to_dict()`), or, where the fast engine records an annotation only within bounds
(BPE's tied pairs), the fields both fill. The corpora are the textbooks' golden examples, lines of
botchan and UDHR snippets in several scripts, and Hypothesis' small random corpora. Last, the
code panels: every step a module yields maps to a line of its CODE carrying the step's marker.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.byte_level import BYTE_TO_CHAR
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.bert import count_words
from tokenizers_core.implementations.unigram import demo_tokenizer
from tokenizers_core.models.bpe.hf import HFBpe
from tokenizers_core.models.bpe.model import BPE
from tokenizers_core.models.bpe.trainer import (
    bpe_trainer,
    bpe_word_table,
    byte_bpe_trainer,
    byte_bpe_word_table,
)
from tokenizers_core.models.unigram.model import Unigram
from tokenizers_core.models.unigram.trainer import UnigramTrainer
from tokenizers_core.models.wordpiece.model import WordPiece
from tokenizers_core.models.wordpiece.trainer import WordPieceTrainer
from tokenizers_core.textbook import (
    bpe_encode,
    bpe_train,
    line_marks,
    unigram_em,
    unigram_viterbi,
    wordpiece_encode,
    wordpiece_train,
)

SENNRICH = [
    "low low low low low",
    "lower lower",
    "newest newest newest newest newest newest",
    "widest widest widest",
]
SEED = ["low lower lowest newer wider"]
UDHR = ("eng", "fra", "deu_1996", "rus", "tur", "hin", "ell_monotonic")


def lines_of(name: str, n: int) -> list[str]:
    return [line for line in load_corpus(name).splitlines() if line.strip()][:n]


CORPORA = {
    "sennrich": SENNRICH,
    "seed": SEED,
    "botchan": lines_of("botchan", 120),
    **{f"udhr/{code}": lines_of(f"udhr/{code}", 25) for code in UDHR},
}
small_text = st.text(alphabet="abc é", min_size=1, max_size=14)
small_corpus = st.lists(small_text, min_size=1, max_size=6)


# ---- BPE training ------------------------------------------------------------------------------
def textbook_bpe(variant: str, lines: list[str], vocab_size: int, **options):
    if variant == "bpe":
        return bpe_train.bpe_train(
            bpe_word_table(lines), vocab_size, special_tokens=["<unk>"], **options
        )
    return bpe_train.bpe_train(
        byte_bpe_word_table(lines), vocab_size, alphabet=BYTE_TO_CHAR.values(), **options
    )


def fast_bpe(variant: str, lines: list[str], vocab_size: int, **options):
    maker = bpe_trainer if variant == "bpe" else byte_bpe_trainer
    return maker(lines, vocab_size, **options).run().steps


def assert_same_merges(fast, slow, upto: int | None = None) -> None:
    """Every field equal; the tied pairs in full where the fast heap walk saw them all, else
    the fast engine's (bounded) list is where the textbook's (exact) one starts."""
    assert len(fast) == len(slow) or upto is not None
    for f, s in list(zip(fast, slow))[:upto]:
        fd, sd = f.to_dict(), s.to_dict()
        if f.ties_more:
            for key in ("tied", "n_tied", "ties_more"):
                fd.pop(key), sd.pop(key)
            assert s.tied[: len(f.tied)] == f.tied, f.index
        assert fd == sd, f.index


@pytest.mark.parametrize("name", sorted(CORPORA))
@pytest.mark.parametrize("variant, size", [("bpe", 300), ("byte_bpe", 400)])
def test_bpe_training_equals_the_fast_trainer_on_real_text(name, variant, size):
    lines = CORPORA[name]
    assert_same_merges(fast_bpe(variant, lines, size), list(textbook_bpe(variant, lines, size)))


def test_bpe_training_golden_seed_example():
    """The 'How it works' guide's "low lower lowest newer wider". Five pairs occur 3 times: l o (low, lower,
    lowest), o w, w e (lower, lowest, newer), e r and r </w> (lower, newer, wider). Ids follow
    code points (</w> 1, e 3, l 5, o 7, r 8, w 11), so (e, r) = (3, 8) wins the tie."""
    steps = list(textbook_bpe("bpe", SEED, 16))
    assert steps[0].pair == ("e", "r") and steps[0].count == 3
    assert steps[0].tied == (("l", "o"), ("o", "w"), ("r", "</w>"), ("w", "e"))
    assert_same_merges(fast_bpe("bpe", SEED, 16), steps)


@pytest.mark.heavy
@pytest.mark.parametrize("min_frequency", [2, 5])
def test_bpe_training_min_frequency_stops_alike(min_frequency):
    lines = CORPORA["botchan"]
    for variant in ("bpe", "byte_bpe"):
        assert_same_merges(
            fast_bpe(variant, lines, 2000, min_frequency=min_frequency),
            list(textbook_bpe(variant, lines, 2000, min_frequency=min_frequency)),
        )


@settings(max_examples=60)
@given(corpus=small_corpus, extra=st.integers(1, 30), variant=st.sampled_from(["bpe", "byte_bpe"]))
def test_bpe_training_equals_the_fast_trainer_on_random_corpora(corpus, extra, variant):
    """Compared up to the first merge that makes a symbol string already made another way:
    from there the fast engine keeps Hugging Face's bookkeeping (the module docstring says so)."""
    assume(any(line.strip() for line in corpus))
    try:
        fast = fast_bpe(variant, corpus, 10**6 if variant == "bpe" else 256 + extra)
    except ValueError:  # e.g. a corpus with no words
        return
    size = len(fast) and fast[0].new_id + extra
    fast = fast_bpe(variant, corpus, size) if size else fast
    slow = list(textbook_bpe(variant, corpus, size or 10**6))
    made: set[str] = set()
    upto = len(fast)
    for i, step in enumerate(slow):
        if step.new_symbol in made or len(step.new_symbol) == 1:
            upto = i
            break
        made.add(step.new_symbol)
    assert_same_merges(fast, slow, upto if upto < len(fast) else None)


def test_the_mistakes_are_switches():
    words = {("a", "b"): 1, ("b", "c"): 1, ("x", "y", "x", "y", "x", "y"): 1}
    first = lambda **kw: next(bpe_train.bpe_train(words, 100, **kw)).pair  # noqa: E731
    assert first() == ("x", "y") and first(weighted=False) == ("x", "y")
    words = {("b", "c"): 2, ("a", "b"): 2}
    assert first() == ("a", "b") and first(ties="dict") == ("b", "c")


# ---- BPE encoding -------------------------------------------------------------------------------
def words_of(lines: list[str]) -> list[str]:
    return sorted({w for line in lines for w in line.split()})


def assert_same_encoding(fast_steps, slow_steps) -> None:
    assert [s.to_dict() for s in fast_steps] == [s.to_dict() for s in slow_steps]


@pytest.mark.parametrize("name", ["sennrich", "botchan", "udhr/rus", "udhr/hin"])
def test_bpe_encoding_equals_the_models(name):
    lines = CORPORA[name]
    bpe = tc.train("bpe", lines, vocab_size=200).model
    byte = tc.train("byte_bpe", lines, vocab_size=400).model
    tiktoken_style = BPE(byte.vocab, [], rank_by="tokens", byte_level=True)
    for word in words_of(lines) + ["lowest", "ЖЖЖ"]:
        if all(c in bpe.vocab for c in word):
            assert_same_encoding(
                bpe.encode_steps(word), bpe_encode.bpe_encode(word, bpe.rank, end_of_word="</w>")
            )
        spelled = "".join(BYTE_TO_CHAR[b] for b in word.encode())
        for model in (byte, tiktoken_style):
            assert_same_encoding(
                model.encode_steps(spelled), bpe_encode.bpe_encode(spelled, model.rank)
            )


def test_bpe_encoding_equals_sentencepiece_bpe_where_ranks_follow_scores():
    """sentencepiece's BPE merges the highest-scoring piece; a trained model scores merged
    pieces -index, so the lowest id is the same choice and the rank shown is the id."""
    tok = tc.train("sentencepiece_bpe", CORPORA["botchan"], vocab_size=300)
    model = tok.model
    normal = {p: i for i, (p, _s) in enumerate(model.pieces) if i >= 3}
    for word in words_of(CORPORA["botchan"])[:150]:
        piece = "▁" + word
        assert_same_encoding(
            model.encode_steps(piece), bpe_encode.bpe_encode(piece, lambda a, b: normal.get(a + b))
        )


def test_bpe_encoding_hugging_face_options():
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "<0xC3>": 4, "<0xA9>": 5, "abab": 6}
    merges = [("a", "b"), ("ab", "ab")]
    rank = {m: i for i, m in enumerate(merges)}.get
    for options in (
        {"unk_token": "<unk>", "byte_fallback": True},
        {"unk_token": "<unk>"},
        {},
        {"ignore_merges": True, "unk_token": "<unk>"},
    ):
        model = HFBpe(vocab, merges, **options)
        for word in ("abab", "abéx", "éab", "x", "aabb", "abab"):
            slow = bpe_encode.bpe_encode(word, lambda a, b: rank((a, b)), vocab=vocab, **options)
            assert_same_encoding(model.encode_steps(word), slow)
    steps = list(
        bpe_encode.bpe_encode("éab", lambda a, b: rank((a, b)), vocab=vocab, byte_fallback=True)
    )
    assert steps[0].action == "byte_fallback" and steps[1].parts == ("<0xC3>", "<0xA9>", "a", "b")


@settings(max_examples=60)
@given(corpus=small_corpus, words=st.lists(small_text, max_size=5))
def test_bpe_encoding_equals_the_models_on_random_words(corpus, words):
    try:
        byte = tc.train("byte_bpe", corpus, vocab_size=300).model
    except ValueError:
        return
    for word in words + corpus:
        spelled = "".join(BYTE_TO_CHAR[b] for b in word.encode())
        assert_same_encoding(byte.encode_steps(spelled), bpe_encode.bpe_encode(spelled, byte.rank))


def test_encoding_by_count_is_a_switch():
    rank = {("b", "a"): 0, ("a", "b"): 1}.get
    steps = list(bpe_encode.bpe_encode("abab", lambda a, b: rank((a, b)), order="count"))
    assert [s.merged for s in steps] == ["ab"] and steps[0].chosen == 0


# ---- WordPiece ----------------------------------------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize("name", sorted(CORPORA))
def test_wordpiece_training_equals_the_fast_trainer(name):
    words = count_words(CORPORA[name])
    fast = WordPieceTrainer(words, vocab_size=300).run().steps
    slow = wordpiece_train.wordpiece_train(
        {wordpiece_train.spell(w): f for w, f in words.items()}, 300
    )
    assert [s.to_dict() for s in fast] == [s.to_dict() for s in slow]


def test_wordpiece_training_golden_and_min_frequency():
    """LeetLLM's example in small: ##g ##s scores 5 / (20 x 5) = 1/20, the best, though ##u ##g occurs
    20 times (plain BPE's choice)."""
    words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    spelled = {wordpiece_train.spell(w): f for w, f in words.items()}
    step = next(wordpiece_train.wordpiece_train(spelled, 30))
    assert (step.pair, step.bpe_pair, step.bpe_count) == (("##g", "##s"), ("##u", "##g"), 20)
    for min_frequency in (0, 5, 12):
        fast = WordPieceTrainer(words, vocab_size=30, min_frequency=min_frequency).run().steps
        slow = wordpiece_train.wordpiece_train(spelled, 30, min_frequency=min_frequency)
        assert [s.to_dict() for s in fast] == [s.to_dict() for s in slow]


@settings(max_examples=60)
@given(corpus=small_corpus, size=st.integers(1, 60))
def test_wordpiece_training_equals_the_fast_trainer_on_random_corpora(corpus, size):
    words = count_words(corpus)
    fast = WordPieceTrainer(words, vocab_size=size).run().steps
    slow = wordpiece_train.wordpiece_train(
        {wordpiece_train.spell(w): f for w, f in words.items()}, size
    )
    assert [s.to_dict() for s in fast] == [s.to_dict() for s in slow]


def test_wordpiece_encoding_golden_unaffable():
    vocab = {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "play": 4, "##ing": 5}
    probes = list(wordpiece_encode.wordpiece_encode("unaffable", vocab))
    assert probes[-1].pieces == ("un", "##aff", "##able")
    model = WordPiece(vocab, max_input_chars_per_word=12)
    for word in ("unaffable", "playing", "played", "x", "unaffableunaffable", ""):
        slow = wordpiece_encode.wordpiece_encode(word, vocab, max_input_chars_per_word=12)
        assert [p.to_dict() for p in model.probes(word)] == [p.to_dict() for p in slow]


@settings(max_examples=60)
@given(corpus=small_corpus, words=st.lists(small_text, max_size=6))
def test_wordpiece_encoding_equals_the_model(corpus, words):
    try:
        model = tc.train("wordpiece", corpus, vocab_size=40).model
    except ValueError:
        return
    for word in words + [w for line in corpus for w in line.split()]:
        slow = wordpiece_encode.wordpiece_encode(word, model.vocab)
        assert [p.to_dict() for p in model.probes(word)] == [p.to_dict() for p in slow]


def test_wordpiece_encoding_equals_bert_on_real_text():
    model = tc.load("bert-base-uncased").model
    for word in words_of(CORPORA["botchan"] + CORPORA["udhr/fra"])[:300]:
        word = word.lower()
        slow = wordpiece_encode.wordpiece_encode(word, model.vocab)
        assert [p.to_dict() for p in model.probes(word)] == [p.to_dict() for p in slow]


# ---- Unigram Viterbi -----------------------------------------------------------------------------
def assert_same_viterbi(model: Unigram, text: str) -> None:
    slow = unigram_viterbi.unigram_viterbi(text, model.pieces, types=model.types)
    assert [s.to_dict() for s in model.viterbi_steps(text)] == [s.to_dict() for s in slow]


def test_viterbi_golden_abc_lattice():
    """sentencepiece's lattice test, "ABC": with single characters only, A B C; a high-scoring
    AB, then BC, then ABC each takes over the best path."""
    pieces = [("<unk>", 0.0), ("A", 0.0), ("B", 0.0), ("C", 0.0)]
    for extra, best in (
        ((), ["A", "B", "C"]),
        ((("AB", 2.0),), ["AB", "C"]),
        ((("AB", 2.0), ("BC", 5.0)), ["A", "BC"]),
        ((("AB", 2.0), ("BC", 5.0), ("ABC", 10.0)), ["ABC"]),
    ):
        steps = list(unigram_viterbi.unigram_viterbi("ABC", pieces + list(extra)))
        assert [s.piece for s in steps if s.kind == "viterbi_backtrack"][::-1] == best
        assert_same_viterbi(Unigram(pieces + list(extra)), "ABC")


@pytest.mark.heavy
def test_viterbi_equals_the_models_on_real_text():
    for tok in (tc.load("botchan_en_unigram_1000"), demo_tokenizer()):
        for line in CORPORA["botchan"][:60] + ["cats", "日本語 ▅ xyz"]:
            assert_same_viterbi(tok.model, tok.normalize(line).normalized)


@settings(max_examples=80)
@given(
    text=st.text(alphabet="▁abcxé", max_size=12),
    scores=st.lists(st.floats(-20, -0.1), min_size=8, max_size=8),
)
def test_viterbi_equals_the_model_on_random_lattices(text, scores):
    pieces = [("<unk>", 0.0)] + list(zip(["▁", "a", "b", "c", "ab", "▁a", "bc", "abc"], scores))
    assert_same_viterbi(Unigram(pieces), text)


def test_viterbi_without_the_unknown_penalty_is_a_switch():
    pieces = [("<unk>", 0.0), ("xy", -8.0), ("y", -3.0)]
    pick = lambda **kw: [
        s.piece
        for s in unigram_viterbi.unigram_viterbi("xy", pieces, **kw)  # noqa: E731
        if s.kind == "viterbi_backtrack"
    ]
    assert pick() == ["xy"] and pick(unk_score=0.0) == ["y", "x"]


# ---- Unigram EM ------------------------------------------------------------------------------------
def run_both(lines: list[str], vocab_size: int, **options):
    trainer = UnigramTrainer(lines, vocab_size, **options)
    rounds = trainer.rounds()
    first = next(rounds)
    words, seed = dict(zip(trainer.words, trainer.freqs)), list(zip(trainer.pieces, trainer.logp))
    em = {k: v for k, v in options.items() if k in ("shrinking_factor", "num_sub_iterations")}
    return [first, *rounds], list(unigram_em.unigram_em(words, seed, vocab_size, **em))


def assert_same_rounds(fast, slow) -> None:
    """Pieces, sizes and counts exactly; likelihoods, losses and log-probabilities to rounding
    (the fast engine sums long words in log space)."""
    assert len(fast) == len(slow)
    close = lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)  # noqa: E731
    for f, s in zip(fast, slow):
        assert (f.round, f.vocab_size, f.tokens, f.num_pruned, f.final) == (
            s.round,
            s.vocab_size,
            s.tokens,
            s.num_pruned,
            s.final,
        )
        assert close(f.log_likelihood, s.log_likelihood)
        for a, b in ((f.pruned, s.pruned), (f.survivors, s.survivors)):
            assert [p for p, _x in a] == [p for p, _x in b]
            assert all(close(x, y) for (_p, x), (_q, y) in zip(a, b))


@pytest.mark.parametrize(
    "name, size",
    [("botchan", 300), ("udhr/eng", 200), ("udhr/rus", 300), ("udhr/hin", 300), ("sennrich", 16)],
)
def test_unigram_em_equals_the_fast_trainer(name, size):
    lines = CORPORA[name] if name != "sennrich" else SENNRICH * 3
    assert_same_rounds(*run_both(lines, size))


def test_unigram_em_options_equal():
    assert_same_rounds(
        *run_both(CORPORA["botchan"][:60], 150, num_sub_iterations=2, shrinking_factor=0.6)
    )


@settings(max_examples=25)
@given(
    corpus=st.lists(st.text(alphabet="abcd ", min_size=1, max_size=20), min_size=2, max_size=8),
    size=st.integers(6, 30),
)
def test_unigram_em_equals_the_fast_trainer_on_random_corpora(corpus, size):
    try:
        fast, slow = run_both(corpus * 2, size)
    except ValueError:  # too small or too large a vocabulary for the corpus,
        return  # or a word the M-step left unspellable (see the module)
    assert_same_rounds(fast, slow)


# ---- the code panels ------------------------------------------------------------------------------
def every_step():
    """Steps of every kind and situation each module distinguishes, with the module."""
    yield bpe_train, list(textbook_bpe("bpe", SENNRICH, 24))
    rank = {("a", "b"): 0}.get
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "<0xC3>": 4, "<0xA9>": 5}
    for word, options in (
        ("ab", {}),
        ("abé", {"byte_fallback": True}),
        ("abx", {}),
        ("ab", {"ignore_merges": True}),
    ):
        yield (
            bpe_encode,
            list(
                bpe_encode.bpe_encode(
                    word, lambda a, b: rank((a, b)), vocab=vocab, unk_token="<unk>", **options
                )
            ),
        )
    vocab_wp = {"[UNK]", "un", "##aff", "##able"}
    for word, limit in (("unaffable", 100), ("unaffx", 100), ("unaffable", 4)):
        yield (
            wordpiece_encode,
            list(wordpiece_encode.wordpiece_encode(word, vocab_wp, max_input_chars_per_word=limit)),
        )
    words = count_words(SENNRICH)
    yield (
        wordpiece_train,
        list(
            wordpiece_train.wordpiece_train(
                {wordpiece_train.spell(w): f for w, f in words.items()}, 40
            )
        ),
    )
    yield (
        unigram_viterbi,
        list(unigram_viterbi.unigram_viterbi("▁cats!", demo_tokenizer().model.pieces)),
    )
    yield unigram_em, run_both(CORPORA["udhr/eng"][:15], 100)[1]


def test_every_step_is_on_a_marked_line_of_its_code():
    kinds = set()
    for module, steps in every_step():
        marks = line_marks(module.CODE)
        lines = {module.line_of(None), module.line_of(None, finished=True)}
        for step in steps:
            number = module.line_of(step)
            assert 1 <= number <= len(module.CODE)
            mark = next(m for m, n in marks.items() if n == number)
            assert module.CODE[number - 1].rstrip().endswith("<- " + mark)
            lines.add(number)
            kinds.add((module.__name__.rsplit(".", 1)[1], mark))
        assert all(1 <= n <= len(module.CODE) for n in lines)
    assert {("bpe_encode", m) for m in ("merge", "fallback", "whole_word")} <= kinds
    assert {("wordpiece_encode", m) for m in ("hit", "miss", "unk", "too_long")} <= kinds
    assert {("unigram_viterbi", m) for m in ("fill", "backtrack")} <= kinds
    assert {("unigram_em", m) for m in ("seed", "prune", "final")} <= kinds


def test_code_is_the_generators_own_source():
    for module, name in (
        (bpe_train, "bpe_train"),
        (bpe_encode, "bpe_encode"),
        (wordpiece_train, "wordpiece_train"),
        (wordpiece_encode, "wordpiece_encode"),
        (unigram_viterbi, "unigram_viterbi"),
        (unigram_em, "unigram_em"),
    ):
        assert module.CODE[0].startswith(f"def {name}(")
        assert {"start", "stop"} <= set(line_marks(module.CODE)) or module is unigram_em
