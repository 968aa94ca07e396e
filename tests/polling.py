"""Waiting for a state, the one way the tests wait: poll a predicate until it holds.

A fixed sleep assumes how far a background job, a child process or a server got; on a busy machine
that assumption is what makes a test flaky. `wait_until` asks instead, and its timeout is only a
ceiling for a state that never comes (generous: a slow machine is not a wrong one).
"""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def wait_until(check: Callable[[], T], timeout: float = 30.0, interval: float = 0.05) -> T:
    """Call `check` until it returns something true, and return that; after `timeout` seconds
    return its last (false) value, for the test's own assertion to report.

    >>> calls = iter([0, 0, 3])
    >>> wait_until(lambda: next(calls), interval=0)
    3
    """
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)
