"""The reader of a `tokenizer.json` "decoder" entry (`from_hf_config`)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInput
from ..hf_config import from_entry
from .bpe import BPEDecoder
from .byte_fallback import ByteFallback
from .byte_level import ByteLevel
from .ctc import CTC
from .fuse import Fuse
from .metaspace import Metaspace
from .replace import Replace
from .sequence import Sequence
from .strip import Strip
from .wordpiece import WordPiece


def _opt(config: dict[str, Any], key: str, default: Any, kind: type) -> Any:
    value = config.get(key, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidInput(
            f"{key} must be {'true or false' if kind is bool else kind.__name__}, not {value!r}"
        )
    return value


def _metaspace(config: dict[str, Any]) -> Metaspace:
    scheme = _opt(config, "prepend_scheme", "always", str)
    if config.get("add_prefix_space") is False and scheme != "never":
        raise InvalidInput("add_prefix_space does not match declared prepend_scheme")
    if "replacement" not in config:
        raise InvalidInput("it has no 'replacement'")
    return Metaspace(config["replacement"], scheme, _opt(config, "split", True, bool))


def _replace(config: dict[str, Any]) -> Replace:
    if "pattern" not in config or "content" not in config:
        raise InvalidInput("it needs a 'pattern' and a 'content'")
    from ..normalizers.hf import pattern_from_hf  # lazy: keeps `import tokenizers_core` light

    text, is_regex = pattern_from_hf(config["pattern"])
    return Replace(text, config["content"], is_regex=is_regex)


def _sequence(config: dict[str, Any]) -> Sequence:
    items = config.get("decoders")
    if not isinstance(items, list):
        raise InvalidInput("decoders must be a list")
    return Sequence([from_hf_config(item) for item in items])


_BUILDERS: dict[str, Any] = {
    "ByteLevel": lambda c: ByteLevel(
        _opt(c, "add_prefix_space", True, bool),
        _opt(c, "trim_offsets", True, bool),
        _opt(c, "use_regex", True, bool),
    ),
    "WordPiece": lambda c: WordPiece(_opt(c, "prefix", "##", str), _opt(c, "cleanup", True, bool)),
    "Metaspace": _metaspace,
    "BPEDecoder": lambda c: BPEDecoder(_opt(c, "suffix", "</w>", str)),
    "CTC": lambda c: CTC(
        _opt(c, "pad_token", "<pad>", str),
        _opt(c, "word_delimiter_token", "|", str),
        _opt(c, "cleanup", True, bool),
    ),
    "ByteFallback": lambda c: ByteFallback(),
    "Fuse": lambda c: Fuse(),
    "Strip": lambda c: Strip(
        _opt(c, "content", " ", str), _opt(c, "start", 0, int), _opt(c, "stop", 0, int)
    ),
    "Replace": _replace,
    "Sequence": _sequence,
}
SUPPORTED = list(_BUILDERS)


def from_hf_config(config: dict[str, Any] | None) -> Any:
    """The decoder a `tokenizer.json` "decoder" entry describes (None for null).

    >>> from_hf_config({"type": "Sequence", "decoders": [{"type": "ByteFallback"},
    ...                                                  {"type": "Fuse"}]})
    Sequence [ByteFallback, Fuse]

    An unknown type or a bad option raises `ValueError` naming the decoder.
    """
    return from_entry(config, "decoder", _BUILDERS)
