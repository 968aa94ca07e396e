"""Writing a tokenizer as a GGUF file's tokenizer metadata, the keys llama.cpp's converter
(`convert_hf_to_gguf.py`) writes, with no tensors: what `tc.load("x.gguf")` and llama.cpp read.

A tokenizer is written as the `tokenizer.ggml.model` that runs it the same way:

- byte-level BPE (tokenizer.json, tiktoken, ranks) as `gpt2`: tokens in id order, merges, the
  `.pre` name;
- sentencepiece BPE (`.model`) as `llama`: pieces, scores, types, `add_space_prefix`;
- sentencepiece Unigram (`.model`) as `t5`: the same and the precompiled charsmap;
- BERT's WordPiece (vocab.txt) as `bert`: the converter's vocabulary, ▁ on word starts.

`.pre` is the name of llama.cpp's pre-tokenizer that splits `PROBES` as the tokenizer's own
does and looks whole pieces up (`ignore_merges`) as it does (`pre_match`); when none does, the
closest, and `changes` says what differs (so does `formats/exactness.py`). Special
added tokens are written as control tokens, the others as user-defined ones; BOS and EOS ids
and whether they are added come from the post-processor.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..models.sentencepiece_common import CONTROL, NORMAL, UNKNOWN, USER_DEFINED
from . import gguf_pre, sentencepiece_model
from .gguf import ARRAY, STRING
from .gguf_types import llama_cpp_types
from .hf_json import from_dict

VERSION = 3
ALIGNMENT = 32
_UINT32, _INT32, _FLOAT32, _BOOL = 4, 5, 6, 7
_UNUSED = 5
# texts whose pieces tell llama.cpp's pre-tokenizers apart: contractions and case, digit runs,
# punctuation runs, whitespace before words and newlines, scripts with and without spaces
PROBES = (
    "Hello world! It's 2024; we'LL see.",
    "12345678 3.14159 1,000,000 x=42+7",
    "  two  spaces\n\n\nand\ttabs \n end ",
    "don't DON'T you've they'RE",
    "CamelCaseWord lowerUPPER ÀÉÎ ñandú",
    "日本語のテキスト、中文。한국어 텍스트",
    "emoji 👍🏽 family 👨‍👩‍👧 flags 🇫🇷",
    "code: def f(x):\n    return x**2  # ok\n",
    "path/to/file.txt https://example.com/a?b=c",
    '!!! ??? ... --- ___ "quoted"',
    "Ünïcödé ﬁ ligature e\u0301 مرحبا بالعالم שלום",
    "a\r\nb\rc\u2028d\u00a0e",
)


# ---- the file -----------------------------------------------------------------------------------
def dump_bytes(tok: Any, *, pre: str | None = None) -> bytes:
    """The GGUF bytes of `tok`'s tokenizer (ValueError when no GGUF model runs it). `pre`
    names llama.cpp's pre-tokenizer for a byte-level BPE instead of the detected one."""
    return encode_file(
        {
            "general.architecture": "llama",
            "general.name": tok.name or "tokenizer",
            **tokenizer_kv(tok, pre=pre),
        }
    )


def encode_file(kv: dict[str, Any]) -> bytes:
    """A GGUF file of these key-value pairs and no tensors, padded to the alignment."""
    out = [b"GGUF", struct.pack("<IQQ", VERSION, 0, len(kv))]
    for key, value in kv.items():
        out.append(_string(key))
        out.append(_value(value, _KEY_TYPES.get(key)))
    data = b"".join(out)
    return data + b"\0" * (-len(data) % ALIGNMENT)


def _string(s: str) -> bytes:
    raw = s.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def _value(value: Any, kind: int | None = None) -> bytes:
    """A typed value: bool, int (uint32, or int32 when negative), float32, str, or a list of
    one of those (an array); `kind` forces the element type."""
    if isinstance(value, list):
        kind = kind or (_kind(value[0]) if value else STRING)
        if kind == STRING:
            body = b"".join(_string(v) for v in value)
        else:
            body = struct.pack(f"<{len(value)}{_FORMATS[kind]}", *value)
        return struct.pack("<IIQ", ARRAY, kind, len(value)) + body
    kind = kind or _kind(value)
    if kind == STRING:
        return struct.pack("<I", STRING) + _string(value)
    return struct.pack("<I" + _FORMATS[kind], kind, value)


_FORMATS = {_UINT32: "I", _INT32: "i", _FLOAT32: "f", _BOOL: "?", 0: "B"}
# the element types llama.cpp's converter (gguf-py's GGUFWriter) gives these keys
_KEY_TYPES = {"tokenizer.ggml.token_type": _INT32, "tokenizer.ggml.precompiled_charsmap": 0}


def _kind(value: Any) -> int:
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT32 if value < 0 else _UINT32
    if isinstance(value, float):
        return _FLOAT32
    if isinstance(value, str):
        return STRING
    raise TypeError(f"no GGUF value type for {type(value).__name__}")


# ---- the tokenizer's keys -----------------------------------------------------------------------
def tokenizer_kv(tok: Any, *, pre: str | None = None) -> dict[str, Any]:
    """The `tokenizer.ggml.*` keys (and `tokenizer.chat_template`) for `tok`."""
    if getattr(tok, "proto", None) is not None or _sentencepiece_style(tok):
        kv = _sentencepiece_kv(tok)
    elif tok.algorithm == "wordpiece":
        kv = _bert_kv(tok)
    else:
        kv = _byte_level_kv(tok, pre)
    template = _chat_template(tok)
    if template is not None:
        kv["tokenizer.chat_template"] = template
    return kv


def _byte_level_kv(tok: Any, pre: str | None) -> dict[str, Any]:
    data = _byte_level_json(tok)
    model = data["model"]
    if pre is not None:
        _check_pre(pre)
    tokens, types = _id_ordered(model["vocab"], data.get("added_tokens", []))
    kv: dict[str, Any] = {
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": pre or pre_match(tok, data).name,
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.token_type": types,
        "tokenizer.ggml.merges": [
            m if isinstance(m, str) else f"{m[0]} {m[1]}" for m in model["merges"]
        ],
    }
    return {**kv, **_bos_eos_kv(tok, tokens)}


def _sentencepiece_kv(tok: Any) -> dict[str, Any]:
    proto = _proto(tok)
    model_type = proto.trainer_spec.get("model_type", 1)
    if model_type not in (1, 2):
        raise InvalidInput(
            "only sentencepiece BPE and Unigram models have a GGUF form (this one "
            "is a word or character model)"
        )
    kv: dict[str, Any] = {
        "tokenizer.ggml.model": "llama" if model_type == 2 else "t5",
        "tokenizer.ggml.tokens": [p for p, _s, _t in proto.pieces],
        "tokenizer.ggml.scores": [float(s) for _p, s, _t in proto.pieces],
        "tokenizer.ggml.token_type": [t for _p, _s, t in proto.pieces],
        "tokenizer.ggml.add_space_prefix": bool(proto.normalizer_spec["add_dummy_prefix"]),
        "tokenizer.ggml.remove_extra_whitespaces": bool(
            proto.normalizer_spec["remove_extra_whitespaces"]
        ),
    }
    for key, field in (
        ("bos", "bos_id"),
        ("eos", "eos_id"),
        ("unknown", "unk_id"),
        ("padding", "pad_id"),
    ):
        if 0 <= proto.trainer_spec.get(field, -1) < len(proto.pieces):
            kv[f"tokenizer.ggml.{key}_token_id"] = proto.trainer_spec[field]
    if model_type == 1:
        kv["tokenizer.ggml.precompiled_charsmap"] = list(
            proto.normalizer_spec["precompiled_charsmap"]
        )
    adds = _adds(tok)
    kv["tokenizer.ggml.add_bos_token"] = adds[0] is not None
    kv["tokenizer.ggml.add_eos_token"] = adds[1] is not None
    return kv


def _bert_kv(tok: Any) -> dict[str, Any]:
    vocab = tok.model.vocab
    size = max(vocab.values()) + 1
    tokens, types = [f"[PAD{i}]" for i in range(size)], [_UNUSED] * size
    for token, i in vocab.items():
        bracketed = token.startswith("[") and token.endswith("]")
        tokens[i] = (
            token if bracketed else token[2:] if token.startswith("##") else "\u2581" + token
        )
        types[i] = CONTROL if bracketed else NORMAL
    unk = vocab.get(getattr(tok.model, "unk_token", "[UNK]"))
    if unk is not None:
        types[unk] = UNKNOWN
    kv: dict[str, Any] = {
        "tokenizer.ggml.model": "bert",
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.token_type": types,
        "tokenizer.ggml.add_bos_token": True,
    }
    for key, token in (
        ("bos", "[CLS]"),
        ("seperator", "[SEP]"),
        ("padding", "[PAD]"),
        ("unknown", "[UNK]"),
    ):
        if token in vocab:
            kv[f"tokenizer.ggml.{key}_token_id"] = vocab[token]
    return kv


# ---- the pre-tokenizer's name -------------------------------------------------------------------
# the name llama.cpp's converter writes for each family, first; then the rest in table order
PREFERRED = (
    "llama-bpe",
    "qwen2",
    "gpt-2",
    "gpt-4o",
    "tekken",
    "deepseek-v3",
    "deepseek-llm",
    "deepseek-coder",
    "starcoder",
    "falcon",
    "poro-chat",
    "viking",
    "dbrx",
    "default",
)


@dataclass(frozen=True)
class PreMatch:
    """How well llama.cpp's pre-tokenizer `name` stands in for a tokenizer's own: on how many
    of `PROBES` it gives the same pieces (`agree`), and whether it looks whole pieces up in
    the vocabulary as the tokenizer does (`same_lookup`)."""

    name: str
    agree: int
    same_lookup: bool

    @property
    def exact(self) -> bool:
        return self.agree == len(PROBES) and self.same_lookup


def pre_match(tok: Any, data: dict[str, Any] | None = None) -> PreMatch:
    """The llama.cpp pre-tokenizer that splits `PROBES` most like `tok`'s own: all of them and
    with the same whole-piece lookup (`ignore_merges`) if one does, else the closest."""
    data = data or _hf_json(tok)
    ignore = bool(data["model"].get("ignore_merges", False))
    ours = [_pieces(tok.pre_tokenizer, text) for text in PROBES]
    agree: dict[tuple[str, ...], int] = {}
    best: PreMatch | None = None
    for name in (*PREFERRED, *gguf_pre.NAMES):
        spec = gguf_pre.lookup(name)
        key = tuple(spec.regexes)
        if key not in agree:
            pre = _llama_cpp_pre_tokenizer(spec)
            agree[key] = sum(_pieces(pre, t) == o for t, o in zip(PROBES, ours))
        found = PreMatch(name, agree[key], spec.ignore_merges == ignore)
        if best is None or (found.agree, found.same_lookup) > (best.agree, best.same_lookup):
            best = found
    assert best is not None
    return best


def _llama_cpp_pre_tokenizer(spec: gguf_pre.PreTokenizerSpec) -> Any:
    """The pre-tokenizer our GGUF reader builds for `spec` (its regexes, then the byte map)."""
    splits = [
        {"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False}
        for r in spec.regexes
    ]
    level = {
        "type": "ByteLevel",
        "add_prefix_space": False,
        "trim_offsets": False,
        "use_regex": False,
    }
    return from_dict(
        {
            "model": {"type": "BPE", "vocab": {}, "merges": []},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [*splits, level]},
        }
    ).pre_tokenizer


def _pieces(pre: Any, text: str) -> list[str]:
    return [piece for piece, _span in pre.pre_tokenize_str(text)] if pre is not None else [text]


# ---- what a GGUF changes -------------------------------------------------------------------------
def changes(tok: Any, *, pre: str | None = None) -> list[str]:
    """What a GGUF of `tok` changes when llama.cpp (or `tc.load`) reads it, one sentence each
    ([]: the file is exact); a ValueError saying why when no GGUF model runs `tok`. `pre`: the
    pre-tokenizer name the file will say instead of the closest one."""
    if getattr(tok, "proto", None) is not None or _sentencepiece_style(tok):
        return _sentencepiece_changes(_proto(tok))
    if tok.algorithm == "wordpiece":
        lowercase = bool(getattr(tok.normalizer, "lowercase", False))
        return (
            []
            if lowercase
            else ["llama.cpp's WordPiece lower-cases the text; this tokenizer keeps case."]
        ) + [
            "llama.cpp's WordPiece pre-processes the text its own way (a Hangul syllable "
            "becomes its first consonant, spacing vowel signs are dropped, \\x0b and other "
            "Unicode spaces end words) and has no 100-character word limit, so it can differ "
            "from BERT's on such text."
        ]
    data = _byte_level_json(tok)
    out = []
    if data.get("normalizer") is not None:
        out.append(
            f"The normaliser ({type(tok.normalizer).__name__}) is dropped: llama.cpp's "
            "BPE does not normalise text."
        )
    match = pre_match(tok, data)
    if pre is not None and pre != match.name:
        _check_pre(pre)
        return (
            out
            + [
                f"The file names llama.cpp's pre-tokenizer {pre!r}, as asked, where "
                f"{match.name!r} splits text most like this tokenizer: expect different "
                "tokens on numbers, punctuation and spaces."
            ]
            + _added_changes(tok, data)
        )
    if match.agree < len(PROBES):
        out.append(
            f"llama.cpp has no pre-tokenizer that splits text as this one does; the "
            f"closest, {match.name!r}, splits {len(PROBES) - match.agree} of "
            f"{len(PROBES)} test texts differently."
        )
    if not match.same_lookup:
        looks = bool(data["model"].get("ignore_merges", False))
        out.append(
            f"llama.cpp's {match.name!r} "
            + (
                "merges by rank only, where this "
                "tokenizer first looks a whole piece up in its vocabulary"
                if looks
                else "looks a whole piece up in the vocabulary before merging, where this "
                "tokenizer merges by rank only"
            )
            + ": they differ on a piece that is a "
            "token its own merges do not build."
        )
    return out + _added_changes(tok, data)


def _sentencepiece_changes(proto: Any) -> list[str]:
    out = []
    spec = proto.normalizer_spec
    if proto.trainer_spec.get("model_type", 1) == 2:  # "llama": SPM
        if spec["precompiled_charsmap"]:
            out.append(
                f"The normaliser ({spec.get('name') or 'a precompiled charsmap'}) is "
                "dropped: llama.cpp's SPM does not normalise text."
            )
        if spec["remove_extra_whitespaces"]:
            out.append(
                "Runs of spaces are kept: llama.cpp's SPM does not remove extra "
                "whitespace as this model does."
            )
    typed = next((p for p, _s, t in proto.pieces if t in (CONTROL, UNKNOWN, USER_DEFINED)), None)
    if typed is not None:
        out.append(
            f"Special-token strings typed in the text (such as {typed!r}) become control "
            "tokens, and the text after one gets its own leading \u2581: llama.cpp's SPM "
            "prefixes a space to each stretch of text after a special token."
        )
    return out


def _added_changes(tok: Any, data: dict[str, Any]) -> list[str]:
    out = []
    flagged = [
        a["content"]
        for a in data.get("added_tokens", [])
        if any(a.get(k) for k in ("lstrip", "rstrip", "single_word"))
    ]
    if flagged:
        out.append(
            f"{len(flagged)} added tokens lose their lstrip/rstrip/single_word rules "
            f"(first: {flagged[0]!r}): llama.cpp matches them as they are."
        )
    added = {a["content"] for a in data.get("added_tokens", [])}
    looking = sorted(t for t in control_looking(list(data["model"]["vocab"])) if t not in added)
    if looking:
        out.append(
            f"Tokens llama.cpp takes for control tokens by their text ({len(looking)}, first: "
            f"{looking[0]!r}) are matched whole in the text when special tokens are parsed, "
            "where this tokenizer reads them as text."
        )
    specials = [a["content"] for a in data.get("added_tokens", []) if a.get("special")]
    as_text = {"disallowed_special": ()} if hasattr(tok, "strict_special") else {}  # tiktoken's
    typed = next(
        (s for s in specials[:50] if len(tok.encode(s, add_special_tokens=False, **as_text)) != 1),
        None,
    )
    if typed is not None:
        out.append(
            f"Special-token strings typed in the text (such as {typed!r}) become control "
            "tokens, where this tokenizer reads them as text."
        )
    return out


def control_looking(tokens: list[str]) -> set[str]:
    """The tokens a GGUF without fill-in-the-middle ids (as we write one) holding `tokens`
    has flagged CONTROL by llama.cpp, for their text (`gguf_types.llama_cpp_types`).

    >>> sorted(control_looking(["a", "</s>", "<|fim_pad|>"]))
    ['</s>', '<|fim_pad|>']
    """
    types = llama_cpp_types(tokens, [NORMAL] * len(tokens), {})
    return {t for t, kind in zip(tokens, types) if kind == CONTROL}


def _byte_level_json(tok: Any) -> dict[str, Any]:
    """The tokenizer.json of a byte-level BPE that llama.cpp's "gpt2" can run (ValueError
    saying why otherwise)."""
    data = _hf_json(tok)
    model = data["model"]
    if model.get("type") != "BPE" or not _byte_level(data):
        raise InvalidInput(
            f"{tok.name or 'this tokenizer'} is not byte-level BPE, a sentencepiece "
            "model or BERT's WordPiece, so no GGUF tokenizer model runs it"
        )
    extras = [k for k in ("continuing_subword_prefix", "end_of_word_suffix") if model.get(k)]
    if extras or model.get("byte_fallback") or model.get("dropout"):
        what = extras[0] if extras else "byte_fallback" if model.get("byte_fallback") else "dropout"
        raise InvalidInput(
            f"{tok.name or 'this tokenizer'}'s BPE uses {what}, which llama.cpp's "
            "BPE does not have, so it has no GGUF form"
        )
    return data


def _check_pre(pre: str) -> None:
    if pre not in gguf_pre.NAMES:
        raise InvalidInput(
            f"llama.cpp has no pre-tokenizer {pre!r}; it has: " + ", ".join(gguf_pre.NAMES)
        )


# ---- helpers ------------------------------------------------------------------------------------
def _hf_json(tok: Any) -> dict[str, Any]:
    try:
        return tok.to_hf_json()
    except ValueError as exc:
        raise InvalidInput(f"no GGUF form: {exc}") from None


def _byte_level(data: dict[str, Any]) -> bool:
    return '"ByteLevel"' in repr(data.get("pre_tokenizer")).replace(
        "'", '"'
    ) and '"ByteLevel"' in repr(data.get("decoder")).replace("'", '"')


def _id_ordered(vocab: dict[str, int], added: list[dict[str, Any]]) -> tuple[list[str], list[int]]:
    """Tokens and types in id order: a gap (an id no token has) becomes an unused [PADn]."""
    size = max([*vocab.values(), *(a["id"] for a in added)], default=-1) + 1
    tokens, types = [f"[PAD{i}]" for i in range(size)], [_UNUSED] * size
    for token, i in vocab.items():
        tokens[i], types[i] = token, NORMAL
    for a in added:
        tokens[a["id"]], types[a["id"]] = (
            a["content"],
            CONTROL if a.get("special") else USER_DEFINED,
        )
    return tokens, types


def _adds(tok: Any) -> tuple[int | None, int | None]:
    """(the id the post-processor puts before the text, the id after it), None for none."""
    enc = tok.encode("a")
    plain = tok.encode("a", add_special_tokens=False)
    if len(enc) == len(plain):
        return None, None
    before = enc.ids[0] if enc.special_tokens_mask and enc.special_tokens_mask[0] else None
    after = enc.ids[-1] if enc.special_tokens_mask and enc.special_tokens_mask[-1] else None
    return before, after


def _bos_eos_kv(tok: Any, tokens: list[str]) -> dict[str, Any]:
    bos, eos = _adds(tok)
    kv: dict[str, Any] = {
        "tokenizer.ggml.add_bos_token": bos is not None,
        "tokenizer.ggml.add_eos_token": eos is not None,
    }
    if bos is not None:
        kv["tokenizer.ggml.bos_token_id"] = bos
    if eos is not None:
        kv["tokenizer.ggml.eos_token_id"] = eos
    return kv


def _proto(tok: Any) -> Any:
    proto = getattr(tok, "proto", None)
    if proto is not None:
        return proto
    return sentencepiece_model.parse_model_proto(sentencepiece_model.dump_bytes(tok))


def _sentencepiece_style(tok: Any) -> bool:
    return (
        tok.algorithm in ("unigram", "sentencepiece_bpe")
        and type(tok.normalizer).__name__ == "SentencePieceNormalizer"
    )


def _chat_template(tok: Any) -> str | None:
    config = getattr(tok, "tokenizer_config", None) or {}
    template = config.get("chat_template") or getattr(tok, "chat_template", None)
    if isinstance(template, list):
        template = next((t.get("template") for t in template if t.get("name") == "default"), None)
    return template if isinstance(template, str) else None


__all__ = [
    "PROBES",
    "PreMatch",
    "changes",
    "dump_bytes",
    "encode_file",
    "pre_match",
    "tokenizer_kv",
]
