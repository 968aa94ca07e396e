"""Hugging Face `tokenizer.json`: the whole pipeline in one JSON object, read as `tokenizers`
0.23.3 reads it.

    {"version": "1.0",
     "truncation": null | {...}, "padding": null | {...},
     "added_tokens": [{"id", "content", "single_word", "lstrip", "rstrip", "normalized",
                       "special"}],
     "normalizer": null | {"type": ...}, "pre_tokenizer": null | {...},
     "model": {"type": "BPE" | "WordPiece" | "Unigram" | "WordLevel", ...},
     "post_processor": null | {...}, "decoder": null | {...}}

Each component is built by its own module's `from_hf_config` (normalizers, pre_tokenizers,
processors, decoders); the models are built here, from the model's section:

| type        | class                              | fields read                                  |
|-------------|------------------------------------|----------------------------------------------|
| `BPE`       | `models.bpe.hf.HFBpe`              | vocab, merges, unk_token,                    |
|             |                                    | continuing_subword_prefix,                   |
|             |                                    | end_of_word_suffix, fuse_unk, byte_fallback, |
|             |                                    | ignore_merges, dropout (kept, applied only   |
|             |                                    | on request: see `models/bpe/hf.py`)          |
| `WordPiece` | `models.wordpiece.model.WordPiece` | vocab, unk_token, continuing_subword_prefix, |
|             |                                    | max_input_chars_per_word                     |
| `Unigram`   | `models.unigram.hf.HFUnigram`      | vocab ([piece, score] list), unk_id,         |
|             |                                    | byte_fallback                                |
| `WordLevel` | `models.wordlevel.model.WordLevel` | vocab, unk_token                             |

Writing is `hf_json_writer.py` (`dump_bytes`, `to_hf_json`): every tokenizer read here is
written back as tokenizers 0.23.3's `to_str()` would write it.

Anything we cannot read exactly raises `ValueError` naming the component (never a silent
difference): malformed JSON, an unknown component type, a merge naming a token that is not in the
vocabulary, a vocabulary that is not token -> id.

The tokenizer's `algorithm` says which step-through view applies: "byte_bpe" for BPE behind a
ByteLevel pre-tokenizer, "bpe" for other BPE, "wordpiece", "unigram", "wordlevel".
"""

from __future__ import annotations

import json
from typing import Any

from .. import decoders, processors
from ..added_tokens import check_added_count
from ..errors import InvalidInput
from ..models.bpe.hf import hf_bpe_from_config
from ..models.bpe.model import gc_paused
from ..models.unigram.hf import HFUnigram
from ..models.wordlevel.model import WordLevel
from ..models.wordpiece.model import WordPiece
from ..normalizers import hf as normalizers
from ..pipeline import AddedToken, Tokenizer
from ..pre_tokenizers import hf as pre_tokenizers
from .hf_json_writer import dump_bytes, to_hf_json  # noqa: F401  (the writer: format's dump_bytes)

MODEL_TYPES = ("BPE", "WordPiece", "Unigram", "WordLevel")
# What a file may declare (checked before anything is built from it), far above real files:
# Llama 4 has 200,000 vocab entries and 439,802 merges, Gemma 3 262,144 entries, XLM-V 901,629.
MAX_VOCAB = 1_000_000
MAX_MERGES = 2_000_000


def load_bytes(data: bytes, *, name: str = "", **options: Any) -> Tokenizer:
    """A `Tokenizer` from the bytes of a tokenizer.json (UTF-8 JSON).

    >>> tok = load_bytes(b'{"model": {"type": "WordLevel", "vocab": {"hi": 0, "<unk>": 1}, '
    ...                  b'"unk_token": "<unk>"}}')
    >>> tok.encode("hi").ids, tok.algorithm
    ([0], 'wordlevel')
    """
    if options:
        raise InvalidInput(
            f"a tokenizer.json takes no options (got {', '.join(sorted(options))}): "
            "everything it needs is in the file"
        )
    with gc_paused:  # millions of small objects, none cyclic: the collector would only slow us
        return _load(data, name)


def _load(data: bytes, name: str) -> Tokenizer:
    return from_dict(parse_bytes(data), name=name)


def parse_bytes(data: bytes) -> Any:
    """A tokenizer.json's bytes parsed (InvalidInput saying what is wrong with them)."""
    try:
        config = json.loads(data)
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"the tokenizer.json is not UTF-8 text: {exc.reason} at byte {exc.start}"
        ) from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"the tokenizer.json is not valid JSON: {exc.msg} (line {exc.lineno}, "
            f"column {exc.colno})"
        ) from None
    except RecursionError:
        raise InvalidInput("the tokenizer.json is nested too deeply to read") from None
    return config


def from_dict(config: dict, *, name: str = "") -> Tokenizer:
    """A `Tokenizer` from a parsed tokenizer.json."""
    if not isinstance(config, dict):
        raise InvalidInput('a tokenizer.json must be a JSON object with a "model"')
    if not isinstance(config.get("model"), dict):
        raise InvalidInput('the tokenizer.json has no "model" object')
    _check_sizes(config)
    pre_cfg = config.get("pre_tokenizer")
    byte_level = _uses(pre_cfg, "ByteLevel")
    model = model_from_config(config["model"], byte_level=byte_level)
    normalizer = _component("normalizer", normalizers, config.get("normalizer"))
    pre_tokenizer = _component("pre_tokenizer", pre_tokenizers, pre_cfg)
    post_processor = _component("post_processor", processors, config.get("post_processor"))
    decoder = _component("decoder", decoders, config.get("decoder"))
    if decoder is None:
        decoder = SpaceJoin()
    added = config.get("added_tokens") or []
    if not isinstance(added, list):
        raise InvalidInput("added_tokens must be a list")
    added_tokens = [AddedToken.from_hf_config(entry) for entry in added]
    sections = {}
    for section in ("truncation", "padding"):
        value = config.get(section)
        if value is not None and not isinstance(value, dict):
            raise InvalidInput(f"{section} must be an object or null")
        sections[section] = value
    tok = Tokenizer(
        model,
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        post_processor=post_processor,
        decoder=decoder,
        name=name,
        algorithm=_algorithm(config["model"], byte_level),
        added_tokens=added_tokens,
        **sections,
    )
    tok.drops_unknown_ids = True  # Hugging Face's decode skips an id the vocabulary lacks
    return tok


def _check_sizes(config: dict) -> None:
    """ValueError naming the field when the file declares more entries than we read (the
    bounds above, and `added_tokens.MAX_ADDED_TOKENS`)."""
    model = config["model"]
    for field, limit in (("vocab", MAX_VOCAB), ("merges", MAX_MERGES)):
        value = model.get(field)
        if isinstance(value, (dict, list)) and len(value) > limit:
            raise InvalidInput(
                f"model {field} has {len(value):,} entries; the most a tokenizer "
                f"may have is {limit:,}"
            )
    added = config.get("added_tokens")
    if isinstance(added, list):
        check_added_count(len(added))


class SpaceJoin:
    """What Hugging Face does when a tokenizer.json has no decoder: join the tokens with spaces.

    >>> SpaceJoin().decode(["hello", "world", "!"])
    'hello world !'
    """

    def decode(self, tokens: list[str]) -> str:
        return " ".join(tokens)

    def describe(self) -> str:
        return "none (tokens joined with spaces, as Hugging Face does)"

    def to_hf_config(self) -> None:
        return None


def _component(section: str, module: Any, cfg: Any) -> Any:
    """Build one pipeline component with its module's `from_hf_config` (None for none)."""
    if cfg is None:
        return None
    if not isinstance(cfg, dict):
        raise InvalidInput(f"{section} must be an object or null")
    build = getattr(module, "from_hf_config", None)
    if build is None:
        raise InvalidInput(f"{section} {cfg.get('type')!r} is not supported yet")
    try:
        return build(cfg)
    except ValueError as exc:
        message = str(exc)
        raise InvalidInput(
            message if message.startswith(section) else f"{section}: {message}"
        ) from None


def _uses(cfg: Any, type_name: str) -> bool:
    """Whether a component config is, or contains (in a Sequence), one of type `type_name`."""
    if isinstance(cfg, dict):
        if cfg.get("type") == type_name:
            return True
        return any(_uses(v, type_name) for v in cfg.values() if isinstance(v, (dict, list)))
    if isinstance(cfg, list):
        return any(_uses(v, type_name) for v in cfg)
    return False


def _algorithm(model_cfg: dict, byte_level: bool) -> str:
    kind = _model_type(model_cfg)
    if kind == "BPE":
        return "byte_bpe" if byte_level else "bpe"
    return kind.lower()


# ---- models --------------------------------------------------------------------------------------
def _model_type(cfg: dict) -> str:
    """The model's "type"; without one, guessed from its fields as Hugging Face's untagged
    fallback does (merges: BPE; a list vocab: Unigram; max_input_chars_per_word: WordPiece)."""
    kind = cfg.get("type")
    if kind is None:
        if "merges" in cfg:
            return "BPE"
        if isinstance(cfg.get("vocab"), list):
            return "Unigram"
        if "max_input_chars_per_word" in cfg or "continuing_subword_prefix" in cfg:
            return "WordPiece"
        if isinstance(cfg.get("vocab"), dict):
            return "WordLevel"
        raise InvalidInput('model: no "type", and its fields fit no model we know')
    if kind not in MODEL_TYPES:
        raise InvalidInput(f"model: unknown type {kind!r}; supported: {', '.join(MODEL_TYPES)}")
    return kind


def model_from_config(cfg: dict, *, byte_level: bool = False) -> Any:
    """The model of a tokenizer.json's "model" section."""
    kind = _model_type(cfg)
    try:
        if kind == "BPE":
            return hf_bpe_from_config(
                _vocab(cfg),
                cfg.get("merges", []),
                unk_token=_opt_str(cfg, "unk_token"),
                continuing_subword_prefix=_opt_str(cfg, "continuing_subword_prefix"),
                end_of_word_suffix=_opt_str(cfg, "end_of_word_suffix"),
                fuse_unk=_flag(cfg, "fuse_unk"),
                byte_fallback=_flag(cfg, "byte_fallback"),
                ignore_merges=_flag(cfg, "ignore_merges"),
                dropout=cfg.get("dropout"),
                byte_level=byte_level,
            )
        if kind == "WordPiece":
            return WordPiece(
                _vocab(cfg),
                unk_token=_str(cfg, "unk_token", "[UNK]"),
                continuing_subword_prefix=_str(cfg, "continuing_subword_prefix", "##"),
                max_input_chars_per_word=_int(cfg, "max_input_chars_per_word", 100),
                special_tokens=(),
                require_unk=False,
            )
        if kind == "WordLevel":
            return WordLevel(_vocab(cfg), unk_token=_str(cfg, "unk_token", "<unk>"))
        return _unigram(cfg)
    except ValueError as exc:
        raise InvalidInput(f"model ({kind}): {exc}") from None


def _unigram(cfg: dict) -> HFUnigram:
    vocab = cfg.get("vocab")
    if not isinstance(vocab, list):
        raise InvalidInput("vocab must be a list of [piece, score] pairs")
    pieces = []
    for number, entry in enumerate(vocab):
        if (
            not isinstance(entry, list)
            or len(entry) != 2
            or not isinstance(entry[0], str)
            or isinstance(entry[1], bool)
            or not isinstance(entry[1], (int, float))
        ):
            raise InvalidInput(f"vocab entry {number} ({entry!r}) is not [piece, score]")
        pieces.append((entry[0], float(entry[1])))
    unk_id = cfg.get("unk_id")
    if unk_id is not None and (isinstance(unk_id, bool) or not isinstance(unk_id, int)):
        raise InvalidInput("unk_id must be an integer or null")
    return HFUnigram(pieces, unk_id=unk_id, byte_fallback=_flag(cfg, "byte_fallback"))


def _vocab(cfg: dict) -> dict[str, int]:
    vocab = cfg.get("vocab")
    if not isinstance(vocab, dict):
        raise InvalidInput("vocab must be an object mapping each token to its id")
    if not all(type(v) is int and v >= 0 for v in vocab.values()):
        bad = next(k for k, v in vocab.items() if type(v) is not int or v < 0)
        raise InvalidInput(f"the vocab gives {bad!r} the id {vocab[bad]!r}; ids are integers >= 0")
    return vocab


def _opt_str(cfg: dict, key: str) -> str | None:
    value = cfg.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"{key} must be a string or null")
    return value


def _str(cfg: dict, key: str, default: str) -> str:
    value = cfg.get(key, default)
    if not isinstance(value, str):
        raise InvalidInput(f"{key} must be a string")
    return value


def _int(cfg: dict, key: str, default: int) -> int:
    value = cfg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{key} must be a whole number >= 0")
    return value


def _flag(cfg: dict, key: str) -> bool:
    value = cfg.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InvalidInput(f"{key} must be true or false")
    return value
