"""A corpus as a stream of line chunks, cut into shards at line ends, counted on N processes.

A shard is a byte range of one file that starts at the file's start or just after a line feed and
ends just after one (or at the file's end): a line, so a word or a special token, is never cut.
Each shard is read in blocks of about `BLOCK` bytes (extended to the next line feed) and split as
`str.splitlines` splits the whole text, so its lines are exactly the whole file's.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "c.txt")
>>> _ = open(path, "w").write("ab\\ncd\\nef\\n")
>>> shard_ranges([path], 2)
[Shard(path='...c.txt', start=0, end=6), Shard(path='...c.txt', start=6, end=9)]
>>> [list(lines) for lines in read_blocks(Shard(path, 0, 9), block=4)]
[['ab', 'cd'], ['ef']]
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Sequence, TextIO

from ...errors import InvalidInput
from .counts_file import Counts, merge
from .under import CountedUnder, chunk_counter

BLOCK = 1 << 22  # 4 MiB of text per chunk: the counters' dicts amortise, the memory stays small
SHARDS_PER_PROCESS = 16  # so that a process that finishes early takes another (the last
# shard taken decides who finishes last: ~0.1 s of 48 MB here)


@dataclass(frozen=True)
class Shard:
    path: str
    start: int
    end: int

    def __repr__(self) -> str:  # (short in doctests: the file's name, not its temp folder)
        return f"Shard(path='...{os.path.basename(self.path)}', start={self.start}, end={self.end})"


def shard_ranges(paths: Sequence[str], shards: int) -> list[Shard]:
    """About `shards` shards over `paths`, each file cut in proportion to its size, at line
    feeds (an empty file is no shard)."""
    sizes = [os.path.getsize(p) for p in paths]
    total = sum(sizes) or 1
    out = []
    for path, size in zip(paths, sizes):
        if not size:
            continue
        k = max(1, round(shards * size / total))
        cuts = sorted({_line_start(path, size * i // k) for i in range(1, k)} - {0, size})
        for start, end in zip([0, *cuts], [*cuts, size]):
            out.append(Shard(path, start, end))
    return out


def _line_start(path: str, offset: int) -> int:
    """The first offset at or after `offset` where a line starts (just after a line feed)."""
    with open(path, "rb") as fh:
        fh.seek(max(offset - 1, 0))
        if offset == 0:
            return 0
        fh.readline()  # to the end of the line holding byte offset - 1
        return fh.tell()


def read_blocks(shard: Shard, *, block: int = BLOCK) -> Iterator[list[str]]:
    """The lines of a shard, a block at a time (each block ends at a line feed). Raises
    InvalidInput for text that is not UTF-8."""
    with open(shard.path, "rb") as fh:
        fh.seek(shard.start)
        left = shard.end - shard.start
        while left > 0:
            data = fh.read(min(block, left))
            if len(data) < left and not data.endswith(b"\n"):
                data += fh.readline(left - len(data))  # to the end of the line
            left -= len(data)
            if not data:
                break
            try:
                yield data.decode("utf-8").splitlines()
            except UnicodeDecodeError as exc:
                at = shard.end - left - len(data) + exc.start
                raise InvalidInput(f"{shard.path} is not UTF-8 text (byte {at:,})") from None


def chunks(lines: Iterable[str], size: int = 100_000) -> Iterator[list[str]]:
    """Lines from any iterable, in lists of `size`."""
    chunk: list[str] = []
    for line in lines:
        chunk.append(line)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def count_files(paths: Sequence[str], under: CountedUnder, processes: int = 1) -> Counts:
    """The counts of the files together, on `processes` processes: the shards dealt out to
    child processes (`worker.py`, each a fresh interpreter: nothing of the caller's threads or
    `__main__` comes along), each writing its counts file, which the parent merges as sorted
    streams."""
    for path in paths:
        if not os.path.isfile(path):
            raise InvalidInput(f"{path}: no such file")
    if processes < 1:
        raise InvalidInput("processes must be a whole number >= 1")
    shards = shard_ranges(list(paths), processes * SHARDS_PER_PROCESS if processes > 1 else 1)
    if processes == 1 or len(shards) == 1:
        return Counts.from_words(count_shards(shards, under), under)
    return count_in_children(shards, under, min(processes, len(shards)) - 1)


def count_shards(shards: Iterable[Shard], under: CountedUnder) -> dict[str, int]:
    """The counts of some shards together (what each child of `count_files` runs)."""
    words: dict[str, int] = {}
    add = chunk_counter(under)
    for shard in shards:
        for lines in read_blocks(shard):
            add(words, lines)
    return words


# ---- the children --------------------------------------------------------------------------------
# A child runs `serve`. Its job comes on its stdin: a line of JSON with the rules and where to
# write, then one line per shard to count, each answered "ok" on its stdout; at the end of its
# stdin it writes its counts file (lightly compressed: the parent reads it once) and exits 0, or
# it says why on its stderr and exits BAD_INPUT (the text is not UTF-8, a file went away) or 1 (a
# bug). The shards wait in one queue, largest first, and whoever is free takes the next -- this
# process too, while the children start -- so no one idles while shards are left.
#
# A caller with one thread (the CLI, a script) forks its children: they start in a millisecond,
# the package already imported. A caller with other threads (a web server) starts fresh
# interpreters (`worker_main`), since a fork copies no thread but may copy a lock one held; a
# fresh one costs ~0.4 s to import the package, time this process spends counting alone.
WORKER = "from tokenizers_core.implementations.counting.shards import worker_main; worker_main()"
BAD_INPUT = 3


def count_in_children(shards: Sequence[Shard], under: CountedUnder, children: int) -> Counts:
    """The shards counted by this process and `children` child processes, the counts merged."""
    todo: queue.SimpleQueue[Shard] = queue.SimpleQueue()
    for shard in sorted(shards, key=lambda s: s.start - s.end):
        todo.put(shard)
    with tempfile.TemporaryDirectory(prefix="tokvis-count-") as folder:
        outs = [os.path.join(folder, f"{i}.counts") for i in range(children)]
        start = _fork if can_fork() else _start
        procs: list[Any] = []
        for out in outs:  # (all before the feeders' threads: a fork copies none)
            procs.append(start(under, out, procs))
        feeders = [threading.Thread(target=_feed, args=(p, todo), daemon=True) for p in procs]
        try:
            for feeder in feeders:
                feeder.start()
            words: dict[str, int] = {}
            add = chunk_counter(under)
            for shard in _drain(todo):
                for lines in read_blocks(shard):
                    add(words, lines)
            here = Counts.from_words(words, under)
            for feeder in feeders:
                feeder.join()
            for proc in procs:
                _wait(proc)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        return merge([here, *(Counts.load(out) for out in outs)])


def _drain(todo: "queue.SimpleQueue[Shard]") -> Iterator[Shard]:
    while True:
        try:
            yield todo.get_nowait()
        except queue.Empty:
            return


def can_fork() -> bool:
    """Whether this process may fork its counting children: POSIX, and no other thread."""
    return hasattr(os, "fork") and threading.active_count() == 1


def _job(under: CountedUnder, out: str) -> bytes:
    return json.dumps({"under": under.to_dict(), "out": out}).encode() + b"\n"


def _start(under: CountedUnder, out: str, _others: Sequence[Any] = ()) -> subprocess.Popen:
    """A child counting into the counts file `out`, a fresh interpreter, its rules sent."""
    child = subprocess.Popen(
        [sys.executable, "-c", WORKER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_child_env(),
    )
    assert child.stdin is not None
    child.stdin.write(_job(under, out))
    child.stdin.flush()
    return child


class Forked:
    """A forked child running `serve` on three pipes, with what this module uses of a
    `subprocess.Popen`: stdin, stdout, stderr, poll, wait, kill."""

    stdin: BinaryIO
    stdout: BinaryIO
    stderr: BinaryIO
    returncode: int | None

    def __init__(self, job: bytes, others: Sequence["Forked"] = ()) -> None:
        child_in, self_in = os.pipe()
        self_out, child_out = os.pipe()
        self_err, child_err = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: its own pipe ends only, then serve and exit at once
            code = 1
            try:
                for other in others:  # (an older child's pipes: its stdin must see its end)
                    for fh in (other.stdin, other.stdout, other.stderr):
                        os.close(fh.fileno())
                for fd in (self_in, self_out, self_err):
                    os.close(fd)
                with open(child_err, "w", encoding="utf-8") as err:
                    code = serve(open(child_in, "rb"), open(child_out, "wb"), err)
            finally:
                os._exit(code)  # (no cleanup of the parent's: its atexit, its temp folder)
        for fd in (child_in, child_out, child_err):
            os.close(fd)
        self.pid, self.returncode = pid, None
        self.stdin, self.stdout = open(self_in, "wb"), open(self_out, "rb")
        self.stderr = open(self_err, "rb")
        self.stdin.write(job)
        self.stdin.flush()

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _fork(under: CountedUnder, out: str, others: Sequence[Any] = ()) -> Forked:
    return Forked(_job(under, out), others)


def _feed(child: subprocess.Popen, todo: "queue.SimpleQueue[Shard]") -> None:
    """Hand `child` the next shard each time it has counted one, until none are left (or it
    stopped: `_wait` says why), then close its stdin."""
    assert child.stdin is not None and child.stdout is not None
    try:
        for shard in _drain(todo):
            child.stdin.write(json.dumps([shard.path, shard.start, shard.end]).encode() + b"\n")
            child.stdin.flush()
            if child.stdout.readline() != b"ok\n":
                todo.put(shard)  # (counted by another; this child's failure is reported)
                return
    except (BrokenPipeError, OSError):
        return
    finally:
        try:
            child.stdin.close()
        except OSError:
            pass


def _wait(child: subprocess.Popen) -> None:
    assert child.stderr is not None
    said = child.stderr.read().decode("utf-8", "replace").strip()
    code = child.wait()
    if code == BAD_INPUT:
        raise InvalidInput(said.splitlines()[-1] if said else "a shard could not be counted")
    if code:
        raise RuntimeError(f"a counting process failed (exit {code}): {said[-2000:]}")


def _child_env() -> dict[str, str]:
    """The caller's environment, with this package's folder first on the path (a checkout run
    without installing, or a script that put it on sys.path, works the same)."""
    here = str(Path(__file__).resolve().parents[3])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": here + (os.pathsep + path if path else "")}


def worker_main() -> None:
    """A fresh interpreter's whole life as a child: `serve` on its stdin and stdout."""
    sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer, sys.stderr))


def serve(stdin: BinaryIO, stdout: BinaryIO, stderr: TextIO) -> int:
    """A child's work: read the rules, count each shard it is handed, write the counts file;
    returns the exit code (0, BAD_INPUT, or 1 for a bug, its traceback on `stderr`)."""
    try:
        job = json.loads(stdin.readline())
        words: dict[str, int] = {}
        under = CountedUnder.from_dict(job["under"])
        add = chunk_counter(under)
        for line in stdin:
            path, start, end = json.loads(line)
            for lines in read_blocks(Shard(path, int(start), int(end))):
                add(words, lines)
            stdout.write(b"ok\n")
            stdout.flush()
        counts = Counts.from_words(words, under)
        counts.save(job["out"], compresslevel=1)
    except (InvalidInput, OSError) as exc:
        stderr.write(f"{exc}\n")
        return BAD_INPUT
    except Exception:
        traceback.print_exc(file=stderr)
        return 1
    return 0
