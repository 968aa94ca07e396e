"""Benchmark: loading sentencepiece `.model` files, ours against sentencepiece (issue 31, item 13).

For each file, timed in one run: a fresh Python process that imports the library and loads the
file (wall clock of the whole process, and of the load call inside it), then in this process the
load call alone (best of `--repeat`, ours including the garbage collection its objects cost, as a
user pays it). Ours is `tokenizers_core.load(path)`, sentencepiece's
`SentencePieceProcessor(model_file=path)`. The bar: ours under 3x sentencepiece's.

    .venv/bin/python benchmarks/bench_load_model.py [--repeat 3] [--ai21 PATH] [FILE ...]

The files: the bundled models (botchan Unigram and BPE, Mistral v1/v3/v7 BPE; decompressed to a
temporary folder), the `.model` files in ../shared/data/vocab and ../shared/data/peer/sp, and
AI21's `j2-tokenizer.model` (262,144 pieces, from the `ai21-tokenizer` 1.1.0 wheel on PyPI) at
`--ai21` or $AI21_J2_MODEL, skipped when absent.

Beside them, the least a pure-Python reader can do with a file (`least_python_read`, best of
`--repeat`): cut the pieces' bytes with one `bytes.split`, decode the texts with one
join/decode/split and build the {piece: id} dictionary, all C calls with no Python step per
piece, and nothing else (no score, type or check): ours and the bar are set beside it.

A Unigram model builds its trie on first use, so the first encode after a load pays it: that is
timed too (in this process, the first `encode` of a short text right after a load, best of
`--repeat`), for both libraries.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import operator
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.shared_data import DATA  # noqa: E402  (where the shared data is)

SHARED = [DATA / "vocab", DATA / "peer" / "sp"]
BUNDLED = [ROOT / "tokenizers_core" / "data", ROOT / "tokenizers_core" / "data" / "vocab"]
AI21 = Path(
    os.environ.get("AI21_J2_MODEL")
    or "/tmp/ai21/x/ai21_tokenizer/resources/j2-tokenizer/j2-tokenizer.model"
)

_CHILD = """
import sys, time
t0 = time.perf_counter()
{load}
print(time.perf_counter() - t0)
"""
LOADERS = {
    "ours": "import gc, tokenizers_core as tc\ntok = tc.load(sys.argv[1]); gc.collect(0)",
    "sentencepiece": (
        "import sentencepiece as spm\ntok = spm.SentencePieceProcessor(model_file=sys.argv[1])"
    ),
}


def fresh_process_load(who: str, path: Path) -> tuple[float, float]:
    """(wall seconds of the whole process, seconds of the import and load inside it)."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(load=LOADERS[who]), str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return time.perf_counter() - start, float(out[-1])


def in_process_load(who: str, path: Path, repeat: int) -> float:
    """Best of `repeat` load calls in this process (ours followed by a young-generation
    collection: the garbage collector was paused while loading and would otherwise run on the
    next allocations)."""
    import sentencepiece as spm

    import tokenizers_core as tc

    times: list[float] = []
    while len(times) < repeat or sum(times) < 0.5:  # (small files: enough runs to time them)
        start = time.perf_counter()
        tok: object
        if who == "ours":
            tok = tc.load(str(path))
            gc.collect(0)
        else:
            tok = spm.SentencePieceProcessor(model_file=str(path))
        times.append(time.perf_counter() - start)
        del tok
        gc.collect()
    return min(times)


def first_encode(who: str, path: Path, repeat: int) -> float:
    """Best of `repeat`: a load, then the time of its first encode of a short text alone."""
    import sentencepiece as spm

    import tokenizers_core as tc

    times = []
    for _ in range(repeat):
        tok: Any = (
            tc.load(str(path))
            if who == "ours"
            else spm.SentencePieceProcessor(model_file=str(path))
        )
        start = time.perf_counter()
        tok.encode("Hello world, this is the first encode.")
        times.append(time.perf_counter() - start)
        del tok
        gc.collect()
    return min(times)


def pieces_region(data: bytes) -> bytes:
    """The file's bytes from its first piece to its last (its leading run of ModelProto
    field 1), found by the generic reader, outside any timing."""
    from tokenizers_core.formats.sentencepiece_model import _read_field

    pos = 0
    while pos < len(data):
        number, _wire, _value, after = _read_field(data, pos)
        if number != 1:
            break
        pos = after
    return data[:pos]


def least_python_read(region: bytes) -> dict[str, int]:
    """The pieces' texts and their {piece: id}, by C calls alone: one split at the score's
    tag (15), the 8 bytes before each text cut off (a score, the next message's head), one
    decode of the texts joined, one dict. It reads no score or type and checks nothing (a
    typed piece, a 15 byte in a score or a text, come out wrong): a floor, not a reader (the
    cheapest cut found; ours cuts with a compiled `re.split`, about 1.3 ms more here)."""
    texts = map(_AFTER_HEAD, region.split(b"\x15"))
    strings = b"\x15".join(texts).decode("utf-8", "replace").split("\x15")
    return dict(zip(strings, range(len(strings))))


_AFTER_HEAD = operator.itemgetter(slice(8, None))


def floor_time(path: Path, repeat: int) -> float:
    """Best of `repeat` (at least 0.5 s of runs): the file read, then `least_python_read`."""
    region = pieces_region(path.read_bytes())
    times: list[float] = []
    while len(times) < repeat or sum(times) < 0.5:
        start = time.perf_counter()
        path.read_bytes()
        ids = least_python_read(region)
        times.append(time.perf_counter() - start)
        del ids
        gc.collect()
    return min(times)


def model_kind(path: Path) -> str:
    """The model's own description, e.g. "Unigram (1000 pieces)"."""
    import tokenizers_core as tc

    return tc.load(str(path)).model.describe()


def model_files(tmp: Path, ai21: Path, extra: list[Path]) -> list[Path]:
    """The bundled models (decompressed into `tmp`), the shared ones, AI21's if present."""
    files = []
    for gz in sorted(gz for folder in BUNDLED for gz in folder.glob("*.model.gz")):
        out = tmp / gz.name.removesuffix(".gz")
        out.write_bytes(gzip.decompress(gz.read_bytes()))
        files.append(out)
    files += sorted(f for folder in SHARED if folder.is_dir() for f in folder.glob("*.model"))
    if ai21.is_file():
        files.append(ai21)
    else:
        print(f"(AI21's j2-tokenizer.model is not at {ai21}: skipped; --ai21 PATH to add it)")
    return files + extra


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ai21", type=Path, default=AI21)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for path in model_files(Path(tmp), args.ai21, args.files):
            size = path.stat().st_size / 1e6
            whole = {who: fresh_process_load(who, path) for who in LOADERS}
            inside = {who: in_process_load(who, path, args.repeat) for who in LOADERS}
            first = {who: first_encode(who, path, args.repeat) for who in LOADERS}
            floor = floor_time(path, args.repeat)
            ratio_whole = whole["ours"][0] / whole["sentencepiece"][0]
            ratio_inside = inside["ours"] / inside["sentencepiece"]
            worst = max(worst, ratio_inside)
            ratio_first = (inside["ours"] + first["ours"]) / (
                inside["sentencepiece"] + first["sentencepiece"]
            )
            print(f"{path.name} ({size:.2f} MB, {model_kind(path)})")
            for who in LOADERS:
                print(
                    f"  {who:13}: process {whole[who][0]:.2f} s (import + load {whole[who][1]:.2f}"
                    f" s), in process {inside[who] * 1000:.1f} ms, then the first encode"
                    f" {first[who] * 1000:.1f} ms"
                )
            print(
                f"  ratio ours/sentencepiece: process {ratio_whole:.2f}x, load {ratio_inside:.2f}x"
                f" (load + first encode {ratio_first:.2f}x)"
            )
            print(
                f"  the least pure-Python read (texts + dict, no score, type or check):"
                f" {floor * 1000:.1f} ms = {floor / inside['sentencepiece']:.2f}x sentencepiece;"
                f" ours {inside['ours'] / floor:.2f}x it; the bar 3x sentencepiece ="
                f" {3 * inside['sentencepiece'] / floor:.2f}x it"
            )
    print(f"worst in-process ratio: {worst:.2f}x (bar: under 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
