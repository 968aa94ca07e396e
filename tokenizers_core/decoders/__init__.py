"""Decoders: turn a list of token strings back into text (the last stage, after the model).

Hugging Face's decoders work as a chain: each one maps the list of tokens to a new list
(`decode_chain(tokens) -> list[str]`), a `Sequence` passes the list from one to the next, and
`decode(tokens)` joins what the chain leaves. Every decoder here has both, and `describe()`.
They behave as `tokenizers` 0.23.3's `decoders` module (read from its Rust source,
`src/decoders/*.rs`, and checked against it in tests/core/pipeline/test_hf_decoders.py):

>>> Sequence([Replace("▁", " "), ByteFallback(), Fuse(), Strip(" ", 1, 0)]).decode(
...     ["▁Hello", "▁w", "<0xC3>", "<0xB6>", "rld"])
'Hello wörld'
>>> WordPiece().decode_chain(["un", "##aff", "##able", "!"])
['un', 'aff', 'able', '!']

`from_hf_config` builds one from a `tokenizer.json` "decoder" entry. `SentencePieceDecoder` is
sentencepiece's own `Decode` (for `.model` files), not a Hugging Face decoder.

A file per decoder, as Hugging Face lays them out (`byte_level.py`, `wordpiece.py`,
`metaspace.py`, `bpe.py`, `ctc.py`, `byte_fallback.py`, `fuse.py`, `strip.py`, `replace.py`,
`sequence.py`, `sentencepiece.py`), `base.py` for what they share and `hf.py` for reading the
"decoder" entry.
"""

from __future__ import annotations

from .bpe import BPEDecoder
from .bpe import EndOfWordDecoder as EndOfWordDecoder
from .byte_fallback import ByteFallback
from .byte_level import ByteLevel
from .ctc import CTC
from .fuse import Fuse
from .hf import SUPPORTED as SUPPORTED
from .hf import from_hf_config
from .metaspace import Metaspace
from .replace import Replace
from .sentencepiece import SentencePieceDecoder
from .sequence import Sequence
from .strip import Strip
from .wordpiece import WordPiece
from .wordpiece import wordpiece_cleanup as wordpiece_cleanup

# (`X as X`: importable from here as before, though not among the names below)
__all__ = [
    # Hugging Face's decoders, by their names in `tokenizers.decoders`
    "BPEDecoder",
    "ByteFallback",
    "ByteLevel",
    "CTC",
    "Fuse",
    "Metaspace",
    "Replace",
    "Sequence",
    "Strip",
    "WordPiece",
    # sentencepiece's own Decode
    "SentencePieceDecoder",
    # the reader of tokenizer.json's "decoder" entry
    "from_hf_config",
]
