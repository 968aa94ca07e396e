"""Normalisers: the first pipeline stage, with Hugging Face `tokenizers` semantics.

A normaliser rewrites the text before it is split and keeps, for every output character, the
span of the **original** text it came from (so token offsets still point into what the user
typed). Each one has `normalize(NormalizedString) -> NormalizedString`, `describe() -> str` and
`normalize_str(str) -> str`. The package offers Hugging Face's spellings
(`tokenizers.normalizers`):

>>> Sequence([NFKC(), Lowercase()]).normalize_str("Ｈｅｌｌｏ")
'hello'
>>> from_hf_config({"type": "Prepend", "prepend": "▁"}).normalize_str("hi")
'▁hi'

`basic.py` holds the ones any pipeline uses (the Unicode forms, `Lowercase`, `Strip`,
`StripAccents`, `Replace`, `Prepend`, `BertNormalizer`, `Sequence`) and says where Hugging
Face's behaviour is surprising; `hf.py` holds those only tokenizer.json files use
(`Precompiled`, `Nmt`, `ByteLevel`) and the reader of its "normalizer" entry (`from_hf_config`).
"""

from __future__ import annotations

from .basic import (
    FLOOR,
    GROWTH,
    NFC,
    NFD,
    NFKC,
    NFKD,
    WHITESPACE,
    BertNormalizer,
    Lowercase,
    NormalizedTooLong,
    Prepend,
    Replace,
    Sequence,
    Strip,
    StripAccents,
    check_length,
    hf_config_of,
    max_length,
)
from .hf import ByteLevel, Nmt, Precompiled, from_hf_config

__all__ = [
    # Hugging Face's normalisers, by their names in `tokenizers.normalizers`
    "BertNormalizer",
    "ByteLevel",
    "Lowercase",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Nmt",
    "Precompiled",
    "Prepend",
    "Replace",
    "Sequence",
    "Strip",
    "StripAccents",
    # the reader of tokenizer.json's "normalizer" entry and its inverse
    "from_hf_config",
    "hf_config_of",
    # the guard on how long normalised text may grow
    "FLOOR",
    "GROWTH",
    "NormalizedTooLong",
    "check_length",
    "max_length",
    # the characters Hugging Face's Strip and BertNormalizer take for white space
    "WHITESPACE",
]
