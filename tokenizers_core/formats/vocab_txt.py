"""WordPiece `vocab.txt`: one token a line, the line number is the id (BERT's format).

A vocab.txt says nothing about the rest of the pipeline; we put it in BERT's (BertNormalizer,
BertPreTokenizer, [CLS] $A [SEP] when both are in the vocabulary), as Hugging Face's
`BertWordPieceTokenizer` does. Whether to lowercase is the one choice the file cannot state: by
default a vocabulary with an upper-case letter anywhere is taken as cased (bert-base-cased has
"The"; an uncased vocabulary has none outside its special tokens), and `lowercase=` overrides.

>>> tok = load_bytes(b"[UNK]\\n[CLS]\\n[SEP]\\nThe\\nthe\\n")
>>> tok.lowercase, tok.encode("The the").tokens
(False, ['[CLS]', 'The', 'the', '[SEP]'])
>>> load_bytes(b"[UNK]\\nthe\\n", lowercase=True).encode("THE").tokens
['the']
"""
from __future__ import annotations

from typing import Any

from ..implementations.bert import bert_pipeline
from ..models.wordpiece.model import WordPiece, vocab_from_text


def is_cased(tokens: list[str]) -> bool:
    """Whether a vocabulary holds an upper-case letter outside bracketed special tokens.

    >>> is_cased(["[UNK]", "[CLS]", "the"]), is_cased(["[UNK]", "The"])
    (False, True)
    """
    return any(t != t.lower() for t in tokens
               if not (t.startswith("[") and t.endswith("]")) and not t.startswith("<"))


def load_bytes(data: bytes, *, name: str = "", lowercase: bool | None = None,
               **options: Any) -> Any:
    """A BERT-style tokeniser from the bytes of a vocab.txt (`lowercase`: None = from the vocab)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"a vocab.txt must be UTF-8 text: {exc}") from None
    model = vocab_from_text(text, **options)
    if lowercase is None:
        lowercase = not is_cased(list(model.vocab))
    tok = bert_pipeline(model, lowercase=bool(lowercase), name=name)
    tok.lowercase = bool(lowercase)  # type: ignore[attr-defined]  (the views say which was chosen)
    return tok


def dump_bytes(tok: Any) -> bytes:
    """A vocab.txt's bytes for a WordPiece tokeniser: its tokens in id order, one a line.

    >>> from tokenizers_core import load
    >>> dump_bytes(load("bert-base-uncased")).split(b"\\n")[100:103]
    [b'[UNK]', b'[CLS]', b'[SEP]']
    """
    model = tok.model
    if not isinstance(model, WordPiece):
        raise ValueError(f"{tok.name or tok.algorithm or 'this tokeniser'} is not WordPiece, so "
                         "it has no vocab.txt form; save it as tokenizer.json")
    by_id = sorted(model.vocab.items(), key=lambda kv: kv[1])
    if [i for _t, i in by_id] != list(range(len(by_id))):
        raise ValueError("a vocab.txt numbers tokens by line, but this vocabulary's ids have gaps")
    bad = next((t for t, _i in by_id if "\n" in t or "\r" in t or t != t.strip()), None)
    if bad is not None:
        raise ValueError(f"the token {bad!r} cannot be a line of a vocab.txt")
    return "".join(t + "\n" for t, _i in by_id).encode("utf-8")
