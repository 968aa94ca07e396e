"""The child process that runs a student's code: `python -I child.py JOB_DIR`.

Standard library only, and run as a file (not `-m`), so that it imports nothing of this
package: the student's module is loaded from its path, with its own folder (or the parent of
its package) on `sys.path`. It reads `JOB_DIR/job.json`, sets its own limits (CPU seconds,
address space, file size), refuses network connections (an audit hook), runs each item of the
job and appends one JSON line per item to `JOB_DIR/out.jsonl` as it finishes, so that what
was done survives a kill. Bytes travel as hex. A student's exception, `sys.exit`, MemoryError
or SyntaxError is that item's error, with its traceback; a hang or a crash of the process is
the parent's to report (`runner.py`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import resource
import sys
import time
import traceback
import tracemalloc
from pathlib import Path

_NETWORK_EVENTS = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto"}


def _no_network(event: str, args: tuple) -> None:
    if event in _NETWORK_EVENTS:
        raise PermissionError(f"network access is disabled while grading ({event})")


def _limits(job: dict) -> None:
    cpu = job.get("cpu_seconds")
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 1))
    mem = job.get("memory_mb")
    if mem:
        n = int(mem) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024 * 1024,) * 2)


def _import(path: str):
    """The student's module, from its file; a file inside a package is imported as part of
    the package (so its relative imports work), with the package's parent on sys.path."""
    file = Path(path).resolve()
    top = file.parent
    name = file.stem
    while (top / "__init__.py").exists():
        name = f"{top.name}.{name}"
        top = top.parent
    for folder in (top, file.parent):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    for up in list(file.parents)[:4]:  # a project's root (CS336: adapters.py in its tests folder)
        if (up / "pyproject.toml").exists() or (up / "setup.py").exists():
            for folder in (up, up / "src"):
                if folder.is_dir() and str(folder) not in sys.path:
                    sys.path.insert(0, str(folder))
    if "." in name:
        return importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _hex(b) -> str:
    if not isinstance(b, (bytes, bytearray)):
        raise TypeError(f"expected bytes, got {type(b).__name__}: {b!r:.80}")
    return bytes(b).hex()


def _ids(ids) -> list[int]:
    out = list(ids)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in out):
        raise TypeError("encode must return a list of int ids")
    return out


# ---- minbpe: a class with train / encode / decode, merges {(a, b): id}, vocab {id: bytes} ----
def _minbpe_class(job: dict):
    module = _import(job["path"])
    cls = getattr(module, job["class"], None)
    if cls is None:
        raise AttributeError(f"{job['path']} has no class {job['class']!r}")
    return cls


def _minbpe_train(job: dict) -> dict:
    tok = _minbpe_class(job)()
    text = Path(job["corpus"]).read_text(encoding="utf-8")
    start = time.perf_counter()
    tok.train(text, job["vocab_size"])
    seconds = time.perf_counter() - start
    merges = getattr(tok, "merges", None)
    vocab = getattr(tok, "vocab", None)
    if not isinstance(merges, dict) or not isinstance(vocab, dict):
        raise TypeError("after train(), merges must be a dict {(a, b): id} and vocab {id: bytes}")
    return {
        "seconds": seconds,
        "merges": [[int(a), int(b), int(i)] for (a, b), i in merges.items()],
        "vocab": {str(int(i)): _hex(v) for i, v in vocab.items()},
    }


def _minbpe_tokenizer(job: dict, model: dict, specials: dict):
    tok = _minbpe_class(job)()
    tok.merges = {(a, b): i for a, b, i in model["merges"]}
    tok.vocab = {int(i): bytes.fromhex(v) for i, v in model["vocab"].items()}
    if specials:
        if not hasattr(tok, "register_special_tokens"):
            raise AttributeError("the class has no register_special_tokens(dict)")
        tok.register_special_tokens(dict(specials))
    return tok


def _minbpe_encode(tok, text: str, specials: dict) -> list[int]:
    if specials and "allowed_special" in inspect.signature(tok.encode).parameters:
        return _ids(tok.encode(text, allowed_special="all"))
    return _ids(tok.encode(text))


# ---- CS336: adapters.run_train_bpe and adapters.get_tokenizer ------------------------------
def _cs336_train(job: dict) -> dict:
    module = _import(job["path"])
    start = time.perf_counter()
    result = module.run_train_bpe(
        input_path=job["corpus"],
        vocab_size=job["vocab_size"],
        special_tokens=list(job["specials"]),
    )
    seconds = time.perf_counter() - start
    try:
        vocab, merges = result
    except (TypeError, ValueError):
        raise TypeError("run_train_bpe must return (vocab, merges)") from None
    if not isinstance(vocab, dict):
        raise TypeError(f"vocab must be a dict[int, bytes], not {type(vocab).__name__}")
    out_merges = []
    for m in merges:
        if not (isinstance(m, tuple) and len(m) == 2):
            raise TypeError(f"each merge must be a tuple (bytes, bytes), not {m!r:.80}")
        out_merges.append([_hex(m[0]), _hex(m[1])])
    return {
        "seconds": seconds,
        "merges": out_merges,
        "vocab": {str(int(i)): _hex(v) for i, v in vocab.items()},
    }


def _cs336_tokenizer(job: dict, model: dict, specials: list):
    module = _import(job["path"])
    vocab = {int(i): bytes.fromhex(v) for i, v in model["vocab"].items()}
    merges = [(bytes.fromhex(a), bytes.fromhex(b)) for a, b in model["merges"]]
    return module.get_tokenizer(vocab=vocab, merges=merges, special_tokens=list(specials) or None)


class _Counted:
    """A text file read line by line, counting the characters read (for encode_iterable)."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.consumed = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        line = self.fh.readline()
        if not line:
            raise StopIteration
        self.consumed += len(line)
        return line

    def readline(self, *a) -> str:
        line = self.fh.readline(*a)
        self.consumed += len(line)
        return line

    def read(self, *a) -> str:
        text = self.fh.read(*a)
        self.consumed += len(text)
        return text


def _iterable(job: dict, item: dict) -> dict:
    """Stream a file through encode_iterable: a hash of the ids (not the ids: a list of them
    would be the memory measured), the peak of memory traced while streaming, and how much of
    the file had been read when the first id came out."""
    tok = _cs336_tokenizer(job, item["model"], item.get("specials") or [])
    digest, n, first_at = hashlib.sha256(), 0, None
    with Path(item["path"]).open(encoding="utf-8", newline="") as fh:
        counted = _Counted(fh)
        tracemalloc.start()
        try:
            for token in tok.encode_iterable(counted):
                if first_at is None:
                    first_at = counted.consumed
                digest.update(int(token).to_bytes(8, "little", signed=True))
                n += 1
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return {"sha256": digest.hexdigest(), "n": n, "peak": peak, "first_at": first_at}


def _run(job: dict, item: dict, cache: dict):
    shape, kind = job["shape"], item["kind"]
    if kind == "train":
        return _minbpe_train(job) if shape == "minbpe" else _cs336_train(job)
    if kind == "iterable":
        return _iterable(job, item)
    key = json.dumps(item.get("specials"))
    if key not in cache:  # one tokenizer per set of special tokens (and its model)
        model = item["model"]
        cache[key] = (
            _minbpe_tokenizer(job, model, item.get("specials") or {})
            if shape == "minbpe"
            else _cs336_tokenizer(job, model, item.get("specials") or [])
        )
    tok = cache[key]
    if kind == "encode":
        if shape == "minbpe":
            return {"ids": _minbpe_encode(tok, item["text"], item.get("specials") or {})}
        return {"ids": _ids(tok.encode(item["text"]))}
    if kind == "decode":
        text = tok.decode(item["ids"])
        if not isinstance(text, str):
            raise TypeError(f"decode must return a str, not {type(text).__name__}")
        return {"text": text}
    raise ValueError(f"unknown item kind {kind!r}")


def _student_traceback(exc: BaseException) -> str:
    """The traceback from the student's first frame on (the grader's own frames left out)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def main(job_dir: str) -> int:
    folder = Path(job_dir)
    job = json.loads((folder / "job.json").read_text(encoding="utf-8"))
    _limits(job)
    sys.addaudithook(_no_network)
    cache: dict = {}
    with (folder / "out.jsonl").open("a", encoding="utf-8") as out:
        for item in job["items"]:
            out.write(json.dumps({"start": item["name"]}) + "\n")
            out.flush()
            try:
                line = {"name": item["name"], "ok": True, "value": _run(job, item, cache)}
            except BaseException as exc:  # the student's error, sys.exit included
                if isinstance(exc, KeyboardInterrupt):
                    raise
                line = {
                    "name": item["name"],
                    "ok": False,
                    "error": f"{type(exc).__name__}: {exc}"[:2000],
                    "traceback": _student_traceback(exc)[-6000:],
                }
            out.write(json.dumps(line) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    os.chdir(sys.argv[1])  # the student's files land in the job's folder, not the grader's
    sys.exit(main(sys.argv[1]))
