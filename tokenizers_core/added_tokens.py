"""Added tokens: strings matched whole in the text before the model sees it (stage 0).

Hugging Face `tokenizers` (0.23.3, `tokenizer/added_vocabulary.rs`) keeps an "added vocabulary"
beside the model: `[CLS]`, `<mask>`, `<|endoftext|>` and any token a user added. Encoding first
cuts the text at them, in two passes:

1. tokens with `normalized=False` are looked for in the ORIGINAL text;
2. each stretch left between those matches is normalised, and tokens with `normalized=True` are
   looked for in the NORMALISED text (their pattern is the token's content passed through the
   same normaliser, so a `Lowercase` tokenizer matches "NEW" for a token "NEW").

Each pass finds the leftmost match, the longest one where several start at the same place
(Aho-Corasick, leftmost-longest), then goes on after it. A match becomes one token whose string
is the matched text; the rest goes on to the pre-tokenizer and the model. The flags:

- `single_word`: skip a match that has a word character (`\\w`) right before or right after it;
- `lstrip` / `rstrip`: the whitespace before / after the match joins the token (its string and
  its offsets), so "a <mask> b" gives the token " <mask> " covering (1, 9);
- `special`: `decode(ids, skip_special_tokens=True)` leaves it out. It does NOT set the
  encoding's special-tokens mask: Hugging Face marks only the post-processor's tokens.

>>> vocab = AddedVocabulary([AddedToken("<mask>", id=3, normalized=False, lstrip=True)])
>>> [(seg.normalized, id_) for seg, id_ in vocab.split_original(NormalizedString("a <mask>b"))]
[('a', None), (' <mask>', 3), ('b', None)]
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Any, AnyStr, Callable, Iterable, Iterator, Optional

import regex

from .errors import InvalidInput
from .normalized import NormalizedString

__all__ = [
    "AddedToken",
    "AddedVocabulary",
    "MAX_ADDED_TOKENS",
    "MAX_CONTENT_CHARS",
    "NAMED_SPECIAL_TOKENS",
    "check_added_count",
    "config_added_tokens",
    "with_ids",
]

# Bounds on what a file may declare, far above real tokenizers (Llama 4's tokenizer.json: 2,048
# added tokens, the longest 45 characters). A million added tokens took 56-84 s and 2.1 GB to load;
# at these bounds a load takes a few seconds (benchmarks/bench_hostile_load.py), and matching
# stays linear in the text (see `_Matcher`).
MAX_ADDED_TOKENS = 100_000
MAX_CONTENT_CHARS = 256


def check_added_count(count: int) -> None:
    """ValueError when a tokenizer declares more added tokens than `MAX_ADDED_TOKENS`.

    >>> check_added_count(100_001)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    tokenizers_core.errors.InvalidInput: added_tokens has 100,001 entries; the most a tokenizer ...
    """
    if count > MAX_ADDED_TOKENS:
        raise InvalidInput(
            f"added_tokens has {count:,} entries; the most a tokenizer may have is "
            f"{MAX_ADDED_TOKENS:,}"
        )


@dataclass(frozen=True)
class AddedToken:
    """One added token, with Hugging Face's flags and defaults (`tokenizers.AddedToken`).

    `id` is its id (as in a tokenizer.json's "added_tokens"); None takes the model's id for
    the same string, or the next free id after the vocabulary (as Hugging Face's `add_tokens`).
    """

    content: str
    id: Optional[int] = None
    special: bool = False
    normalized: bool = True
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.content, str) or not self.content:
            raise InvalidInput(f"added token {self.content!r} must be a non-empty string")
        if len(self.content) > MAX_CONTENT_CHARS:
            raise InvalidInput(
                f"added token {self.content[:40]!r}... is {len(self.content):,} "
                f"characters long; the longest an added token may be is "
                f"{MAX_CONTENT_CHARS}"
            )
        if self.id is not None and (
            not isinstance(self.id, int) or isinstance(self.id, bool) or self.id < 0
        ):
            raise InvalidInput(f"added token {self.content!r}: id must be a non-negative integer")

    @classmethod
    def from_hf_config(cls, cfg: dict) -> "AddedToken":
        """One entry of a tokenizer.json's "added_tokens" list."""
        if not isinstance(cfg, dict) or not isinstance(cfg.get("content"), str):
            raise InvalidInput('added_tokens: each entry must be an object with a string "content"')
        flags = {}
        for flag in ("special", "normalized", "lstrip", "rstrip", "single_word"):
            if flag in cfg:
                if not isinstance(cfg[flag], bool):
                    raise InvalidInput(
                        f"added token {cfg['content']!r}: {flag} must be true or false"
                    )
                flags[flag] = cfg[flag]
        return cls(cfg["content"], id=cfg.get("id"), **flags)

    def to_hf_config(self) -> dict:
        return {
            "id": self.id,
            "content": self.content,
            "single_word": self.single_word,
            "lstrip": self.lstrip,
            "rstrip": self.rstrip,
            "normalized": self.normalized,
            "special": self.special,
        }


# Rust's regex `\w` and `\s` are Unicode's word characters and White_Space (UTS #18); the
# `regex` module's `\w` is the same set, and `\p{White_Space}` spells out `\s`.
_WORD = regex.compile(r"\w")
_SPACE = regex.compile(r"\p{White_Space}")


def _space_before(text: str, end: int) -> int:
    """Where the run of whitespace that ends at `end` starts.

    >>> _space_before("a  b", 3)
    1
    """
    start = end
    while start > 0 and _SPACE.match(text, start - 1, concurrent=False):
        start -= 1
    return start


def _space_after(text: str, start: int) -> int:
    """Where the run of whitespace that starts at `start` ends."""
    end = start
    while end < len(text) and _SPACE.match(text, end, concurrent=False):
        end += 1
    return end


class AddedVocabulary:
    """The added tokens of one tokenizer and the two matchers over them.

    `ids` must already be resolved (see `Tokenizer`): each token carries its id. `normalize`
    turns a token's content into its pattern for the normalised pass.
    """

    def __init__(
        self, tokens: Iterable[AddedToken], normalize: Callable[[str], str] | None = None
    ) -> None:
        self.tokens: dict[int, AddedToken] = {}
        tokens = list(tokens)
        check_added_count(len(tokens))
        for token in tokens:
            if token.id is None:
                raise InvalidInput(f"added token {token.content!r} has no id")
            self.tokens[token.id] = token  # a later entry for an id replaces it
        self.ids: dict[str, int] = {t.content: i for i, t in self.tokens.items()}
        self.special: frozenset[str] = frozenset(
            t.content for t in self.tokens.values() if t.special
        )
        # A normalised token's pattern (and what decode shows for it) is its normalised content.
        self.patterns: dict[int, str] = {
            i: (normalize(t.content) if t.normalized and normalize is not None else t.content)
            for i, t in self.tokens.items()
        }
        self._original = _matcher(
            [(self.patterns[i], i) for i, t in self.tokens.items() if not t.normalized]
        )
        self._normalized = _matcher(
            [(self.patterns[i], i) for i, t in self.tokens.items() if t.normalized]
        )

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def has_normalized(self) -> bool:
        return self._normalized is not None

    def id_to_token(self, id_: int) -> str | None:
        """The string decode shows for an added id (the normalised pattern, as Hugging Face's
        `simple_id_to_token`), or None."""
        return self.patterns.get(id_)

    def without_special(self) -> "AddedVocabulary":
        """This vocabulary with its special tokens matched nowhere, so that typed in the text
        they are ordinary text (Hugging Face's `encode_special_tokens`); the other added tokens
        still match, and every id still decodes. Built once, then kept."""
        plain = self.__dict__.get("_without_special")
        if plain is None:
            plain = object.__new__(AddedVocabulary)
            plain.__dict__.update(self.__dict__)
            for name, normalized in (("_original", False), ("_normalized", True)):
                setattr(
                    plain,
                    name,
                    _matcher(
                        [
                            (self.patterns[i], i)
                            for i, t in self.tokens.items()
                            if t.normalized == normalized and not t.special
                        ]
                    ),
                )
            self.__dict__["_without_special"] = plain
        return plain

    def split_original(self, text: NormalizedString) -> list[tuple[NormalizedString, int | None]]:
        """Pass 1: `text` cut at the tokens with normalized=False, as (segment, id or None)."""
        return self._split(text, self._original)

    def split_normalized(self, text: NormalizedString) -> list[tuple[NormalizedString, int | None]]:
        """Pass 2 (on an already normalised segment): cut at the tokens with normalized=True."""
        return self._split(text, self._normalized)

    def _split(
        self, ns: NormalizedString, matcher: "_Matcher | None"
    ) -> list[tuple[NormalizedString, int | None]]:
        sentence = ns.normalized
        if matcher is None or not sentence:
            return [(ns, None)] if sentence else []
        out: list[tuple[NormalizedString, int | None]] = []
        pos = 0  # end of the last match (Rust's start_offset)
        for start, stop, pattern in matcher.finditer(sentence):
            id_ = matcher.ids[pattern]
            token = self.tokens[id_]
            if token.single_word and (
                start > 0
                and _WORD.match(sentence, start - 1, concurrent=False)
                or stop < len(sentence)
                and _WORD.match(sentence, stop, concurrent=False)
            ):
                continue  # inside a word: not this token here
            if token.lstrip:
                start = max(_space_before(sentence, start), pos)
            if token.rstrip:
                stop = _space_after(sentence, stop)
            if pos < start:
                out.append((ns.slice(pos, start), None))
            out.append((ns.slice(start, stop), id_))
            pos = stop
        if pos < len(sentence):
            out.append((ns.slice(pos, len(sentence)), None))
        return out


class _Matcher:
    """Literal strings found as an Aho-Corasick automaton finds them (leftmost, then the longest
    of those starting there, then on after the match), with tables linear in the strings: the
    strings sorted, each one's longest proper prefix among them (`_parent`), and jumps of
    2, 4, 8 ... such steps (`_jumps`).

    >>> list(_Matcher({"<a>": 0, "<a>b": 1, "b": 2}).finditer("x<a>bb<a>"))
    [(1, 5, '<a>b'), (5, 6, 'b'), (6, 9, '<a>')]

    Building it is linear in the strings (a regex alternation of 100,000 strings took 9 s and
    600 MB to compile). At a place `s` where a string may start, the largest string q <= s in
    sorted order is the longest one `s` starts with, if `s` starts with q at all; else the
    answer is the longest of q's prefixes among the strings that is no longer than the common
    prefix of q and s (a longer one would sort after q and before s). So each place costs a
    binary search and a climb of q's prefixes by jumps: O(log n + log length) comparisons of
    at most `MAX_CONTENT_CHARS` characters, however the strings overlap.
    """

    FEW_STARTS = 64  # up to this many first characters, a regex class finds the places

    def __init__(self, ids: dict[str, int]) -> None:
        self.ids = ids
        self._sorted = sorted(ids)
        self._longest = max(map(len, self._sorted))
        self._parent = _parents(self._sorted)
        self._jumps = [self._parent]
        while any(j >= 0 for j in self._jumps[-1]):
            last = self._jumps[-1]
            self._jumps.append([last[j] if j >= 0 else -1 for j in last])
        firsts = sorted({p[0] for p in self._sorted})
        self._firsts = frozenset(firsts)
        # a regex character class scans fast for a few characters and slowly for many
        self._starts = (
            regex.compile("[" + "".join(regex.escape(c) for c in firsts) + "]")
            if len(firsts) <= self.FEW_STARTS
            else None
        )

    def finditer(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, stop, the string found) of each match, left to right, none overlapping."""
        pos = 0  # where the last match ended
        for start in self._places(text):
            if start < pos:
                continue
            found = self._longest_at(text[start : start + self._longest])
            if found is not None:
                yield start, start + len(found), found
                pos = start + len(found)

    def _longest_at(self, s: str) -> str | None:
        """The longest string that `s` starts with, or None."""
        j = bisect.bisect_right(self._sorted, s) - 1
        if j < 0:
            return None
        q = self._sorted[j]
        if s.startswith(q):
            return q
        common = common_prefix(q, s)
        for jump in reversed(self._jumps):  # climb while still longer than `common`
            up = jump[j]
            if up >= 0 and len(self._sorted[up]) > common:
                j = up
        j = self._parent[j]
        return self._sorted[j] if j >= 0 else None

    def _places(self, text: str) -> Iterator[int]:
        """Where a string may start: every character that begins one."""
        if self._starts is not None:
            return (m.start() for m in self._starts.finditer(text, concurrent=False))
        return (i for i, c in enumerate(text) if c in self._firsts)


def _parents(strings: list[str]) -> list[int]:
    """For each of the sorted `strings`, the index of the longest other one that is its prefix,
    or -1 (in sorted order a string's prefixes come before it, on one chain).

    >>> _parents(["a", "ab", "abc", "b", "bc"])
    [-1, 0, 1, -1, 3]
    """
    parents: list[int] = []
    chain: list[int] = []  # indices of prefixes of the current
    for i, s in enumerate(strings):
        while chain and not s.startswith(strings[chain[-1]]):
            chain.pop()
        parents.append(chain[-1] if chain else -1)
        chain.append(i)
    return parents


def common_prefix(a: AnyStr, b: AnyStr) -> int:
    """The length of the longest common prefix of two strings, or of two byte strings, by
    halving (comparisons of slices run in C).

    >>> common_prefix("abcx", "abcd"), common_prefix("ab", "x"), common_prefix(b"ab", b"ab")
    (3, 0, 2)
    """
    if a == b:
        return len(a)
    lo, hi = 0, min(len(a), len(b))  # a[:lo] == b[:lo]; a[:hi + 1] != b[:hi + 1]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _matcher(pairs: list[tuple[str, int]]) -> _Matcher | None:
    """Where two tokens share a pattern ("NEW" and "new" under Lowercase), the first listed
    wins; Hugging Face takes one of them in hash order, which changes from run to run. A
    pattern its normaliser empties (a lone combining accent under StripAccents) matches
    nothing."""
    ids: dict[str, int] = {}
    for pattern, id_ in pairs:
        if pattern:
            ids.setdefault(pattern, id_)
    return _Matcher(ids) if ids else None


# ---- the ids of the added tokens a Tokenizer is given ------------------------------------------
def _model_size(model: Any) -> int:
    """Hugging Face's model vocab size: how many entries, not the top id + 1 (a vocabulary with
    a gap, cl100k's 100256, gives a new token the id past its count: 100261, not 100277). Asked
    only when a token needs a new id (a model may build its `vocab` when first asked)."""
    vocab = getattr(model, "vocab", None)
    return len(vocab) if isinstance(vocab, dict) else model.get_vocab_size()


def with_ids(model: Any, entries: Iterable[str | AddedToken]) -> tuple[AddedToken, ...]:
    """Each added token with its id: a plain string is a special token matched as typed and
    must be in the vocabulary; an `AddedToken` without an id takes the id of an earlier entry
    or of the model for the same string, or the next free id (Hugging Face's `add_tokens` of
    them in one batch: past the vocabulary's count of entries, or past the top id of the tokens
    given with ids, whichever is more)."""
    if isinstance(entries, (str, AddedToken)):
        raise InvalidInput("added_tokens must be a list of strings or AddedTokens")
    out: dict[str, AddedToken] = {}
    next_id: int | None = None
    given: set[str] = set()  # the tokens that came with an id (Hugging Face's added map so far)
    for entry in entries:
        if isinstance(entry, str) or (isinstance(entry, AddedToken) and entry.id is not None):
            given.add(entry if isinstance(entry, str) else entry.content)
        if isinstance(entry, str):
            id_ = model.token_to_id(entry) if entry else None
            if id_ is None:
                raise InvalidInput(
                    f"added token {entry!r} must be a non-empty string in the vocabulary"
                )
            token = AddedToken(entry, id=id_, special=True, normalized=False)
        elif isinstance(entry, AddedToken):
            token = entry
            if token.id is None:
                id_ = (
                    out[token.content].id
                    if token.content in out
                    else model.token_to_id(token.content)
                )
                if id_ is None:
                    if next_id is None:  # from the tokens added before: given with their ids
                        size = _model_size(model)
                        ids = [t.id for t in out.values() if t.content in given]
                        top = max((i for i in ids if i is not None), default=None)
                        next_id = (
                            top + 1 if top is not None and (top >= size or size == 0) else size
                        )
                    id_, next_id = next_id, next_id + 1
                token = replace(token, id=id_)
        else:
            raise InvalidInput(f"added token {entry!r} must be a string or an AddedToken")
        out.pop(token.content, None)
        out[token.content] = token
    return tuple(out.values())


# ---- the tokens a tokenizer_config.json adds -----------------------------------------------------
# transformers' named special tokens (`SPECIAL_TOKENS_ATTRIBUTES`), in its order
NAMED_SPECIAL_TOKENS = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)
_FLAGS = ("special", "normalized", "lstrip", "rstrip", "single_word")


def _config_token(entry: object, where: str, *, special: bool | None = None) -> AddedToken:
    """An `AddedToken` from a config's spelling of one: a string (special, matched as typed) or
    an object {"content", flags...} (`special` forces its flag, as transformers does for the
    named tokens of a special_tokens_map.json). A flag left out takes `tokenizers.AddedToken`'s
    default: normalized unless special, the others false."""
    if isinstance(entry, str):
        return AddedToken(entry, special=True, normalized=False)
    if not isinstance(entry, dict) or not isinstance(entry.get("content"), str):
        raise InvalidInput(f'{where}: a token is a string or an object with a string "content"')
    flags = {}
    for flag in _FLAGS:
        if flag in entry:
            if not isinstance(entry[flag], bool):
                raise InvalidInput(f"{where}: {entry['content']!r}: {flag} must be true or false")
            flags[flag] = entry[flag]
    if special is not None:
        flags["special"] = special
    flags.setdefault("normalized", not flags.get("special", False))
    return AddedToken(entry["content"], **flags)


def _decoder_tokens(config: dict) -> list[AddedToken]:
    """The config's `added_tokens_decoder` ({"id": {content, flags}}) in the order of the ids."""
    decoder = config.get("added_tokens_decoder")
    if decoder is None:
        return []
    if not isinstance(decoder, dict):
        raise InvalidInput("added_tokens_decoder must be an object of {id: token}")
    check_added_count(len(decoder))
    ordered = []
    for key, entry in decoder.items():
        if not isinstance(key, str) or not key.isdigit():
            raise InvalidInput(f"added_tokens_decoder: {key!r} is not an id")
        ordered.append((int(key), _config_token(entry, "added_tokens_decoder")))
    return [token for _id, token in sorted(ordered, key=lambda pair: pair[0])]


def _named_tokens(config: dict) -> list[object]:
    """The named special tokens' values: bos_token ... mask_token, then any other `*_token`
    that holds a token (a model's own: "image_token"), then `model_specific_special_tokens` and
    an `extra_special_tokens` object, as transformers' `__init__` reads them."""
    names = [*NAMED_SPECIAL_TOKENS]
    names += [k for k in config if k.endswith("_token") and k not in NAMED_SPECIAL_TOKENS]
    values = [config.get(name) for name in names]
    for key in ("model_specific_special_tokens", "extra_special_tokens"):
        if isinstance(config.get(key), dict):
            values += list(config[key].values())
    return [v for v in values if isinstance(v, (str, dict))]


def config_added_tokens(config: dict, existing: Iterable[AddedToken] = ()) -> list[AddedToken]:
    """The tokens transformers adds to a tokenizer.json's tokenizer from its
    tokenizer_config.json (transformers 5.24, `TokenizersBackend.__init__`), in its order and
    without ids: give them to `Tokenizer(added_tokens=[*existing, *these])`, which takes each
    one's id as Hugging Face's `add_tokens` does (the id of the same string already added or in
    the vocabulary, else the next free id after the vocabulary: NOT the id the config lists,
    which a model's remote code may use but transformers does not).

    1. `added_tokens_decoder`, in the order of its ids, with each entry's flags; an entry the
       tokenizer already has with the same flags is left out; one with other flags replaces it.
    2. The named special tokens (`bos_token` ...), then `extra_special_tokens` (or the older
       `additional_special_tokens`): each the tokenizer does not have yet, as a special token
       (a string is matched as typed; an object keeps its flags).
    3. Any of these whose string a named special token holds is special.

    >>> config = {"bos_token": "<s>", "added_tokens_decoder": {
    ...     "92543": {"content": "<|im_start|>", "special": True, "normalized": False},
    ...     "1": {"content": "<s>", "special": True, "normalized": False}}}
    >>> [(t.content, t.special, t.normalized) for t in config_added_tokens(config)]
    [('<s>', True, False), ('<|im_start|>', True, False)]
    >>> have = [AddedToken("<s>", 1, special=True, normalized=False)]
    >>> [t.content for t in config_added_tokens(config, have)]
    ['<|im_start|>']
    """
    if not isinstance(config, dict):
        raise InvalidInput("a tokenizer_config.json must hold a JSON object")
    existing = list(existing)
    have = {_same(t) for t in existing}
    adding = [t for t in _decoder_tokens(config) if _same(t) not in have]
    known = {t.content for t in existing} | {t.content for t in adding}
    named = [_as_special(v, "a named special token") for v in _named_tokens(config)]
    extra = config.get("extra_special_tokens")
    if not isinstance(extra, list):
        extra = config.get("additional_special_tokens")
    extras = (
        [_as_special(v, "extra_special_tokens") for v in extra if isinstance(v, (str, dict))]
        if isinstance(extra, list)
        else []
    )
    for token in [*named, *extras]:
        if token.content not in known:
            adding.append(token)
            known.add(token.content)
    named_strings = {t.content for t in named}
    return [
        replace(t, special=True) if not t.special and t.content in named_strings else t
        for t in adding
    ]


def _same(token: AddedToken) -> tuple:
    """What transformers compares to tell an added token it already has (its `repr`: the
    string and the flags, not the id)."""
    return (token.content, *(getattr(token, flag) for flag in _FLAGS))


def _as_special(value: object, where: str) -> AddedToken:
    """A named or extra special token: a string, or an object whose flags it keeps (transformers
    reads a legacy special_tokens_map.json's objects as special)."""
    return _config_token(value, where, special=True)
