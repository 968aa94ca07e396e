"""The WordPiece encoding view's state at probe k (`/wordpiece/encode`, its lesson, practice and
worksheet).

`encode_steps(tok, text)` probes once (greedy longest match over every word); `state(...)` reads
each word's pieces as far as the first k probes got, the probe just made and its sentence.
`probe_sentence` is the one place a probe is put in words (the page and the lesson say the same).
The code panel is `tokenizers_core/textbook/wordpiece_encode.py`, the line of probe k lit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tokenizers_core.implementations.bert import encode_steps
from tokenizers_core.textbook import wordpiece_encode as textbook

from ..practice import MAX_CHOICES, PracticeState, Question, finished, question, toggle
from ..render import url_with
from ..services.tokenizers import stored_options, tokenizer_label
from ..state import AppState
from ..stepping import SPEEDS, word_jumps
from .bpe_encode import check_sheet_text
from .common import CodePanel, textbook_panel, wordpiece_options

SMALL_VOCAB = "\n".join(
    [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "play",
        "##ing",
        "##ed",
        "##er",
        "##s",
        "un",
        "##aff",
        "##able",
        "##a",
        "##b",
        "##l",
        "##e",
        "token",
        "##ize",
        "##iz",
        "##ation",
        "hug",
        "##gs",
        "p",
        "##u",
        "##g",
        "##n",
        "b",
        "h",
    ]
)
PATH = "/wordpiece/encode"
DEFAULT_TEXT = "unaffable playing"
DELAY = 700  # ms between played probes at speed 1
MAX_STEPS = 20_000  # probes one page steps through
MAX_CHARS = 100  # WordPiece's max_input_chars_per_word
SHEET_PROBES = 40  # probes (one table row each) on one worksheet


@dataclass(frozen=True)
class WordPieceEncodeState:
    step: int
    total: int
    steps: list  # (word index, WordPieceProbeStep), every probe in order
    words: list  # per word: its pieces so far and "todo" / "active" / "done"
    current: Any  # the probe just made, or None at 0
    word_index: int | None
    sentence: str
    jumps: dict
    prefix: str
    unk: str


def state(tok: Any, words: list, steps: list, k: int) -> WordPieceEncodeState:
    """The words after the first k probes (k clamped)."""
    total = len(steps)
    k = min(max(k, 0), total)
    current = steps[k - 1] if k else None
    return WordPieceEncodeState(
        step=k,
        total=total,
        steps=steps,
        words=word_view(words, steps, k),
        current=current[1] if current else None,
        word_index=current[0] if current else (0 if words else None),
        sentence=sentence(current[1] if current else None, total),
        jumps=word_jumps([w for w, _s in steps], k),
        prefix=tok.model.continuing_subword_prefix,
        unk=tok.model.unk_token,
    )


def word_view(words: list, steps: list, k: int) -> list[dict[str, Any]]:
    """For each word: its pieces as far as the first k probes got, and its state."""
    out = [{"word": w, "start": s, "end": e, "pieces": [], "state": "todo"} for w, s, e in words]
    for index, probe in steps[:k]:
        row = out[index]
        row["pieces"] = list(probe.pieces)
        finished = probe.status in ("unk", "too_long") or (
            probe.found and probe.end == len(probe.word)
        )
        row["state"] = "done" if finished else "active"
    return out


def sentence(probe: Any, total: int) -> str:
    if probe is None:
        return (
            "Nothing probed yet. Each word will be matched from its start: the longest "
            "window in the vocabulary wins."
            if total
            else "There is nothing to encode."
        )
    return probe_sentence(probe)


def probe_sentence(probe: Any) -> str:
    """One probe in words: kept, shrunk, or the whole word unknown."""
    c = probe.candidate
    if probe.status == "hit":
        rest = (
            "the word is done"
            if probe.end == len(probe.word)
            else f"the next window starts at character {probe.end}"
        )
        return f"“{c}” is in the vocabulary: keep it as a piece; {rest}."
    if probe.status == "miss":
        return (
            f"“{c}” is not in the vocabulary: shrink the window by one character "
            f"(to {probe.start}:{probe.end - 1})."
        )
    if probe.status == "unk":
        return (
            f"Not even the one-character window “{c}” is in the vocabulary, so the whole "
            f"word “{probe.word}” becomes {probe.pieces[0]}."
        )
    return (
        f"“{probe.word[:20]}…” has {len(probe.word)} characters, more than the limit of "
        f"{MAX_CHARS}: it becomes {probe.pieces[0]} without probing."
    )


def code_panel(s: WordPieceEncodeState) -> CodePanel:
    """The textbook loop, on the line of the probe just made (keep, shrink, unknown, too long),
    before the first probe on the start, and once the last word is matched to its end on the
    stop."""
    done = s.step == s.total and s.current is not None and s.current.status == "hit"
    return textbook_panel(textbook, s.current, finished=done)


# ---- the page ------------------------------------------------------------------------------------
def form(
    state: AppState, text: str, vocab: str, vocab_text: str, play: bool, speed: int
) -> dict[str, Any]:
    """What the form shows (the vocabulary picker, the small vocabulary), and the page's query
    parameters."""
    params = {"vocab": vocab, "text": text, "speed": speed if speed != 1 else None}
    if vocab == "small" and vocab_text != SMALL_VOCAB:
        params["vocab_text"] = vocab_text
    return {
        "text": text,
        "vocab": vocab,
        "vocab_text": vocab_text,
        "params": params,
        "error": None,
        "play": play,
        "vocab_options": wordpiece_options(vocab),
        "yours": stored_options(state, "wordpiece"),
        "label": tokenizer_label(state, vocab),
        "next": url_with(PATH, params),
    }


def page(
    tok: Any, text: str, k: int, speed: int, answer: PracticeState, params: dict[str, Any]
) -> dict[str, Any]:
    """The page at probe k: the state, its code panel, the player, the tokens once every word
    is probed, the practice question."""
    words, steps = encode_steps(tok, text, max_steps=MAX_STEPS)
    s = state(tok, words, steps, k)
    return {
        **vars(s),
        "tok": tok,
        "code": code_panel(s),
        "speed": speed,
        "speeds": SPEEDS,
        "delay": DELAY // speed,
        "final": tok.encode(text, add_special_tokens=False).tokens if s.step == s.total else None,
        "practice": practice(answer, PATH, params, s.step, steps, s.prefix, s.unk)
        if answer.on
        else None,
        "practice_link": toggle(PATH, params, s.step),
    }


# ---- practice: which piece does the window take? --------------------------------------------------
def practice(
    answer: PracticeState,
    path: str,
    params: dict[str, Any],
    k: int,
    steps: list,
    prefix: str,
    unk: str,
) -> Question:
    """Which piece does the window take next? (skipping the misses in between)"""
    if k >= len(steps) or (answer.until is not None and k >= answer.until):
        return finished(answer, "Every word is encoded: nothing left to predict.", path, params, k)
    _index, probe = steps[k]
    target = k
    while steps[target][1].status == "miss":
        target += 1
    hit = steps[target][1]
    word, start = probe.word, probe.start
    answer_right = hit.candidate if hit.status == "hit" else unk
    ends = list(range(len(word), start, -1))
    if len(ends) > MAX_CHOICES:
        ends = ends[-MAX_CHOICES:]
        if hit.status == "hit" and hit.end not in ends:
            ends = [hit.end] + ends[1:]
    mark = prefix if start > 0 else ""
    choices = [(mark + word[start:e], mark + word[start:e]) for e in ends] + [(unk, unk)]

    def check(given: str) -> tuple[bool, str]:
        if given == answer_right:
            if hit.status == "hit":
                return True, (
                    f"Right: {hit.candidate} is the longest window from position "
                    f"{start} that is in the vocabulary."
                )
            return True, (
                f"Right: no window from position {start} is in the vocabulary, so "
                f"the whole word becomes {unk}."
            )
        if given == unk:
            return False, f"{hit.candidate} is in the vocabulary, so the word is not {unk}."
        body = given[len(mark) :] if mark and given.startswith(mark) else given
        if hit.status != "hit":
            return False, (
                f"{given} is not in the vocabulary, and neither is any shorter "
                f"window: the whole word becomes {unk}."
            )
        if len(body) > hit.end - start:
            return False, (
                f"{given} is not in the vocabulary; the window keeps shrinking "
                f"until {hit.candidate}, which is."
            )
        return False, (
            f"Greedy longest match starts with the longest window and shrinks it: "
            f"{hit.candidate} is in the vocabulary and longer than {given}."
        )

    return question(
        answer,
        path,
        params,
        k,
        f"In {word!r}, from position {start}: which piece does the window take?",
        choices,
        check,
        target + 1,
        len(steps),
    )


# ---- the worksheet -------------------------------------------------------------------------------
def worksheet(tok: Any, text: str) -> dict[str, Any]:
    """The WordPiece encoding sheet: per word every probe of greedy longest match (the window,
    the candidate substring, in the vocabulary or not, the piece taken) and the tokens."""
    check_sheet_text(text)
    words, steps = encode_steps(tok, text, max_steps=SHEET_PROBES)
    s = state(tok, words, steps, len(steps))
    rows: list[list[dict[str, Any]]] = [[] for _ in words]
    for n, (index, p) in enumerate(steps, 1):
        taken = p.pieces[-1] if p.status in ("hit", "unk", "too_long") else ""
        rows[index].append(
            {
                "n": n,
                "window": f"{p.start}:{p.end}",
                "candidate": p.candidate,
                "found": "yes" if p.found else "no",
                "status": p.status,
                "taken": taken,
            }
        )
    return {
        "words": [
            {"text": w["word"], "probes": r, "tokens": w["pieces"]} for w, r in zip(s.words, rows)
        ],
        "total": len(steps),
        "prefix": s.prefix,
        "unk": s.unk,
        "how": f"match each word from its start: try the longest window first (with "
        f"{s.prefix} when it does not start the word) and shrink it by one "
        f"character until it is in the vocabulary; keep that piece and go on after "
        f"it. No window at all: the whole word is {s.unk}.",
    }
