"""The step-through views' background runs: bounded, stopped when cancelled, abandoned or over
their CPU budget, and cancelled when the only client waiting for them leaves."""
from __future__ import annotations

import time

import pytest

from app.jobs import ClientGone, QueueFull
from app.step_runs import StepRuns


class Spin:
    """Work that never finishes on its own: one short chunk per call."""

    def __init__(self) -> None:
        self.chunks = 0

    def __call__(self) -> bool:
        self.chunks += 1
        end = time.thread_time() + 0.005
        while time.thread_time() < end:
            pass
        return False


def wait_until(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_runs_are_bounded_and_queued_beyond_the_pool():
    runs = StepRuns(workers=1, queue=1, cpu_seconds=60)
    a, b = runs.start("a", Spin()), runs.start("b", Spin())
    wait_until(lambda: a.status == "running")
    assert b.status == "queued"
    assert runs.start("a", Spin()) is a                 # the same key: the same run
    with pytest.raises(QueueFull, match="1 training running and 1 waiting"):
        runs.start("c", Spin())
    a.cancelled.set()
    wait_until(lambda: b.status == "running")
    assert a.status == "cancelled"
    b.cancelled.set()
    wait_until(lambda: not b.active)


def test_a_run_nobody_looks_at_stops():
    runs = StepRuns(workers=1, queue=1, cpu_seconds=60, abandon=0.3)
    work = Spin()
    run = runs.start("a", work)
    wait_until(lambda: not run.active)
    assert run.status == "abandoned"
    done = work.chunks
    time.sleep(0.1)
    assert work.chunks == done                            # really stopped
    again = runs.start("a", work)                         # a new look carries on
    assert again is not run and again.active
    again.cancelled.set()


def test_a_run_over_its_cpu_budget_stops_with_a_message():
    runs = StepRuns(workers=1, queue=1, cpu_seconds=0.2)
    run = runs.start("a", Spin())
    with pytest.raises(ValueError, match="CPU budget"):
        runs.wait(run, gone=lambda: False)
    assert run.status == "error"


def test_the_only_waiter_leaving_cancels_the_run():
    runs = StepRuns(workers=1, queue=1, cpu_seconds=60)
    run = runs.start("a", Spin())
    with pytest.raises(ClientGone):
        runs.wait(run, gone=lambda: True)
    wait_until(lambda: not run.active)
    assert run.status == "cancelled"


def test_errors_in_the_work_are_reported():
    def bad() -> bool:
        raise ValueError("vocab_size is too large for this corpus")
    runs = StepRuns(workers=1, queue=1)
    with pytest.raises(ValueError, match="too large"):
        runs.wait(runs.start("a", bad), gone=lambda: False)


def test_a_wait_with_a_timeout_keeps_the_run_going():
    runs = StepRuns(workers=1, queue=1, cpu_seconds=60, abandon=0.3)
    run = runs.start("a", Spin())
    assert runs.wait(run, gone=lambda: False, timeout=0.8) is run
    assert run.active and run.status == "running"     # waited past `abandon`: not dropped
    run.cancelled.set()
