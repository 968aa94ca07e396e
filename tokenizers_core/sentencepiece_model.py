"""Reading sentencepiece `.model` files without protobuf, and sentencepiece's normaliser.

A `.model` file is a serialised `ModelProto` (sentencepiece's `sentencepiece_model.proto`): the
pieces with their scores and types, a `TrainerSpec` (model type, special pieces, byte fallback ...)
and a `NormalizerSpec` whose `precompiled_charsmap` holds the character normalisation (for example
`nmt_nfkc`) as a darts-clone double-array trie plus a blob of NUL-terminated replacement strings.
This module reads the protobuf wire format by hand (stdlib only), rebuilds that normaliser exactly
as sentencepiece's `normalizer.cc` runs it, and builds a `Tokenizer`:

    SentencePieceNormalizer  ->  (no pre-tokenizer)  ->  Unigram or SentencePieceBpe  ->  decoder

>>> _read_varint(b"\\x96\\x01", 0)
(150, 2)

What it does not handle: `WORD` and `CHAR` model types, the optional `denormalizer_spec` (applied by
sentencepiece after decoding; no bundled model has one) and big-endian charsmaps.
"""
from __future__ import annotations

import functools
import gzip
import heapq
import os
import re
import struct
import sys
import threading
import zlib
from array import array
from dataclasses import dataclass
from typing import Any

from .normalized import NormalizedString

# ---- the protobuf wire format ------------------------------------------------------------------

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Decode a base-128 varint at `pos`; return (value, next position)."""
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint is too long")


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """All fields of one protobuf message as (field number, wire type, raw value).

    Varints come back as ints, fixed32/fixed64 as their raw bytes, length-delimited fields as bytes.

    >>> _fields(b"\\x08\\x96\\x01\\x12\\x02hi")
    [(1, 0, 150), (2, 2, b'hi')]
    """
    out: list[tuple[int, int, Any]] = []
    pos = 0
    n = len(data)
    while pos < n:
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("field number 0 is invalid")
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 1:
            if pos + 8 > n:
                raise ValueError("truncated fixed64 field")
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            if pos + length > n:
                raise ValueError("truncated length-delimited field")
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            if pos + 4 > n:
                raise ValueError("truncated fixed32 field")
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _as_str(value: Any, what: str) -> str:
    if not isinstance(value, bytes):
        raise ValueError(f"{what} should be a string")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} is not valid UTF-8") from None


def _as_float(value: Any, what: str) -> float:
    if not isinstance(value, bytes) or len(value) != 4:
        raise ValueError(f"{what} should be a 32-bit float")
    return _FLOAT.unpack(value)[0]


def _as_int(value: Any, what: str) -> int:
    if not isinstance(value, int):
        raise ValueError(f"{what} should be an integer")
    if value >= 1 << 63:          # negative int32/int64 values are sign-extended to 64 bits
        value -= 1 << 64
    return value


# The TrainerSpec / NormalizerSpec fields this package uses: number -> (name, kind, default).
_TRAINER_FIELDS: dict[int, tuple[str, str, Any]] = {
    3: ("model_type", "int", 1), 4: ("vocab_size", "int", 8000),
    10: ("character_coverage", "float", 0.9995), 14: ("seed_sentencepiece_size", "int", 1000000),
    15: ("shrinking_factor", "float", 0.75), 17: ("num_sub_iterations", "int", 2),
    20: ("max_sentencepiece_length", "int", 16), 21: ("split_by_unicode_script", "bool", True),
    22: ("split_by_whitespace", "bool", True), 23: ("split_by_number", "bool", True),
    24: ("treat_whitespace_as_suffix", "bool", False), 25: ("split_digits", "bool", False),
    26: ("allow_whitespace_only_pieces", "bool", False), 35: ("byte_fallback", "bool", False),
    40: ("unk_id", "int", 0), 41: ("bos_id", "int", 1), 42: ("eos_id", "int", 2),
    43: ("pad_id", "int", -1), 44: ("unk_surface", "str", " \u2047 "),
    45: ("unk_piece", "str", "<unk>"), 46: ("bos_piece", "str", "<s>"),
    47: ("eos_piece", "str", "</s>"), 48: ("pad_piece", "str", "<pad>"),
}
_NORMALIZER_FIELDS: dict[int, tuple[str, str, Any]] = {
    1: ("name", "str", ""), 2: ("precompiled_charsmap", "bytes", b""),
    3: ("add_dummy_prefix", "bool", True), 4: ("remove_extra_whitespaces", "bool", True),
    5: ("escape_whitespaces", "bool", True), 6: ("normalization_rule_tsv", "str", ""),
}
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
PIECE_TYPES = {NORMAL: "normal", UNKNOWN: "unknown", CONTROL: "control",
               USER_DEFINED: "user_defined", UNUSED: "unused", BYTE: "byte"}


def _read_spec(data: bytes, table: dict[int, tuple[str, str, Any]], what: str) -> dict[str, Any]:
    spec = {name: default for name, _kind, default in table.values()}
    for number, _wire, value in _fields(data):
        if number not in table:
            continue
        name, kind, _default = table[number]
        label = f"{what}.{name}"
        if kind == "int":
            spec[name] = _as_int(value, label)
        elif kind == "bool":
            spec[name] = bool(_as_int(value, label))
        elif kind == "float":
            spec[name] = _as_float(value, label)
        elif kind == "str":
            spec[name] = _as_str(value, label)
        else:
            if not isinstance(value, bytes):
                raise ValueError(f"{label} should be bytes")
            spec[name] = value
    return spec


@dataclass
class ModelProto:
    """The parts of a sentencepiece ModelProto this package uses.

    `pieces` are (piece, score, type) in id order; `trainer_spec` and `normalizer_spec` are dicts
    keyed by the proto field names (missing fields hold the proto defaults).
    """

    pieces: list[tuple[str, float, int]]
    trainer_spec: dict[str, Any]
    normalizer_spec: dict[str, Any]
    denormalizer_spec: dict[str, Any] | None = None

    @property
    def model_type(self) -> str:
        return MODEL_TYPES.get(self.trainer_spec["model_type"], "unknown")


def parse_model_proto(data: bytes) -> ModelProto:
    """Parse the bytes of a `.model` file. Raises ValueError if it is not a sentencepiece model.

    Checks what sentencepiece's `ModelInterface::InitializePieces` checks: pieces exist, none is
    empty or defined twice, exactly one `<unk>`, and 256 byte pieces when byte fallback is on.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError("a sentencepiece model must be given as bytes")
    data = bytes(data)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:   # BadGzipFile is an OSError
            raise ValueError(f"the model file is not valid gzip ({exc})") from None
    try:
        top = _fields(data)
        pieces: list[tuple[str, float, int]] = []
        trainer = _read_spec(b"", _TRAINER_FIELDS, "trainer_spec")
        normalizer = _read_spec(b"", _NORMALIZER_FIELDS, "normalizer_spec")
        denormalizer = None
        for number, wire, value in top:
            if number == 1 and wire == 2:
                piece, score, ptype = None, 0.0, NORMAL
                for n2, _w2, v2 in _fields(value):
                    if n2 == 1:
                        piece = _as_str(v2, "piece")
                    elif n2 == 2:
                        score = _as_float(v2, "piece score")
                    elif n2 == 3:
                        ptype = _as_int(v2, "piece type")
                if piece is None:
                    raise ValueError("a piece has no text")
                pieces.append((piece, score, ptype))
            elif number == 2 and wire == 2:
                trainer = _read_spec(value, _TRAINER_FIELDS, "trainer_spec")
            elif number == 3 and wire == 2:
                normalizer = _read_spec(value, _NORMALIZER_FIELDS, "normalizer_spec")
            elif number == 5 and wire == 2:
                denormalizer = _read_spec(value, _NORMALIZER_FIELDS, "denormalizer_spec")
            elif number in (1, 2, 3, 4, 5):
                raise ValueError(f"field {number} has the wrong wire type")
    except ValueError as exc:
        raise ValueError(f"not a sentencepiece model file: {exc}") from None
    _check_pieces(pieces, trainer)
    return ModelProto(pieces, trainer, normalizer, denormalizer)


def _check_pieces(pieces: list[tuple[str, float, int]], trainer: dict[str, Any]) -> None:
    if not pieces:
        raise ValueError("not a sentencepiece model file: it has no pieces")
    seen: dict[tuple[bool, str], int] = {}
    unk = [i for i, (_p, _s, t) in enumerate(pieces) if t == UNKNOWN]
    for i, (piece, _score, ptype) in enumerate(pieces):
        if ptype not in PIECE_TYPES:
            raise ValueError(f"not a sentencepiece model file: piece {i} has unknown type {ptype}")
        if not piece:
            raise ValueError(f"not a sentencepiece model file: piece {i} is empty")
        key = (ptype in (NORMAL, USER_DEFINED, UNUSED), piece)
        if key in seen:
            raise ValueError(f"not a valid sentencepiece model: piece {piece!r} is defined twice")
        seen[key] = i
        if ptype == BYTE and piece_to_byte(piece) < 0:
            raise ValueError(f"not a valid sentencepiece model: byte piece {piece!r} is invalid")
    if len(unk) != 1:
        raise ValueError("not a valid sentencepiece model: it needs exactly one <unk> piece, "
                         f"found {len(unk)}")
    byte_pieces = {piece_to_byte(p) for p, _s, t in pieces if t == BYTE}
    if byte_pieces and not trainer["byte_fallback"]:
        raise ValueError("not a valid sentencepiece model: byte pieces without byte_fallback")
    if trainer["byte_fallback"] and len(byte_pieces) != 256:
        raise ValueError("not a valid sentencepiece model: byte_fallback needs 256 byte pieces")


_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def piece_to_byte(piece: str) -> int:
    """`<0xE3>` -> 227; -1 for anything else (as sentencepiece's PieceToByte).

    >>> piece_to_byte("<0xE3>"), piece_to_byte("e")
    (227, -1)
    """
    m = _BYTE_PIECE.fullmatch(piece)
    return int(m.group(1), 16) if m else -1


def byte_to_piece(b: int) -> str:
    """227 -> `<0xE3>`."""
    return f"<0x{b:02X}>"


# ---- the precompiled character map (darts-clone double array) ------------------------------------
_MISSING: Any = object()


class PrecompiledCharsMap:
    """sentencepiece's precompiled normalisation map: longest-match rewriting of the input.

    The blob is `<uint32 trie size><double-array trie units><replacement strings, NUL-separated>`.
    Each trie key is a UTF-8 string (one or more characters) and its value is the byte offset of
    its replacement in the string area. `normalize_prefix(text, i)` finds the longest key that is
    a prefix of `text[i:]`, as darts-clone's `commonPrefixSearch` does byte by byte.
    """

    def __init__(self, blob: bytes) -> None:
        if len(blob) <= 4:
            raise ValueError("the precompiled charsmap is broken (too short)")
        trie_size = struct.unpack("<I", blob[:4])[0]
        if trie_size >= len(blob) or trie_size % 4:
            raise ValueError("the precompiled charsmap is broken (bad trie size)")
        units = array("I")
        if units.itemsize != 4:       # pragma: no cover - exotic platforms
            units = array("L")
        units.frombytes(blob[4:4 + trie_size])
        if sys.byteorder != "little":  # pragma: no cover
            units.byteswap()
        self._units = units
        self._strings = blob[4 + trie_size:]
        self._root = self._offset(units[0]) if units else 0
        self._replacement: dict[int, str] = {}
        # trie position -> {char: (position after the char's bytes, value or -1) or None}
        self._steps: dict[int, dict[str, tuple[int, int] | None]] = {}

    @staticmethod
    def _offset(unit: int) -> int:
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    def _step(self, pos: int, char: str) -> tuple[int, int] | None:
        """Walk the bytes of `char` from trie position `pos`.

        Returns (new position, value) where value is the replacement offset when a key ends
        exactly after this character (-1 otherwise), or None when no key continues this way.
        """
        units = self._units
        n = len(units)
        value = -1
        for b in char.encode("utf-8", "surrogatepass"):
            pos ^= b
            if pos >= n:
                return None
            unit = units[pos]
            if unit & 0x800000FF != b:        # label check (leaf units never match)
                return None
            pos ^= self._offset(unit)
            value = units[pos] & 0x7FFFFFFF if (unit >> 8) & 1 else -1
        return pos, value

    def replacement(self, value: int) -> str:
        out = self._replacement.get(value)
        if out is None:
            end = self._strings.find(b"\x00", value)
            raw = self._strings[value:] if end < 0 else self._strings[value:end]
            out = raw.decode("utf-8", "replace")
            self._replacement[value] = out
        return out

    def step(self, pos: int, char: str) -> tuple[int, int] | None:
        """`_step`, remembered per (trie position, character)."""
        table = self._steps.get(pos)
        if table is None:
            table = self._steps[pos] = {}
        out = table.get(char, _MISSING)
        if out is _MISSING:
            out = table[char] = self._step(pos, char)
        return out

    def may_rewrite(self, text: str, i: int) -> bool:
        """Could a rule start at text[i]? False for the common case of a character that starts no
        key, or starts only longer keys the next character does not continue."""
        st = self.step(self._root, text[i])
        if st is None:
            return False
        if st[1] >= 0:
            return True
        return i + 1 < len(text) and self.step(st[0], text[i + 1]) is not None

    def longest_match(self, text: str, i: int) -> tuple[int, int]:
        """The longest key at `text[i:]`: (end position in characters, value), or (i, -1)."""
        first = self.step(self._root, text[i])
        if first is None:
            return i, -1
        pos, value = first
        best_end, best_value = (i + 1, value) if value >= 0 else (i, -1)
        j = i + 1
        n = len(text)
        while j < n:
            nxt = self.step(pos, text[j])
            if nxt is None:
                break
            pos, value = nxt
            j += 1
            if value >= 0:
                best_end, best_value = j, value
        return best_end, best_value

    def normalize_prefix(self, text: str, i: int) -> tuple[str, int]:
        """(replacement, end): the normalised form of the longest rule at `i`, or the character
        itself when no rule applies."""
        end, value = self.longest_match(text, i)
        if value < 0:
            return text[i], i + 1
        return self.replacement(value), end


# ---- the normaliser ------------------------------------------------------------------------------

SPACE_SYMBOL = "\u2581"


class SentencePieceNormalizer:
    """sentencepiece's `Normalizer::Normalize` on a `NormalizedString`, alignment kept.

    In order: drop leading whitespace, add the dummy prefix "▁", rewrite the text with the
    precompiled map (longest match first; user-defined symbols pass through unchanged), turn each
    space into "▁", squeeze runs of spaces into one, drop trailing whitespace.

    >>> n = SentencePieceNormalizer(None)
    >>> n.normalize(NormalizedString("  Hello   world ")).normalized
    '▁Hello▁world'
    """

    def __init__(self, charsmap: PrecompiledCharsMap | None, *, add_dummy_prefix: bool = True,
                 remove_extra_whitespaces: bool = True, escape_whitespaces: bool = True,
                 treat_whitespace_as_suffix: bool = False, user_defined: tuple[str, ...] = (),
                 name: str = "") -> None:
        self.charsmap = charsmap
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix
        self.name = name
        # caches for the fast path (see _trigger_pattern)
        self._kinds: dict[str, int] = {}
        self._starters: set[str] = set()
        self._conts: set[str] = set()
        self._lock = threading.Lock()
        self._pattern: re.Pattern[str] | None = None
        self._user: dict[str, list[str]] = {}
        for sym in sorted(set(user_defined), key=len, reverse=True):
            self._user.setdefault(sym[0], []).append(sym)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its lock and fast-path caches (rebuilt on first use)."""
        state = dict(self.__dict__)
        state.update(_lock=None, _kinds={}, _starters=set(), _conts=set(), _pattern=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"SentencePiece({self.name or 'identity'})"

    def _prefix(self, text: str, i: int) -> tuple[str, int]:
        """`NormalizePrefix`: (normalised piece, end) for the text at position i."""
        if self._user:
            for sym in self._user.get(text[i], ()):
                if text.startswith(sym, i):
                    return sym, i + len(sym)
        if self.charsmap is None:
            return text[i], i + 1
        return self.charsmap.normalize_prefix(text, i)

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        segments = self._segments(ns.normalized)
        if not segments:
            return ns
        return ns.transform(segments)

    def normalize_str(self, text: str) -> str:
        """Just the normalised text (no alignment kept: the fast path for training)."""
        return "".join(out for _s, _e, out in self._segments(text))

    def _segments(self, text: str) -> list[tuple[int, int, str]]:
        """The rewrite as (start, end, output) segments covering `text` in order."""
        n = len(text)
        space = SPACE_SYMBOL if self.escape_whitespaces else " "
        segments: list[list[Any]] = []           # [start, end, output]
        i = 0
        if self.remove_extra_whitespaces:        # drop leading whitespace
            while i < n:
                out, j = self._prefix(text, i)
                if out != " ":
                    break
                segments.append([i, j, ""])
                i = j
        if i == n:
            return [(s, e, o) for s, e, o in segments]
        first_out = len(segments)
        is_prev_space = self.remove_extra_whitespaces
        trigger = self._trigger_pattern(text)
        squeeze = self.remove_extra_whitespaces
        while i < n:
            # copy the run of characters no rule can touch, up to the next possible rewrite;
            # single spaces in it become ▁ (a space right after a space takes the slow path)
            if is_prev_space and text[i] == " ":
                k = i
            else:
                m = trigger.search(text, i)
                k = m.start() if m else n
            if k > i:
                run = text[i:k]
                segments.append([i, k, run.replace(" ", SPACE_SYMBOL)
                                 if self.escape_whitespaces else run])
                is_prev_space = squeeze and run[-1] == " "
                i = k
                if i == n:
                    break
            out, j = self._prefix(text, i)
            if is_prev_space:                    # squeeze runs of spaces into one
                out = out.lstrip(" ")
            if out:
                is_prev_space = out.endswith(" ")
                if self.escape_whitespaces:
                    out = out.replace(" ", SPACE_SYMBOL)
            if not self.remove_extra_whitespaces:
                is_prev_space = False
            segments.append([i, j, out])
            i = j
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            # the dummy prefix takes no source characters: an empty span where the text starts
            start = segments[first_out][0]
            segments.insert(first_out, [start, start, space])
        if self.remove_extra_whitespaces:        # drop trailing whitespace
            for k in range(len(segments) - 1, first_out - 1, -1):
                start, end, out = segments[k]
                stripped = out.rstrip(space)
                if stripped != out and len(out) == end - start and stripped:
                    # a character-for-character run: cut it, so the rest keeps its alignment
                    cut = end - (len(out) - len(stripped))
                    segments[k] = [start, cut, stripped]
                    segments.insert(k + 1, [cut, end, ""])
                else:
                    segments[k][2] = stripped
                if stripped:
                    break
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            last = next((k for k in range(len(segments) - 1, first_out - 1, -1)
                         if segments[k][2]), len(segments) - 1)
            end = segments[last][1]
            segments.insert(last + 1, [end, end, space])
        return [(s, e, o) for s, e, o in segments]

    def _trigger_pattern(self, text: str) -> "re.Pattern[str]":
        """A regex finding every place where a rule might start, over all characters seen so
        far: characters a rule rewrites (class 1; a space only when another follows), and
        characters that only start longer rules (class 2) when followed by a character some
        such rule continues with. It may find a few places where no rule applies (the slow
        path then copies the character); it never misses one."""
        new = set(text).difference(self._kinds)
        if not new and self._pattern is not None:
            return self._pattern
        with self._lock:                     # one thread updates the caches at a time
            return self._update_pattern(new)

    def _update_pattern(self, new: set[str]) -> "re.Pattern[str]":
        new = new.difference(self._kinds)
        cm = self.charsmap
        changed = self._pattern is None
        new_starters = []
        for c in new:
            kind = self._classify(c)
            self._kinds[c] = kind
            if kind == 1:
                changed = True
            elif kind == 2:
                new_starters.append(c)
                self._starters.add(c)
        if cm is not None:
            states = [cm.step(cm._root, c)[0] for c in self._starters]
            new_states = [cm.step(cm._root, c)[0] for c in new_starters]
            # a known character may continue a new starter; a new character an old one
            for d in list(self._kinds) if new_starters else new:
                if d in self._conts:
                    continue
                pool = states if d in new else new_states
                if any(cm.step(st, d) is not None for st in pool):
                    self._conts.add(d)
                    changed = True
            if new_starters:
                changed = True
        if changed:
            ones = sorted(c for c, k in self._kinds.items() if k == 1 and c != " ")
            parts = ["  "]                 # a run of spaces (a single space is copied as ▁)
            if ones:
                parts.append("[" + "".join(re.escape(c) for c in ones) + "]")
            if self._starters and self._conts:
                parts.append("[" + "".join(re.escape(c) for c in sorted(self._starters)) + "]"
                             "(?=[" + "".join(re.escape(c) for c in sorted(self._conts)) + "])")
            self._pattern = re.compile("|".join(parts))
        return self._pattern  # type: ignore[return-value]

    def _classify(self, c: str) -> int:
        """0: no rule starts with c; 1: a rule may rewrite c itself (or c is a space or starts
        a user-defined symbol); 2: only rules of two or more characters start with c."""
        if c == " " or c in self._user:
            return 1
        cm = self.charsmap
        if cm is None:
            return 0
        st = cm.step(cm._root, c)
        if st is None:
            return 0
        return 1 if st[1] >= 0 else 2

    def _touches(self, text: str, i: int) -> bool:
        """Could a rule (or a user-defined symbol) start at text[i]?"""
        if self._user and text[i] in self._user:
            return True
        return self.charsmap is not None and self.charsmap.may_rewrite(text, i)


# ---- sentencepiece's BPE model (encoding by piece scores) ---------------------------------------

class SentencePieceBpe:
    """sentencepiece's BPE encoder (`bpe_model.cc`): merge the adjacent pair whose merged piece
    has the highest score, leftmost first among equal scores, until no merge is in the vocabulary.

    >>> m = SentencePieceBpe([("<unk>", 0.0, UNKNOWN), ("a", -2.0, NORMAL), ("b", -3.0, NORMAL),
    ...                       ("ab", -1.0, NORMAL)])
    >>> [t for t, *_ in m.tokenize("abab")]
    ['ab', 'ab']

    Characters outside the vocabulary become `<unk>` (consecutive ones merged into one token), or
    `<0xNN>` byte pieces when the model has byte fallback.
    """

    def __init__(self, pieces: list[tuple[str, float, int]], *, byte_fallback: bool = False) -> None:
        self._pieces = list(pieces)
        self.vocab = {p: i for i, (p, _s, _t) in enumerate(pieces)}
        self._normal: dict[str, int] = {}
        for i, (p, _s, t) in enumerate(pieces):
            if t in (NORMAL, USER_DEFINED, UNUSED):
                self._normal.setdefault(p, i)
        self._reserved = {p: i for i, (p, _s, t) in enumerate(pieces)
                          if t not in (NORMAL, USER_DEFINED, UNUSED)}
        self.types = [t for _p, _s, t in pieces]
        self.scores = [s for _p, s, _t in pieces]
        self.unk_id = next(i for i, t in enumerate(self.types) if t == UNKNOWN)
        self.byte_fallback = byte_fallback
        self.special_tokens = frozenset(p for p, _s, t in pieces if t == CONTROL)
        self._user = sorted((p for p, _s, t in pieces if t == USER_DEFINED), key=len, reverse=True)
        self._merges: list[tuple[str, str]] | None = None

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """[(piece, score), ...] in id order."""
        return [(p, s) for p, s, _t in self._pieces]

    def describe(self) -> str:
        return f"SentencePiece BPE ({len(self._pieces)} pieces)"

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in learned order, recovered from the pieces: each multi-character normal
        piece (in score order, which is the order BPE learned them) is the merge of the two
        symbols the encoder reaches when it may use only the pieces learned before it.

        >>> SentencePieceBpe([("<unk>", 0.0, UNKNOWN), ("a", -2.0, NORMAL), ("b", -3.0, NORMAL),
        ...                   ("ab", -1.0, NORMAL), ("abb", -1.5, NORMAL)]).merges
        [('a', 'b'), ('ab', 'b')]
        """
        if self._merges is None:
            learned = {p: i for i, (p, _s, t) in enumerate(self._pieces)
                       if t != NORMAL or len(p) == 1}
            order = sorted((i for i, (p, _s, t) in enumerate(self._pieces)
                            if t == NORMAL and len(p) > 1), key=lambda i: (-self.scores[i], i))
            out = []
            for i in order:
                piece = self._pieces[i][0]
                spans = self.encode_spans(piece, vocabulary=learned)
                if len(spans) == 2:
                    (s0, e0), (s1, e1) = spans
                    out.append((piece[s0:e0], piece[s1:e1]))
                learned[piece] = i
            self._merges = out
        return list(self._merges)

    @merges.setter
    def merges(self, merges: list[tuple[str, str]]) -> None:
        """A trainer that knows its merges (in learned order) may set them."""
        self._merges = [tuple(m) for m in merges]  # type: ignore[misc]

    def get_vocab_size(self) -> int:
        return len(self._pieces)

    def id_to_token(self, id: int) -> str | None:
        return self._pieces[id][0] if 0 <= id < len(self._pieces) else None

    def token_to_id(self, token: str) -> int | None:
        if token in self._reserved:
            return self._reserved[token]
        return self._normal.get(token)

    def _piece_id(self, piece: str) -> int:
        """sentencepiece's PieceToId: reserved pieces first, then normal ones, else <unk>."""
        if piece in self._reserved:
            return self._reserved[piece]
        return self._normal.get(piece, self.unk_id)

    def _initial_symbols(self, text: str) -> list[tuple[int, int, bool]]:
        """Split into characters, keeping user-defined symbols whole (and frozen)."""
        out = []
        i = 0
        n = len(text)
        while i < n:
            for sym in self._user:
                if text.startswith(sym, i):
                    out.append((i, i + len(sym), True))
                    i += len(sym)
                    break
            else:
                out.append((i, i + 1, False))
                i += 1
        return out

    def encode_spans(self, text: str, *, vocabulary: dict[str, int] | None = None
                     ) -> list[tuple[int, int]]:
        """The merged symbols as (start, end) character spans of `text` (merging only into
        pieces of `vocabulary`, by default the model's)."""
        symbols = self._initial_symbols(text)
        n = len(symbols)
        start = [s for s, _e, _f in symbols]
        end = [e for _s, e, _f in symbols]
        frozen = [f for _s, _e, f in symbols]
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        if n:
            nxt[-1] = -1
        alive = [True] * n
        normal = self._normal if vocabulary is None else vocabulary
        scores = self.scores
        agenda: list[tuple[float, int, int, int]] = []

        def add_pair(left: int, right: int) -> None:
            if left == -1 or right == -1 or frozen[left] or frozen[right]:
                return
            pid = normal.get(text[start[left]:end[right]])
            if pid is None:
                return
            # highest score first; among equal scores the leftmost pair
            heapq.heappush(agenda, (-scores[pid], left, right, end[right] - start[left]))

        for k in range(1, n):
            add_pair(k - 1, k)
        while agenda:
            _neg, left, right, size = heapq.heappop(agenda)
            if not alive[left] or not alive[right] or end[right] - start[left] != size \
                    or nxt[left] != right:
                continue
            end[left] = end[right]          # merge right into left
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            add_pair(prev[left], left)
            add_pair(left, nxt[left])
        return [(start[k], end[k]) for k in range(n) if alive[k]]

    def tokenize(self, text: str) -> list[tuple[str, int, int, int]]:
        spans = self.encode_spans(text)
        return finish_tokens(text, [(s, e, self._piece_id(text[s:e])) for s, e in spans],
                             self.unk_id, self.byte_fallback, self._piece_id)


def finish_tokens(text: str, spans: list[tuple[int, int, int]], unk_id: int, byte_fallback: bool,
                  piece_id: Any) -> list[tuple[str, int, int, int]]:
    """As sentencepiece's PopulateSentencePieceText: an unknown piece becomes its UTF-8 bytes
    (`<0xE3>` ...) under byte fallback; otherwise consecutive unknown pieces merge into one.

    Positions are characters of `text`; each byte piece carries the span of its character.
    """
    out: list[tuple[str, int, int, int]] = []
    prev_unk = False
    for s, e, pid in spans:
        is_unk = pid == unk_id
        if is_unk and byte_fallback:
            for c_pos in range(s, e):
                for b in text[c_pos].encode("utf-8", "surrogatepass"):
                    piece = byte_to_piece(b)
                    out.append((piece, piece_id(piece), c_pos, c_pos + 1))
        elif is_unk and prev_unk:
            piece, pid0, s0, _e0 = out[-1]
            out[-1] = (piece + text[s:e], pid0, s0, e)
        else:
            out.append((text[s:e], pid, s, e))
        prev_unk = is_unk
    return out


# ---- building a Tokenizer from a ModelProto --------------------------------------------------------

def normalizer_from_proto(proto: ModelProto) -> SentencePieceNormalizer:
    spec = proto.normalizer_spec
    blob = spec["precompiled_charsmap"]
    charsmap = PrecompiledCharsMap(blob) if blob else None
    user = tuple(p for p, _s, t in proto.pieces if t == USER_DEFINED)
    return SentencePieceNormalizer(
        charsmap, add_dummy_prefix=spec["add_dummy_prefix"],
        remove_extra_whitespaces=spec["remove_extra_whitespaces"],
        escape_whitespaces=spec["escape_whitespaces"],
        treat_whitespace_as_suffix=proto.trainer_spec["treat_whitespace_as_suffix"],
        user_defined=user, name=spec["name"] or ("custom" if blob else "identity"))


def decoder_from_proto(proto: ModelProto) -> Any:
    from .decoders import SentencePieceDecoder
    spec = proto.normalizer_spec
    unk = next(p for p, _s, t in proto.pieces if t == UNKNOWN)
    return SentencePieceDecoder(
        unk_piece=unk, unk_surface=proto.trainer_spec["unk_surface"],
        strip_leading_space=spec["add_dummy_prefix"] or spec["remove_extra_whitespaces"],
        remove_extra_whitespaces=spec["remove_extra_whitespaces"],
        byte_fallback=proto.trainer_spec["byte_fallback"])


def tokenizer_from_proto(proto: ModelProto, name: str = "") -> Any:
    """A `Tokenizer` that encodes exactly as sentencepiece does with this model."""
    from .models.unigram import Unigram
    from .pipeline import Tokenizer
    kind = proto.model_type
    if kind == "unigram":
        model: Any = Unigram([(p, s) for p, s, _t in proto.pieces],
                             types=[t for _p, _s, t in proto.pieces],
                             byte_fallback=proto.trainer_spec["byte_fallback"])
        algorithm = "unigram"
    elif kind == "bpe":
        model = SentencePieceBpe(proto.pieces, byte_fallback=proto.trainer_spec["byte_fallback"])
        algorithm = "sentencepiece_bpe"
    else:
        raise ValueError(f"sentencepiece {kind!r} models are not supported (only unigram and bpe)")
    tok = Tokenizer(model, normalizer=normalizer_from_proto(proto), pre_tokenizer=None,
                    decoder=decoder_from_proto(proto), name=name, algorithm=algorithm)
    tok.proto = proto                  # type: ignore[attr-defined]
    return tok


def load_bytes(data: bytes, name: str = "") -> Any:
    """A `Tokenizer` from the bytes of a `.model` file (gzip-compressed is fine)."""
    return tokenizer_from_proto(parse_model_proto(data), name=name)


def load_sentencepiece(path: str) -> Any:
    """`tokenizers_core.load("x.model")`: read a sentencepiece model file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ValueError(f"cannot read {path!r}: {exc.strerror}") from None
    try:
        return load_bytes(data, name=os.path.basename(path))
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


_DATA = os.path.join(os.path.dirname(__file__), "data")


def _bundled(filename: str, name: str) -> Any:
    with gzip.open(os.path.join(_DATA, filename), "rb") as fh:
        return load_bytes(fh.read(), name=name)


def botchan_en_unigram_1000() -> Any:
    """sentencepiece's own test model: Unigram, 1,000 pieces, trained on Botchan."""
    return _bundled("botchan_en_unigram_1000.model.gz", "botchan_en_unigram_1000")


def botchan_en_bpe_1000() -> Any:
    """sentencepiece's own test model: BPE, 1,000 pieces, trained on Botchan."""
    return _bundled("botchan_en_bpe_1000.model.gz", "botchan_en_bpe_1000")


def nmt_nfkc_charsmap() -> PrecompiledCharsMap:
    """The `nmt_nfkc` map of the bundled BPE model (used by trained Unigram models)."""
    proto = _bundled_proto("botchan_en_bpe_1000.model.gz")
    return PrecompiledCharsMap(proto.normalizer_spec["precompiled_charsmap"])


@functools.lru_cache(maxsize=None)
def _bundled_proto(filename: str) -> ModelProto:
    with gzip.open(os.path.join(_DATA, filename), "rb") as fh:
        return parse_model_proto(fh.read())
