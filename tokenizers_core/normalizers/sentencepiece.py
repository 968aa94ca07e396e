"""sentencepiece's normaliser (`Normalizer::Normalize`): its precompiled character map, the dummy
prefix and whitespace handling, with alignment kept so offsets stay characters of the input."""

from __future__ import annotations

import functools
import gzip
import re
import struct
import sys
import threading
import unicodedata
from array import array
from pathlib import Path
from typing import Any, Iterable

from ..errors import InvalidInput
from ..normalized import NormalizedString
from .aligned import FLOOR, GROWTH, check_length

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
            raise InvalidInput("the precompiled charsmap is broken (too short)")
        self.blob = bytes(blob)  # kept as read, for writers (.model, tokenizer.json)
        trie_size = struct.unpack("<I", blob[:4])[0]
        if trie_size >= len(blob) or trie_size % 4:
            raise InvalidInput("the precompiled charsmap is broken (bad trie size)")
        units = array("I")
        if units.itemsize != 4:  # pragma: no cover - exotic platforms
            units = array("L")
        units.frombytes(blob[4 : 4 + trie_size])
        if sys.byteorder != "little":  # pragma: no cover
            units.byteswap()
        self._units = units
        self._strings = blob[4 + trie_size :]
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
            if unit & 0x800000FF != b:  # label check (leaf units never match)
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


class NfkcCaseFoldRules:
    """sentencepiece's `nfkc_cf` rule (NFKC, then case folding), computed with Python's
    `unicodedata` instead of a precompiled map, behind the map's interface (`step`, `replacement`,
    `normalize_prefix`, `may_rewrite`), so `SentencePieceNormalizer` runs it the same way.

    A key is one character, or a character and the combining marks after it (so "e" + U+0301
    becomes "é"); its replacement is NFKC, simple case folding (one character for one: "ß" and
    "İ" stay), NFKC again. Measured against sentencepiece 0.2.3's own `nfkc_cf` on every
    assigned code point between two letters: all agree but U+0344.

    >>> NfkcCaseFoldRules().normalize_prefix("ＡBC", 0)
    ('a', 1)
    """

    _root = ""
    name = "nfkc_cf"

    def __init__(self) -> None:
        self._replacements: list[str] = []
        self._values: dict[str, int] = {}

    @property
    def blob(self) -> bytes:
        raise InvalidInput(
            "the nfkc_cf rule has no precompiled character map here, so a model "
            "trained with it cannot be saved to a sentencepiece file; train with "
            "normalization='nmt_nfkc' or 'identity' to save one"
        )

    @staticmethod
    def rule(text: str) -> str:
        """NFKC, simple case folding, NFKC.

        >>> NfkcCaseFoldRules.rule("Straße ﬁ Ⅻ")
        'straße fi xii'
        """
        folded = "".join(_simple_fold(c) for c in unicodedata.normalize("NFKC", text))
        return unicodedata.normalize("NFKC", folded)

    def _value(self, key: str) -> int:
        value = self._values.get(key)
        if value is None:
            out = self.rule(key)
            value = -1 if out == key else len(self._replacements)
            if value >= 0:
                self._replacements.append(out)
            self._values[key] = value
        return value

    def step(self, pos: str, char: str) -> tuple[str, int] | None:
        """From a key prefix `pos` ("" at the root), one character on: (new prefix, value of
        the key it spells or -1), or None when no key goes on that way (a character that
        neither changes nor composes with what follows starts none)."""
        if not pos:
            value = self._value(char)
            if value < 0 and char not in _composing_starters():
                return None
            return char, value
        if len(pos) >= 8 or not (unicodedata.combining(char) or _hangul_tail(char)):
            return None
        key = pos + char
        return key, self._value(key)

    def replacement(self, value: int) -> str:
        return self._replacements[value]

    def longest_match(self, text: str, i: int) -> tuple[int, int]:
        """The longest key at `text[i:]` that rewrites: (end, value), or (i, -1)."""
        best_end, best_value = i, -1
        pos = self._root
        for j in range(i, len(text)):
            found = self.step(pos, text[j])
            if found is None:
                break
            pos, value = found
            if value >= 0:
                best_end, best_value = j + 1, value
        return best_end, best_value

    def normalize_prefix(self, text: str, i: int) -> tuple[str, int]:
        end, value = self.longest_match(text, i)
        if value < 0:
            return text[i], i + 1
        return self.replacement(value), end

    def may_rewrite(self, text: str, i: int) -> bool:
        return self.longest_match(text, i)[1] >= 0


@functools.cache
def _composing_starters() -> frozenset[str]:
    """The characters NFKC may compose with a following mark: the first character of every
    canonical decomposition, and the Hangul leading consonants (a precomposed syllable that a
    loose trailing consonant follows is left apart, unlike sentencepiece)."""
    starters = {chr(cp) for cp in range(0x1100, 0x1113)}
    for cp in range(0x110000):
        parts = unicodedata.decomposition(chr(cp)).split()
        if len(parts) >= 2 and not parts[0].startswith("<"):
            starters.add(chr(int(parts[0], 16)))
    return frozenset(starters)


def _hangul_tail(c: str) -> bool:
    """A Hangul vowel or trailing consonant (composes with the syllable before it)."""
    return 0x1161 <= ord(c) <= 0x11C2


def _simple_fold(c: str) -> str:
    """Simple case folding: the full folding when it is one character, else the lowercase
    when that is, else the character itself."""
    for out in (c.casefold(), c.lower()):
        if len(out) == 1:
            return out
    return c


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

    def __init__(
        self,
        charsmap: PrecompiledCharsMap | None,
        *,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        treat_whitespace_as_suffix: bool = False,
        user_defined: tuple[str, ...] = (),
        name: str = "",
    ) -> None:
        self.charsmap = charsmap
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix
        self.name = name
        # caches for the fast path (see _next_rule)
        self._kinds: dict[str, int] = {}
        self._starters: set[str] = set()
        self._conts: set[str] = set()
        self._lock = threading.Lock()
        self._pattern: re.Pattern[str] | None = None
        self._user: dict[str, list[str]] = {}
        for sym in sorted(set(user_defined), key=len, reverse=True):
            self._user.setdefault(sym[0], []).append(sym)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the lock and the caches (they are rebuilt on use)."""
        state = dict(self.__dict__)
        state.update(_kinds={}, _starters=set(), _conts=set(), _pattern=None)
        del state["_lock"]
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
        """The rewrite as (start, end, output) segments covering `text` in order. A charsmap
        may map a character to a long string: the output is counted as it is made, and refused
        (`NormalizedTooLong`) once it would pass the bound (`aligned.max_length`)."""
        n = len(text)
        limit = max(GROWTH * n, FLOOR)
        grown = 0  # output characters minus input ones so far
        prefix = 1 if self.add_dummy_prefix else 0  # the "▁" to come
        space = SPACE_SYMBOL if self.escape_whitespaces else " "
        segments: list[list[Any]] = []  # [start, end, output]
        i = 0
        if self.remove_extra_whitespaces:  # drop leading whitespace
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
        trigger = self._pattern or self._learn(text)
        squeeze = self.remove_extra_whitespaces
        while i < n:
            # copy the run of characters no rule can touch, up to the next possible rewrite;
            # single spaces in it become ▁ (a space right after a space takes the slow path)
            if is_prev_space and text[i] == " ":
                k = i
            else:
                k, trigger = self._next_rule(text, i, trigger)
            if k > i:
                run = text[i:k]
                segments.append(
                    [i, k, run.replace(" ", SPACE_SYMBOL) if self.escape_whitespaces else run]
                )
                is_prev_space = squeeze and run[-1] == " "
                i = k
                if i == n:
                    break
            out, j = self._prefix(text, i)
            if is_prev_space:  # squeeze runs of spaces into one
                out = out.lstrip(" ")
            if out:
                is_prev_space = out.endswith(" ")
                if self.escape_whitespaces:
                    out = out.replace(" ", SPACE_SYMBOL)
            if not self.remove_extra_whitespaces:
                is_prev_space = False
            segments.append([i, j, out])
            grown += len(out) - (j - i)
            if n + grown + prefix > limit:
                check_length(self, NormalizedString(text), n + grown + prefix)
            i = j
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            # the dummy prefix takes no source characters: an empty span where the text starts
            start = segments[first_out][0]
            segments.insert(first_out, [start, start, space])
        if self.remove_extra_whitespaces:  # drop trailing whitespace
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
            last = next(
                (k for k in range(len(segments) - 1, first_out - 1, -1) if segments[k][2]),
                len(segments) - 1,
            )
            end = segments[last][1]
            segments.insert(last + 1, [end, end, space])
        return [(s, e, o) for s, e, o in segments]

    def _next_rule(self, text: str, i: int, trigger: "re.Pattern[str]") -> tuple[int, Any]:
        """Where a rule might start next, at i or after (len(text) if nowhere), and the pattern
        to go on with. The trigger pattern finds the characters a rule rewrites (class 1; a
        space only when another follows), the continuations of characters that only start
        longer rules (class 2), and any character not yet classified: the text's new
        characters are then classified, the pattern grows and the search is made again. It may
        find a few places where no rule applies (the slow path then copies the character); it
        never misses one."""
        m = trigger.search(text, i)
        if m is None:
            return len(text), trigger
        k = m.start()
        if text[k] not in self._kinds:  # (once a text: then all its characters are known)
            return self._next_rule(text, i, self._learn(text))
        if k > i and text[k - 1] in self._starters and text[k] in self._conts:
            k -= 1  # the longer rule starts at the character before its continuation
        return k, trigger

    def _learn(self, text: str) -> "re.Pattern[str]":
        """The trigger pattern once `text`'s new characters are classified (one thread
        updates the caches at a time)."""
        with self._lock:
            return self._update_pattern(set(text))

    def _update_pattern(self, new: set[str]) -> "re.Pattern[str]":
        new = new.difference(self._kinds)
        cm = self.charsmap
        changed = self._pattern is None or bool(new)  # (the pattern finds the unclassified)
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
            # (a starter always has a step from the root: see `_classify`)
            states = [st[0] for c in self._starters if (st := cm.step(cm._root, c)) is not None]
            new_states = [st[0] for c in new_starters if (st := cm.step(cm._root, c)) is not None]
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
            parts = ["  "]  # a run of spaces (a single space is copied as ▁)
            if ones:
                parts.append("[" + "".join(re.escape(c) for c in ones) + "]")
            if self._starters and self._conts:
                # a continuation after a starter (found by the rarer character: `_next_rule`
                # steps back to the starter)
                conts = _char_class(self._conts)
                parts.append(f"{conts}(?<={_char_class(self._starters)}{conts})")
            if self._kinds:  # any character not yet classified
                parts.append(_char_class(self._kinds.keys(), negated=True))
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


def _char_class(chars: Iterable[str], negated: bool = False) -> str:
    """A regex character class of `chars` (or of every other character).

    >>> _char_class({"b", "-", "a"}), _char_class({"a"}, negated=True)
    ('[\\\\-ab]', '[^a]')
    """
    return ("[^" if negated else "[") + "".join(map(re.escape, sorted(chars))) + "]"


_NMT_NFKC = Path(__file__).resolve().parent.parent / "data" / "nmt_nfkc.charsmap.gz"


@functools.lru_cache(maxsize=None)
def nmt_nfkc_charsmap() -> PrecompiledCharsMap:
    """sentencepiece's `nmt_nfkc` map (NFKC plus its whitespace and control-character rules), as
    its bundled test models carry it; trained Unigram models normalise with it."""
    return PrecompiledCharsMap(gzip.decompress(_NMT_NFKC.read_bytes()))


NORMALIZATIONS = ("nmt_nfkc", "nfkc_cf", "identity")


def sentencepiece_normalizer(
    normalization: str, user_defined: tuple[str, ...] = ()
) -> SentencePieceNormalizer:
    """The normaliser sentencepiece's trainer names `normalization` (one of `NORMALIZATIONS`),
    passing `user_defined` symbols through unchanged."""
    if normalization == "identity":
        return SentencePieceNormalizer(None, user_defined=user_defined, name="identity")
    if normalization == "nfkc_cf":
        return SentencePieceNormalizer(
            NfkcCaseFoldRules(),  # type: ignore[arg-type]
            user_defined=user_defined,
            name="nfkc_cf",
        )
    return SentencePieceNormalizer(nmt_nfkc_charsmap(), user_defined=user_defined, name="nmt_nfkc")
