"""Reading what a student's implementation produced: merges, a vocabulary, pieces, tokens.

Each reader takes the text a student pastes (or the Python value their code returned) and gives
a plain list, raising ValueError with the line at fault.
"""
from __future__ import annotations

import json
from typing import Any


def _json(text: str) -> Any | None:
    stripped = text.strip()
    if stripped[:1] not in ("[", "{"):
        return None
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as exc:
        if "".join(stripped[:2].split()) not in ("[[", '["', '{"', "[]", "{}") and \
                not stripped.replace(" ", "").startswith(('[[', '["', '{"')):
            return None                      # e.g. a vocabulary whose first token is [UNK]
        raise ValueError(f"this looks like JSON but does not parse: {exc.msg} "
                         f"(line {exc.lineno}, column {exc.colno})") from None


def parse_merges(theirs: Any) -> list[tuple[str, str]]:
    """Merges as `a b` per line (Hugging Face's merges.txt; a `#version` line is skipped), JSON
    pairs (`[["a", "b"], ...]` or `["a b", ...]`), or a list of pairs.

    >>> parse_merges("#version: 0.2\\nl o\\nlo w\\n")
    [('l', 'o'), ('lo', 'w')]
    >>> parse_merges('[["e", "r"], "er </w>"]')
    [('e', 'r'), ('er', '</w>')]
    >>> parse_merges("l o w")
    Traceback (most recent call last):
    ...
    ValueError: merge 1 ('l o w') is not two symbols separated by one space
    """
    if isinstance(theirs, str):
        loaded = _json(theirs)
        if loaded is None:
            lines = [ln.rstrip("\r") for ln in theirs.split("\n")]
            items: list[Any] = [ln for ln in lines if ln.strip() and not ln.startswith("#version")]
        else:
            items = loaded
    else:
        items = list(theirs)
    if isinstance(items, dict):
        raise ValueError("give the merges as a list in learned order, not a dict")
    out = []
    for n, item in enumerate(items, 1):
        if isinstance(item, str):
            parts = item.strip().split(" ")
        elif isinstance(item, (list, tuple)):
            parts = list(item)
        else:
            raise ValueError(f"merge {n} ({item!r}) is not a pair of symbols")
        if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
            raise ValueError(f"merge {n} ({item!r}) is not two symbols separated by one space")
        out.append((parts[0], parts[1]))
    if not out:
        raise ValueError("no merges given: paste one merge a line, e.g. 'l o'")
    return out


def parse_tokens(theirs: Any) -> list[str]:
    """Tokens as a JSON list of strings, or separated by spaces and line breaks.

    >>> parse_tokens("low est</w>")
    ['low', 'est</w>']
    >>> parse_tokens('["▁cat", "s"]')
    ['▁cat', 's']
    """
    if isinstance(theirs, str):
        loaded = _json(theirs)
        items = theirs.split() if loaded is None else loaded
    else:
        items = list(theirs)
    if not isinstance(items, list) or not all(isinstance(t, str) and t for t in items):
        raise ValueError("give the tokens as a list of non-empty strings")
    if not items:
        raise ValueError("no tokens given")
    return items


def parse_vocab(theirs: Any) -> list[str]:
    """A WordPiece vocabulary: one token a line (vocab.txt), a JSON list, or a JSON object
    token -> id (tokenizer.json's `model.vocab`), in id order.

    >>> parse_vocab("[UNK]\\nplay\\n##ing\\n")
    ['[UNK]', 'play', '##ing']
    """
    if isinstance(theirs, str):
        loaded = _json(theirs)
        if loaded is None:
            items: Any = [ln.rstrip("\r") for ln in theirs.split("\n") if ln.strip()]
        else:
            items = loaded
    else:
        items = theirs
    if isinstance(items, dict):
        items = sorted(items, key=lambda t: items[t])
    items = list(items)
    if not items or not all(isinstance(t, str) and t for t in items):
        raise ValueError("give the vocabulary as one token a line")
    return items


def parse_pieces(theirs: Any) -> list[tuple[str, float]]:
    """Unigram pieces with scores: `piece<TAB>score` a line (sentencepiece's .vocab), or JSON
    `[["▁cat", -2.0], ...]`.

    >>> parse_pieces("<unk>\\t0\\n▁cat\\t-2.0\\n")
    [('<unk>', 0.0), ('▁cat', -2.0)]
    """
    if isinstance(theirs, str):
        loaded = _json(theirs)
        if loaded is None:
            rows: list[Any] = []
            for n, line in enumerate(theirs.split("\n"), 1):
                if not line.strip():
                    continue
                piece, sep, score = line.rstrip("\r").rpartition("\t")
                if not sep:
                    piece, sep, score = line.strip().rpartition(" ")
                if not sep or not piece:
                    raise ValueError(f"line {n} ({line!r}) is not 'piece<TAB>score'")
                rows.append((piece, score))
        else:
            rows = loaded
    else:
        rows = list(theirs)
    out = []
    for n, row in enumerate(rows, 1):
        if not isinstance(row, (list, tuple)) or len(row) != 2 or not isinstance(row[0], str):
            raise ValueError(f"piece {n} ({row!r}) is not (piece, score)")
        try:
            out.append((row[0], float(row[1])))
        except (TypeError, ValueError):
            raise ValueError(f"piece {n}: the score {row[1]!r} is not a number") from None
    if not out:
        raise ValueError("no pieces given")
    return out
