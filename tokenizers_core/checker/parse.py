"""Reading what a student's implementation produced: merges, a vocabulary, pieces, tokens.

Each reader takes the text a student pastes (or the Python value their code returned) and gives
a plain list, raising ValueError with the line at fault.

Merges may also come as minbpe writes them (karpathy/minbpe, `Tokenizer.save`/`load` in
`minbpe/base.py`): a `.model` file (the line "minbpe v1", the split pattern on the next line
(empty for `BasicTokenizer`), the number of special tokens, then one "token id" line each, then
one merge a line as two token ids, "32 116"), bare integer merges ("32 116" a line), or JSON
integer pairs (`[[32, 116], ...]`). Ids 0-255 are the bytes; merge i (from 0) makes id 256 + i.
Such merges are byte-level: they become our byte_bpe symbols (the GPT-2 byte-to-unicode
alphabet, "Ġ" for a space), so that they compare with the reference's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..byte_level import BYTE_TO_CHAR
from ..errors import InvalidInput

MINBPE_HEADER = "minbpe v1"
_ID_PAIR = re.compile(r"\d+ \d+")


@dataclass(frozen=True)
class MinbpeModel:
    """A minbpe `.model` file: its split pattern ("" for BasicTokenizer), special tokens and
    merges as id pairs, in learned order."""

    pattern: str
    special_tokens: dict[str, int]
    merges: list[tuple[int, int]]


def parse_minbpe_model(text: str) -> MinbpeModel | None:
    """A minbpe `.model` file's contents, or None when `text` is not one.

    >>> m = parse_minbpe_model("minbpe v1\\n\\n1\\n<|endoftext|> 258\\n104 105\\n256 33\\n")
    >>> m.pattern, m.special_tokens, m.merges
    ('', {'<|endoftext|>': 258}, [(104, 105), (256, 33)])
    """
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != MINBPE_HEADER:
        return None
    count_text = lines[2].strip() if len(lines) > 2 else ""
    # ASCII digits only ("²" is a digit to isdigit, not to int), and not 5,000 of them
    if not (count_text.isascii() and count_text.isdigit() and len(count_text) < 10):
        raise InvalidInput(
            "a minbpe .model file has the pattern on line 2 and the number of "
            "special tokens on line 3; line 3 here is "
            f"{(lines[2] if len(lines) > 2 else '')!r}"
        )
    count = int(lines[2])
    specials: dict[str, int] = {}
    for n, line in enumerate(lines[3 : 3 + count], 4):
        token, _sep, id_ = line.strip().rpartition(" ")
        if not token or not (id_.isascii() and id_.isdigit() and len(id_) < 19):
            raise InvalidInput(f"line {n} of the minbpe file ({line!r}) is not 'token id'")
        specials[token] = int(id_)
    merges = id_merges([ln for ln in lines[3 + count :] if ln.strip()], first_line=4 + count)
    return MinbpeModel(lines[1].strip(), specials, merges)


def id_merges(items: list[Any], first_line: int = 1) -> list[tuple[int, int]]:
    """Merges given as token ids ("32 116" lines or [32, 116] pairs), checked: each id is a byte
    (0-255) or made by an earlier merge (256 + its index).

    >>> id_merges(["104 105", [256, 33]])
    [(104, 105), (256, 33)]
    >>> id_merges(["104 300"])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: merge 1 (104 300) names id 300, which no earlier merge
    made (merge i makes id 256 + i)
    """
    out = []
    for n, item in enumerate(items):
        if isinstance(item, str) and _ID_PAIR.fullmatch(item.strip()):
            a, b = map(int, item.split())
        elif (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in item)
        ):
            a, b = item
        else:
            raise InvalidInput(
                f"line {first_line + n} ({item!r}) is not a merge of two token ids such as '32 116'"
            )
        bad = next((i for i in (a, b) if i >= 256 + n), None)
        if bad is not None:
            raise InvalidInput(
                f"merge {n + 1} ({a} {b}) names id {bad}, which no earlier merge "
                "made (merge i makes id 256 + i)"
            )
        out.append((a, b))
    if not out:
        raise InvalidInput("no merges given")
    return out


def byte_level_merges(merges: list[tuple[int, int]]) -> list[tuple[str, str]]:
    """Id merges as byte_bpe's symbols: each id's bytes spelled in the GPT-2 byte-to-unicode
    alphabet (the reference's own spelling).

    >>> byte_level_merges([(32, 116), (256, 104)])
    [('Ġ', 't'), ('Ġt', 'h')]
    """
    spelled = dict(BYTE_TO_CHAR)
    out = []
    for n, (a, b) in enumerate(merges):
        out.append((spelled[a], spelled[b]))
        spelled[256 + n] = spelled[a] + spelled[b]
    return out


def _id_items(theirs: Any) -> list[Any] | None:
    """`theirs` as id merges when it is minbpe's: a .model file, "32 116" lines, or JSON / a
    list of integer pairs; else None."""
    if isinstance(theirs, str):
        model = parse_minbpe_model(theirs)
        if model is not None:
            return list(model.merges)
        loaded = _json(theirs)
        if loaded is None:
            lines = [ln.strip() for ln in theirs.split("\n") if ln.strip()]
            return lines if lines and all(_ID_PAIR.fullmatch(ln) for ln in lines) else None
        theirs = loaded
    items = list(theirs) if isinstance(theirs, (list, tuple)) else []
    if items and all(isinstance(i, (list, tuple)) and i and isinstance(i[0], int) for i in items):
        return items
    return None


def _json(text: str) -> Any | None:
    stripped = text.strip()
    if stripped[:1] not in ("[", "{"):
        return None
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as exc:
        if "".join(stripped[:2].split()) not in (
            "[[",
            '["',
            '{"',
            "[]",
            "{}",
        ) and not stripped.replace(" ", "").startswith(("[[", '["', '{"')):
            return None  # e.g. a vocabulary whose first token is [UNK]
        raise InvalidInput(
            f"this looks like JSON but does not parse: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno})"
        ) from None


def parse_merges(theirs: Any, *, byte_ids: bool = False) -> list[tuple[str, str]]:
    """Merges as `a b` per line (Hugging Face's merges.txt; a `#version` line is skipped), JSON
    pairs (`[["a", "b"], ...]` or `["a b", ...]`), or a list of pairs. With `byte_ids`
    (byte_bpe), minbpe's merges too: a `.model` file, "32 116" lines, JSON integer pairs.

    >>> parse_merges("#version: 0.2\\nl o\\nlo w\\n")
    [('l', 'o'), ('lo', 'w')]
    >>> parse_merges('[["e", "r"], "er </w>"]')
    [('e', 'r'), ('er', '</w>')]
    >>> parse_merges("l o w")
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: merge 1 ('l o w') is not two symbols separated by one space
    >>> parse_merges("32 116\\n256 104", byte_ids=True)
    [('Ġ', 't'), ('Ġt', 'h')]
    """
    ids = _id_items(theirs)
    # bare "32 116" lines are ids only for byte_bpe: for bpe they are merges of digits
    plain_lines = (
        isinstance(theirs, str) and _json(theirs) is None and parse_minbpe_model(theirs) is None
    )
    if ids is not None and (byte_ids or not plain_lines):
        if not byte_ids:
            raise InvalidInput(
                "these merges are token ids, as minbpe writes them: minbpe is "
                "byte-level BPE, so check them as byte_bpe"
            )
        return byte_level_merges(id_merges(ids))
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
        raise InvalidInput("give the merges as a list in learned order, not a dict")
    out = []
    for n, item in enumerate(items, 1):
        if isinstance(item, str):
            parts = item.strip().split(" ")
        elif isinstance(item, (list, tuple)):
            parts = list(item)
        else:
            raise InvalidInput(f"merge {n} ({item!r}) is not a pair of symbols")
        if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
            raise InvalidInput(f"merge {n} ({item!r}) is not two symbols separated by one space")
        out.append((parts[0], parts[1]))
    if not out:
        raise InvalidInput("no merges given: paste one merge a line, e.g. 'l o'")
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
        raise InvalidInput("give the tokens as a list of non-empty strings")
    if not items:
        raise InvalidInput("no tokens given")
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
        raise InvalidInput("give the vocabulary as one token a line")
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
                    raise InvalidInput(f"line {n} ({line!r}) is not 'piece<TAB>score'")
                rows.append((piece, score))
        else:
            rows = loaded
    else:
        rows = list(theirs)
    out = []
    for n, row in enumerate(rows, 1):
        if not isinstance(row, (list, tuple)) or len(row) != 2 or not isinstance(row[0], str):
            raise InvalidInput(f"piece {n} ({row!r}) is not (piece, score)")
        try:
            out.append((row[0], float(row[1])))
        except (TypeError, ValueError):
            raise InvalidInput(f"piece {n}: the score {row[1]!r} is not a number") from None
    if not out:
        raise InvalidInput("no pieces given")
    return out
