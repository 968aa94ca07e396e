"""Tokenizers for the chat tests: a Llama 3 style tokenizer.json built from the bundled
cl100k_base (Llama 3's vocabulary is cl100k's plus 28k tokens; its tokenizer.json adds
<|begin_of_text|> and the header tokens as special added tokens, and a TemplateProcessing
post-processor that puts <|begin_of_text|> in front), and the same file as transformers'
PreTrainedTokenizerFast."""

from __future__ import annotations

import functools
import json

import tokenizers_core as tc

LLAMA3_SPECIALS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
]
FIRST_ID = 100261  # the next free id, which Hugging Face gives an added token


def llama3_style_json(*, post_processor: bool = True) -> dict:
    data = tc.load("cl100k_base").to_hf_json()
    for i, content in enumerate(LLAMA3_SPECIALS):
        data["added_tokens"].append(
            {
                "id": FIRST_ID + i,
                "content": content,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        )
    if post_processor:
        bos = {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}
        data["post_processor"] = {
            "type": "TemplateProcessing",
            "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [
                bos,
                {"Sequence": {"id": "A", "type_id": 0}},
                bos,
                {"Sequence": {"id": "B", "type_id": 1}},
            ],
            "special_tokens": {
                "<|begin_of_text|>": {
                    "id": "<|begin_of_text|>",
                    "ids": [FIRST_ID],
                    "tokens": ["<|begin_of_text|>"],
                }
            },
        }
    return data


@functools.lru_cache(maxsize=2)
def llama3_style(*, post_processor: bool = True) -> tc.Tokenizer:
    """Cached (read-only, as the bundled tokenizers are): loading 100k merges takes a second."""
    return tc.load(json.dumps(llama3_style_json(post_processor=post_processor)).encode())


def transformers_tokenizer(data: dict, **specials: str):
    """transformers' fast tokenizer over the same tokenizer.json (no model hub involved)."""
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_str(json.dumps(data)), **specials
    )
