"""The multilingual tax's numbers: how many tokens (and unknown tokens) each bundled tokeniser
makes of each UDHR text.

Encoding the 33 texts with six vocabularies takes seconds, so the numbers are computed once, at
build time, into `app/data/tax_counts.json` (`python -m app.tax` writes it), and kept in memory.
The file carries the sha256 of the texts it was made from; if the texts changed, or a tokeniser
is missing from it, that tokeniser is computed on first use instead (and kept).
`tests/app/test_tax_data.py` checks the file against the engine.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from pathlib import Path

import tokenizers_core as tc
from tokenizers_core import metrics, pretrained
from tokenizers_core.corpora import load_corpus, udhr_languages

DATA = Path(__file__).resolve().parent / "data" / "tax_counts.json"

_kept: dict[str, dict[str, tuple[int, int]]] = {}
_lock = threading.Lock()


def vocab_tokenizers() -> list[str]:
    """Bundled tokenisers with a real vocabulary (the rule tokenisers are left out)."""
    return [n for n, e in pretrained.bundled().items() if e.vocab_size > 0]


@functools.lru_cache(maxsize=1)
def texts_sha256() -> str:
    """One hash of every UDHR text, in language order: what the saved numbers were made from."""
    h = hashlib.sha256()
    for lang in udhr_languages():
        h.update(lang.code.encode() + b"\0" + load_corpus(f"udhr/{lang.code}").encode() + b"\0")
    return h.hexdigest()


def compute(name: str, tok: tc.Tokenizer | None = None) -> dict[str, tuple[int, int]]:
    """(tokens, unknown tokens) of tokeniser `name` (or `tok`, an uploaded one) on each UDHR
    text, by language code."""
    per = metrics.metrics_per_language(tok if tok is not None else tc.load(name))
    return {code: (m.tokens, m.unk) for code, m in per.items()}


@functools.lru_cache(maxsize=1)
def _saved() -> dict[str, dict[str, tuple[int, int]]]:
    try:
        data = json.loads(DATA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if data.get("udhr_sha256") != texts_sha256():
        return {}
    return {
        name: {code: (int(t), int(u)) for code, (t, u) in per.items()}
        for name, per in data.get("counts", {}).items()
    }


MAX_KEPT = 32  # tokenisers whose numbers are kept (bundled ones and recent uploads)


def counts(name: str, tok: tc.Tokenizer | None = None) -> dict[str, tuple[int, int]]:
    """(tokens, unknown) per language: saved (bundled tokenisers), else computed once and kept
    (`tok`: the tokeniser behind an uploaded handle `name`; handles are content-addressed)."""
    with _lock:  # one cold computation at a time; every later request reads what is kept
        if name not in _kept:
            saved = _saved().get(name)
            codes = {lang.code for lang in udhr_languages()}
            _kept[name] = saved if saved and set(saved) == codes else compute(name, tok)
            while len(_kept) > MAX_KEPT:
                del _kept[next(iter(_kept))]
        return _kept[name]


def build(path: Path = DATA) -> None:
    """Compute every bundled tokeniser's numbers and save them (run at build time)."""
    data = {
        "udhr_sha256": texts_sha256(),
        "counts": {
            name: {code: list(v) for code, v in compute(name).items()}
            for name in vocab_tokenizers()
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'{{"udhr_sha256": "{data["udhr_sha256"]}", "counts": {{']
    for i, (name, per) in enumerate(sorted(data["counts"].items())):  # one line a tokeniser
        comma = "," if i < len(data["counts"]) - 1 else ""
        lines.append(f" {json.dumps(name)}: {json.dumps(per, sort_keys=True)}{comma}")
    path.write_text("\n".join(lines) + "\n}}\n", encoding="utf-8")


if __name__ == "__main__":
    build()
    print(f"wrote {DATA}")
