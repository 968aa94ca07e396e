"""The downloads' shapes: safe file names, a tokeniser's vocabulary as rows, and those rows as
CSV cells (`app.routers.downloads` writes them as JSON Lines and CSV)."""

from __future__ import annotations

import re
from typing import Any, Iterable

from tokenizers_core.errors import InvalidInput

from .. import vocab


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
            word = word[:12]  # a stored corpus: its sha256, shortened
        if word:
            words.append(word[:40])
    return "-".join(words) or "download"


def vocabulary_rows(tok) -> list[dict[str, Any]]:
    """A tokeniser's vocabulary as rows in id order, added tokens included (Llama 3's 256
    special tokens past its 128,000): {"id", "token", "special", "added"}, + "score" for
    Unigram and sentencepiece models. `special`: a special token; `added`: outside the model's
    own vocabulary (a tokenizer.json's added token, a special token a ranks file lacks).
    ValueError for a rule tokeniser, which has none."""
    if not vocab.has_vocabulary(tok):
        raise InvalidInput(
            f"{tok.name} has no fixed vocabulary: its tokens are cut from the text by rules"
        )
    pieces = getattr(tok.model, "pieces", None)
    rows = []
    for e in vocab.entries_of(tok):
        row: dict[str, Any] = {"id": e.id, "token": e.value}
        if pieces is not None:
            row["score"] = pieces[e.id][1] if not e.added and 0 <= e.id < len(pieces) else None
        row["special"], row["added"] = e.special, e.added
        rows.append(row)
    return rows


def vocab_table(rows: list[dict[str, Any]]) -> tuple[list[str], Iterable[list[Any]]]:
    """Vocabulary rows ({"id", "token"} [+ "score"] [+ "special", "added"]) as a CSV header and
    cells: id,token[,score][,special,added], the flags as true/false.

    >>> header, cells = vocab_table([{"id": 5, "token": "<s>", "special": True, "added": True}])
    >>> header, list(cells)
    (['id', 'token', 'special', 'added'], [[5, '<s>', 'true', 'true']])
    """
    scored = bool(rows) and "score" in rows[0]
    flagged = bool(rows) and "special" in rows[0]
    header = ["id", "token"] + ["score"] * scored + ["special", "added"] * flagged

    def cells(r: dict[str, Any]) -> list[Any]:
        out = [r["id"], r["token"]]
        if scored:
            out.append("" if r.get("score") is None else repr(r["score"]))
        if flagged:
            out += ["true" if r["special"] else "false", "true" if r["added"] else "false"]
        return out

    return header, (cells(r) for r in rows)
