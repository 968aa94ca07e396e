"""The sandbox's pool on its own: work that runs away in a child is stopped by the child's own
limits (CPU seconds, address space) or by the wall-clock kill, the caller gets a message that
says which, and the pool goes on with a fresh child. The tasks are in sandbox_tasks.py."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading

import pytest

from app.sandbox import Budget, Pool, SandboxBusy, SandboxFailure, supervisor
from tokenizers_core.chat.sandbox import TemplateFailure

SMALL = Budget(cpu_seconds=1, memory_mb=128, wall_seconds=20)


@pytest.fixture(scope="module")
def pool():
    pool = Pool("test", workers=1)
    pool.start()
    yield pool
    pool.stop()


def test_a_value_comes_back_and_the_child_is_not_the_server(pool):
    assert pool.run("sandbox_tasks:echo", {"a": [1, 2]}, budget=SMALL, what="echo") == {"a": [1, 2]}
    assert pool.run("sandbox_tasks:pid", budget=SMALL, what="pid") != os.getpid()


def test_cpu_work_inside_one_c_call_is_stopped_by_the_cpu_limit(pool):
    """`sum(range(10**12))` never returns to Python: only the kernel's SIGXCPU stops it."""
    before = pool.run("sandbox_tasks:pid", budget=SMALL, what="pid")
    with pytest.raises(SandboxFailure, match="used up its CPU budget of 1 s"):
        pool.run("sandbox_tasks:spin", budget=SMALL, what="the spin")
    after = pool.run("sandbox_tasks:pid", budget=SMALL, what="pid")
    assert after != before  # a fresh child took the killed one's place


def test_memory_past_the_budget_is_refused_and_the_child_replaced(pool):
    with pytest.raises(SandboxFailure, match="went over its memory budget of 128 MB"):
        pool.run("sandbox_tasks:hog", 512, budget=SMALL, what="the hog")
    assert pool.run("sandbox_tasks:hog", 16, budget=SMALL, what="a small one") == 16 * 2**20


def test_work_that_waits_without_cpu_is_killed_at_the_wall_clock_deadline(pool):
    quick = Budget(cpu_seconds=5, memory_mb=128, wall_seconds=0.5)
    with pytest.raises(SandboxFailure, match="took longer than 0.5 s"):
        pool.run("sandbox_tasks:sleep", 60, budget=quick, what="the nap")
    assert pool.run("sandbox_tasks:echo", 1, budget=SMALL, what="echo") == 1


def test_errors_keep_their_kind(pool):
    with pytest.raises(ValueError, match="no such thing") as caught:
        pool.run("sandbox_tasks:refuse", "no such thing", budget=SMALL, what="refuse")
    assert not isinstance(caught.value, SandboxFailure)
    inputs = _inputs("{% for m in messages %}{{ m.nope.deeper }}{% endfor %}")
    with pytest.raises(TemplateFailure) as failure:
        pool.run("chat", inputs, 2.0, budget=SMALL, what="the chat template")
    assert failure.value.line == 1


def test_the_server_environment_is_not_the_childs_business(pool, monkeypatch):
    """A child comes from the fork server, started before this secret was set: it never had it."""
    # the fork server is up first (under xdist this test may be the first of the module here)
    assert pool.run("sandbox_tasks:echo", 1, budget=SMALL, what="echo") == 1
    monkeypatch.setenv("TOKVIS_TEST_SECRET", "hunter2")
    assert (
        pool.run(
            "sandbox_tasks:read_server_secret", "TOKVIS_TEST_SECRET", budget=SMALL, what="peek"
        )
        is None
    )


def test_a_busy_pool_says_so_rather_than_queueing_for_ever(tmp_path):
    pool = Pool("busy", workers=1)
    pool.start()
    marker = tmp_path / "started"
    try:
        slow = threading.Thread(
            target=lambda: _ignore(
                lambda: pool.run(
                    "sandbox_tasks:sleep_marked",
                    str(marker),
                    3,
                    budget=Budget(5, 128, 10),
                    what="nap",
                )
            )
        )
        slow.start()
        _until(marker.exists)
        with pytest.raises(SandboxBusy, match="stayed busy"):
            pool.run("sandbox_tasks:echo", 1, budget=Budget(1, 128, 0.2), what="echo")
        slow.join()
    finally:
        pool.stop()


def test_no_workers_runs_in_this_process():
    pool = Pool("here", workers=0)
    assert pool.run("sandbox_tasks:pid", budget=SMALL, what="pid") == os.getpid()


def test_limits_never_raise_a_hard_limit():
    """Issue 27, item 9: under `ulimit -v` (a hard address-space limit, as containers set it)
    every training "ended with code 1", because the child asked for an unlimited hard limit.
    Run as nobody, who may not raise a hard limit."""
    code = (
        "import resource; from app.sandbox.supervisor import limit_resources; "
        "resource.setrlimit(resource.RLIMIT_AS, (2**34, 2**34)); "
        "resource.setrlimit(resource.RLIMIT_CPU, (3000, 3000)); "
        + ("import os; os.setgid(65534); os.setuid(65534); " if os.geteuid() == 0 else "")
        + "limit_resources(60, 2**40); "
        "print(resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
    )
    assert out.returncode == 0, out.stderr
    as_limit, cpu_limit = out.stdout.strip().split(") (")
    assert as_limit == f"({2**34}, {2**34}"  # the soft limit clipped to the hard one
    soft, hard = map(int, cpu_limit.strip("()").split(", "))
    assert soft <= hard <= 3000


def test_exit_codes_become_sentences():
    assert "used up its CPU budget" in supervisor.exit_reason(-24, "x", 1, "S", 1, "M")
    assert "memory budget" in supervisor.exit_reason(supervisor.MEMORY_EXIT, "x", 1, "S", 1, "M")
    assert "ended with code -9" in supervisor.exit_reason(-9, "x", 1, "S", 1, "M", out_of_cpu=False)
    assert resource.RLIMIT_AS  # (the module is importable everywhere)


def _inputs(template: str):
    from tokenizers_core.chat import prepare

    return prepare([{"role": "user", "content": "hi"}], chat_template=template)


def _ignore(call):
    try:
        call()
    except Exception:
        pass


def _until(check) -> None:
    import time

    deadline = time.monotonic() + 60
    while not check() and time.monotonic() < deadline:
        time.sleep(0.02)


def test_a_child_left_large_makes_way_and_the_next_request_is_served(pool):
    """A child whose work left it large (past worker.RECYCLE_BYTES) ends after answering; the
    requests after it go to a fresh child, none of them told the sandbox failed."""
    big = Budget(cpu_seconds=5, memory_mb=1024, wall_seconds=30)
    large = pool.run("sandbox_tasks:grow", 600, budget=big, what="growth")
    pids = {pool.run("sandbox_tasks:pid", budget=SMALL, what="pid") for _ in range(20)}
    assert large not in pids and len(pids) == 1
