"""Post-processors: stage 4, where special tokens are added around the model's tokens.

As in Hugging Face `tokenizers` 0.23.3 (`src/processors/*.rs`), a post-processor works on whole
`Encoding`s: `process_encodings([first, pair?], add_special_tokens) -> [encodings]` wraps each
sequence (and each of its overflowing windows) in its special tokens, and `post_process`
(`base.py`) runs it the way `Tokenizer::post_process` does: type ids 0 and 1 first, then the
processor, then one merged encoding. Special tokens get offsets (0, 0), no word id and
special-tokens mask 1. `added_tokens(is_pair)` says how many tokens a processor adds
(truncation leaves room for them).

- `TemplateProcessing`: Hugging Face's template language. `$A` / `$B` stand for the two
  sequences (`$` alone is `$A`, and `$N` is `$A` with type id N), any other item is a special
  token, which may stand for several ids; `:N` sets an item's type id (0 by default).
- `BertProcessing`: `[CLS] $A [SEP]` (+ `$B [SEP]` with type id 1).
- `RobertaProcessing`: `<s> $A </s>` (+ `</s> $B </s>`), every type id 0, and optionally the
  byte-level offset trimming of `ByteLevel`.
- `ByteLevel`: adds nothing; with `trim_offsets`, each token's offsets leave out the spaces
  (`Ġ`) at its ends.
- `Sequence`: the processors one after the other.

`from_hf_config` builds one from a tokenizer.json's "post_processor" entry.

A file per component, as Hugging Face lays them out: `base.py` holds what they all share (the
bounds below, merging and wrapping encodings, `post_process`); `template.py`, `bert.py`,
`roberta.py`, `byte_level.py` and `sequence.py` hold one processor each; `hf.py` reads the
"post_processor" entry; `truncation.py` holds truncation and padding.

What a post-processor may add to a text is bounded, at load: at most `MAX_ADDED_TOKENS` ids
around one text or a pair (real tokenizers add a handful: BERT 3, Llama 3 1), each sequence
at most `MAX_SEQUENCE_COPIES` times in a template (real ones: once), at most
`MAX_SPECIAL_TOKENS` special tokens declared and at most `MAX_PROCESSORS` processors in a
Sequence; past a bound, InvalidInput naming it. (A crafted file's special token of 200,000 ids
turned "a b 0" into 200,001 ids, a 5.4 MB answer.)

>>> from tokenizers_core.encoding import Token
>>> bert = BertProcessing(sep=("[SEP]", 102), cls=("[CLS]", 101))
>>> tokens, type_ids = bert.process([Token(7592, "hello", (0, 5), 0)], None)
>>> [t.value for t in tokens], type_ids
(['[CLS]', 'hello', '[SEP]'], [0, 0, 0])
>>> tokens, type_ids = bert.process([Token(1, "a", (0, 1), 0)], [Token(2, "b", (0, 1), 0)])
>>> [t.value for t in tokens], type_ids
(['[CLS]', 'a', '[SEP]', 'b', '[SEP]'], [0, 0, 0, 1, 1])
"""

from __future__ import annotations

from .base import MAX_ADDED_TOKENS, merge, post_process
from .base import MAX_PROCESSORS as MAX_PROCESSORS
from .base import MAX_SEQUENCE_COPIES as MAX_SEQUENCE_COPIES
from .base import MAX_SPECIAL_TOKENS as MAX_SPECIAL_TOKENS
from .base import copy_encoding as copy_encoding
from .bert import BertProcessing
from .byte_level import ByteLevel
from .byte_level import trim_offsets as trim_offsets
from .hf import from_hf_config
from .roberta import RobertaProcessing
from .sequence import Sequence
from .template import TemplateProcessing

# (`X as X`: importable from here as before, though not among the names below)
__all__ = [
    # Hugging Face's post-processors, by their names in `tokenizers.processors`
    "BertProcessing",
    "ByteLevel",
    "RobertaProcessing",
    "Sequence",
    "TemplateProcessing",
    # the reader of tokenizer.json's "post_processor" entry
    "from_hf_config",
    # a processor run as Hugging Face's `Tokenizer::post_process` runs it, and merging
    "post_process",
    "merge",
    # the most ids a post-processor may add to one text (or a pair)
    "MAX_ADDED_TOKENS",
]
