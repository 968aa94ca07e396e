"""Mistral's Tekken files (`tekken.json`), read as mistral-common 1.13's `Tekkenizer.from_file`
reads them.

A Tekken file is one JSON object:

    {"config": {"pattern": <tiktoken pat_str>, "num_vocab_tokens": 150000,
                "default_vocab_size": 131072, "default_num_special_tokens": 1000,
                "version": "v3"},
     "vocab": [{"rank": 0, "token_bytes": "AA==", "token_str": "\\u0000"}, ...],
     "special_tokens": [{"rank": 0, "token_str": "<unk>", "is_control": true}, ...],
     "image": {...}, "audio": {...}, ...}

and the tokeniser it describes is tiktoken's byte-level BPE over the first
`default_vocab_size - default_num_special_tokens` ranks, with the file's pattern; the special
tokens take the first `default_num_special_tokens` ids, so a token's id is its rank plus their
number. The special tokens are the file's `special_tokens` (each at its `rank`), or, for a file
of version v7 or older that lists none, mistral-common's twenty defaults (`<unk>`, `<s>`, `</s>`,
`[INST]`, ...); the ids left over are `<SPECIAL_{id}>`. Special-token strings typed in the text
are ordinary text, as mistral-common's `Tekkenizer.encode` reads them (`allowed_special=` turns
them into their ids). The image and audio sections say how mistral-common encodes images and
sounds; text does not use them, and they are not read.

A Tekken file is told apart from a tokenizer.json by its content (`looks_like_tekken`): mistral
ships it as `tekken.json`, and a Hugging Face model repository often holds both.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from ..byte_level import bytes_to_byte_level
from ..errors import InvalidInput
from ..implementations.openai_public import TiktokenTokenizer
from ..models.bpe.model import BPE

# mistral-common's `Tekkenizer.DEPRECATED_SPECIAL_TOKENS`: the control tokens by id of a file of
# version v7 or older that lists none
TEKKEN_CONTROL = (
    "<unk> <s> </s> [INST] [/INST] [AVAILABLE_TOOLS] [/AVAILABLE_TOOLS] "
    "[TOOL_RESULTS] [/TOOL_RESULTS] [TOOL_CALLS] [IMG] <pad> [IMG_BREAK] [IMG_END] "
    "[PREFIX] [MIDDLE] [SUFFIX] [SYSTEM_PROMPT] [/SYSTEM_PROMPT] "
    "[TOOL_CONTENT]"
).split()

# What only a Tekken file holds: a vocabulary entry's base64 bytes ("token_bytes": "AA==") or a
# special token's control flag. In a tokenizer.json a key is followed by a number or an object, and
# a quote inside a JSON string is escaped, so these match only a Tekken file's own keys.
_TEKKEN_KEY = re.compile(rb'(?<!\\)"(?:token_bytes"\s*:\s*"|is_control"\s*:\s*(?:true|false))')


def looks_like_tekken(data: bytes) -> bool:
    """Whether a JSON file's bytes are a Tekken file (as far as `data` goes: its first 4 KB
    decide for a file as mistral-common writes it, whose `config` and first entries come first).

    >>> looks_like_tekken(b'{"config": {}, "vocab": [{"rank": 0, "token_bytes": "AA==", ')
    True
    >>> looks_like_tekken(b'{"model": {"type": "BPE", "vocab": {"token_bytes": 7}}}')
    False
    """
    if data.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] != b"{":  # a UTF-8 BOM may come first
        return False
    for key in (b'"token_bytes"', b'"is_control"'):  # bytes.find: a 12 MB file in milliseconds
        at = data.find(key)
        while at >= 0:
            if _TEKKEN_KEY.match(data, at):
                return True
            at = data.find(key, at + 1)
    return False


class TekkenTokenizer(TiktokenTokenizer):
    """tiktoken's encoding with Tekken's pattern. The pattern matches every character (its last
    alternatives take any whitespace, and ` ?[^\\s\\p{L}\\p{N}]+` anything else), so the fast
    path applies as for the OpenAI presets. `version` is the file's ("v3", "v7", ...).

    A control token's text typed in the input is ordinary text by default, as mistral-common's
    `Tekkenizer.encode` reads it (its tiktoken encoding holds no special tokens, so nothing is
    refused); `allowed_special` reads them as control tokens."""

    def __init__(
        self,
        name: str,
        model: BPE,
        pattern: str,
        special_tokens: dict[str, int],
        *,
        version: str = "",
    ) -> None:
        super().__init__(name, model, pattern, special_tokens, strict_special=False)
        self.preset = "tekken"
        self.version = version


def _fail(why: str) -> InvalidInput:
    return InvalidInput(f"not a Tekken file mistral-common reads: {why}")


def _int(config: dict[str, Any], key: str) -> int:
    value = config.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _fail(f'"config" needs "{key}", a count')
    return value


def _version(config: dict[str, Any]) -> int:
    """The number of the file's `version` ("v3" -> 3)."""
    version = config.get("version")
    if not isinstance(version, str) or not re.fullmatch(r"v[0-9]{1,4}", version):
        raise _fail(f'"config" needs a "version" such as "v3" or "v7", not {version!r}')
    return int(version[1:])


def special_tokens_of(tekken: dict[str, Any], n_special: int) -> dict[str, int]:
    """The special tokens {string: id}: the file's list (each at its rank) or, for a file of
    version v7 or older that has none, mistral-common's defaults; `<SPECIAL_{id}>` for every id
    up to `n_special` that they leave.

    >>> specials = special_tokens_of({"config": {"version": "v3"}}, 1000)
    >>> specials["<s>"], specials["[INST]"], specials["<SPECIAL_20>"], len(specials)
    (1, 3, 20, 1000)
    >>> special_tokens_of({"config": {"version": "v13"}, "special_tokens": [
    ...     {"rank": 0, "token_str": "<unk>", "is_control": True},
    ...     {"rank": 1, "token_str": "<s>", "is_control": True}]}, 3)
    {'<unk>': 0, '<s>': 1, '<SPECIAL_2>': 2}
    """
    listed = tekken.get("special_tokens")
    if listed is None:
        if _version(tekken.get("config") or {}) > 7:
            raise _fail(
                'a file of a version after v7 lists its "special_tokens" (mistral-common '
                "has no defaults for it)"
            )
        listed = [{"rank": i, "token_str": s} for i, s in enumerate(TEKKEN_CONTROL)]
    if not isinstance(listed, list) or not all(
        isinstance(t, dict) and isinstance(t.get("token_str"), str) for t in listed
    ):
        raise _fail('"special_tokens" is a list of {"rank", "token_str", "is_control"}')
    if len(listed) > n_special:
        raise _fail(
            f'{len(listed):,} "special_tokens" for {n_special:,} special ids '
            '("default_num_special_tokens")'
        )
    specials = {t["token_str"]: t.get("rank") for t in listed}
    if len(specials) < len(listed):
        raise _fail("two special tokens have the same string")
    ranks = {r for r in specials.values() if isinstance(r, int) and not isinstance(r, bool)}
    if ranks != set(range(len(listed))):
        raise _fail(f"the special tokens' ranks are not 0..{len(listed) - 1}, each once")
    specials.update({f"<SPECIAL_{i}>": i for i in range(len(listed), n_special)})
    return specials


def ranks_of(vocab: Any, count: int) -> dict[bytes, int]:
    """The first `count` entries of a Tekken `vocab` as tiktoken's ranks {bytes: rank}; each
    entry's rank is its position, and the first 256 are the single bytes, as mistral-common
    checks (`_reload_mergeable_ranks`).

    >>> ranks_of([{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(),
    ...            "token_str": None} for i in range(256)], 256)[b"A"]
    65
    """
    if not isinstance(vocab, list) or len(vocab) < count:
        size = len(vocab) if isinstance(vocab, list) else 0
        raise _fail(f'"vocab" holds {size:,} tokens; the config needs {count:,}')
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:count]):
        if not isinstance(entry, dict) or entry.get("rank") != i:
            raise _fail(f'"vocab" entry {i} is not {{"rank": {i}, "token_bytes": ...}}')
        try:
            token = base64.b64decode(entry.get("token_bytes") or "", validate=True)
        except (binascii.Error, TypeError, ValueError):
            raise _fail(f'"vocab" entry {i}: "token_bytes" is not base64') from None
        if not token or (i < 256 and token != bytes([i])) or token in ranks:
            raise _fail(
                f'"vocab" entry {i}: {token!r} (the first 256 are the bytes 0..255, '
                "and every token is new)"
            )
        ranks[token] = i
    return ranks


def from_dict(tekken: Any, name: str = "tekken") -> TekkenTokenizer:
    """The tokeniser a parsed Tekken file describes (see the module's docstring)."""
    if not isinstance(tekken, dict) or not isinstance(tekken.get("config"), dict):
        raise _fail('it is a JSON object with a "config" object and a "vocab" list')
    config = tekken["config"]
    _version(config)  # mistral-common has no default either ("Unknown version: None")
    pattern = config.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise _fail('"config" needs the "pattern" that splits the text')
    n_special = _int(config, "default_num_special_tokens")
    size = _int(config, "default_vocab_size")
    if size < n_special + 256:
        raise _fail(
            f'"default_vocab_size" {size:,} leaves no room for the 256 bytes after '
            f"{n_special:,} special tokens"
        )
    specials = special_tokens_of(tekken, n_special)
    ranks = ranks_of(tekken.get("vocab"), size - n_special)
    vocab = {bytes_to_byte_level(token): rank + n_special for token, rank in ranks.items()}
    model = BPE(vocab, None, rank_by="tokens", byte_level=True, special_tokens=specials)
    return TekkenTokenizer(name, model, pattern, specials, version=config["version"])


def load_bytes(data: bytes, *, name: str = "") -> TekkenTokenizer:
    """A `Tokenizer` from a Tekken file's bytes (see the module's docstring).

    >>> import json
    >>> vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(),
    ...           "token_str": None} for i in range(256)]
    >>> vocab.append({"rank": 256, "token_bytes": base64.b64encode(b"hi").decode(),
    ...               "token_str": "hi"})
    >>> config = {"pattern": r"\\w+|\\s+|[^\\w\\s]+", "num_vocab_tokens": 257,
    ...           "default_vocab_size": 277, "default_num_special_tokens": 20, "version": "v3"}
    >>> tok = load_bytes(json.dumps({"config": config, "vocab": vocab}).encode())
    >>> tok.encode("hi</s>").ids, tok.token_to_id("</s>")
    ([276, 80, 67, 135, 82], 2)
    """
    try:
        tekken = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(f"not valid JSON ({exc})") from None
    return from_dict(tekken, name=name or "tekken")
