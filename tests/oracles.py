"""The reference libraries built offline from the bundled files, for the differential tests
(never `tiktoken.get_encoding`, which downloads)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=None)
def tiktoken_encoding(name: str) -> Any:
    """tiktoken's `Encoding` of a bundled OpenAI encoding (r50k_base, cl100k_base,
    o200k_base, ...): its ranks, pattern and special tokens as the bundle has them."""
    import tiktoken

    from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
    from tokenizers_core.pre_tokenizers import PRESETS

    preset, specials = ENCODINGS[name]
    return tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
    )


def assert_fast_is_general_and_hf(ours: Any, hf: Any, text: str) -> None:
    """`ours.encode(text)` (a fast path when it applies) is the general pipeline's `Encoding`
    (`trace`), and gives Hugging Face's ids, tokens and offsets."""
    fast = ours.encode(text)
    assert fast.to_dict() == ours.trace(text)[0].to_dict(), text
    want = hf.encode(text)
    assert (fast.ids, fast.tokens, fast.offsets) == (
        want.ids,
        want.tokens,
        [tuple(o) for o in want.offsets],
    ), text
