"""Time of `tc.parity` on 100 texts (UDHR lines in many scripts and botchan's English) across the
runtimes: reading the tokenizer in each runtime once (the GGUF conversion, the folder's class
rebuild), then per runtime our encodes of the 100 texts beside the runtime's own library on
the same texts where it is installed (Hugging Face `tokenizers` on the tokenizer.json,
transformers' `AutoTokenizer` on the folder, tiktoken; llama.cpp is not installed here), and the
whole report (encodes, decodes, the first mismatch diagnosed). Wall time; the machine may be
shared.

Run: .venv/bin/python benchmarks/bench_parity.py
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.oracles import tiktoken_encoding  # noqa: E402
from tokenizers_core import runtime_parity  # noqa: E402
from tokenizers_core.corpora import corpus_names, load_corpus  # noqa: E402
from tokenizers_core.formats.bundled_models import DATA_DIR  # noqa: E402

N = 100


def texts() -> list[str]:
    """50 lines from the UDHR in many scripts and 50 of botchan, non-empty, at most 300 chars."""
    udhr = [n for n in corpus_names() if n.startswith("udhr/") and n != "udhr/all"]
    out = []
    for name in udhr:
        lines = [line for line in load_corpus(name).splitlines() if line.strip()]
        if lines:
            out.append(lines[len(lines) // 2][:300])
        if len(out) == N // 2:
            break
    out += [line[:300] for line in load_corpus("botchan").splitlines() if line.strip()][
        : N - len(out)
    ]
    return out


def timed(fn, repeat: int = 3) -> float:
    """The best of `repeat` wall times (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def references(name: str, folder: Path) -> dict[str, object]:
    """runtime -> a function encoding one text with that runtime's own library."""
    out: dict[str, object] = {}
    if name == "qwen3":
        data = gzip.decompress((DATA_DIR / "qwen3_tokenizer.json.gz").read_bytes())
        config = gzip.decompress((DATA_DIR / "qwen3_tokenizer_config.json.gz").read_bytes())
        try:
            from tokenizers import Tokenizer

            hf = Tokenizer.from_str(data.decode())
            out["tokenizers"] = lambda t: hf.encode(t).ids
        except ImportError:
            pass
        try:
            import transformers

            (folder / "tokenizer.json").write_bytes(data)
            (folder / "tokenizer_config.json").write_bytes(config)
            auto = transformers.AutoTokenizer.from_pretrained(str(folder))
            out["transformers"] = lambda t: auto(t)["input_ids"]
        except ImportError:
            pass
    else:
        try:
            enc = tiktoken_encoding(name)
            out["tiktoken"] = enc.encode
        except ImportError:
            pass
        try:  # tokenizers reads the encoding's tokenizer.json export
            from tokenizers import Tokenizer

            from tokenizers_core import load
            from tokenizers_core.formats import hf_json_writer

            hf_export = Tokenizer.from_str(hf_json_writer.dump_bytes(load(name)).decode())
            out["tokenizers"] = lambda t: hf_export.encode(t).ids
        except ImportError:
            pass
    return out


def main() -> None:
    lines = texts()
    print(f"{len(lines)} texts, {sum(map(len, lines)):,} characters")
    for name in ("qwen3", "cl100k_base"):
        start = time.perf_counter()
        readings = runtime_parity.read_runtimes(name)  # loaded, converted, rebuilt
        read = time.perf_counter() - start
        whole = timed(lambda: runtime_parity.compare(readings, lines), repeat=2)
        report = runtime_parity.compare(readings, lines)
        print(
            f"\n{name}: read in {len(readings.tokenizers)} runtimes {read:.2f} s; parity on "
            f"{len(lines)} texts {whole:.2f} s ({report.mismatched} differ"
            + (f", first: {report.first_mismatch.rule}" if report.first_mismatch else "")
            + ")"
        )
        print(f"  {'runtime':<15} {'ours':>8} {'theirs':>8} {'ratio':>6}")
        with tempfile.TemporaryDirectory() as tmp:
            refs = references(name, Path(tmp))
            for runtime, tok in readings.tokenizers.items():
                ours = timed(lambda: [tok.encode(t) for t in lines])
                ref = refs.get(runtime)
                if ref is None:
                    why = "llama.cpp not installed" if runtime == "llama.cpp" else "not installed"
                    print(f"  {runtime:<15} {ours * 1000:>6.1f}ms {'':>8} {'':>6}  ({why})")
                    continue
                theirs = timed(lambda: [ref(t) for t in lines])
                same = all(
                    row.ids[runtime] == ref(row.text) for row in report.rows if row.ids[runtime]
                )
                print(
                    f"  {runtime:<15} {ours * 1000:>6.1f}ms {theirs * 1000:>6.1f}ms "
                    f"{ours / theirs:>5.1f}x  (same ids: {json.dumps(same)})"
                )


if __name__ == "__main__":
    main()
