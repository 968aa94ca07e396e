"""Practice mode for the step-through views: predict the next step, the server checks it.

A view at step k with `practice=1` hides what comes next and asks for it: the pair that merges
next (BPE training), the pair that merges next in a piece (BPE encoding), the piece the window
takes next (WordPiece encoding), the back-pointer of the next position (Unigram lattice). The
answer comes back as `answer=` on the same URL (a plain GET form, upgraded by htmx), so every
state -- the question, the feedback, the score and the streak -- is a URL a teacher can share:
`/bpe/train?practice=1&until=20` is "practise merges 1-20 of this corpus". The check and the
explanation use the step's own values; no algorithm runs in the browser.

This module is the bookkeeping every question shares (the URL's state, grading, the link on);
each view's own question is `practice()` in its module under `app/views/`.
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
        return {
            "practice": 1,
            "score": self.score,
            "asked": self.asked,
            "streak": self.streak,
            "until": self.until,
        }


def practice_params(
    practice: bool = False,
    answer: str | None = None,
    score: int = 0,
    asked: int = 0,
    streak: int = 0,
    until: int | None = None,
) -> PracticeState:
    """The practice query parameters (a FastAPI dependency of the step-through views)."""
    if min(score, asked, streak) < 0 or score > asked or streak > asked:
        raise HTTPException(
            422, "score, asked and streak must be whole numbers with 0 <= streak, score <= asked"
        )
    if until is not None and until < 1:
        raise HTTPException(422, "until must be a step number of 1 or more")
    return PracticeState(practice, answer if practice else None, score, asked, streak, until)


@dataclass
class Question:
    """What the practice panel shows: a prompt and choices, or, once answered, whether it was
    right, why, and the link on."""

    prompt: str
    choices: list[tuple[str, str]] = field(default_factory=list)  # (value, label)
    form: dict[str, Any] = field(default_factory=dict)  # hidden fields
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


def question(
    state: PracticeState,
    path: str,
    params: dict[str, Any],
    k: int,
    prompt: str,
    choices: list[tuple[str, str]],
    check: Callable[[str], tuple[bool, str]],
    next_step: int,
    last: int,
) -> Question:
    """Common bookkeeping: the form, grading `state.answer` with `check`, the next link."""
    q = Question(
        prompt,
        choices,
        {
            **{k2: v for k2, v in params.items() if v is not None},
            "step": k,
            **{k2: v for k2, v in state.query().items() if v is not None},
        },
        path,
        state,
        exit_url=url_with(path, params, step=k),
        share_url=url_with(path, params, step=k, practice=1, until=state.until),
    )
    if state.answer is None:
        return q
    right, why = check(state.answer)
    new = replace(
        state,
        answer=None,
        asked=state.asked + 1,
        score=state.score + right,
        streak=state.streak + 1 if right else 0,
    )
    q.right, q.feedback, q.state = right, why, new
    stop = state.until if state.until is not None else last
    if next_step <= min(stop, last) and next_step < last + 1:
        q.next_url = url_with(path, params, step=next_step, **new.query())
    q.done = q.next_url is None
    return q


def finished(
    state: PracticeState, text: str, path: str, params: dict[str, Any], k: int
) -> Question:
    return Question(
        text, state=state, done=True, path=path, exit_url=url_with(path, params, step=k)
    )
