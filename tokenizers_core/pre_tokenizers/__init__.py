r"""Pre-tokenizers: stage 2 of the pipeline, where text is cut into pieces ("words").

Every pre-tokenizer has `split(NormalizedString) -> list[NormalizedString]` and, like Hugging
Face's, `pre_tokenize_str(text) -> [(piece, (start, end)), ...]` with offsets in characters of
the original text. The package offers Hugging Face's spellings (`tokenizers.pre_tokenizers`):

>>> Split(" ", "removed").pre_tokenize_str("a b")
[('a', (0, 1)), ('b', (2, 3))]
>>> Sequence([WhitespaceSplit(), Digits(individual_digits=True)]).pre_tokenize_str("ab 12")
[('ab', (0, 2)), ('1', (3, 4)), ('2', (4, 5))]

`basic.py` holds the ones written out from the textbooks (`Whitespace`, `WhitespaceSplit`,
`BertPreTokenizer`, `ByteLevel`, `Metaspace`, `Sequence`, tiktoken-style `Regex` with its
presets) and says whose rules each follows; `hf.py` holds the rest of Hugging Face's (`Split`,
`Punctuation`, `Digits`, `CharDelimiterSplit`, `UnicodeScripts`, `FixedLength`) and the reader
of a tokenizer.json "pre_tokenizer" entry (`from_hf_config`).
"""

from __future__ import annotations

from .basic import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    HF_BYTE_LEVEL_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
    PRESETS,
    WHITESPACE_PATTERN,
    BertPreTokenizer,
    ByteLevel,
    Metaspace,
    PreTokenizerBase,
    Regex,
    Sequence,
    Whitespace,
    WhitespaceSplit,
    bytes_to_unicode,
    compile_pattern,
    is_bert_punctuation,
    match_spans,
    to_byte_level,
    unicode_to_bytes,
)
from .hf import (
    CharDelimiterSplit,
    Digits,
    FixedLength,
    Punctuation,
    Split,
    UnicodeScripts,
    from_hf_config,
)

__all__ = [
    # Hugging Face's pre-tokenizers, by their names in `tokenizers.pre_tokenizers`
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Digits",
    "FixedLength",
    "Metaspace",
    "Punctuation",
    "Sequence",
    "Split",
    "UnicodeScripts",
    "Whitespace",
    "WhitespaceSplit",
    # ours: tiktoken-style regex splitting, and what the other stages share
    "CL100K_PATTERN",
    "GPT2_PATTERN",
    "HF_BYTE_LEVEL_PATTERN",
    "LLAMA3_PATTERN",
    "O200K_PATTERN",
    "PRESETS",
    "PreTokenizerBase",
    "Regex",
    "WHITESPACE_PATTERN",
    "bytes_to_unicode",
    "compile_pattern",
    "from_hf_config",
    "is_bert_punctuation",
    "match_spans",
    "to_byte_level",
    "unicode_to_bytes",
]
