"""The special tokens a tiktoken ranks file does not hold, for the encodings that ship one.

A ranks file lists only the ordinary tokens; each owner adds its special tokens in code. Read
without them, `<|begin_of_text|>` is seven ordinary tokens. These presets give the special
tokens as each owner's tokenizer code defines them, and `suggest` names the preset whose
encoding has as many ordinary ranks as the file, the one fact a ranks file always tells:

| preset   | ordinary ranks | special tokens                                                   |
|----------|----------------|------------------------------------------------------------------|
| `gpt2`   | 50,256 (r50k), 50,280 (p50k) | `<|endoftext|>` = 50256                            |
| `cl100k` | 100,256        | endoftext, the three fim tokens, endofprompt (100257..100276)   |
| `o200k`  | 199,998        | `<|endoftext|>` = 199999, `<|endofprompt|>` = 200018              |
| `llama3` | 128,000        | 256 from 128000: begin/end of text, headers, eot, 246 reserved  |
| `llama4` | 200,000        | 2,048 from 200000: the named ones among numbered reserved ones   |

>>> special_tokens("llama3")["<|eot_id|>"], len(special_tokens("llama3"))
(128009, 256)
>>> suggest(128_000)
Suggestion(pattern='llama3', specials='llama3', known_as='Llama 3')
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidInput

GPT2 = {"<|endoftext|>": 50256}
CL100K = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
O200K = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

# Llama 3: these first, then <|reserved_special_token_2|> and on, up to 256 tokens in all
_LLAMA3_NAMED = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|image|>",
]


def _reserved(kind: str, start: int, stop: int) -> list[str]:
    """`<|{kind}reserved_special_token_{n}|>` for n in start..stop-1."""
    return [f"<|{kind}reserved_special_token_{n}|>" for n in range(start, stop)]


def _llama3() -> list[str]:
    return _LLAMA3_NAMED + _reserved("", 2, 2 + 256 - len(_LLAMA3_NAMED))


def _llama4() -> list[str]:
    """Llama 4's 2,048, in id order: numbered reserved runs around the named tokens, as its
    tokenizer code lays them out (text, vision, reasoning, then the plain reserved run)."""
    text, vision = "text_post_train_", "vision_"
    names = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|fim_prefix|>",
        "<|fim_middle|>",
        "<|fim_suffix|>",
        "<|header_start|>",
        "<|header_end|>",
        "<|eom|>",
        "<|eot|>",
        "<|step|>",
        *_reserved(text, 0, 6),
        "<|python_start|>",
        "<|python_end|>",
        "<|finetune_right_pad|>",
        *_reserved(text, 8, 69),
        "<|image_start|>",
        "<|image_end|>",
        *_reserved(vision, 0, 2),
        "<|tile_x_separator|>",
        "<|tile_y_separator|>",
        *_reserved(vision, 2, 6),
        "<|image|>",
        *_reserved(vision, 6, 7),
        "<|patch|>",
        *_reserved(vision, 7, 1048),
        *_reserved("reasoning_", 0, 8),
        "<|reasoning_thinking_start|>",
        "<|reasoning_thinking_end|>",
    ]
    return names + _reserved("", 0, 2048 - len(names))


PRESETS = ("gpt2", "cl100k", "o200k", "llama3", "llama4")
LABELS = {
    "gpt2": "GPT-2, r50k, p50k (<|endoftext|> 50256)",
    "cl100k": "cl100k (GPT-4: 5 tokens)",
    "o200k": "o200k (GPT-4o: 2 tokens)",
    "llama3": "Llama 3 (256 tokens from 128000)",
    "llama4": "Llama 4 (2,048 tokens from 200000)",
}


def special_tokens(preset: str) -> dict[str, int]:
    """{token: id} for a preset name (InvalidInput naming the presets for any other)."""
    if preset == "gpt2":
        return dict(GPT2)
    if preset == "cl100k":
        return dict(CL100K)
    if preset == "o200k":
        return dict(O200K)
    if preset == "llama3":
        return {name: 128000 + i for i, name in enumerate(_llama3())}
    if preset == "llama4":
        return {name: 200000 + i for i, name in enumerate(_llama4())}
    raise InvalidInput(
        f"unknown special-token preset {preset!r}; choose one of: {', '.join(PRESETS)}"
    )


@dataclass(frozen=True)
class Suggestion:
    """The pattern and special-token presets of the encoding with this many ordinary ranks."""

    pattern: str
    specials: str
    known_as: str


_BY_RANK_COUNT = {
    50_256: Suggestion("gpt2", "gpt2", "GPT-2 (r50k_base)"),
    50_280: Suggestion("p50k", "gpt2", "p50k_base"),
    100_256: Suggestion("cl100k", "cl100k", "cl100k_base (GPT-4)"),
    199_998: Suggestion("o200k", "o200k", "o200k_base (GPT-4o)"),
    128_000: Suggestion("llama3", "llama3", "Llama 3"),
    200_000: Suggestion("o200k", "llama4", "Llama 4"),
}


def suggest(rank_count: int) -> Suggestion | None:
    """The presets of the known encoding with `rank_count` ordinary ranks, else None."""
    return _BY_RANK_COUNT.get(rank_count)


def count_ranks(data: bytes) -> int:
    """How many ranks a ranks file's bytes hold (its non-blank lines), without parsing them."""
    return sum(1 for line in data.splitlines() if line.strip())
