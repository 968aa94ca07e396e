"""tiktoken ranks files: one token a line, as base64 bytes and its rank (which is its id).

    IQ== 0          <- the byte "!" has rank 0
    IHRoZQ== 1820   <- " the"

OpenAI's encodings and Meta's Llama 3 and 4 (whose file is named `tokenizer.model`) ship this
format. It holds neither the pre-tokenisation pattern nor the special tokens, so loading needs
both: `pattern` (a preset of `pre_tokenizers.PRESETS`: "gpt2"/"r50k", "p50k", "cl100k", "o200k",
"llama3"; or a regex) and `special_tokens` ({string: id}, may be empty, or a preset of
`tiktoken_specials`: "gpt2", "cl100k", "o200k", "llama3", "llama4"). Loaded with none, the
tokeniser's `warnings` say so, naming the preset its rank count suggests. Encoding then follows
tiktoken exactly (`openai_public.TiktokenTokenizer`), including its special-token rule: a
special token's text raises unless it is in `allowed_special` or `disallowed_special=()`.

>>> data = b"".join(base64.b64encode(bytes([b])) + b" %d\\n" % b for b in range(256))
>>> tok = load_bytes(data + b"aGk= 256\\n", pattern="gpt2", special_tokens={"<|end|>": 257})
>>> tok.encode("hi!").ids, tok.encode("<|end|>", allowed_special="all").ids
([256, 33], [257])
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..byte_level import byte_level_to_bytes, bytes_to_byte_level
from ..errors import InvalidInput
from ..implementations.openai_public import TiktokenTokenizer
from ..models.bpe.model import BPE
from ..pre_tokenizers import PRESETS, compile_pattern
from . import tiktoken_specials


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """token bytes -> rank, from the file's bytes (ValueError naming the first bad line)."""
    ranks: dict[bytes, int] = {}
    seen_ranks: set[int] = set()
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2 or not fields[1].isdigit() or len(fields[1]) > 18:
            raise InvalidInput(
                f"line {number} of the ranks file is not 'base64-token rank': {line[:60]!r}"
            )
        try:
            token = _decode_token(fields[0])
        except (binascii.Error, ValueError):
            raise InvalidInput(
                f"line {number} of the ranks file has bad base64: {fields[0][:60]!r}"
            ) from None
        rank = int(fields[1])
        if token in ranks or rank in seen_ranks:
            what = f"token {token!r}" if token in ranks else f"rank {rank}"
            raise InvalidInput(f"line {number} of the ranks file repeats {what}")
        ranks[token] = rank
        seen_ranks.add(rank)
    if not ranks:
        raise InvalidInput("the ranks file is empty")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise InvalidInput(
            f"the ranks file gives no rank to {len(missing)} of the 256 single "
            f"bytes (first: {missing[0]:#04x}); byte-level BPE needs all of them"
        )
    return ranks


def _decode_token(field: bytes) -> bytes:
    """A line's base64 token. A lone "=" is the empty token, as tiktoken reads it
    (`base64.b64decode("=") == b""`): Whisper's files rank it (`= 50256`). No merge can make it,
    so it only ever decodes.

    >>> _decode_token(b"IHRoZQ=="), _decode_token(b"=")
    (b' the', b'')
    """
    if field == b"=":
        return b""
    return base64.b64decode(field, validate=True)


def _encode_token(token: bytes) -> bytes:
    """The base64 field of a token's line; the empty token is "=", as Whisper writes it."""
    return base64.b64encode(token) if token else b"="


def check_specials(special_tokens: Any, ranks: dict[bytes, int]) -> dict[str, int]:
    """{token: id} from a dict or a preset name, checked against the file's ranks."""
    if special_tokens is None:
        return {}
    if isinstance(special_tokens, str):
        special_tokens = tiktoken_specials.special_tokens(special_tokens)
    if not isinstance(special_tokens, dict) or not all(
        isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool)
        for k, v in special_tokens.items()
    ):
        raise InvalidInput(
            "special_tokens must map each special token's string to its id, "
            'e.g. {"<|endoftext|>": 50256}'
        )
    taken = set(ranks.values())
    clash = sorted(s for s, i in special_tokens.items() if i in taken)
    if clash:
        raise InvalidInput(
            f"special token {clash[0]!r} has id {special_tokens[clash[0]]}, which "
            "the ranks file gives to an ordinary token"
        )
    return dict(special_tokens)


def _check_pattern(pattern: Any) -> str:
    if pattern is None:
        raise InvalidInput(
            "a tiktoken ranks file does not say how to split text: give pattern= "
            f"(a preset: {', '.join(PRESETS)}; or a regex)"
        )
    if not isinstance(pattern, str) or not pattern:
        raise InvalidInput("pattern must be a preset name or a regex")
    if pattern not in PRESETS:
        compile_pattern(pattern)  # ValueError with the regex error
    return pattern


def load_bytes(
    data: bytes,
    *,
    name: str = "",
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
    **options: Any,
) -> TiktokenTokenizer:
    """A `Tokenizer` from the bytes of a ranks file; tiktoken's special-token rule applies."""
    if options:
        raise InvalidInput(
            f"a tiktoken ranks file takes pattern= and special_tokens=, not "
            f"{', '.join(sorted(options))}"
        )
    pattern = _check_pattern(pattern)
    ranks = parse_ranks(data)
    specials = check_specials(special_tokens, ranks)
    vocab = {bytes_to_byte_level(token): rank for token, rank in ranks.items()}
    model = BPE(vocab, None, rank_by="tokens", byte_level=True, special_tokens=specials)
    tok = TiktokenTokenizer(name or "tiktoken file", model, pattern, specials, strict_special=True)
    tok.warnings = [] if specials else [no_specials_warning(len(ranks))]  # type: ignore[attr-defined]
    tok.source_note = read_as(pattern, special_tokens, specials)  # type: ignore[attr-defined]
    return tok


def read_as(pattern: str, given: Any, specials: dict[str, int]) -> str:
    """One sentence saying what a ranks file was read with (the file cannot say it)."""
    split = f"the pattern preset {pattern!r}" if pattern in PRESETS else "a regex of its own"
    if isinstance(given, str):
        marks = f"{len(specials):,} special tokens (preset {given!r})"
    else:
        marks = f"{len(specials):,} special tokens" if specials else "no special tokens"
    return f"A tiktoken ranks file, read with {split} and {marks}."


def no_specials_warning(rank_count: int) -> str:
    """What a user should know of a ranks file loaded with no special tokens."""
    said = (
        "This ranks file was loaded with no special tokens (the format does not hold them), "
        "so text such as <|endoftext|> is split as ordinary text and no token marks a "
        "document's start or end."
    )
    known = tiktoken_specials.suggest(rank_count)
    if known is None:
        return said + " Give them when you load it, one TOKEN ID a line."
    return (
        f"{said} Its {rank_count:,} ranks are as many as {known.known_as} has: load it "
        f"with the special-token preset {known.specials!r} to get that model's."
    )


def dump_bytes(tok: Any) -> bytes:
    """A ranks file's bytes for a byte-level BPE tokeniser ranked by token id: the OpenAI
    encodings, a loaded ranks file, or a trained "byte_bpe" (whose ids follow its merge order,
    so ranking by id merges as its merge list does). Special tokens are not part of the format:
    pass them again as `special_tokens=` when loading, with the pattern.

    >>> from tokenizers_core import load
    >>> tok = load_bytes(dump_bytes(load("r50k_base")), pattern="gpt2")
    >>> tok.encode("Hello, world!").ids
    [15496, 11, 995, 0]
    """
    model = tok.model
    if not isinstance(model, BPE) or not model.byte_level:
        raise InvalidInput(
            f"{tok.name or tok.algorithm or 'this tokeniser'} is not byte-level BPE, "
            "so it has no tiktoken form; save it as tokenizer.json"
        )
    if model.rank_by == "merges":
        check_merges_follow_ids(model)
    specials = set(model.special_tokens) | set(getattr(tok, "added_tokens", ()) or ())
    lines = []
    for token, rank in sorted(model.vocab.items(), key=lambda kv: kv[1]):
        if token in specials:
            continue
        lines.append(_encode_token(byte_level_to_bytes(token)) + b" %d\n" % rank)
    return b"".join(lines)


def check_merges_follow_ids(model: BPE) -> None:
    """tiktoken merges the pair whose result has the lowest rank (id); that is the merge list's
    order only when no merge's result has a smaller id than the merges before it. Two merges
    that make the same token (Llama 3 has 152,403 such) rank alike: `exactness` says so."""
    last = -1
    for left, right in model.merges:
        id_ = model.vocab.get(left + right)
        if id_ is None or id_ < last:
            raise InvalidInput(
                "this BPE's merge order does not follow its token ids, so ranking "
                "by id (tiktoken) would merge differently; save it as tokenizer.json"
            )
        last = id_
