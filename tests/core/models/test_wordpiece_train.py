"""WordPiece likelihood training: golden cases, exactness against a recount-everything textbook
loop, the stepper and its checkpoints."""

from __future__ import annotations

import collections
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import ALL_UDHR, corpus_names, load_corpus
from tokenizers_core.implementations.bert import count_words
from tokenizers_core.models.wordpiece.trainer import WordPieceMergeStep, WordPieceTrainer, _better
from tokenizers_core.steps import step_from_dict

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def textbook_wordpiece(word_counts, vocab_size, min_frequency=0, specials=SPECIALS, prefix="##"):
    """The textbook loop (seeds 000/001), recounting everything at every merge.

    Score = freq(ab) / (freq(a) * freq(b)) as an exact Fraction; ties: the higher pair count,
    then the smallest (id(left), id(right)), ids = specials, initial symbols in str order, then
    new symbols in creation order. Returns (merges, vocab).
    """
    words = collections.Counter()
    for w, f in word_counts.items():
        if w and f > 0:
            words[tuple([w[0]] + [prefix + c for c in w[1:]])] += f
    ids: dict[str, int] = {}
    for t in specials:
        ids.setdefault(t, len(ids))
    for s in sorted({s for w in words for s in w}):
        ids.setdefault(s, len(ids))
    merges = []
    while len(ids) < vocab_size:
        pair_freq: collections.Counter = collections.Counter()
        sym_freq: collections.Counter = collections.Counter()
        for w, f in words.items():
            for s in w:
                sym_freq[s] += f
            for a, b in zip(w, w[1:]):
                pair_freq[(a, b)] += f
        candidates = [
            (Fraction(c, sym_freq[a] * sym_freq[b]), c, -ids[a], -ids[b], a, b)
            for (a, b), c in pair_freq.items()
            if c >= min_frequency
        ]
        if not candidates:
            break
        *_, a, b = max(candidates)
        new = a + b[len(prefix) :]
        ids.setdefault(new, len(ids))
        merges.append((a, b))
        merged: collections.Counter = collections.Counter()
        for w, f in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(new)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] += f
        words = merged
    return merges, ids


# ---- golden cases ---------------------------------------------------------------------------
def test_seed_003_th_versus_xz():
    """LeetLLM's example: freq(t)=1000, freq(h)=800, freq(th)=500; freq(x)=10, freq(z)=8, freq(xz)=7.
    BPE merges th (500 > 7); WordPiece merges xz, since 7/(10*8) = 0.0875 beats
    500/(1000*800) = 0.000625. The other pairs (a ##h: 300/(301*800), a ##z: 1/(301*8)) lose
    on both criteria."""
    counts = {"th": 500, "t": 500, "ah": 300, "xz": 7, "x": 3, "az": 1}
    trainer = WordPieceTrainer(counts, vocab_size=100)
    step = trainer.step()
    assert step.pair == ("x", "##z") and step.new_symbol == "xz"
    assert (step.count, step.freq_left, step.freq_right) == (7, 10, 8)
    assert step.score == pytest.approx(0.0875)
    assert step.bpe_pair == ("t", "##h") and step.bpe_count == 500


def test_hugging_face_course_example():
    """hug 10, pug 5, pun 12, bun 4, hugs 5: the best first score is ##g ##s = 5/(20*5)."""
    trainer = WordPieceTrainer({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, vocab_size=40)
    first = trainer.step()
    assert first.pair == ("##g", "##s") and first.new_symbol == "##gs"
    assert first.bpe_pair == ("##u", "##g") and first.bpe_count == 20
    trainer.run()
    assert (
        trainer.merges
        == textbook_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 40)[0]
    )


def test_merge_rules_for_prefixes():
    """a + ##b -> ab (word start), ##a + ##b -> ##ab (continuation). In "xab" both pairs score
    5/(5*5); the smaller ids win: ##a < ##b < x in code-point order, so ##a ##b goes first."""
    trainer = WordPieceTrainer({"xab": 5}, vocab_size=100)
    assert [s.new_symbol for s in trainer] == ["##ab", "xab"]
    assert trainer.word_table()[0][0].symbols == ("xab",)
    assert [s.new_symbol for s in WordPieceTrainer({"ab": 1}, vocab_size=100)] == ["ab"]


def test_tie_break_count_then_ids():
    """(a,##b) = 2/(2*2), (c,##d) = 1/(1*2), (e,##d) = 1/(1*2): equal scores 0.5; the higher
    count (2) wins. Then (c,##d) and (e,##d) tie on score and count: smaller ids, c < e."""
    trainer = WordPieceTrainer({"ab": 2, "cd": 1, "ed": 1}, vocab_size=100)
    first = trainer.step()
    assert first.pair == ("a", "##b")
    assert set(first.ties) == {("c", "##d"), ("e", "##d")}
    second = trainer.step()
    assert second.pair == ("c", "##d")


def test_scores_compared_exactly():
    """Floats cannot tell (2**53 + 1) / 2**53 from 1; the exact comparison can."""
    assert float(Fraction(2**53 + 1, 2**53)) == 1.0
    assert _better((2**53 + 1, 2**53, 1, 9), (1, 1, 1, 0))
    assert not _better((1, 1, 1, 0), (2**53 + 1, 2**53, 1, 9))


def test_min_frequency_and_vocab_size():
    counts = {"ab": 1, "cd": 3}
    trainer = WordPieceTrainer(counts, vocab_size=100, min_frequency=2)
    assert [s.pair for s in trainer] == [("c", "##d")]
    small = WordPieceTrainer(counts, vocab_size=len(SPECIALS) + 4 + 1).run()
    assert len(small.vocab) == len(SPECIALS) + 4 + 1 and len(small.merges) == 1


def test_bad_options():
    for bad in (
        dict(vocab_size=0),
        dict(vocab_size="10"),
        dict(vocab_size=10, min_frequency=-1),
        dict(vocab_size=10, special_tokens=["[UNK]", "[UNK]"]),
        dict(vocab_size=10, special_tokens=[""]),
    ):
        with pytest.raises(ValueError):
            WordPieceTrainer({"ab": 1}, **bad)
    with pytest.raises(ValueError):
        WordPieceTrainer({"ab": "1"}, vocab_size=10)
    with pytest.raises(ValueError, match="unknown token"):
        WordPieceTrainer({"ab": 1}, vocab_size=10, special_tokens=[]).model()


def test_step_round_trip():
    trainer = WordPieceTrainer({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, vocab_size=40)
    for step in trainer:
        assert isinstance(step, WordPieceMergeStep) and step.kind == "wordpiece_merge"
        assert step_from_dict(step.to_dict()) == step


# ---- exactness against the textbook loop on real text -------------------------------------
@pytest.fixture(scope="module")
def botchan_words():
    return count_words(load_corpus("botchan").splitlines())


@pytest.mark.heavy
def test_equals_textbook_on_botchan(botchan_words):
    trainer = WordPieceTrainer(botchan_words, vocab_size=1)
    vocab_size = trainer.initial_size + 100
    expected, ids = textbook_wordpiece(botchan_words, vocab_size)
    trainer = WordPieceTrainer(botchan_words, vocab_size=vocab_size).run()
    assert trainer.merges == expected
    assert trainer.vocab == ids


@pytest.mark.heavy
def test_equals_textbook_on_botchan_min_frequency(botchan_words):
    # A third of the words keeps the textbook loop quick; min_frequency=3 changes the choices.
    words = dict(list(botchan_words.items())[::3])
    size = WordPieceTrainer(words, vocab_size=1).initial_size + 80
    expected, _ = textbook_wordpiece(words, size, min_frequency=3)
    assert WordPieceTrainer(words, vocab_size=size, min_frequency=3).run().merges == expected


# each of the 33 translations; not udhr/all, which is all of them again, one after another
@pytest.mark.heavy
@pytest.mark.parametrize(
    "name", [n for n in corpus_names() if n.startswith("udhr/") and n != ALL_UDHR]
)
def test_equals_textbook_on_udhr(name):
    words = count_words(load_corpus(name).splitlines())
    size = WordPieceTrainer(words, vocab_size=1).initial_size + 40
    expected, ids = textbook_wordpiece(words, size)
    trainer = WordPieceTrainer(words, vocab_size=size).run()
    assert trainer.merges == expected and trainer.vocab == ids


def test_custom_prefix_and_specials_equal_textbook():
    words = count_words(load_corpus("udhr/eng").splitlines())
    specials = ("<unk>",)
    expected, ids = textbook_wordpiece(words, 150, specials=specials, prefix="@@")
    trainer = WordPieceTrainer(
        words, vocab_size=150, special_tokens=specials, continuing_subword_prefix="@@"
    ).run()
    assert trainer.merges == expected and trainer.vocab == ids


# ---- the stepper, its views and checkpoints -------------------------------------------------
def test_top_pairs_predict_the_next_merge(botchan_words):
    trainer = WordPieceTrainer(botchan_words, vocab_size=10**6)
    for _ in range(25):
        top = trainer.top_pairs(5)
        by_count = trainer.top_pairs(1, by="count")
        step = trainer.step()
        assert top[0].pair == step.pair
        assert by_count[0].pair == step.bpe_pair and by_count[0].count == step.bpe_count
        assert all(a.score >= b.score for a, b in zip(top, top[1:]))


def test_word_table_page(botchan_words):
    trainer = WordPieceTrainer(botchan_words, vocab_size=10**6)
    rows, total = trainer.word_table(0, 3)
    assert total == len(botchan_words) and len(rows) == 3
    assert rows[0].freq >= rows[1].freq >= rows[2].freq
    assert rows[0].symbols == tuple([rows[0].word[0]] + ["##" + c for c in rows[0].word[1:]])


def test_copy_resumes_identically(botchan_words):
    straight = WordPieceTrainer(botchan_words, vocab_size=10**6).run(300)
    half = WordPieceTrainer(botchan_words, vocab_size=10**6).run(120)
    snapshot = half.copy()
    half.run(200)  # the original moves on ...
    snapshot.run(300)  # ... the copy is unaffected
    assert snapshot.merges == straight.merges
    assert snapshot.steps == straight.steps


def test_heap_stays_bounded(botchan_words):
    trainer = WordPieceTrainer(botchan_words, vocab_size=2000).run()
    assert len(trainer._score_heap) <= 4 * len(trainer.pair_count) + 65536


# ---- the public API ------------------------------------------------------------------------
@pytest.mark.heavy
def test_train_api():
    lines = load_corpus("udhr/eng").splitlines()
    tok = tc.train("wordpiece", lines, vocab_size=300)
    assert "wordpiece" in tc.algorithms()
    assert tok.algorithm == "wordpiece" and tok.vocab_size == 300
    assert list(tok.model.vocab)[:5] == list(SPECIALS)
    expected, _ = textbook_wordpiece(count_words(lines), 300)
    assert tok.model.merges == expected
    enc = tok.encode("Everyone has the right to life.", "Second")
    assert enc.tokens[0] == "[CLS]" and enc.tokens.count("[SEP]") == 2
    assert enc.type_ids[-1] == 1 and enc.special_tokens_mask[0] == 1
    assert tok.decode(enc.ids, skip_special_tokens=True) == "everyone has the right to life. second"
    text = "Everyone has the right to life."
    for token, (start, end), special, type_id in zip(
        enc.tokens, enc.offsets, enc.special_tokens_mask, enc.type_ids
    ):
        if not special and token != "[UNK]" and type_id == 0:
            assert text[start:end].lower() == token.removeprefix("##")


def test_train_api_bad_input():
    with pytest.raises(ValueError):
        tc.train("wordpiece", ["abc"], vocab_size=-3)
    with pytest.raises(ValueError):
        tc.train("wordpiece", [b"bytes"], vocab_size=100)
    with pytest.raises(ValueError, match="unknown WordPiece option"):
        tc.train("wordpiece", ["abc"], vocab_size=100, dropout=0.1)


@pytest.fixture(scope="module")
def trained_eng():
    return tc.train("wordpiece", load_corpus("udhr/eng").splitlines(), vocab_size=400)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=40) | st.sampled_from(["[SEP]", "a [CLS] b", "[sep]", "x[MASK]"]))
def test_trained_model_encodes_anything(trained_eng, text):
    """Any text encodes; every token is in the vocabulary; ordinary tokens' offsets slice the
    original text to (the normalised form of) their surface. (A special token written in the
    text, "[SEP]", is matched as written, before normalisation, as Hugging Face does.)"""
    enc = trained_eng.encode(text, add_special_tokens=False)
    vocab = trained_eng.model.vocab
    for token, id_, (start, end) in zip(enc.tokens, enc.ids, enc.offsets):
        assert vocab[token] == id_ and 0 <= start <= end <= len(text)
        if token == "[UNK]":
            continue
        if trained_eng.is_special(token):
            assert text[start:end] == token
        else:
            assert token.removeprefix("##") in trained_eng.normalize(text[start:end]).normalized


# ---- the view's session: the records equal the live trainer's state ------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize(
    "corpus, vocab_size, min_frequency",
    [("udhr/eng", 600, 0), ("udhr/fra", 500, 2), ("udhr/rus", 700, 0)],
)
def test_session_reads_the_same_state_as_a_live_trainer(corpus, vocab_size, min_frequency):
    """At every step, the recorded pair table and the replayed word table are exactly what a
    trainer stepped to k shows; and recording does not change the training."""
    import pickle

    from tokenizers_core.corpora import load_corpus
    from tokenizers_core.implementations.bert import count_words
    from tokenizers_core.models.wordpiece.session import TOP_PAIRS, WordPieceSession

    words = count_words(load_corpus(corpus))
    session = pickle.loads(
        pickle.dumps(  # as a worker process hands it over
            WordPieceSession(words, vocab_size=vocab_size, min_frequency=min_frequency).run()
        )
    )
    live = WordPieceTrainer(words, vocab_size=vocab_size, min_frequency=min_frequency)
    for k in range(session.total + 1):
        assert session.pairs(k) == tuple(live.top_pairs(TOP_PAIRS)), k
        if k % 25 == 0 or k == session.total:
            assert session.word_rows(k, 0, 10**6) == live.word_table(0, 10**6), k
            assert session.vocab_now(k) == len(live.symbols)
        live.step()
    assert [s.to_dict() for s in session.steps] == [s.to_dict() for s in live.steps]
    assert session.vocab == live.vocab


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.text(alphabet="abcab", min_size=1, max_size=7),
        st.integers(min_value=1, max_value=9),
        min_size=1,
        max_size=14,
    ),
    st.integers(min_value=5, max_value=60),
)
def test_session_matches_a_live_trainer_on_any_word_counts(words, vocab_size):
    from tokenizers_core.models.wordpiece.session import TOP_PAIRS, WordPieceSession

    session = WordPieceSession(words, vocab_size=vocab_size).run()
    live = WordPieceTrainer(words, vocab_size=vocab_size)
    for k in range(session.total + 1):
        assert session.pairs(k) == tuple(live.top_pairs(TOP_PAIRS))
        assert session.word_rows(k, 0, 100) == live.word_table(0, 100)
        live.step()
