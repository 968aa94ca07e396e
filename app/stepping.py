"""What the step-through encoders share beyond the stepper: word jumps and play speed."""

from __future__ import annotations

from fastapi import HTTPException

SPEEDS = (1, 2, 4, 8)  # play speeds offered: the page's delay divided by this


def check_speed(speed: int) -> int:
    if speed not in SPEEDS:
        raise HTTPException(422, f"speed must be one of {', '.join(map(str, SPEEDS))}")
    return speed


def word_jumps(word_of_step: list[int], k: int) -> dict[str, int | None]:
    """Where "previous word" and "next word" go from step k, given the word each step belongs
    to (`word_of_step[j]` is the word of step j + 1): to the step that finishes the word.

    >>> word_jumps([0, 0, 1, 1, 1, 2], 3)      # word 1 is finished at step 5
    {'prev': 2, 'next': 5}
    >>> word_jumps([0, 0, 1, 1, 1, 2], 0), word_jumps([0, 0, 1, 1, 1, 2], 6)
    ({'prev': None, 'next': 2}, {'prev': 5, 'next': None})
    """
    ends = [
        j + 1
        for j, w in enumerate(word_of_step)
        if j + 1 == len(word_of_step) or word_of_step[j + 1] != w
    ]
    nxt = next((e for e in ends if e > k), None)
    prev = max((e for e in ends if e < k), default=0 if k > 0 else None)
    return {"prev": prev, "next": nxt}
