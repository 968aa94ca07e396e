"""Worked lessons: the textbooks' pen-and-paper examples as short guided sequences of real states.

Each lesson is a list of steps; a step is one state computed by the engine's own steppers (the
BPE training session, `BPE.encode_steps`, the WordPiece trainer and `probes`, the Unigram
`viterbi_steps`, `split_sentences`). What a step did is said by the step view's own sentence
(`app.views.*`: the page says the same); a lesson adds only its commentary. Every number a
step shows is taken from those values (the tests check each sentence's numbers against its
data), never typed in a template. Lessons are pure functions of nothing, so they are computed
once and cached.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable

from tokenizers_core.corpora import SENNRICH

from .embed import EMBED
from .jobs.runs import bpe_session_here
from .render import url_with
from .views import bpe_encode, bpe_train, unigram_lattice, wordpiece_encode

# Where the examples come from (a lesson names its source on its page)
GUIDE = "a tokeniser visualiser's “How it works” guide for students"
LEETLLM = "LeetLLM's article “Tokenization: BPE & SentencePiece”"
WORDCHIPPER = "wordchipper's chapter “How Tokenizers Work”"

LOW_NEWER_WIDER = "low low low low lowest lowest newer newer newer wider wider"


@dataclass(frozen=True)
class LessonStep:
    text: str
    panel: str
    data: dict[str, Any]
    link: str | None = None


@dataclass(frozen=True)
class Lesson:
    slug: str
    title: str
    summary: str
    source: str
    steps: tuple[LessonStep, ...] = field(default_factory=tuple)
    practice: str | None = None  # the same example in a step-through view's practice mode
    view: str | None = None  # where to try it on your own text, when no step links a view


def _pairs(table) -> list[list[Any]]:
    return [[a, b, c] for a, b, c in table]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---- BPE training ------------------------------------------------------------------------------
def _bpe_training_steps(
    text: str, variant: str, vocab_size: int, limit: int, link_params: dict[str, Any]
) -> list[LessonStep]:
    session = bpe_session_here(text, variant, vocab_size, {})
    total = min(session.total_steps(), limit)
    show = str  # byte-level symbols as Hugging Face shows them (Ġ)
    steps = []
    for k in range(total + 1):
        s = bpe_train.state(session, k, page_size=12, changed=0)
        last, upcoming = s.last, s.upcoming
        data = {
            "words": [
                {
                    "word": r.word,
                    "count": r.count,
                    "segments": [show(x) for x in r.segments],
                    "changed": r.changed,
                }
                for r in s.rows
            ],
            "pairs": [[show(a), show(b), c] for a, b, c in s.pairs][:8],
            "next": [show(p) for p in upcoming.pair] if upcoming else None,
            "merges": [[show(a), show(b), show(n)] for a, b, n in session.merges(k)],
            "k": k,
        }
        if last is not None:
            data.update(
                pair=[show(p) for p in last.pair],
                new=show(last.new_symbol),
                count=last.count,
                changed=last.n_changed_words,
                n_tied=last.n_tied,
                tied=[[show(a), show(b)] for a, b in last.tied or ()],
            )
        steps.append(
            LessonStep(
                _bpe_sentence(session, s, data),
                "bpe_train",
                data,
                url_with("/bpe/train", {**link_params, "step": k}),
            )
        )
    return steps


def _bpe_sentence(session, s: bpe_train.BpeTrainState, data: dict[str, Any]) -> str:
    """The merge as the page says it (`bpe_train.merge_phrase`), with the lesson's commentary."""
    k = s.step
    if k == 0:
        occurrences = sum(session.trainer.counts)
        data.update(distinct=s.words, occurrences=occurrences)
        text = (
            f"Count the words once: {s.words} distinct words, {occurrences} occurrences in "
            "all. Each word becomes its starting symbols"
            + (" plus the end-of-word symbol </w>" if session.variant == "bpe" else "")
            + ". "
        )
        if data["pairs"]:
            a, b, c = data["pairs"][0]
            text += (
                f"Now count every adjacent pair, adding the word's frequency each time: "
                f"{a} + {b} is the most frequent, with {c}."
            )
        return text
    a, b = data["pair"]
    text = (
        f"Merge {k}: {bpe_train.merge_phrase(s.last, str, session.variant)}; the table "
        f"changes in {_plural(data['changed'], 'word')}."
    )
    if data["tied"]:
        text += (
            " A tie is broken by the symbols' ids (the alphabet is numbered in code-point "
            "order, merged symbols after it in the order they were made), and "
            f"{a} + {b} has the smallest."
        )
    if data["new"].endswith("</w>"):
        text += " The new symbol ends in </w>, so it can only stand at the end of a word."
    return text


# ---- BPE encoding ------------------------------------------------------------------------------
def _encode_steps(tok, word: str) -> list[LessonStep]:
    model = tok.model
    show = str  # byte-level symbols as Hugging Face shows them (Ġ)
    out = []
    for s in model.encode_steps(word):
        data = {
            "parts": [show(p) for p in s.parts],
            "candidates": [list(c) for c in s.candidates],
            "chosen": s.chosen,
            "rank": s.rank,
            "merged": show(s.merged),
            "n": len(s.candidates),
        }
        out.append(LessonStep(bpe_encode.merge_sentence(s, show), "bpe_encode", data))
    final = [show(t) for t, *_ in model.tokenize(word)]
    out.append(
        LessonStep(
            f"No known pair is left: the tokens are {' '.join(final)}.",
            "bpe_encode",
            {"parts": final, "candidates": [], "chosen": None},
        )
    )
    return out


def lesson_bpe_sennrich() -> Lesson:
    steps = _bpe_training_steps(SENNRICH, "bpe", 24, 12, {"variant": "bpe", "vocab_size": 24})
    return Lesson(
        "bpe-sennrich",
        "BPE training on low, lower, newest, widest",
        "Sennrich et al.'s corpus: watch the pair counts decide each merge, and see "
        "est</w> form as an end-of-word piece.",
        "Sennrich et al. (2016)",
        tuple(steps),
        url_with("/bpe/train", {"vocab_size": 24, "practice": 1, "until": len(steps) - 1}),
    )


def lesson_bpe_lowest() -> Lesson:
    import tokenizers_core as tc

    tok = tc.train("bpe", [LOW_NEWER_WIDER], vocab_size=25)
    merges = tok.model.merges
    intro = {"merges": [[a, b] for a, b in merges], "n": len(merges), "vocab_size": 25}
    steps = [
        LessonStep(
            f"Train BPE on “{LOW_NEWER_WIDER}” until the vocabulary has 25 symbols: that takes "
            f"{len(merges)} merges (listed here in the order learned). Now encode the word lowest "
            "with them.",
            "merge_list",
            intro,
            None,
        )
    ]
    steps += _encode_steps(tok, "lowest")
    rare = [t for t, *_ in tok.model.tokenize("lowestest")]
    steps.append(
        LessonStep(
            f"A word never seen in training, lowestest, still encodes: {' '.join(rare)}. It stops "
            "merging where no learned merge applies and falls back to known pieces.",
            "bpe_encode",
            {"parts": rare, "candidates": [], "chosen": None},
        )
    )
    return Lesson(
        "bpe-lowest",
        "BPE encoding of “lowest”, merge by merge",
        "Merges apply by rank, the earliest learned first, whatever their position in the word.",
        f"{GUIDE} and {LEETLLM}",
        tuple(steps),
        view=url_with("/bpe/encode", {"text": "lowest lowestest"}),
    )


def lesson_byte_bpe() -> Lesson:
    import tokenizers_core as tc

    steps = _bpe_training_steps(
        "aabaa aab", "byte_bpe", 259, 3, {"variant": "byte_bpe", "vocab_size": 259}
    )
    first = steps[0]
    n_bytes = bpe_session_here("aabaa aab", "byte_bpe", 259, {}).trainer.alphabet_size
    steps[0] = LessonStep(
        first.text + f" Byte-level BPE starts from all {n_bytes} bytes; the GPT-2 pattern cuts "
        "“aabaa aab” into aabaa and “ aab”, and the space byte shows as Ġ.",
        first.panel,
        {**first.data, "bytes": n_bytes},
        first.link,
    )
    last = steps[-1]
    if last.data.get("tied"):
        steps[-1] = LessonStep(
            last.text + f" ({WORDCHIPPER} takes the first pair it finds here; this "
            "engine, like Hugging Face, takes the pair of older symbols, and Ġ is one of the "
            f"{n_bytes} starting symbols.)",
            last.panel,
            {**last.data, "bytes": n_bytes},
            last.link,
        )
    tok = tc.train("byte_bpe", ["aabaa aab"], vocab_size=259)
    steps += _encode_steps(tok, "aab")
    ids = tok.encode("aab").ids
    steps[-1] = LessonStep(
        steps[-1].text + f" Its id is {ids[0]}: the {n_bytes} bytes come "
        "first, then the merged symbols in the order they were made.",
        steps[-1].panel,
        {**steps[-1].data, "ids": ids, "bytes": n_bytes},
    )
    return Lesson(
        "byte-bpe-aabaa",
        "Byte-level BPE on “aabaa aab”",
        "Three rounds of merges over bytes, then the encoding of “aab” by rank.",
        WORDCHIPPER,
        tuple(steps),
    )


# ---- WordPiece ---------------------------------------------------------------------------------
SCORE_WORDS = {"th": 500, "ta": 499, "tz": 1, "ah": 300, "xz": 7, "xa": 3}


def lesson_wordpiece_score() -> Lesson:
    from tokenizers_core.models.wordpiece.trainer import WordPieceTrainer

    trainer = WordPieceTrainer(SCORE_WORDS, vocab_size=100)
    rows = [
        [r.pair[0], r.pair[1], r.count, r.freq_left, r.freq_right, r.freq_left * r.freq_right]
        for r in trainer.top_pairs(8, by="count")
    ]
    by_count = rows[0]
    step = trainer.step()
    data = {"rows": rows, "words": dict(SCORE_WORDS)}
    t = next(r for r in rows if r[:2] == list(step.bpe_pair))
    x = next(r for r in rows if r[:2] == list(step.pair))
    steps = (
        LessonStep(
            f"A word table chosen so the counts are {LEETLLM}'s: "
            + ", ".join(f"{w} ×{c}" for w, c in SCORE_WORDS.items())
            + ". WordPiece starts each word as its first character and ##-continuations.",
            "wp_pairs",
            {**data, "mark": None},
        ),
        LessonStep(
            f"BPE merges the most frequent pair: {by_count[0]} + {by_count[1]}, "
            f"{by_count[2]} occurrences, against {x[2]} for {x[0]} + {x[1]}.",
            "wp_pairs",
            {**data, "mark": "count"},
        ),
        LessonStep(
            f"WordPiece divides by how often the parts occur alone: {t[0]} + {t[1]} "
            f"scores {t[2]} / ({t[3]} × {t[4]}) = {t[2]}/{t[5]}, while {x[0]} + {x[1]} "
            f"scores {x[2]} / ({x[3]} × {x[4]}) = {x[2]}/{x[5]}, far higher: x and z "
            f"nearly always occur together. The engine's first merge is "
            f"{step.pair[0]} + {step.pair[1]} → {step.new_symbol}.",
            "wp_pairs",
            {**data, "mark": "score", "winner": list(step.pair)},
        ),
    )
    return Lesson(
        "wordpiece-score",
        "WordPiece's score: why “xz” beats “th”",
        "The likelihood score count(ab) / (count(a) × count(b)) against BPE's raw count.",
        LEETLLM,
        steps,
        view="/wordpiece/train",
    )


PLAYING_VOCAB = ("[UNK]", "play", "##ing", "un", "##aff", "##able")


def lesson_wordpiece_encode() -> Lesson:
    from tokenizers_core.models.wordpiece.model import WordPiece

    model = WordPiece({t: i for i, t in enumerate(PLAYING_VOCAB)})
    steps = [
        LessonStep(
            f"The vocabulary: {', '.join(PLAYING_VOCAB)}. Greedy longest match: at "
            "each start, try the longest window and shrink it from the right until "
            "it is in the vocabulary (## marks a piece inside a word).",
            "wp_probe",
            {"vocab": list(PLAYING_VOCAB), "word": None},
        )
    ]
    for word in ("playing", "unaffable"):
        for p in model.probes(word):
            data = {
                "word": word,
                "start": p.start,
                "end": p.end,
                "candidate": p.candidate,
                "status": p.status,
                "pieces": list(p.pieces),
                "chars": list(word),
                "shrunk": p.end - 1,
            }
            text = wordpiece_encode.probe_sentence(p)
            steps.append(
                LessonStep(
                    text,
                    "wp_probe",
                    data,
                    url_with(
                        "/wordpiece/encode", {"text": word, "vocab_text": "\n".join(PLAYING_VOCAB)}
                    ),
                )
            )
    return Lesson(
        "wordpiece-encode",
        "WordPiece encoding: “playing” and “unaffable”",
        "The window shrinks one character at a time: play + ##ing, un + ##aff + ##able.",
        f"{GUIDE}; “unaffable” from the BERT paper (Devlin et al. 2019)",
        tuple(steps),
        url_with(
            "/wordpiece/encode",
            {"text": "playing unaffable", "vocab_text": "\n".join(PLAYING_VOCAB), "practice": 1},
        ),
    )


# ---- Unigram -----------------------------------------------------------------------------------
def lesson_unigram_cats() -> Lesson:
    from tokenizers_core.implementations.unigram import demo_tokenizer
    from tokenizers_core.models.unigram.model import DEMO_PIECES

    tok = demo_tokenizer()
    text = tok.normalize("cats").normalized
    vsteps = [s for s in tok.model.viterbi_steps(text)]
    best = [0.0]
    back: list[int | None] = [None]
    pieces = [[p, s] for p, s in DEMO_PIECES[1:]]
    steps = [
        LessonStep(
            f"“cats” is normalised to {text}: the space before it becomes ▁. Each "
            "piece has a log-probability; a split scores the sum of its pieces'. "
            "best[0] = 0.0.",
            "viterbi",
            {
                "text": list(text),
                "best": list(best),
                "back": list(back),
                "pieces": pieces,
                "candidates": [],
            },
        )
    ]
    for s in vsteps:
        if s.kind == "viterbi":
            best.append(s.best)
            back.append(s.back)
            cands = [
                [j, piece, score, total, n == s.winner]
                for n, (j, piece, _id, score, total) in enumerate(s.candidates)
            ]
            others = "; ".join(
                f"{piece}: best[{j}] + {score} = {total}"
                for j, piece, score, total, won in cands
                if not won
            )
            sentence = unigram_lattice.viterbi_sentence(s) + (
                f" The others: {others}." if others else ""
            )
            steps.append(
                LessonStep(
                    sentence,
                    "viterbi",
                    {
                        "text": list(text),
                        "best": list(best),
                        "back": list(back),
                        "pieces": pieces,
                        "candidates": cands,
                        "position": s.position,
                        "n": len(cands),
                    },
                )
            )
        else:
            steps.append(
                LessonStep(
                    unigram_lattice.backtrack_sentence(s)
                    + f" The path so far, read right to left: {' '.join(s.path)}.",
                    "viterbi",
                    {
                        "text": list(text),
                        "best": list(best),
                        "back": list(back),
                        "pieces": pieces,
                        "candidates": [],
                        "path": list(s.path),
                        "span": [s.start, s.end],
                        "score": s.score,
                    },
                )
            )
    return Lesson(
        "unigram-cats",
        "Unigram Viterbi on “▁cats”",
        "best[i] and the back-pointers fill left to right; ▁cat + s wins.",
        GUIDE,
        tuple(steps),
        url_with("/unigram/lattice", {"text": "cats", "practice": 1}),
    )


# ---- sentences ---------------------------------------------------------------------------------
SENTENCE_TEXT = (
    "Dr. Smith met Mr. Jones at 5 p.m. on Friday. They talked, e.g. about the U.S. "
    "budget. Then they left."
)


def lesson_sentences() -> Lesson:
    from tokenizers_core.implementations import rules

    spans = rules.split_sentences(SENTENCE_TEXT)
    ends = {b for _a, b in spans}
    steps = [
        LessonStep(
            "A sentence ends at . ! or ? followed by a space, unless the word before "
            "the full stop is an abbreviation. Step through each full stop.",
            "sentences",
            {"text": SENTENCE_TEXT, "at": None, "spans": []},
        )
    ]
    done: list[list[int]] = []
    for i, ch in enumerate(SENTENCE_TEXT):
        if ch != ".":
            continue
        word = SENTENCE_TEXT[:i].split(" ")[-1]
        after = SENTENCE_TEXT[i + 1 : i + 2]
        if after not in (" ", ""):
            continue  # inside "p.m" or "U.S": no space follows
        key = word.lower()
        if i + 1 in ends:
            done = [list(s) for s in spans if s[1] <= i + 1]
            why = (
                "the end of the text"
                if i + 1 == len(SENTENCE_TEXT)
                else f"“{word}” is not an abbreviation"
            )
            text = f"“{word}.” ends a sentence: {why}."
        elif key in rules.ABBREVIATIONS_NEVER_FINAL:
            text = f"“{word}.” is an abbreviation that never ends a sentence: keep going."
        elif key in rules.ABBREVIATIONS_MAYBE_FINAL or "." in word:
            text = (
                f"“{word}.” is an abbreviation; it would end the sentence only before a "
                "capital letter, and the next word is not capitalised: keep going."
            )
        else:
            text = f"“{word}.” does not end a sentence here: keep going."
        steps.append(
            LessonStep(
                text,
                "sentences",
                {"text": SENTENCE_TEXT, "at": i, "spans": list(done), "word": word},
            )
        )
    steps.append(
        LessonStep(
            f"{_plural(len(spans), 'sentence')}: "
            + " | ".join(SENTENCE_TEXT[a:b] for a, b in spans),
            "sentences",
            {"text": SENTENCE_TEXT, "at": None, "spans": [list(s) for s in spans], "n": len(spans)},
            url_with("/", {"text": SENTENCE_TEXT, "tokenizer": "sentence"}),
        )
    )
    return Lesson(
        "sentences",
        "The sentence splitter's abbreviation guard",
        "Why “Dr.” and “e.g.” do not end a sentence but “Friday.” does.",
        GUIDE,
        tuple(steps),
    )


LESSONS: dict[str, Callable[[], Lesson]] = {
    "bpe-sennrich": lesson_bpe_sennrich,
    "bpe-lowest": lesson_bpe_lowest,
    "byte-bpe-aabaa": lesson_byte_bpe,
    "wordpiece-score": lesson_wordpiece_score,
    "wordpiece-encode": lesson_wordpiece_encode,
    "unigram-cats": lesson_unigram_cats,
    "sentences": lesson_sentences,
}


def page(slug: str, k: int, play: bool = False) -> dict[str, Any]:
    """The lesson page at step k (clamped): the lesson, the step and the stepper's bounds."""
    ls = lesson(slug)
    total = len(ls.steps) - 1
    k = min(max(k, 0), total)
    return {
        "lesson": ls,
        "step": k,
        "total": total,
        "current": ls.steps[k],
        "play": play,
        "params": {},
        "path": f"/lessons/{slug}",
        "next_lesson": next_lesson(slug) if k == total else None,
        "try_it": next((s.link for s in reversed(ls.steps) if s.link), ls.view),
    }


def next_lesson(slug: str) -> Lesson | None:
    """The lesson after `slug` in the list (None after the last): where a finished one leads."""
    slugs = list(LESSONS)
    after = slugs.index(slug) + 1
    return lesson(slugs[after]) if after < len(slugs) else None


@functools.lru_cache(maxsize=None)
def lesson(slug: str) -> Lesson:
    """The lesson named `slug` (KeyError for an unknown one). Built once for every request, so
    its links are built as for a full page even when the first request is an embed."""
    token = EMBED.set(False)
    try:
        return LESSONS[slug]()
    finally:
        EMBED.reset(token)
