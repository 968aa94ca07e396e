"""Run a student's code in a child process, with limits, and read back what it did.

The child is `python -I child.py JOB_DIR` (`child.py`: standard library only, its own CPU-time,
address-space and file-size limits, no network). The job (what to run, the reference model
for the encode checks, the corpus path) is a JSON file in a fresh temporary folder, the
child's working directory; the child appends one JSON line per item as it finishes. A child
past its wall-clock deadline is killed with its whole process group. Every item comes back as
an `ItemResult`: done, or failed with the student's traceback, or not reached because the
process hung, ran out of memory or CPU time, or exited; never an exception or a hang here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHILD = Path(__file__).with_name("child.py")
OUTPUT_LIMIT = 4000  # characters of the child's stdout / stderr kept in a report


@dataclass(frozen=True)
class ItemResult:
    """One item of a job: `value` when it ran (`ok`), else `error` and `traceback`."""

    name: str
    ok: bool
    value: Any = None
    error: str = ""
    traceback: str = ""


@dataclass(frozen=True)
class ChildRun:
    """What one child process did: its items, its exit status, its output (tails)."""

    results: dict[str, ItemResult] = field(default_factory=dict)
    returncode: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""

    def result(self, name: str) -> ItemResult:
        return self.results.get(name) or ItemResult(name, False, error=self.why_missing(name))

    def why_missing(self, name: str) -> str:
        """Why an item has no result: the process's fate, said once."""
        if self.timed_out:
            what = f"timed out: killed after {self.seconds:.0f} s of wall-clock time"
        elif self.returncode is not None and self.returncode < 0:
            sig = -self.returncode
            fates = {
                int(signal.SIGXCPU): "killed: over its CPU-time limit",
                int(signal.SIGKILL): "killed (SIGKILL: over a memory or CPU limit)",
                int(signal.SIGXFSZ): "killed: it wrote more output than the limit",
                int(signal.SIGSEGV): "crashed (segmentation fault)",
            }
            what = fates.get(sig, f"killed by signal {signal.Signals(sig).name}")
        elif self.returncode:
            what = f"the process exited with status {self.returncode} before finishing"
        else:
            what = "the process ended before reaching it"
        tail = self.stderr.strip()[-1500:]
        return what + (f"\nstderr:\n{tail}" if tail else "")


def run_child(
    job: dict[str, Any],
    items: list[dict[str, Any]],
    *,
    timeout: float,
    cpu_seconds: float | None = None,
    memory_mb: int | None = None,
    files: dict[str, str] | None = None,
) -> ChildRun:
    """Run `items` of `job` in one child process. `files` are written into its folder first
    (name -> text; the job may name them by path: `folder` is substituted for "{dir}")."""
    with tempfile.TemporaryDirectory(prefix="tokvis-grade-") as tmp:
        folder = Path(tmp)
        for name, text in (files or {}).items():
            (folder / name).write_text(text, encoding="utf-8", newline="")
        spec = _substitute(
            {
                **job,
                "items": items,
                "cpu_seconds": cpu_seconds or int(timeout) + 1,
                "memory_mb": memory_mb,
            },
            str(folder),
        )
        (folder / "job.json").write_text(json.dumps(spec), encoding="utf-8")
        out_path, err_path = folder / "stdout.txt", folder / "stderr.txt"
        start = time.monotonic()
        timed_out = False
        with out_path.open("wb") as out, err_path.open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-I", str(CHILD), str(folder)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                cwd=folder,
                start_new_session=True,  # its own process group: killed whole
                env=_child_env(),
            )
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill(proc)
        seconds = time.monotonic() - start
        results = _read_results(folder / "out.jsonl")
        return ChildRun(
            results=results,
            returncode=proc.returncode,
            timed_out=timed_out,
            seconds=seconds,
            stdout=_tail(out_path),
            stderr=_tail(err_path),
        )


def _substitute(value: Any, folder: str) -> Any:
    if isinstance(value, str):
        return value.replace("{dir}", folder)
    if isinstance(value, list):
        return [_substitute(v, folder) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, folder) for k, v in value.items()}
    return value


def _child_env() -> dict[str, str]:
    """A small environment: no proxies, no PYTHON* variables (-I ignores them anyway)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _read_results(path: Path) -> dict[str, ItemResult]:
    out: dict[str, ItemResult] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:  # a line cut short by a kill
            continue
        if not isinstance(row, dict) or "name" not in row or "ok" not in row:
            continue
        out[str(row["name"])] = ItemResult(
            name=str(row["name"]),
            ok=bool(row["ok"]),
            value=row.get("value"),
            error=str(row.get("error", "")),
            traceback=str(row.get("traceback", "")),
        )
    return out


def _tail(path: Path) -> str:
    """The child's output, bounded: its start and its end when it is long."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        if size <= OUTPUT_LIMIT:
            data = fh.read()
            return data.decode("utf-8", errors="replace")
        head = fh.read(OUTPUT_LIMIT // 4)
        fh.seek(size - OUTPUT_LIMIT * 3 // 4)
        end = fh.read()
    cut = size - len(head) - len(end)
    return (
        head.decode("utf-8", errors="replace")
        + f"\n[... {cut:,} bytes cut ...]\n"
        + end.decode("utf-8", errors="replace")
    )
