"""A tokenizer's fingerprint: what its file is, what it does, and what llama.cpp would call it.

>>> fp = fingerprint("r50k_base")
>>> fp.llama_cpp_pre, len(fp.sha256), len(fp.behaviour)
('gpt-2', 64, 64)

- `sha256`: the file's content hash. A file or bytes: sha256 of its bytes. A folder: sha256 of a
  manifest of the tokenizer files in it (`folder_manifest`), so that weights beside them do not
  count. A bundled tokenizer, or one built in Python: sha256 of its tokenizer.json form (a rule
  tokenizer, which has none: of its name).
- `behaviour`: sha256 over the ids `encode` gives, by default, for each of `PROBES`. The same
  behaviour gives the same hash whatever the format: a tokenizer.json, its GGUF conversion and its
  export agree; a change of one id in one probe changes it.
- `chkhsh`: llama.cpp's pre-tokenizer hash, as `convert_hf_to_gguf.py` computes it
  (`formats.gguf_chkhsh`), and `llama_cpp_pre` the name llama.cpp gives that hash (None, `null`
  in JSON, where it knows none).
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import asdict, dataclass
from hashlib import sha256
from typing import Any

from .errors import InvalidInput
from .formats import gguf_chkhsh, hf_json_writer
from .formats.content_hash import file_sha256, source_sha256
from .pipeline import Tokenizer
from .pretrained import is_bundled, load
from .special_switch import special_options

# The texts the behaviour hash is taken over: each exercises a part of a pipeline (case and
# accents for normalisers; spaces, digits, punctuation and contractions for pre-tokenisers; scripts
# with and without spaces and byte fallback for models). Changing one changes every hash: never
# edit them, add a second set with a version of its own instead.
PROBES_VERSION = 1
PROBES = (
    "",
    "Hello, world!",
    "hello world HELLO WORLD Hello World",
    "The quick brown fox jumps over the lazy dog.",
    "  two spaces,\tone tab,\nnew line\r\nand CRLF   ",
    "I'm sure they'll say it's fine; we'd've gone. DON'T YOU'RE",
    "3.14159 1,000,000 2026-12-02 1234567890 ½ ² ٣ ३",
    "def add(a, b):\n    return a + b  # sum\n",
    "https://example.com/path?q=1&r=two#frag user@example.org",
    "Crème brûlée, naïve façade, Ångström, Straße, İstanbul",
    "Ünïcödé ﬁ ﬀ Ⅻ ＡＢＣ ｶﾀｶﾅ",  # compatibility forms (NFKC changes them)
    "e\u0301 a\u0308 n\u0303",  # combining marks
    "日本語の文章を分割します。中文没有空格。한국어 문장입니다.",
    "Привет, мир! Γειά σου κόσμε. مرحبا بالعالم. שלום עולם.",
    "नमस्ते दुनिया। வணக்கம் உலகம். สวัสดีชาวโลก ជំរាបសួរ",
    "emoji 🙂 👍🏽 👨‍👩‍👧 🇫🇷 🏳️‍🌈",
    "\u200b\u200d\ufeff zero-width \u00a0no-break",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!!!!!!!!!!!!........",
    "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "<s> </s> [CLS] [SEP] <|endoftext|> <unk> typed as text",
)


@dataclass(frozen=True)
class Fingerprint:
    """The four hashes; `to_dict()` is the JSON every surface prints."""

    sha256: str
    behaviour: str
    chkhsh: str
    llama_cpp_pre: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Fingerprint:
        """A fingerprint read back from JSON (a lock); InvalidInput naming what is wrong."""
        if not isinstance(data, dict):
            raise InvalidInput("a fingerprint is a JSON object of sha256, behaviour, chkhsh")
        for key in ("sha256", "behaviour", "chkhsh"):
            if not isinstance(data.get(key), str):
                raise InvalidInput(f"the fingerprint's {key!r} is missing or not a string")
        pre = data.get("llama_cpp_pre")
        if pre is not None and not isinstance(pre, str):
            raise InvalidInput("the fingerprint's 'llama_cpp_pre' is a string or null")
        return cls(data["sha256"], data["behaviour"], data["chkhsh"], pre)


def fingerprint(source: Any, **load_options: Any) -> Fingerprint:
    """The fingerprint of a tokenizer: a `Tokenizer`, or what `tc.load` takes (a bundled name, a
    file or folder path, a file's bytes) with `load_options` passed to it."""
    if isinstance(source, Tokenizer):
        tok, content = source, tokenizer_sha256(source)
    else:
        tok = load(source, **load_options)
        content = source_sha256(source) or tokenizer_sha256(tok)
    chk = gguf_chkhsh.chkhsh(tok)
    return Fingerprint(content, behaviour_hash(tok), chk, gguf_chkhsh.llama_cpp_pre(chk))


def behaviour_hash(tok: Any) -> str:
    """sha256 over `PROBES_VERSION` and each probe's ids as `tok.encode` gives them by default,
    special tokens typed in a probe read as ordinary text; then the last probe's again, with them
    read as special tokens (the `special` switch off, then on: tiktoken refuses them by default,
    where Hugging Face matches them, so the default alone would not compare the formats)."""
    as_text, as_special = special_options(tok, False), special_options(tok, True)
    ids = [list(tok.encode(text, **as_text).ids) for text in PROBES]
    ids.append(list(tok.encode(PROBES[-1], **as_special).ids))
    return sha256(json.dumps([PROBES_VERSION, ids], separators=(",", ":")).encode()).hexdigest()


# ---- the content hash ---------------------------------------------------------------------------
def tokenizer_sha256(tok: Any) -> str:
    """The content hash of a tokenizer object: of the file it was loaded from when `tc.load`
    recorded it, else of its tokenizer.json form, else (a rule tokenizer) of its name."""
    recorded = getattr(tok, "source_sha256", None)
    if isinstance(recorded, str):
        return recorded
    path = getattr(tok, "source_path", None)  # a GGUF model, hashed only now
    if isinstance(path, str) and os.path.isfile(path):
        return file_sha256(path)
    if _is_the_bundled(tok):  # read-only and loaded once: its hash is taken once too
        return _bundled_sha256(tok.name)
    return _form_sha256(tok)


def _form_sha256(tok: Any) -> str:
    try:
        data = hf_json_writer.dump_bytes(tok)
    except InvalidInput:  # no tokenizer.json form (char, word, sentence)
        data = f"rule tokenizer {tok.name or type(tok.model).__name__}".encode()
    return sha256(data).hexdigest()


def _is_the_bundled(tok: Any) -> bool:
    name = getattr(tok, "name", None)
    return isinstance(name, str) and is_bundled(name) and load(name) is tok


@functools.lru_cache(maxsize=None)
def _bundled_sha256(name: str) -> str:
    return _form_sha256(load(name))
