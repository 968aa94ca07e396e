"""Decoders: turn a list of token strings back into text (the last stage, after the model).

Hugging Face's decoders work as a chain: each one maps the list of tokens to a new list
(`decode_chain(tokens) -> list[str]`), a `Sequence` passes the list from one to the next, and
`decode(tokens)` joins what the chain leaves. Every decoder here has both, and `describe()`.
They behave as `tokenizers` 0.23.3's `decoders` module (read from its Rust source,
`src/decoders/*.rs`, and checked against it in tests/core/pipeline/test_hf_decoders.py):

>>> Sequence([Replace("▁", " "), ByteFallback(), Fuse(), Strip(" ", 1, 0)]).decode(
...     ["▁Hello", "▁w", "<0xC3>", "<0xB6>", "rld"])
'Hello wörld'
>>> WordPiece().decode_chain(["un", "##aff", "##able", "!"])
['un', 'aff', 'able', '!']

`from_hf_config` builds one from a `tokenizer.json` "decoder" entry. `SentencePieceDecoder` is
sentencepiece's own `Decode` (for `.model` files), not a Hugging Face decoder.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable

from ..byte_level import unicode_to_bytes
from ..errors import InvalidInput
from ..hf_regex import compile_hf, find_matches

__all__ = [
    "BPEDecoder",
    "ByteFallback",
    "ByteLevel",
    "CTC",
    "Fuse",
    "Metaspace",
    "Replace",
    "Sequence",
    "SentencePieceDecoder",
    "Strip",
    "WordPiece",
    "from_hf_config",
]


class _Decoder:
    """What every decoder shares: `decode` joins what `decode_chain` leaves."""

    def decode_chain(self, tokens: list[str]) -> list[str]:  # pragma: no cover
        raise NotImplementedError

    def decode(self, tokens: Iterable[str]) -> str:
        return "".join(self.decode_chain(list(tokens)))

    def describe(self) -> str:
        return type(self).__name__

    def to_hf_config(self) -> dict[str, Any]:
        """This decoder as a `tokenizer.json` "decoder" entry (as Hugging Face writes it).

        >>> Strip(" ", 1, 0).to_hf_config()
        {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0}
        """
        return {
            "type": type(self).__name__,
            **{k: v for k, v in vars(self).items() if not k.startswith("_")},
        }

    def __repr__(self) -> str:
        return self.describe()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(type(self).__name__)


# ---- byte-level (GPT-2, RoBERTa, Llama 3) ------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _byte_level_table() -> dict[str, int]:
    return unicode_to_bytes()


class ByteLevel(_Decoder):
    """Read byte-level tokens (GPT-2's byte-to-unicode spelling, "Ġ" for a space) back as bytes
    and decode them as UTF-8, all tokens together, into one string: Hugging Face's
    `decoders.ByteLevel`, and tiktoken's `decode`. A token with a character outside the
    byte-level alphabet (a special token such as "<|endoftext|>" written with other characters)
    contributes its own UTF-8 bytes. Bytes that are not valid UTF-8 become U+FFFD, one per
    maximal invalid sequence (Rust's `from_utf8_lossy`, Python's "replace").

    The options are those of the pre-tokenizer of the same name, kept for writing the config
    back; they do not change decoding.

    >>> ByteLevel().decode(["Hello", ",", "Ġworld", "Ġ", "Ã©"])
    'Hello, world é'
    >>> ByteLevel().decode(["ãģ"])                  # half a character
    '\\ufffd'
    """

    def __init__(
        self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True
    ) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    def decode_chain(self, tokens: list[str]) -> list[str]:
        table = _byte_level_table()
        data = bytearray()
        for token in tokens:
            try:
                data.extend([table[c] for c in token])
            except KeyError:
                data.extend(token.encode("utf-8", "surrogatepass"))
        return [data.decode("utf-8", errors="replace")]

    def describe(self) -> str:
        return "ByteLevel (bytes -> UTF-8)"


# ---- WordPiece (BERT) --------------------------------------------------------------------------
_WORDPIECE_CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def wordpiece_cleanup(text: str) -> str:
    """Hugging Face's `wordpiece::cleanup`: the spaces before punctuation and English
    contractions that joining with spaces leaves, removed in this fixed order.

    >>> wordpiece_cleanup("I do not know , he 's here .")
    "I don't know, he's here."
    """
    for dirty, clean in _WORDPIECE_CLEANUP:
        text = text.replace(dirty, clean)
    return text


class WordPiece(_Decoder):
    """Join WordPiece tokens: a token with the continuation prefix is glued to the one before
    (prefix removed), any other token gets a space in front. With `cleanup` (the default), the
    spaces Hugging Face's decoder tidies away are removed (" ." -> ".", " n't" -> "n't", ...),
    token by token, exactly as its `decoders.WordPiece` does.

    >>> WordPiece().decode(["hello", ",", "un", "##aff", "##able", "world", "!"])
    'hello, unaffable world!'
    >>> WordPiece(cleanup=False).decode(["hello", ",", "world"])
    'hello , world'

    It does not restore case or accents the normaliser removed.
    """

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix = prefix
        self.cleanup = cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        for i, token in enumerate(tokens):
            if i:
                if token.startswith(self.prefix):
                    token = token[len(self.prefix) :]
                else:
                    token = " " + token
            out.append(wordpiece_cleanup(token) if self.cleanup else token)
        return out

    def describe(self) -> str:
        return f"WordPiece (join {self.prefix!r} pieces{', tidy spaces' if self.cleanup else ''})"


# ---- Metaspace, BPE suffix, CTC -----------------------------------------------------------------
class Metaspace(_Decoder):
    """Undo the `Metaspace` pre-tokenizer: every `replacement` becomes a space, except that in
    the first token (unless `prepend_scheme` is "never") every `replacement` is dropped.

    >>> Metaspace().decode(["▁Hey", "▁", "▁you"])
    'Hey  you'
    """

    def __init__(
        self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True
    ) -> None:
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise InvalidInput("Metaspace: the replacement must be exactly one character")
        if prepend_scheme not in ("always", "first", "never"):
            raise InvalidInput(
                f"Metaspace: unknown prepend_scheme {prepend_scheme!r}; "
                "choose 'always', 'first' or 'never'"
            )
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split = split

    def decode_chain(self, tokens: list[str]) -> list[str]:
        rep = self.replacement
        return [
            token.replace(rep, "" if i == 0 and self.prepend_scheme != "never" else " ")
            for i, token in enumerate(tokens)
        ]

    def describe(self) -> str:
        return f"Metaspace ({self.replacement} -> space)"


class BPEDecoder(_Decoder):
    """Undo an end-of-word suffix (GPT-1's "</w>"): every occurrence becomes a space, except
    in the last token, where it is removed.

    >>> BPEDecoder().decode(["lo", "w</w>", "er</w>"])
    'low er'
    """

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [
            token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens)
        ]

    def describe(self) -> str:
        return f"BPEDecoder ({self.suffix!r} -> space)"


class CTC(_Decoder):
    """Read the output of a CTC speech model (wav2vec2): repeated tokens collapse into one,
    `pad_token` is removed, and with `cleanup` the WordPiece tidying applies and
    `word_delimiter_token` becomes a space; tokens left empty are dropped.

    >>> CTC().decode(["<pad>", "h", "h", "e", "l", "l", "<pad>", "l", "o", "|", "a"])
    'hello a'
    """

    def __init__(
        self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True
    ) -> None:
        self.pad_token = pad_token
        self.word_delimiter_token = word_delimiter_token
        self.cleanup = cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        previous: str | None = None
        for token in tokens:
            if token == previous:  # collapse repeats (before anything else)
                continue
            previous = token
            text = token.replace(self.pad_token, "") if self.pad_token else token
            if self.cleanup:
                text = wordpiece_cleanup(text)
                if self.word_delimiter_token:
                    text = text.replace(self.word_delimiter_token, " ")
            if text:
                out.append(text)
        return out

    def describe(self) -> str:
        return f"CTC (pad {self.pad_token!r}, delimiter {self.word_delimiter_token!r})"


# ---- the small ones Llama 2 / Mistral chain together --------------------------------------------
def _byte_of(token: str) -> int | None:
    """The byte a `<0xHH>` token stands for, read as Hugging Face reads it: six UTF-8 bytes,
    "<0x" ... ">", two hex digits in either case (Rust's `u8::from_str_radix`, which also takes
    a "+" sign: "<0x+F>" is 15).

    >>> _byte_of("<0x8F>"), _byte_of("<0x8f>"), _byte_of("<0x8G>"), _byte_of("<0x100>")
    (143, 143, None, None)
    """
    if len(token) > 6 or not (token.startswith("<0x") and token.endswith(">")):
        return None
    raw = token.encode("utf-8", "surrogatepass")
    if len(raw) != 6:
        return None
    digits = raw[3:5]
    if not re.fullmatch(rb"\+?[0-9A-Fa-f]+", digits):
        return None
    return int(digits, 16)


class ByteFallback(_Decoder):
    """Turn runs of byte tokens (`<0xE6>`, or `<0xe6>`) back into text: each run is read as
    UTF-8; a run that is not valid UTF-8 becomes one U+FFFD **per byte** (Hugging Face's rule).
    Other tokens pass through.

    >>> ByteFallback().decode_chain(["a", "<0xE3>", "<0x81>", "<0x82>", "b"])
    ['a', 'あ', 'b']
    >>> ByteFallback().decode_chain(["<0xE3>", "<0x81>", "c"])      # half a character
    ['\\ufffd', '\\ufffd', 'c']
    """

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()
        for token in tokens:
            b = _byte_of(token)
            if b is not None:
                run.append(b)
                continue
            _flush_bytes(run, out)
            out.append(token)
        _flush_bytes(run, out)
        return out


def _flush_bytes(run: bytearray, out: list[str]) -> None:
    if not run:
        return
    try:
        out.append(run.decode("utf-8"))
    except UnicodeDecodeError:
        out.extend("\ufffd" * len(run))
    run.clear()


class Fuse(_Decoder):
    """Join all tokens into one.

    >>> Fuse().decode_chain(["a", "b", "c"])
    ['abc']
    """

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


class Strip(_Decoder):
    """Remove up to `start` leading and up to `stop` trailing `content` characters from each
    token (Llama 2 strips the space its normaliser put in front: `Strip(" ", 1, 0)`).

    >>> Strip(" ", 1, 0).decode_chain(["  a ", " b"])
    [' a ', 'b']
    """

    def __init__(self, content: str = " ", start: int = 0, stop: int = 0) -> None:
        if not isinstance(content, str) or len(content) != 1:
            raise InvalidInput("Strip: content must be exactly one character")
        for name, value in (("start", start), ("stop", stop)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidInput(f"Strip: {name} must be a whole number >= 0, not {value!r}")
        self.content = content
        self.start = start
        self.stop = stop

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            start_cut = 0
            for i in range(min(self.start, len(token))):
                if token[i] != self.content:
                    break
                start_cut = i + 1
            stop_cut = len(token)
            for i in range(min(self.stop, len(token) - start_cut)):
                index = len(token) - i - 1
                if token[index] != self.content:
                    break
                stop_cut = index
            out.append(token[start_cut:stop_cut])
        return out

    def describe(self) -> str:
        return f"Strip ({self.content!r}, start {self.start}, stop {self.stop})"


class Replace(_Decoder):
    """Replace each match of `pattern` in every token by `content` (a literal string, or with
    `is_regex` a regex as Hugging Face runs it).

    >>> Replace("▁", " ").decode_chain(["▁a▁b", "c"])
    [' a b', 'c']
    """

    def __init__(self, pattern: str, content: str, *, is_regex: bool = False) -> None:
        if not isinstance(content, str):
            raise InvalidInput("Replace: content must be a string")
        self.pattern = pattern
        self.content = content
        self.is_regex = is_regex
        self._compiled = compile_hf(pattern, literal=not is_regex)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Replace) and (other.pattern, other.content, other.is_regex) == (
            self.pattern,
            self.content,
            self.is_regex,
        )

    __hash__ = _Decoder.__hash__

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [
            "".join(
                self.content if is_match else token[start:end]
                for (start, end), is_match in find_matches(self._compiled, token)
            )
            for token in tokens
        ]

    def describe(self) -> str:
        shown = f"/{self.pattern}/" if self.is_regex else repr(self.pattern)
        return f"Replace ({shown} -> {self.content!r})"

    def to_hf_config(self) -> dict[str, Any]:
        return {
            "type": "Replace",
            "pattern": {"Regex" if self.is_regex else "String": self.pattern},
            "content": self.content,
        }


class Sequence(_Decoder):
    """Decoders in a row, each taking the token list the previous one left.

    >>> Sequence([ByteFallback(), Fuse()]).decode_chain(["<0x41>", "b"])
    ['Ab']
    """

    def __init__(self, decoders: Iterable[Any]) -> None:
        items = list(decoders)
        for d in items:
            if not callable(getattr(d, "decode_chain", None)):
                raise InvalidInput(f"Sequence: {d!r} is not a decoder (it has no decode_chain)")
        self.decoders = items

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for decoder in self.decoders:
            tokens = decoder.decode_chain(tokens)
        return tokens

    def describe(self) -> str:
        return "Sequence [" + ", ".join(d.describe() for d in self.decoders) + "]"

    def to_hf_config(self) -> dict[str, Any]:
        configs = []
        for d in self.decoders:
            if not callable(getattr(d, "to_hf_config", None)):
                raise InvalidInput(f"the decoder {type(d).__name__} has no tokenizer.json form")
            configs.append(d.to_hf_config())
        return {"type": "Sequence", "decoders": configs}


# ---- SentencePiece / Metaspace (helper U) --------------------------------------------------------
_SP_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def _utf8_char_length(data: bytes, i: int) -> int:
    """Length of the valid UTF-8 character at data[i], or 0 if the bytes there are malformed."""
    b = data[i]
    if b < 0x80:
        return 1
    for length, lo, hi in ((2, 0xC2, 0xDF), (3, 0xE0, 0xEF), (4, 0xF0, 0xF4)):
        if lo <= b <= hi:
            chunk = data[i : i + length]
            if len(chunk) < length:
                return 0
            try:
                chunk.decode("utf-8")
            except UnicodeDecodeError:
                return 0
            return length
    return 0


class SentencePieceDecoder:
    """Join sentencepiece pieces back into text, as sentencepiece's `Decode`: "▁" becomes a space,
    the space the dummy prefix added at the start is dropped, control pieces vanish, `<unk>`
    becomes " ⁇ ", and runs of byte pieces (`<0xE3><0x81><0x82>`) are read as UTF-8 (a malformed
    byte becomes U+FFFD).

    >>> SentencePieceDecoder().decode(["▁Hello", "▁wor", "ld", "<0x21>"])
    'Hello world<0x21>'
    >>> SentencePieceDecoder(byte_fallback=True).decode(["▁a", "<0xE3>", "<0x81>", "<0x82>"])
    'aあ'
    """

    def __init__(
        self,
        *,
        replacement: str = "\u2581",
        unk_piece: str = "<unk>",
        unk_surface: str = " \u2047 ",
        control: tuple[str, ...] = ("<s>", "</s>"),
        strip_leading_space: bool = True,
        remove_extra_whitespaces: bool = True,
        byte_fallback: bool = False,
    ) -> None:
        self.replacement = replacement
        self.unk_piece = unk_piece
        self.unk_surface = unk_surface
        self.control = frozenset(control)
        self.strip_leading_space = strip_leading_space
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.byte_fallback = byte_fallback

    def describe(self) -> str:
        return (
            f"SentencePiece ({self.replacement} -> space{', bytes' if self.byte_fallback else ''})"
        )

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.decode(tokens)]

    def _byte(self, piece: str) -> int:
        """`<0xE3>` -> 227 when the model has byte pieces; -1 otherwise."""
        if not self.byte_fallback:
            return -1
        m = _SP_BYTE_PIECE.fullmatch(piece)
        return int(m.group(1), 16) if m else -1

    def decode(self, tokens: list[str]) -> str:
        parts: list[str] = []
        pending = bytearray()
        bos_ws_seen = False
        is_bos_ws = True

        def flush() -> None:
            data = bytes(pending)
            i = 0
            while i < len(data):
                n = _utf8_char_length(data, i)
                if n == 0:
                    parts.append("\ufffd")
                    i += 1
                else:
                    parts.append(data[i : i + n].decode("utf-8"))
                    i += n
            pending.clear()

        for piece in tokens:
            b = self._byte(piece)
            if b >= 0:
                pending.append(b)
                continue
            flush()
            if bos_ws_seen or any(parts):
                is_bos_ws = False
            if piece in self.control:
                text, bos_ws_seen = "", False
            elif piece == self.unk_piece:
                text, bos_ws_seen = self.unk_surface, False
            else:
                has_bos_ws = False
                if is_bos_ws and self.strip_leading_space and piece.startswith(self.replacement):
                    piece = piece[len(self.replacement) :]
                    has_bos_ws = not self.remove_extra_whitespaces
                text, bos_ws_seen = piece.replace(self.replacement, " "), has_bos_ws
            parts.append(text)
        flush()
        return "".join(parts)


# ---- Hugging Face's tokenizer.json ------------------------------------------------------------
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
    if config is None:
        return None
    if not isinstance(config, dict) or not isinstance(config.get("type"), str):
        raise InvalidInput(f'a decoder config is a JSON object with a "type", not {config!r}')
    kind = config["type"]
    if kind not in _BUILDERS:
        raise InvalidInput(
            f"decoder type {kind!r} is not supported (supported: {', '.join(SUPPORTED)})"
        )
    try:
        return _BUILDERS[kind](config)
    except ValueError as err:
        if str(err).startswith(("decoder ", "bad ")):
            raise
        raise InvalidInput(f"bad {kind} decoder config: {err}") from None


class EndOfWordDecoder:
    """Decoder for "bpe": a token ending in "</w>" ends a word, so it becomes a space.

    >>> EndOfWordDecoder().decode(["low", "er</w>", "new", "</w>"])
    'lower new'
    """

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode(self, tokens: list[str]) -> str:
        return "".join(t.replace(self.suffix, " ") for t in tokens).rstrip(" ")

    def describe(self) -> str:
        return f"BPEDecoder ({self.suffix} ends a word)"
