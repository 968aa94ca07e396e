"""The BPE encoding view's state at step k (`/bpe/encode`, its lesson, practice and worksheet).

`encode_trace(tok, text)` encodes once, piece by piece; `state(...)` reads the pieces
after the first k merges over all pieces, the step just done and its sentence. `merge_sentence`
is the one place an encoding step is put in words (the page and the lesson say the same). The
code panel is `tokenizers_core/textbook/bpe_encode.py`, the line of step k lit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput
from tokenizers_core.models.bpe.session import encode_trace, merge_tree_of
from tokenizers_core.textbook import bpe_encode as textbook

from ..display import visible
from ..practice import PracticeState, Question, finished, question, toggle
from ..render import url_with
from ..services.tokenizers import stored_options
from ..state import AppState
from ..stepping import SPEEDS, word_jumps
from .common import CodePanel, after, bpe_options, shower, textbook_panel

PATH = "/bpe/encode"
DEFAULT_TEXT = "lowest newer tokenization"
DELAY = 700  # ms between played steps at speed 1
SHEET_CHARS = 60  # an encoding worksheet's text
SHEET_STEPS = 16  # merges on one BPE encoding worksheet
SHEET_PAIRS = 8  # ranked pairs listed per step on a worksheet


def tokenizer_for(tok: Any, special: bool) -> Any:
    """OpenAI encodings with `special`: <|...|> taken as special tokens, not text."""
    return tok.with_special("all") if special and hasattr(tok, "with_special") else tok


@dataclass(frozen=True)
class BpeEncodeState:
    step: int
    total: int
    flat: list  # (piece index, step) over all pieces, in order
    pieces: list  # per piece: trace, parts now, done / total, finished, current
    current: Any  # the step just done (BpeEncodeStep), or None at 0
    sentence: str
    jumps: dict
    trees: list
    error_tree: str | None
    byte_level: bool
    show: Callable[[str], str]


def flatten(traces: list) -> list[tuple[int, Any]]:
    """Every step of every piece, in order, with its piece's index."""
    return [(i, s) for i, t in enumerate(traces) for s in t.steps]


def state(tok: Any, traces: list, k: int, token: str = "") -> BpeEncodeState:
    """The pieces after the first k merges (k clamped), with the merge trees of `token` (or of
    the first tokens)."""
    flat = flatten(traces)
    total = len(flat)
    k = min(max(k, 0), total)
    current = flat[k - 1][1] if k else None
    byte_level = bool(getattr(tok.model, "byte_level", False))
    show = shower(byte_level)
    trees, error_tree = [], None
    for t in [token] if token else [t for p in traces[:8] for t, _ in p.tokens][:12]:
        try:
            trees.append(merge_tree_of(tok, t))
        except ValueError as exc:
            error_tree = str(exc)
    return BpeEncodeState(
        step=k,
        total=total,
        flat=flat,
        pieces=pieces_at(traces, flat, k),
        current=current,
        sentence=sentence(current, k, total, show),
        jumps=word_jumps([i for i, _s in flat], k),
        trees=trees,
        error_tree=error_tree,
        byte_level=byte_level,
        show=show,
    )


def pieces_at(traces: list, flat: list, k: int) -> list[dict[str, Any]]:
    """Each piece's parts after the first k merges (over all pieces, in order)."""
    done_per_piece: dict[int, int] = {}
    for i, _s in flat[:k]:
        done_per_piece[i] = done_per_piece.get(i, 0) + 1
    current = flat[k - 1][0] if k else None
    out = []
    for i, t in enumerate(traces):
        n = done_per_piece.get(i, 0)
        if n == 0:
            parts = t.initial
        elif n < len(t.steps):
            parts = t.steps[n].parts
        else:
            parts = after(t.steps[-1])
        out.append(
            {
                "trace": t,
                "parts": parts,
                "done": n,
                "total": len(t.steps),
                "finished": n == len(t.steps),
                "current": i == current,
            }
        )
    return out


def sentence(step: Any, k: int, total: int, show: Callable[[str], str]) -> str:
    """What step k did, over the whole text."""
    if k == 0:
        return (
            "Every piece starts as single symbols. Step to watch the merges apply, lowest "
            "rank first."
            if total
            else "No merge applies: every piece is already its tokens."
        )
    end = " No ranked pair is left anywhere: these are the tokens." if k == total else ""
    return merge_sentence(step, show) + end


def merge_sentence(step: Any, show: Callable[[str], str]) -> str:
    """One encoding step in words: the merge and why (the lowest rank), or the step that
    takes a whole word, or replaces symbols the vocabulary lacks."""
    action = getattr(step, "action", "merge")
    if action == "whole_word":
        return (
            f"ignore_merges: the whole word {show(step.merged)} is in the vocabulary, so it "
            f"is one token and no merge runs."
        )
    if action != "merge":
        n = len(step.replaced)
        sym, rep = step.replaced[0][1], step.replaced[0][2]
        what = (
            f"{show(sym)} → {' '.join(show(r) for r in rep)}" if rep else f"{show(sym)} is dropped"
        )
        how = (
            "byte fallback spells each as its UTF-8 bytes"
            if action == "byte_fallback"
            else "each becomes the unknown token (a run of them fuses into one)"
        )
        return (
            f"{n} symbol{'s are' if n != 1 else ' is'} not in the vocabulary: {how} "
            f"({what}{', …' if n > 1 else ''}); the merges start from there."
        )
    left, right = step.parts[step.chosen], step.parts[step.chosen + 1]
    others = len(step.candidates) - 1
    text = (
        f"Merged {show(left)} + {show(right)} → {show(step.merged)}: rank {step.rank:,} is the "
        f"lowest"
    )
    return text + (
        f" of {len(step.candidates)} candidate pairs." if others else ", the only candidate."
    )


def code_panel(s: BpeEncodeState) -> CodePanel:
    """The textbook loop, on the line state `s` is on: a word spelled as symbols (before any
    step), a merge, a whole word taken as is, symbols replaced (byte fallback, unknown), or the
    end (every piece done)."""
    return textbook_panel(textbook, s.current, finished=s.step == s.total)


# ---- the page ------------------------------------------------------------------------------------
def form(
    state: AppState, tokenizer: str, text: str, token: str, special: bool, play: bool, speed: int
) -> dict[str, Any]:
    """What the form shows (the tokenizer picker, the text), and the page's query parameters."""
    params = {
        "tokenizer": tokenizer,
        "text": text,
        "special": 1 if special else None,
        "speed": speed if speed != 1 else None,
    }
    return {
        "tokenizer": tc.pretrained.canonical_name(tokenizer),
        "text": text,
        "params": params,
        "error": None,
        "play": play,
        "options": bpe_options(tokenizer),
        "token": token,
        "special": special,
        "yours": stored_options(state, "bpe"),
        "next": url_with(PATH, params),
    }


def page(
    tok: Any,
    traces: list,
    k: int,
    token: str,
    speed: int,
    answer: PracticeState,
    params: dict[str, Any],
) -> dict[str, Any]:
    """The page at step k: the state, its code panel, the player, the practice question."""
    s = state(tok, traces, k, token)
    return {
        **vars(s),
        "tok": tok,
        "code": code_panel(s),
        "speed": speed,
        "speeds": SPEEDS,
        "delay": DELAY // speed,
        "practice": practice(answer, PATH, params, s.step, s.flat, s.show) if answer.on else None,
        "practice_link": toggle(PATH, params, s.step),
    }


# ---- practice: which pair of the piece merges next? -----------------------------------------------
def practice(
    answer: PracticeState,
    path: str,
    params: dict[str, Any],
    k: int,
    flat: list,
    show: Callable[[str], str],
) -> Question:
    """Which adjacent pair of the piece being encoded merges next? (Steps that are not merges,
    a whole word or byte fallback, are not asked.)"""
    ask = k
    while ask < len(flat) and getattr(flat[ask][1], "action", "merge") != "merge":
        ask += 1
    if ask >= len(flat) or (answer.until is not None and k >= answer.until):
        return finished(answer, "Every piece is encoded: nothing left to predict.", path, params, k)
    _piece, step = flat[ask]
    parts = step.parts
    ranks = dict(step.candidates)
    choices = [(str(i), f"{show(parts[i])} {show(parts[i + 1])}") for i in range(len(parts) - 1)]
    win = f"{show(parts[step.chosen])} + {show(parts[step.chosen + 1])}"

    def check(given: str) -> tuple[bool, str]:
        try:
            i = int(given)
        except ValueError:
            i = -1
        if i == step.chosen:
            others = len(ranks) - 1
            return True, (
                f"Right: {win} is merge number {step.rank + 1:,}, the lowest rank "
                f"of the {len(ranks)} known pairs here."
                if others
                else f"Right: {win} is the only known merge here (number {step.rank + 1:,})."
            )
        if not 0 <= i < len(parts) - 1:
            return False, f"That is not a pair of this piece. The merge is {win}."
        got = f"{show(parts[i])} + {show(parts[i + 1])}"
        if i not in ranks:
            return (
                False,
                f"{got} was never learned as a merge. The merge is {win} (number {step.rank + 1:,}).",
            )
        return False, (
            f"{got} is a known merge, number {ranks[i] + 1:,}, but {win} is number "
            f"{step.rank + 1:,}: the merge learned earlier goes first."
        )

    return question(
        answer,
        path,
        params,
        k,
        f"Which adjacent pair merges next in {''.join(show(p) for p in parts)!r}?",
        choices,
        check,
        ask + 1,
        len(flat),
    )


# ---- the worksheet -------------------------------------------------------------------------------
def worksheet(tok: Any, text: str) -> dict[str, Any]:
    """The BPE encoding sheet: per word its first parts, then per merge the candidate pairs
    with their ranks (lowest first, at most SHEET_PAIRS), the merge chosen and the parts after.
    Steps that are not merges (a whole word in the vocabulary, byte fallback) are given."""
    check_sheet_text(text)
    found = encode_trace(tok, text)
    total = sum(len(t.steps) for t in found)
    if total > SHEET_STEPS:
        raise InvalidInput(
            f"this text takes {total} steps to encode; a worksheet holds at most "
            f"{SHEET_STEPS} (shorten the text)"
        )
    show = shower(bool(getattr(tok.model, "byte_level", False)))
    words, n = [], 0
    for t in found:
        steps = []
        for s in t.steps:
            n += 1
            action = getattr(s, "action", "merge")
            ranked = sorted(s.candidates, key=lambda c: (c[1], c[0]))[:SHEET_PAIRS]
            merge = action == "merge"
            steps.append(
                {
                    "n": n,
                    "action": action,
                    "parts": [show(p) for p in s.parts],
                    "pairs": [[f"{show(s.parts[i])} {show(s.parts[i + 1])}", r] for i, r in ranked],
                    "winner": f"{show(s.parts[s.chosen])} {show(s.parts[s.chosen + 1])}"
                    if merge
                    else "",
                    "pair": [show(s.parts[s.chosen]), show(s.parts[s.chosen + 1])] if merge else [],
                    "rank": s.rank,
                    "new": show(s.merged),
                    "after": [show(p) for p in after(s)],
                }
            )
        words.append(
            {
                "text": visible(text[t.start : t.end]),
                "initial": [show(p) for p in t.initial],
                "special": t.special,
                "steps": steps,
                "tokens": [show(x) for x, _id in t.tokens],
            }
        )
    return {
        "words": words,
        "total": total,
        "how": "each word starts as single symbols; at every step merge the adjacent pair with "
        "the lowest rank (the merge learned earliest; the leftmost on a tie), until no "
        "pair is a merge.",
    }


def check_sheet_text(text: str) -> None:
    """An encoding worksheet's text: not blank, at most SHEET_CHARS characters."""
    if not text.strip():
        raise InvalidInput("type a short text to encode")
    if len(text) > SHEET_CHARS:
        raise InvalidInput(
            f"the text is {len(text):,} characters; an encoding worksheet takes at "
            f"most {SHEET_CHARS}"
        )
