"""The special-token presets a tiktoken ranks file needs (`formats.tiktoken_specials`), against
the converted tokenizer.json files' own added tokens and tiktoken's encodings."""

from __future__ import annotations

import base64
import json

import pytest

from tests.shared_data import INTEROP
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats import tiktoken_file, tiktoken_specials
from tokenizers_core.implementations.openai_public import load_ranks


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_llama_presets_are_the_converted_files_added_tokens(name, shared_data):
    converted = json.loads((INTEROP / "converted" / f"{name}.tokenizer.json").read_text())
    want = {t["content"]: t["id"] for t in converted["added_tokens"]}
    assert tiktoken_specials.special_tokens(name) == want


@pytest.mark.parametrize(
    "encoding, preset", [("r50k_base", "gpt2"), ("cl100k_base", "cl100k"), ("o200k_base", "o200k")]
)
def test_openai_presets_are_the_bundled_encodings_specials(encoding, preset):
    from tokenizers_core import load

    assert tiktoken_specials.special_tokens(preset) == load(encoding).model.special_tokens
    known = tiktoken_specials.suggest(len(load_ranks(encoding)))
    assert known is not None and known.specials == preset


def test_unknown_preset_and_unknown_size():
    with pytest.raises(InvalidInput, match="llama4"):
        tiktoken_specials.special_tokens("llama5")
    assert tiktoken_specials.suggest(1234) is None


def small_ranks(n: int = 300) -> bytes:
    ranks = sorted(load_ranks("cl100k_base").items(), key=lambda kv: kv[1])[:n]
    return b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in ranks)


def test_loaded_without_specials_it_says_so_and_with_a_preset_it_says_which():
    data = small_ranks()
    bare = tiktoken_file.load_bytes(data, pattern="cl100k")
    assert len(bare.warnings) == 1 and "no special tokens" in bare.warnings[0]
    assert "no special tokens" in bare.source_note
    named = tiktoken_file.load_bytes(data, pattern="cl100k", special_tokens="gpt2")
    assert named.warnings == [] and "preset 'gpt2'" in named.source_note
    assert named.encode("<|endoftext|>", allowed_special="all").ids == [50256]


def test_the_warning_names_the_preset_of_a_known_size(shared_data):
    data = (INTEROP / "raw" / "llama3" / "tokenizer.model").read_bytes()
    assert tiktoken_specials.count_ranks(data) == 128_000
    tok = tiktoken_file.load_bytes(data, pattern="llama3")
    assert "Llama 3" in tok.warnings[0] and "'llama3'" in tok.warnings[0]
