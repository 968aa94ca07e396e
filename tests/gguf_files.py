"""Small GGUF files written from the bundled tokenizers with the `gguf` package's GGUFWriter
(the writer llama.cpp's converters use), for the GGUF tests.

Each `write_*` returns the path of a file holding only the metadata (no tensors), as
llama.cpp's `convert_hf_to_gguf.py` would write the tokenizer part.
"""

from __future__ import annotations

import json
import os

import gguf

import tokenizers_core as tc
from tests import shared_data
from tokenizers_core.corpora import load_corpus
from tokenizers_core.diff import corpus_texts
from tokenizers_core.models.sentencepiece_common import BYTE, CONTROL, NORMAL, USER_DEFINED

# the real tokenizer files of ../shared/data/interop (next to the main checkout)
INTEROP = str(shared_data.INTEROP) if shared_data.INTEROP.is_dir() else ""


def one_megabyte() -> list[str]:
    """The issue's "1 MB of text" for a GGUF against its source, as the texts it holds: botchan
    repeated to 1,000,000 bytes, cut at a line end, one text a line, each distinct line once.
    (The megabyte is botchan 3.6 times over; a tokenizer gives a text the same tokens every
    time, so encoding the repeats proved nothing more and took three quarters of the time.)"""
    one = load_corpus("botchan")
    mb = 1_000_000
    data = (one * (mb // len(one.encode("utf-8")) + 1)).encode("utf-8")[:mb]
    return list(dict.fromkeys(corpus_texts(data[: data.rfind(b"\n") + 1].decode("utf-8"))))


def botchan_sample() -> list[str]:
    """Botchan's first 1,000 lines and its last 200 (the Project Gutenberg licence, numbered
    "1.F."), one text a line: prose and numbering, where llama.cpp's `default` pre-tokenizer
    parts from a real one (a quarter of the whole novel's 4,288 lines, as telling)."""
    texts = corpus_texts(load_corpus("botchan"))
    return texts[:1000] + texts[-200:]


def write(path: str, kv: dict) -> str:
    """A GGUF file at `path` with the tokenizer keys `kv` (GGUFWriter's add_* names)."""
    writer = gguf.GGUFWriter(str(path), arch="llama")
    for method, value in kv.items():
        getattr(writer, method)(value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return str(path)


def byte_level_kv(
    vocab: dict[str, int], merges: list[tuple[str, str]], specials: dict[str, int], pre: str
) -> dict:
    """The keys of a "gpt2" GGUF: tokens in id order, specials typed as control."""
    size = max([*vocab.values(), *specials.values()]) + 1
    tokens = [f"[PAD{i}]" for i in range(size)]
    types = [gguf.TokenType.UNUSED] * size
    for token, i in vocab.items():
        tokens[i], types[i] = token, NORMAL
    for token, i in specials.items():
        tokens[i], types[i] = token, CONTROL
    return {
        "add_tokenizer_model": "gpt2",
        "add_tokenizer_pre": pre,
        "add_token_list": tokens,
        "add_token_types": types,
        "add_token_merges": [f"{a} {b}" for a, b in merges],
    }


def write_gpt2(path: str, pre: str = "gpt-2") -> str:
    """The bundled GPT-2 (r50k_base) as llama.cpp's converter writes it."""
    tok = tc.load("gpt2")
    specials = dict(tok.model.special_tokens)
    kv = byte_level_kv(tok.model.vocab, tok.model.merges, specials, pre)
    kv["add_bos_token_id"] = kv["add_eos_token_id"] = specials["<|endoftext|>"]
    kv["add_add_bos_token"] = False
    return write(path, kv)


def write_llama3(path: str, pre: str = "llama-bpe") -> str:
    """Llama 3's tokenizer.json (from ../shared/data/interop) as a GGUF."""
    with open(os.path.join(INTEROP, "converted", "llama3.tokenizer.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    model = doc["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in model["merges"]]
    specials = {a["content"]: a["id"] for a in doc["added_tokens"]}
    kv = byte_level_kv(model["vocab"], merges, specials, pre)
    kv["add_bos_token_id"] = specials["<|begin_of_text|>"]
    kv["add_eos_token_id"] = specials["<|end_of_text|>"]
    kv["add_add_bos_token"] = True
    kv["add_chat_template"] = "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}"
    return write(path, kv)


def write_sentencepiece(path: str, name: str, model: str) -> str:
    """A bundled sentencepiece model as a "llama" (BPE by scores) or "t5" (Unigram) GGUF."""
    proto = tc.load(name).proto
    kv = {
        "add_tokenizer_model": model,
        "add_token_list": [p for p, _s, _t in proto.pieces],
        "add_token_scores": [s for _p, s, _t in proto.pieces],
        "add_token_types": [t for _p, _s, t in proto.pieces],
        "add_add_space_prefix": proto.normalizer_spec["add_dummy_prefix"],
        "add_remove_extra_whitespaces": proto.normalizer_spec["remove_extra_whitespaces"],
        "add_bos_token_id": proto.trainer_spec["bos_id"],
        "add_eos_token_id": proto.trainer_spec["eos_id"],
        "add_unk_token_id": proto.trainer_spec["unk_id"],
    }
    if model == "t5":
        kv["add_precompiled_charsmap"] = proto.normalizer_spec["precompiled_charsmap"]
    return write(path, kv)


def write_bert(path: str) -> str:
    """bert-base-uncased with the converter's "phantom space" vocabulary (▁ on word starts,
    no ## on continuations)."""
    vocab = tc.load("bert-base-uncased").model.vocab
    tokens = [""] * len(vocab)
    for token, i in vocab.items():
        tokens[i] = (
            token
            if token.startswith("[") and token.endswith("]")
            else token[2:]
            if token.startswith("##")
            else "\u2581" + token
        )
    types = [CONTROL if t.startswith("[") and t.endswith("]") else NORMAL for t in tokens]
    types[vocab["[UNK]"]] = gguf.TokenType.UNKNOWN
    return write(
        path,
        {
            "add_tokenizer_model": "bert",
            "add_token_list": tokens,
            "add_token_types": types,
            "add_bos_token_id": vocab["[CLS]"],
            "add_sep_token_id": vocab["[SEP]"],
            "add_add_bos_token": True,
        },
    )


__all__ = [
    "BYTE",
    "INTEROP",
    "USER_DEFINED",
    "byte_level_kv",
    "one_megabyte",
    "botchan_sample",
    "write",
    "write_bert",
    "write_gpt2",
    "write_llama3",
    "write_sentencepiece",
]
