"""The downloads' shapes: safe file names, a tokeniser's vocabulary as rows, and those rows as
CSV cells (`app.routers.downloads` writes them as JSON Lines and CSV)."""
from __future__ import annotations

import re
from typing import Any, Iterable


def filename(*parts: object) -> str:
    """A safe, readable file name from its parts.

    >>> filename("bpe-train", "byte_bpe", 300, "udhr/eng") + ".jsonl"
    'bpe-train-byte_bpe-300-udhr-eng.jsonl'
    >>> filename("trace", "../../etc/passwd", "a" * 64)
    'trace-etc-passwd-aaaaaaaaaaaa'
    """
    words = []
    for part in parts:
        word = re.sub(r"[^A-Za-z0-9_.]+", "-", str(part)).strip("-.")
        if re.fullmatch(r"[0-9a-f]{64}", word):
            word = word[:12]                       # a stored corpus: its sha256, shortened
        if word:
            words.append(word[:40])
    return "-".join(words) or "download"


def vocabulary_rows(tok) -> list[dict[str, Any]]:
    """A tokeniser's vocabulary as {"id", "token"} rows in id order (+ "score" for Unigram and
    sentencepiece models); special tokens outside the model's vocabulary come last. ValueError
    for a rule tokeniser, which has none."""
    model = tok.model
    pieces = getattr(model, "pieces", None)
    if pieces is not None:
        rows = [{"id": i, "token": p, "score": s} for i, (p, s) in enumerate(pieces)]
    elif isinstance(getattr(model, "vocab", None), dict):
        rows = [{"id": i, "token": t} for t, i in sorted(model.vocab.items(), key=lambda kv: kv[1])]
    else:
        raise ValueError(f"{tok.name} has no fixed vocabulary: its tokens are cut from the "
                         "text by rules")
    known = {r["token"] for r in rows}
    specials = getattr(tok, "special_tokens", None)
    if isinstance(specials, dict):
        extra = sorted((i, t) for t, i in specials.items() if t not in known)
        rows += [{"id": i, "token": t, **({"score": None} if pieces is not None else {})}
                 for i, t in extra]
    return rows


def vocab_table(rows: list[dict[str, Any]]) -> tuple[list[str], Iterable[list[Any]]]:
    """Vocabulary rows ({"id", "token"} [+ "score"]) as a CSV header and cells: id,token[,score]."""
    scored = bool(rows) and "score" in rows[0]
    header = ["id", "token", "score"] if scored else ["id", "token"]
    cells = ([r["id"], r["token"], "" if r.get("score") is None else repr(r["score"])] if scored
             else [r["id"], r["token"]] for r in rows)
    return header, cells
