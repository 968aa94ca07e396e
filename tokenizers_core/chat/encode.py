"""Encoding a rendered chat as transformers does, for both kinds of tokeniser we have.

transformers encodes the rendered text with `add_special_tokens=False` (the template writes its
own BOS) and reads special tokens typed in the text as control tokens. Our Hugging Face style
tokenisers match special added tokens unless `encode_special_tokens`; tiktoken-style ones match
them only when `allowed_special` names them.
"""

from __future__ import annotations

import inspect
from typing import Callable

from ..encoding import Encoding
from ..pipeline import Tokenizer


def encode_chat(
    tokenizer: Tokenizer,
    text: str,
    *,
    add_special_tokens: bool = False,
    parse_specials: bool = True,
) -> Encoding:
    """Encode `text` with special tokens typed in it parsed (or, `parse_specials=False`, read
    as text), without the post-processor unless `add_special_tokens`.

    >>> import tokenizers_core as tc
    >>> encode_chat(tc.load("cl100k_base"), "<|endoftext|>").ids
    [100257]
    >>> len(encode_chat(tc.load("cl100k_base"), "<|endoftext|>", parse_specials=False).ids)
    7
    """
    # the keywords differ by kind (the module docstring), so the signature is read at run time
    encode: Callable[..., Encoding] = tokenizer.encode
    if "allowed_special" in inspect.signature(encode).parameters:
        return encode(
            text,
            add_special_tokens=add_special_tokens,
            **({"allowed_special": "all"} if parse_specials else {"disallowed_special": ()}),
        )
    return encode(
        text, add_special_tokens=add_special_tokens, encode_special_tokens=not parse_specials
    )


def control_tokens(tokenizer: Tokenizer) -> list[str]:
    """The special tokens a text can contain, longest first (added tokens marked special, or
    the model's own special tokens for tiktoken and sentencepiece files)."""
    found = (
        set(tokenizer.added_vocabulary.special)
        if tokenizer.added_tokens
        else set(getattr(tokenizer.model, "special_tokens", None) or ())
    )
    return sorted(found, key=lambda t: (-len(t), t))
