"""The Unigram lattice view's state at step k (`/unigram/lattice`, its lesson, practice and
worksheet).

`lattice_steps(tok, text)` runs Viterbi once: one "viterbi" step per end position (best[i],
back[i], the candidates), then one "viterbi_backtrack" step per piece of the best path.
`state(...)` draws the lattice after k steps; `viterbi_sentence` and `backtrack_sentence` are
the one place those steps are put in words (the page and the lesson say the same). The code
panel is `tokenizers_core/textbook/unigram_viterbi.py`, the line of step k lit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tokenizers_core.errors import InvalidInput
from tokenizers_core.models.unigram.model import lattice_steps, sample
from tokenizers_core.textbook import unigram_viterbi as textbook

from ..display import visible
from ..practice import PracticeState, Question, finished, question, toggle
from ..render import url_with
from ..services.tokenizers import stored_options, tokenizer_label
from ..state import AppState
from .common import CodePanel, textbook_panel, unigram_options

PATH = "/unigram/lattice"
DEFAULT_TEXT = "cats"
MAX_CHARS = 120  # normalised characters the lattice view steps through
MAX_NBEST = 50
CELL = 64  # px between lattice positions: the SVG's nodes and the table's
LEFT = 112  # columns (app.css .lattice-scroll keeps the same two numbers)
SHEET_CHARS = 12  # normalised characters (rows) of a lattice worksheet


def check_size(
    tok: Any,
    text: str,
    limit: int = MAX_CHARS,
    what: str = "the lattice view "
    "steps through at most {limit} (the visualiser takes longer texts)",
) -> None:
    """ValueError when the normalised text is longer than `limit` characters."""
    size = len(tok.normalize(text))
    if size > limit:
        raise InvalidInput(
            f"the normalised text has {size} characters; " + what.format(limit=limit)
        )


@dataclass(frozen=True)
class LatticeState:
    step: int
    total: int
    normalized: str
    steps: list  # the Viterbi steps, forward then backtrack
    view: dict  # what the lattice draws: positions, arcs, the current step, ...
    sentence: str


def state(normalized: str, steps: list, k: int, unk_id: int) -> LatticeState:
    """The lattice after k steps (k clamped)."""
    total = len(steps)
    k = min(max(k, 0), total)
    view = lattice_view(normalized, steps, k, unk_id)
    return LatticeState(
        step=k,
        total=total,
        normalized=normalized,
        steps=steps,
        view=view,
        sentence=sentence(view, k, total, normalized),
    )


def lattice_view(text: str, steps: list, k: int, unk_id: int) -> dict[str, Any]:
    """Everything the lattice page draws for the state after k steps."""
    n = len(text)
    cell = CELL
    x0 = LEFT + CELL // 2  # node i sits at x0 + i * cell, over the table's column i
    forward = [s for s in steps if s.kind == "viterbi"]
    backtrack = [s for s in steps if s.kind == "viterbi_backtrack"]
    filled = min(k, n)
    walked = backtrack[: max(0, k - n)]
    on_path = {(s.start, s.end) for s in walked}
    positions = [{"i": 0, "best": 0.0, "back": None, "filled": True, "path": bool(walked)}]
    for s in forward:
        positions.append(
            {
                "i": s.position,
                "best": s.best,
                "back": s.back,
                "filled": s.position <= filled,
                "path": any(s.position == e or s.position == b for b, e in on_path),
            }
        )
    arcs = []
    for s in forward:
        for idx, (j, piece, pid, score, total) in enumerate(s.candidates):
            if s.position > filled:
                arc = "future"
            elif (j, s.position) in on_path:
                arc = "path"
            elif idx == s.winner:
                arc = "winner"
            else:
                arc = "considered"
            length = s.position - j
            arcs.append(
                {
                    "j": j,
                    "i": s.position,
                    "piece": piece,
                    "score": score,
                    "total": total,
                    "unk": pid == unk_id,
                    "state": arc,
                    "current": s.position == k and k <= n,
                    "x1": x0 + j * cell,
                    "x2": x0 + s.position * cell,
                    "xm": x0 + (j + s.position) * cell / 2,
                    "h": min(150, 18 + 22 * length),
                }
            )
    # draw long arcs first so short ones stay clickable on top
    arcs.sort(key=lambda a: (a["state"] != "future", -(a["i"] - a["j"])))
    current = forward[k - 1] if 1 <= k <= n else None
    back_step = walked[-1] if walked else None
    return {
        "chars": list(text),
        "positions": positions,
        "arcs": arcs,
        "current": current,
        "back_step": back_step,
        "path": [s.piece for s in reversed(walked)],
        "width": LEFT + (n + 1) * cell,
        "n": n,
        "cell": cell,
        "x0": x0,
        "end": min(k, n) if k <= n else (walked[-1].start if walked else n),
    }


def sentence(view: dict[str, Any], k: int, total: int, text: str) -> str:
    n = view["n"]
    if n == 0:
        return "The normalised text is empty: there is nothing to segment."
    if k == 0:
        return (
            f"The normalised text “{text}” has {n} characters, so the lattice has positions "
            "0 to "
            f"{n}. best[0] = 0; step to fill best[1]."
        )
    if k <= n:
        return viterbi_sentence(view["current"])
    b = view["back_step"]
    if k == total:
        return (
            f"back[{b.end}] = {b.start}: “{b.piece}” is the first piece; the best split is "
            f"{' + '.join(view['path'])} with log-probability {view['positions'][-1]['best']:.3f}."
        )
    return backtrack_sentence(b)


def viterbi_sentence(s: Any) -> str:
    """A forward step in words: the pieces that end at i, the best, best[i] and back[i]."""
    j, piece, _pid, score, cand = s.candidates[s.winner]
    many = len(s.candidates)
    what = "an <unk> node (no piece covers this character)" if s.unknown else f"“{piece}”"
    return (
        f"Position {s.position}: {many} piece{'s' if many != 1 else ''} end here; the best "
        f"is {what} from {j}: best[{j}] + ({score:.3f}) = {cand:.3f}, so "
        f"best[{s.position}] = {s.best:.3f} and back[{s.position}] = {j}."
    )


def backtrack_sentence(b: Any) -> str:
    """A backtrack step in words: the piece that back[i] puts on the best path."""
    rest = (
        "that reaches position 0: the split is complete."
        if b.start == 0
        else f"continue from position {b.start}."
    )
    return (
        f"back[{b.end}] = {b.start}, so “{b.piece}” ({b.start}–{b.end}) is on the best path; {rest}"
    )


def code_panel(s: LatticeState) -> CodePanel:
    """The textbook Viterbi, on the empty lattice (before any step), filling best[i], following
    a back-pointer, or the split read off (after the last step)."""
    current = s.steps[s.step - 1] if s.step else None
    return textbook_panel(textbook, current, finished=s.step == s.total)


# ---- the page ------------------------------------------------------------------------------------
def check_n(n: int) -> None:
    if not 1 <= n <= MAX_NBEST:
        raise InvalidInput(f"n (the number of best splits) must be between 1 and {MAX_NBEST}")


def form(
    state: AppState,
    model: str,
    text: str,
    n: int = 5,
    seed: int | None = None,
    alpha: float = 0.1,
    nbest_size: int = -1,
    play: bool = False,
) -> dict[str, Any]:
    """What the form shows (the model picker, the text, the sampling options), and the page's
    query parameters."""
    params = {"model": model, "text": text, "n": n if n != 5 else None}
    return {
        "model": model,
        "text": text,
        "params": params,
        "error": None,
        "play": play,
        "n_best": n,
        "seed": seed,
        "alpha": alpha,
        "nbest_size": nbest_size,
        "model_options": unigram_options(model),
        "cell": CELL,
        "yours": stored_options(state, "unigram"),
        "label": tokenizer_label(state, model),
        "next": url_with(PATH, params),
    }


def page(
    tok: Any,
    text: str,
    k: int,
    n: int,
    seed: int | None,
    alpha: float,
    nbest_size: int,
    answer: PracticeState,
    params: dict[str, Any],
) -> dict[str, Any]:
    """The page at step k: the lattice, its code panel, the n best splits, a sampled split
    (with `seed`), the tokens at the end, the practice question."""
    plain = text.replace("▁", " ")
    check_size(tok, plain)
    normalized, steps = lattice_steps(tok, plain)
    s = state(normalized, steps, k, tok.model.unk_id)
    return {
        **vars(s),
        "tok": tok,
        "code": code_panel(s),
        "nbest": tok.model.nbest(normalized, n),
        "sampled": (
            sample(tok, plain, alpha=alpha, nbest_size=nbest_size, seed=seed)
            if seed is not None
            else None
        ),
        "final": tok.encode(plain).tokens if s.step == s.total else None,
        "unk_score": tok.model.unk_score,
        "practice": practice(answer, PATH, params, s.step, steps) if answer.on else None,
        "practice_link": toggle(PATH, params, s.step),
    }


# ---- practice: what is back[i]? -------------------------------------------------------------------
def practice(
    answer: PracticeState, path: str, params: dict[str, Any], k: int, steps: list
) -> Question:
    """What is the back-pointer of the next end position?"""
    if (
        k >= len(steps)
        or steps[k].kind != "viterbi"
        or (answer.until is not None and k >= answer.until)
    ):
        return finished(
            answer,
            "The lattice is full: follow the back-pointers to read the split.",
            path,
            params,
            k,
        )
    step = steps[k]
    choices = [(str(j), f"{j} ({piece})") for j, piece, _id, _s, _t in step.candidates]
    by_start = {j: (piece, score, total) for j, piece, _id, score, total in step.candidates}
    wp, ws, wt = by_start[step.back]

    def check(given: str) -> tuple[bool, str]:
        try:
            j = int(given)
        except ValueError:
            j = -1
        if j == step.back:
            return True, (
                f"Right: ending with {wp} from position {j} scores best[{j}] + "
                f"{ws:.4g} = {wt:.4g}, the best of the {len(by_start)} ways to reach "
                f"position {step.position}."
            )
        if j not in by_start:
            return (
                False,
                f"No piece runs from {given} to {step.position}; back[{step.position}] = {step.back}.",
            )
        p, sc, t = by_start[j]
        same = " (a tie: the earlier start wins)" if t == wt else ""
        return False, (
            f"From {j}, {p} scores best[{j}] + {sc:.4g} = {t:.4g}; from {step.back}, "
            f"{wp} scores {wt:.4g}, higher{same}. back[{step.position}] = {step.back}."
        )

    last = sum(1 for s in steps if s.kind == "viterbi")
    return question(
        answer,
        path,
        params,
        k,
        f"Which start j gives the best path to position "
        f"{step.position}? (back[{step.position}] = ?)",
        choices,
        check,
        k + 1,
        last,
    )


# ---- the worksheet -------------------------------------------------------------------------------
def worksheet(tok: Any, text: str) -> dict[str, Any]:
    """The Unigram lattice sheet: the pieces that occur in the text with their log-probabilities
    (given), per end position i the best score best[i], the back-pointer back[i] and the piece
    text[back[i]:i], then the best path read from the back-pointers."""
    if not text.strip():
        raise InvalidInput("type a short text (a word or two)")
    text = text.replace("▁", " ")
    check_size(tok, text, SHEET_CHARS, "a lattice worksheet takes at most {limit} (one row each)")
    normalized, steps = lattice_steps(tok, text)
    forward = [s for s in steps if s.kind == "viterbi"]
    s = state(normalized, steps, len(steps), tok.model.unk_id)
    pieces: dict[str, float] = {}
    for f in forward:
        for _j, piece, pid, score, _total in f.candidates:
            if pid != tok.model.unk_id:
                pieces.setdefault(piece, score)
    rows = [
        {
            "i": f.position,
            "char": visible(normalized[f.position - 1]),
            "best": f"{f.best:.2f}",
            "back": f.back,
            "piece": visible(normalized[f.back : f.position]),
            "unknown": f.unknown,
        }
        for f in forward
    ]
    return {
        "text": visible(normalized),
        "n": len(normalized),
        "rows": rows,
        "pieces": sorted(
            ((visible(p), f"{v:.2f}") for p, v in pieces.items()),
            key=lambda pv: (len(pv[0]), pv[0]),
        ),
        "unk": f"{tok.model.unk_score:.2f}",
        "path": [visible(p) for p in s.view["path"]],
        "score": f"{forward[-1].best:.2f}" if forward else "0.00",
        "how": "best[0] = 0. For i = 1 … N, every piece text[j:i] in the list is a candidate "
        "best[j] + log P(piece); best[i] is the largest (on a tie the smaller j), and "
        "back[i] is its j. A character no piece covers is <unk>. Then follow the "
        "back-pointers from N to 0 and read the pieces left to right.",
    }
