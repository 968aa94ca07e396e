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

from ..errors import InvalidInput
from ..implementations.bert import bert_pipeline
from ..models.wordpiece.model import WordPiece, vocab_from_text


def is_cased(tokens: list[str]) -> bool:
    """Whether a vocabulary holds an upper-case letter outside bracketed special tokens.

    >>> is_cased(["[UNK]", "[CLS]", "the"]), is_cased(["[UNK]", "The"])
    (False, True)
    """
    return any(
        t != t.lower()
        for t in tokens
        if not (t.startswith("[") and t.endswith("]")) and not t.startswith("<")
    )


MERGES_ALONE = (
    "this is a BPE merges file (a merges.txt, or CLIP's bpe_simple_vocab_16e6.txt.gz): one merge "
    "'a b' a line, after a '#version' line. A merges file alone is not a tokenizer: it gives no "
    "token ids. Load it with its vocab.json: both files in one .zip (vocab.json + merges.txt), "
    "or a folder of both, or the model's tokenizer.json"
)


def is_merges_file(text: str) -> bool:
    """Whether `text` is a BPE merges file rather than a vocab.txt: its first line holds
    "#version" (GPT-2's merges.txt; CLIP's starts `"bpe_simple_vocab_16e6.txt#version: 0.2`), or
    each of its first 20 lines is two symbols and a space (a vocab.txt token has no space).

    >>> is_merges_file("#version: 0.2\\nĠ t\\n"), is_merges_file("i n\\nt h\\n")
    (True, True)
    >>> is_merges_file("[UNK]\\nthe\\n##s\\n")
    False
    """
    lines = [line for line in text.split("\n", 20)[:20] if line.strip()]
    if not lines:
        return False
    if "#version" in lines[0]:
        return True
    return len(lines) >= 2 and all(
        len(line.split(" ")) == 2 and all(line.split(" ")) for line in lines
    )


def load_bytes(
    data: bytes, *, name: str = "", lowercase: bool | None = None, **options: Any
) -> Any:
    """A BERT-style tokeniser from the bytes of a vocab.txt (`lowercase`: None = from the vocab)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"a vocab.txt must be UTF-8 text: {exc}") from None
    if is_merges_file(text):
        raise InvalidInput(MERGES_ALONE)
    model = vocab_from_text(text, **options)
    if lowercase is None:
        lowercase = not is_cased(list(model.vocab))
    tok = bert_pipeline(model, lowercase=bool(lowercase), name=name)
    tok.lowercase = bool(lowercase)  # type: ignore[attr-defined]  # the views say which was chosen
    return tok


def dump_bytes(tok: Any) -> bytes:
    """A vocab.txt's bytes for a WordPiece tokeniser: its tokens in id order, one a line.

    >>> from tokenizers_core import load
    >>> dump_bytes(load("bert-base-uncased")).split(b"\\n")[100:103]
    [b'[UNK]', b'[CLS]', b'[SEP]']
    """
    model = tok.model
    if not isinstance(model, WordPiece):
        raise InvalidInput(
            f"{tok.name or tok.algorithm or 'this tokeniser'} is not WordPiece, so "
            "it has no vocab.txt form; save it as tokenizer.json"
        )
    by_id = sorted(model.vocab.items(), key=lambda kv: kv[1])
    if [i for _t, i in by_id] != list(range(len(by_id))):
        raise InvalidInput(
            "a vocab.txt numbers tokens by line, but this vocabulary's ids have gaps"
        )
    bad = next((t for t, _i in by_id if "\n" in t or "\r" in t or t != t.strip()), None)
    if bad is not None:
        raise InvalidInput(f"the token {bad!r} cannot be a line of a vocab.txt")
    return "".join(t + "\n" for t, _i in by_id).encode("utf-8")
