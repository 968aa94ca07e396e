"""Practice mode for the step-through views: predict the next step, the server checks it.

A view at step k with `practice=1` hides what comes next and asks for it: the pair that merges
next (BPE training), the pair that merges next in a piece (BPE encoding), the piece the window
takes next (WordPiece encoding), the back-pointer of the next position (Unigram lattice). The
answer comes back as `answer=` on the same URL (a plain GET form, upgraded by htmx), so every
state -- the question, the feedback, the score and the streak -- is a URL a teacher can share:
`/bpe/train?practice=1&until=20` is "practise merges 1-20 of this corpus". The check and the
explanation use the step's own values; no algorithm runs in the browser.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from fastapi import HTTPException

from .render import url_with

MAX_CHOICES = 24


@dataclass(frozen=True)
class PracticeState:
    """What the URL says: practising or not, the answer given at this step (if any), and the
    score so far (right answers), the questions asked, the current streak, where to stop."""

    on: bool = False
    answer: str | None = None
    score: int = 0
    asked: int = 0
    streak: int = 0
    until: int | None = None

    def query(self) -> dict[str, Any]:
        return {"practice": 1, "score": self.score, "asked": self.asked,
                "streak": self.streak, "until": self.until}


def practice_params(practice: bool = False, answer: str | None = None, score: int = 0,
                    asked: int = 0, streak: int = 0, until: int | None = None) -> PracticeState:
    """The practice query parameters (a FastAPI dependency of the step-through views)."""
    if min(score, asked, streak) < 0 or score > asked or streak > asked:
        raise HTTPException(422, "score, asked and streak must be whole numbers with "
                                 "0 <= streak, score <= asked")
    if until is not None and until < 1:
        raise HTTPException(422, "until must be a step number of 1 or more")
    return PracticeState(practice, answer if practice else None, score, asked, streak, until)


@dataclass
class Question:
    """What the practice panel shows: a prompt and choices, or, once answered, whether it was
    right, why, and the link on."""

    prompt: str
    choices: list[tuple[str, str]] = field(default_factory=list)      # (value, label)
    form: dict[str, Any] = field(default_factory=dict)                # hidden fields
    path: str = ""
    state: PracticeState = field(default_factory=PracticeState)
    right: bool | None = None
    feedback: str = ""
    next_url: str | None = None
    done: bool = False
    exit_url: str = ""
    share_url: str = ""

    @property
    def hide(self) -> bool:
        """True while the question is open: the view hides the answer."""
        return self.right is None and not self.done


def toggle(path: str, params: dict[str, Any], step: int) -> str:
    """The link that starts practising from this step."""
    return url_with(path, params, step=step, practice=1)


def _question(state: PracticeState, path: str, params: dict[str, Any], k: int, prompt: str,
              choices: list[tuple[str, str]], check: Callable[[str], tuple[bool, str]],
              next_step: int, last: int) -> Question:
    """Common bookkeeping: the form, grading `state.answer` with `check`, the next link."""
    q = Question(prompt, choices, {**{k2: v for k2, v in params.items() if v is not None},
                                   "step": k, **{k2: v for k2, v in state.query().items()
                                                 if v is not None}},
                 path, state, exit_url=url_with(path, params, step=k),
                 share_url=url_with(path, params, step=k, practice=1, until=state.until))
    if state.answer is None:
        return q
    right, why = check(state.answer)
    new = replace(state, answer=None, asked=state.asked + 1, score=state.score + right,
                  streak=state.streak + 1 if right else 0)
    q.right, q.feedback, q.state = right, why, new
    stop = state.until if state.until is not None else last
    if next_step <= min(stop, last) and next_step < last + 1:
        q.next_url = url_with(path, params, step=next_step, **new.query())
    q.done = q.next_url is None
    return q


def finished(state: PracticeState, text: str, path: str, params: dict[str, Any],
             k: int) -> Question:
    return Question(text, state=state, done=True, path=path,
                    exit_url=url_with(path, params, step=k))


# ---- the four views ----------------------------------------------------------------------------
def bpe_train(state: PracticeState, path: str, params: dict[str, Any], k: int, session,
              show: Callable[[str], str], rule: str) -> Question:
    """Which pair merges next? (after k merges; the choices are the top of the pair table)"""
    upcoming = session.step(k + 1)
    rule = rule.split(", where")[0].split("; ", 1)[-1]         # the tie-break, in short
    if upcoming is None or (state.until is not None and k >= state.until):
        return finished(state, "No merge left to predict here.", path, params, k)
    table = {(a, b): c for a, b, c in session.pair_table(k + 1)}
    table.setdefault(upcoming.pair, upcoming.count)
    choices = sorted(((f"{a}\t{b}", f"{show(a)} {show(b)}") for a, b in table),
                     key=lambda c: c[1])

    def check(answer: str) -> tuple[bool, str]:
        pair = tuple(answer.split("\t", 1))
        a, b = upcoming.pair
        win = f"{show(a)} + {show(b)}"
        if pair == upcoming.pair:
            why = f"Right: {win} occurs {upcoming.count:,} times, more than any other pair"
            if upcoming.n_tied:
                why = (f"Right: {win} occurs {upcoming.count:,} times, and wins the tie with "
                       f"{upcoming.n_tied} other pair(s): {rule}")
            return True, why + "."
        if pair not in table:
            return False, f"That is not one of the pairs here. The merge is {win}."
        got = f"{show(pair[0])} + {show(pair[1])}"
        if table[pair] == upcoming.count:
            return False, (f"Close: {got} also occurs {table[pair]:,} times, a tie with {win}; "
                           f"the tie-break decides ({rule}) and picks {win}.")
        return False, (f"Not this one: {got} occurs {table[pair]:,} times, but {win} occurs "
                       f"{upcoming.count:,} times (counted in every word, times the word's "
                       "frequency).")

    return _question(state, path, params, k, f"Which pair merges next (merge {k + 1})? Count "
                     "the adjacent pairs in the word table, each times its word's count.",
                     choices, check, k + 1, session.total_steps())


def bpe_encode(state: PracticeState, path: str, params: dict[str, Any], k: int, flat: list,
               show: Callable[[str], str]) -> Question:
    """Which adjacent pair of the piece being encoded merges next?"""
    ask = k           # steps that are not merges (a whole word, byte fallback) are not asked
    while ask < len(flat) and getattr(flat[ask][1], "action", "merge") != "merge":
        ask += 1
    if ask >= len(flat) or (state.until is not None and k >= state.until):
        return finished(state, "Every piece is encoded: nothing left to predict.", path,
                        params, k)
    _piece, step = flat[ask]
    parts = step.parts
    ranks = dict(step.candidates)
    choices = [(str(i), f"{show(parts[i])} {show(parts[i + 1])}") for i in range(len(parts) - 1)]
    win = f"{show(parts[step.chosen])} + {show(parts[step.chosen + 1])}"

    def check(answer: str) -> tuple[bool, str]:
        try:
            i = int(answer)
        except ValueError:
            i = -1
        if i == step.chosen:
            others = len(ranks) - 1
            return True, (f"Right: {win} is merge number {step.rank + 1:,}, the lowest rank "
                          f"of the {len(ranks)} known pairs here." if others else
                          f"Right: {win} is the only known merge here (number {step.rank + 1:,}).")
        if not 0 <= i < len(parts) - 1:
            return False, f"That is not a pair of this piece. The merge is {win}."
        got = f"{show(parts[i])} + {show(parts[i + 1])}"
        if i not in ranks:
            return False, f"{got} was never learned as a merge. The merge is {win} (number {step.rank + 1:,})."
        return False, (f"{got} is a known merge, number {ranks[i] + 1:,}, but {win} is number "
                       f"{step.rank + 1:,}: the merge learned earlier goes first.")

    return _question(state, path, params, k, "Which adjacent pair merges next in "
                     f"{''.join(show(p) for p in parts)!r}?", choices, check, ask + 1, len(flat))


def wordpiece_encode(state: PracticeState, path: str, params: dict[str, Any], k: int,
                     steps: list, prefix: str, unk: str) -> Question:
    """Which piece does the window take next? (skipping the misses in between)"""
    if k >= len(steps) or (state.until is not None and k >= state.until):
        return finished(state, "Every word is encoded: nothing left to predict.", path,
                        params, k)
    index, probe = steps[k]
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

    def check(answer: str) -> tuple[bool, str]:
        if answer == answer_right:
            if hit.status == "hit":
                return True, (f"Right: {hit.candidate} is the longest window from position "
                              f"{start} that is in the vocabulary.")
            return True, (f"Right: no window from position {start} is in the vocabulary, so "
                          f"the whole word becomes {unk}.")
        if answer == unk:
            return False, f"{hit.candidate} is in the vocabulary, so the word is not {unk}."
        body = answer[len(mark):] if mark and answer.startswith(mark) else answer
        if hit.status != "hit":
            return False, (f"{answer} is not in the vocabulary, and neither is any shorter "
                           f"window: the whole word becomes {unk}.")
        if len(body) > hit.end - start:
            return False, (f"{answer} is not in the vocabulary; the window keeps shrinking "
                           f"until {hit.candidate}, which is.")
        return False, (f"Greedy longest match starts with the longest window and shrinks it: "
                       f"{hit.candidate} is in the vocabulary and longer than {answer}.")

    return _question(state, path, params, k, f"In {word!r}, from position {start}: which piece "
                     "does the window take?", choices, check, target + 1, len(steps))


def unigram_lattice(state: PracticeState, path: str, params: dict[str, Any], k: int,
                    steps: list) -> Question:
    """What is the back-pointer of the next end position?"""
    if k >= len(steps) or steps[k].kind != "viterbi" or \
            (state.until is not None and k >= state.until):
        return finished(state, "The lattice is full: follow the back-pointers to read the "
                        "split.", path, params, k)
    step = steps[k]
    choices = [(str(j), f"{j} ({piece})") for j, piece, _id, _s, _t in step.candidates]
    by_start = {j: (piece, score, total) for j, piece, _id, score, total in step.candidates}
    wp, ws, wt = by_start[step.back]

    def check(answer: str) -> tuple[bool, str]:
        try:
            j = int(answer)
        except ValueError:
            j = -1
        if j == step.back:
            return True, (f"Right: ending with {wp} from position {j} scores best[{j}] + "
                          f"{ws:.4g} = {wt:.4g}, the best of the {len(by_start)} ways to reach "
                          f"position {step.position}.")
        if j not in by_start:
            return False, f"No piece runs from {answer} to {step.position}; back[{step.position}] = {step.back}."
        p, s, t = by_start[j]
        same = " (a tie: the earlier start wins)" if t == wt else ""
        return False, (f"From {j}, {p} scores best[{j}] + {s:.4g} = {t:.4g}; from {step.back}, "
                       f"{wp} scores {wt:.4g}, higher{same}. back[{step.position}] = {step.back}.")

    last = sum(1 for s in steps if s.kind == "viterbi")
    return _question(state, path, params, k, f"Which start j gives the best path to position "
                     f"{step.position}? (back[{step.position}] = ?)", choices, check, k + 1, last)
