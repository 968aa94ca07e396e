"""The normalisers only Hugging Face `tokenizer.json` files use, and the reader of that JSON.

- `Precompiled`: sentencepiece's precompiled character map (T5, ALBERT, XLM-R, mBART ...), run
  as Hugging Face runs it, which is not quite as sentencepiece does (see the class);
- `Nmt`: sentencepiece's "nmt" cleaning of control characters and odd spaces;
- `ByteLevel`: every UTF-8 byte spelled as its GPT-2 byte-to-unicode character;
- `from_hf_config`: the normaliser a `tokenizer.json` "normalizer" entry describes.

Each keeps its configuration as attributes named as in the JSON, and `to_hf_config()` writes it
back as Hugging Face does.
`tokenizers_core.normalizers` re-exports all of this.

>>> Nmt().normalize_str("a\\x01b\\u200bc")
'ab c'
>>> ByteLevel().normalize(NormalizedString("é!")).alignments
[(0, 1), (0, 1), (1, 2)]
"""

from __future__ import annotations

import base64
import binascii
import functools
from dataclasses import dataclass, field
from typing import Any

import regex

from ..byte_level import to_byte_level
from ..errors import InvalidInput
from ..hf_config import from_entry
from ..hf_regex import compile_hf
from ..normalized import NormalizedString
from .aligned import (
    NormalizerBase,
    check_length,
    checked_input,
    max_length,
    same_length,
)
from .basic import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    BertNormalizer,
    Lowercase,
    Prepend,
    Replace,
    Sequence,
    Strip,
    StripAccents,
)
from .sentencepiece import PrecompiledCharsMap

__all__ = ["ByteLevel", "Nmt", "Precompiled", "from_hf_config", "hf_transform"]


def hf_transform(ns: NormalizedString, changes: list[tuple[str, int]]) -> NormalizedString:
    """Rewrite the whole text as Hugging Face's `NormalizedString::transform(changes, 0)` does.

    `changes` is the new text as `(character, change)`: change 0 replaces the next source
    character (taking its span), -k replaces it and removes the k after it, +1 inserts a
    character, which takes the span of the source character before it (an empty span at the
    very start). Source characters left over at the end are dropped.

    >>> hf_transform(NormalizedString("abc"), [("x", 0), ("y", 1), ("z", -1)]).alignments
    [(0, 1), (0, 1), (1, 2)]
    """
    source = ns.alignments
    start = ns.span(0, 0)[0]
    align: list[tuple[int, int]] = []
    pos = 0  # the next source character
    for _, change in changes:
        if change > 0:
            align.append(source[pos - 1] if pos > 0 else (start, start))
        else:
            align.append(source[pos])
            pos += 1 - change
    text = "".join(c for c, _ in changes)
    if text == ns.normalized and align == source:
        return ns
    return NormalizedString(ns.original, _normalized=text, _align=align, _shift=start)


# ---- Precompiled ------------------------------------------------------------------------------
_GRAPHEME = regex.compile(r"\X", regex.DOTALL)


@dataclass(frozen=True, eq=False)
class Precompiled(NormalizerBase):
    """sentencepiece's precompiled character map, applied as Hugging Face applies it
    (`normalizers/precompiled.rs`), which differs from sentencepiece's own longest-match scan:

    1. the text is cut into extended grapheme clusters;
    2. a cluster shorter than 6 UTF-8 bytes is looked up whole: if some rule's key is a prefix
       of it, the **shortest** such key's replacement replaces the **whole** cluster (so a rule
       for "ﬁ" also swallows a combining mark after it);
    3. otherwise each of its characters is looked up alone.

    The replacement's characters take their sources as Hugging Face's `transform` assigns them:
    one for one from the start of the cluster, extra characters from the last one, and a
    shorter replacement drops the cluster's last characters (an empty one removes the cluster by
    shortening the character before it).

    `precompiled_charsmap` is the raw blob (the JSON holds it in base64). Grapheme clusters come
    from the `regex` module's `\\X`, whose Unicode version may differ from Rust's
    `unicode-segmentation` for very recent characters.
    """

    precompiled_charsmap: bytes
    _map: PrecompiledCharsMap = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.precompiled_charsmap, (bytes, bytearray)):
            raise InvalidInput("Precompiled takes the charsmap as bytes")
        try:
            charsmap = PrecompiledCharsMap(bytes(self.precompiled_charsmap))
        except (ValueError, IndexError) as err:
            raise InvalidInput(f"Precompiled normalizer: {err}") from None
        object.__setattr__(self, "_map", charsmap)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Precompiled) and bytes(other.precompiled_charsmap) == bytes(
            self.precompiled_charsmap
        )

    def __hash__(self) -> int:
        return hash(bytes(self.precompiled_charsmap))

    def __getstate__(self) -> dict[str, Any]:
        return {"precompiled_charsmap": bytes(self.precompiled_charsmap)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "precompiled_charsmap", state["precompiled_charsmap"])
        self.__post_init__()

    def describe(self) -> str:
        return "Precompiled (sentencepiece charsmap)"

    def to_hf_config(self) -> dict[str, Any]:
        return {
            "type": "Precompiled",
            "precompiled_charsmap": base64.b64encode(bytes(self.precompiled_charsmap)).decode(
                "ascii"
            ),
        }

    def transform(self, chunk: str) -> str | None:
        """The replacement for the shortest rule whose key is a prefix of `chunk`, or None."""
        charsmap = self._map
        pos = charsmap._root
        for c in chunk:
            found = charsmap.step(pos, c)
            if found is None:
                return None
            pos, value = found
            if value >= 0:
                return charsmap.replacement(value)
        return None

    def _starts_rule(self, c: str) -> bool:
        return self._map.step(self._map._root, c) is not None

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = checked_input(ns).normalized
        chars = set(text)
        starters = {c for c in chars if self._starts_rule(c)}
        if not starters:
            return ns  # nothing the map could rewrite
        single = {c: self.transform(c) for c in starters}
        edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in order
        pos = 0
        # An uploaded charsmap may map a character to a long string: the length the edits
        # give is counted as they are found, and checked against the bound at each cluster
        # that grows the text (the replacements themselves are shared, not copied).
        length, limit = len(text), max_length(ns)
        for grapheme in _GRAPHEME.findall(text, concurrent=False):
            n = len(grapheme)
            found = len(edits)
            if n == 1:
                if grapheme in starters and (norm := single[grapheme]) is not None:
                    edits.append((pos, pos + 1, norm))
            else:
                norm = None
                if grapheme[0] in starters and len(grapheme.encode("utf-8", "surrogatepass")) < 6:
                    norm = self.transform(grapheme)  # the shortest rule, for the whole cluster
                if norm is not None:
                    edits.append((pos, pos + n, norm))
                else:
                    edits.extend(
                        (i, i + 1, one)
                        for i, c in enumerate(grapheme, pos)
                        if c in starters and (one := single[c]) is not None
                    )
            if len(edits) > found:
                length += sum(len(out) - (end - start) for start, end, out in edits[found:])
                if length > limit:
                    check_length(self, ns, length)
            pos += n
        if not edits:
            return ns
        if any(not norm for _, _, norm in edits):  # a deletion: Hugging Face's own bookkeeping
            return hf_transform(ns, _changes(text, edits))
        return _apply_replacements(ns, edits)


def _changes(text: str, edits: list[tuple[int, int, str]]) -> list[tuple[str, int]]:
    """The (character, change) list Hugging Face's precompiled.rs builds for these edits."""
    changes: list[tuple[str, int]] = []
    pos = 0
    for start, end, norm in edits:
        changes.extend((c, 0) for c in text[pos:start])
        _replace(changes, text[start:end], norm)
        pos = end
    changes.extend((c, 0) for c in text[pos:])
    return changes


def _apply_replacements(
    ns: NormalizedString, edits: list[tuple[int, int, str]]
) -> NormalizedString:
    """`hf_transform` of `_changes(...)` when no replacement is empty, without building the
    list: a replacement's characters take the replaced characters' spans one for one, extra
    ones the span of the last replaced character; a shorter one drops the rest."""
    text = ns.normalized
    source = ns.alignments
    parts: list[str] = []
    align: list[tuple[int, int]] = []
    pos = 0
    for start, end, norm in edits:
        parts.append(text[pos:start])
        align.extend(source[pos:start])
        old, new = end - start, len(norm)
        align.extend(source[start : start + min(old, new)])
        align.extend([source[end - 1]] * (new - old))  # nothing when new <= old
        parts.append(norm)
        pos = end
    parts.append(text[pos:])
    align.extend(source[pos:])
    return NormalizedString(
        ns.original, _normalized="".join(parts), _align=align, _shift=ns.span(0, 0)[0]
    )


def _replace(changes: list[tuple[str, int]], old: str, new: str) -> None:
    """Append `new` replacing `old` to `changes`, as `replace` in Hugging Face's precompiled.rs.

    >>> out = [("a", 0)]
    >>> _replace(out, "bc", ""); out          # shorter: the character before removes "bc"
    [('a', -2)]
    """
    diff = len(new) - len(old)
    changes.extend((c, 0) for c in new)
    if diff > 0:
        for i in range(len(changes) - diff, len(changes)):
            changes[i] = (changes[i][0], 1)
    elif diff < 0 and changes:
        c, change = changes[-1]
        changes[-1] = (c, change + diff)


# ---- Nmt and ByteLevel ---------------------------------------------------------------------------
_NMT_DROP = frozenset([*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F])
_NMT_SPACE = frozenset(
    [0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD]
)
_NMT_TABLE = {**{cp: None for cp in _NMT_DROP}, **{cp: " " for cp in _NMT_SPACE}}
_NMT_DROPPED = regex.compile("[" + "".join(f"\\U{cp:08X}" for cp in sorted(_NMT_DROP)) + "]")
_NMT_CANDIDATES = regex.compile("[" + "".join(f"\\U{cp:08X}" for cp in sorted(_NMT_TABLE)) + "]")


@dataclass(frozen=True)
class Nmt(NormalizerBase):
    """sentencepiece's "nmt" cleaning, as Hugging Face's `Nmt`: drop the ASCII control
    characters U+0001-U+0008, U+000B, U+000E-U+001F, U+007F, U+008F, U+009F; turn tab, newline,
    form feed, carriage return, U+1680, U+200B-U+200F, U+2028, U+2029, U+2581, U+FEFF and
    U+FFFD into a space. (NUL and U+000B's neighbours are as listed: NUL stays.)

    >>> Nmt().normalize(NormalizedString("a\\x01\\tb")).alignments
    [(0, 1), (2, 3), (3, 4)]
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = checked_input(ns).normalized
        if not _NMT_CANDIDATES.search(text, concurrent=False):
            return ns
        if not _NMT_DROPPED.search(text, concurrent=False):  # only spaces: one for one
            return same_length(ns, text.translate(_NMT_TABLE))
        kept = [(i, c) for i, c in enumerate(text) if ord(c) not in _NMT_DROP]
        source = ns.alignments
        start = ns.span(0, 0)[0]
        out = "".join(c for _, c in kept).translate(_NMT_TABLE)
        return NormalizedString(
            ns.original, _normalized=out, _align=[source[i] for i, _ in kept], _shift=start
        )


@dataclass(frozen=True)
class ByteLevel(NormalizerBase):
    """Spell every character as its UTF-8 bytes through GPT-2's byte-to-unicode table (the
    normaliser form of the `ByteLevel` pre-tokenizer); each byte character comes from its
    character.

    >>> ByteLevel().normalize_str("hé ")
    'hÃ©Ġ'
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        if not len(checked_input(ns)):
            return ns
        if not ns.normalized.isascii():  # 1 to 4 characters each
            check_length(self, ns, len(ns.normalized.encode("utf-8", "surrogatepass")))
        return to_byte_level(ns)


# ---- Hugging Face's tokenizer.json ------------------------------------------------------------
_SIMPLE = {
    "NFC": NFC,
    "NFD": NFD,
    "NFKC": NFKC,
    "NFKD": NFKD,
    "Lowercase": Lowercase,
    "StripAccents": StripAccents,
    "Nmt": Nmt,
    "ByteLevel": ByteLevel,
}
SUPPORTED = [*_SIMPLE, "Strip", "Replace", "BertNormalizer", "Prepend", "Precompiled", "Sequence"]


def _bool(config: dict[str, Any], key: str, default: Any) -> Any:
    value = config.get(key, default)
    if value is not None and not isinstance(value, bool):
        raise InvalidInput(f"{key} must be true or false, not {value!r}")
    return value


def _required(config: dict[str, Any], key: str) -> Any:
    if key not in config:
        raise InvalidInput(f"it has no {key!r}")
    return config[key]


def pattern_from_hf(pattern: Any) -> tuple[str, bool]:
    """A Hugging Face pattern object, `{"String": s}` or `{"Regex": r}`, as (text, is_regex)."""
    if (
        not isinstance(pattern, dict)
        or len(pattern) != 1
        or not ("String" in pattern or "Regex" in pattern)
    ):
        raise InvalidInput(
            f'pattern must be {{"String": ...}} or {{"Regex": ...}}, not {pattern!r}'
        )
    ((kind, text),) = pattern.items()
    if not isinstance(text, str):
        raise InvalidInput(f"the {kind} pattern must be a string, not {text!r}")
    return text, kind == "Regex"


def from_hf_config(config: dict[str, Any] | None) -> Any:
    """The normaliser described by a `tokenizer.json` "normalizer" entry (None for null).

    >>> from_hf_config({"type": "Sequence", "normalizers": [{"type": "NFD"},
    ...                 {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})
    Sequence(normalizers=(NFD(), Replace(pattern=' ', content='▁')))

    An unknown type or a bad option raises `ValueError` naming the normaliser.
    """
    return from_entry(config, "normalizer", _BUILDERS)


def _build(kind: str, config: dict[str, Any]) -> Any:
    """The normaliser of type `kind` (one of `SUPPORTED`) its entry describes."""
    if kind in _SIMPLE:
        return _SIMPLE[kind]()
    if kind == "Strip":
        return Strip(
            left=_bool(config, "strip_left", True), right=_bool(config, "strip_right", True)
        )
    if kind == "Replace":
        text, is_regex = pattern_from_hf(_required(config, "pattern"))
        content = _required(config, "content")
        if not isinstance(content, str):
            raise InvalidInput(f"content must be a string, not {content!r}")
        if is_regex:
            return Replace(compile_hf(text), content, source=text)
        return Replace(text, content)
    if kind == "BertNormalizer":
        return BertNormalizer(
            clean_text=_bool(config, "clean_text", True),
            handle_chinese_chars=_bool(config, "handle_chinese_chars", True),
            strip_accents=_bool(config, "strip_accents", None),
            lowercase=_bool(config, "lowercase", True),
        )
    if kind == "Prepend":
        prepend = _required(config, "prepend")
        if not isinstance(prepend, str):
            raise InvalidInput(f"prepend must be a string, not {prepend!r}")
        return Prepend(prepend)
    if kind == "Precompiled":
        blob = _required(config, "precompiled_charsmap")
        if not isinstance(blob, str):
            raise InvalidInput("precompiled_charsmap must be a base64 string")
        try:
            raw = base64.b64decode(blob, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput("precompiled_charsmap is not valid base64") from None
        return Precompiled(raw)
    items = _required(config, "normalizers")
    if not isinstance(items, list):
        raise InvalidInput("normalizers must be a list")
    return Sequence([from_hf_config(item) for item in items])


_BUILDERS = {kind: functools.partial(_build, kind) for kind in SUPPORTED}
