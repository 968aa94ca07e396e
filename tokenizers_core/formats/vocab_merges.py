"""BPE as two files, `vocab.json` (token -> id) and `merges.txt` (a "#version" line, then
"left right" per merge in rank order): how GPT-2, RoBERTa and GPT-1 were shipped before
tokenizer.json, and how we write the textbook `bpe`. OpenAI's GPT-2 release names them
`encoder.json` and `vocab.bpe`.

The two files hold the model, not the pipeline around it, so the pipeline is chosen from the
vocabulary, as Hugging Face's implementation classes build it:

- **byte-level** (every token is spelled in GPT-2's byte-to-unicode alphabet, "Ġ" for a space):
  `ByteLevelBPETokenizer(vocab, merges)`: the ByteLevel pre-tokenizer (no prefix space),
  decoder and post-processor;
- **GPT-1 style** (a word's last symbol carries "</w>", as in "e</w>"): `CharBPETokenizer(vocab,
  merges)`: BertNormalizer (no lowercasing), BertPreTokenizer, "<unk>", the BPEDecoder;
- **the textbook `bpe`** ("</w>" is a symbol of its own, merged like any other: what
  `tok.save(..., format="vocab_merges")` writes for it): our `bpe` pipeline, so a saved textbook
  tokeniser loads back as it was.

On disk: a folder holding the two files (`tc.load("dir/")`), or a .zip of them (what the web
app downloads and takes as an upload). A zip is read member by member with a size cap, so a
zip bomb stops at the cap.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from itertools import repeat
from operator import itemgetter
from typing import Any

from ..errors import InvalidInput
from ..implementations.bpe import bpe_tokenizer
from ..models.bpe.model import END_OF_WORD, UNK
from ..pre_tokenizers import bytes_to_unicode
from .files import read_zip_members, zip_files
from .hf_json import from_dict
from .hf_json_writer import vocab_merges_files

NAMES = (("vocab.json", "merges.txt"), ("encoder.json", "vocab.bpe"))  # HF's, then OpenAI's
MAX_BYTES = 64 * 1024 * 1024  # both files together, unzipped


# ---- reading -------------------------------------------------------------------------------------
def parse_vocab(data: bytes) -> dict[str, int]:
    """vocab.json: a JSON object, token -> id (ids whole numbers, none twice)."""
    try:
        vocab = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"vocab.json is not a JSON object of token -> id: {exc}") from None
    if not isinstance(vocab, dict) or not vocab:
        raise InvalidInput("vocab.json must be a non-empty JSON object of token -> id")
    if set(map(type, vocab.values())) != {int} or min(vocab.values()) < 0:  # (C speed)
        raise InvalidInput("vocab.json: every id must be a whole number of 0 or more")
    if len(set(vocab.values())) != len(vocab):
        raise InvalidInput("vocab.json: two tokens share an id")
    return vocab


def parse_merges(data: bytes) -> list[tuple[str, str]]:
    """merges.txt: an optional "#version" line, then "left right" a line (blank lines skipped).

    >>> parse_merges(b"#version: 0.2\\nl o\\nlo w</w>\\n")
    [('l', 'o'), ('lo', 'w</w>')]
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"merges.txt is not UTF-8 text: {exc.reason} at byte {exc.start}"
        ) from None
    lines = list(map(str.rstrip, text.split("\n"), repeat("\r")))
    if lines and lines[0].startswith("#version"):
        lines[0] = ""
    pairs = list(map(str.split, filter(None, lines), repeat(" ")))  # (C speed)
    if set(map(len, pairs)) <= {2} and all(map(all, pairs)):
        return list(map(tuple, pairs))  # type: ignore[arg-type]
    return _parse_merges_line_by_line(text)  # (it names the line that is wrong)


def _parse_merges_line_by_line(text: str) -> list[tuple[str, str]]:
    """`parse_merges`, one line at a time: InvalidInput names the first line that is wrong."""
    merges = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise InvalidInput(
                f"merges.txt line {number}: expected two symbols split by one "
                f"space, got {line[:60]!r}"
            )
        merges.append((parts[0], parts[1]))
    return merges


def read_zip(data: bytes, limit: int = MAX_BYTES) -> tuple[bytes, bytes]:
    """The vocab and merges files' bytes from a zip of them (at its root or in one folder)."""
    archive, files = zip_files(data)
    members = {os.path.basename(i.filename): i for i in files}
    for vocab_name, merges_name in NAMES:
        if vocab_name in members and merges_name in members:
            vocab, merges = read_zip_members(
                archive, [members[vocab_name], members[merges_name]], limit
            )
            return vocab, merges
    raise InvalidInput(
        "the zip holds no vocab.json + merges.txt (nor encoder.json + vocab.bpe); "
        f"it holds: {', '.join(sorted(members)[:8]) or 'nothing'}"
    )


def read_folder(path: str) -> tuple[bytes, bytes] | None:
    """The two files' bytes from a folder that holds them (None when it holds neither pair)."""
    for vocab_name, merges_name in NAMES:
        vocab_path, merges_path = os.path.join(path, vocab_name), os.path.join(path, merges_name)
        if os.path.isfile(vocab_path) and os.path.isfile(merges_path):
            if os.path.getsize(vocab_path) + os.path.getsize(merges_path) > MAX_BYTES:
                raise InvalidInput(f"{path}: the two files are more than {MAX_BYTES:,} bytes")
            with open(vocab_path, "rb") as v, open(merges_path, "rb") as m:
                return v.read(), m.read()
    return None


# ---- the pipeline --------------------------------------------------------------------------------
def kind_of(vocab: dict[str, int], merges: list[tuple[str, str]]) -> str:
    """ "bpe" (the textbook form), "byte_level" or "char" (GPT-1 style), from the vocabulary.

    GPT-1's vocabulary spells a word's last symbol with "</w>" (about half its tokens); a
    byte-level one has no such tokens, only characters of the byte-level alphabet (in which
    printable ASCII stands for itself, so an ASCII-only vocabulary fits it too).

    The textbook form has "</w>" as a token of its own, and every other token ending in it is
    made by a merge (GPT-1's are starting symbols, "e</w>"):

    >>> kind_of({"l": 0, "o": 1, "</w>": 2, "lo": 3}, [("l", "o")])
    'bpe'
    >>> kind_of({"l": 0, "o": 1, "Ġ": 2}, [("l", "o")])
    'byte_level'
    >>> kind_of({"<unk>": 0, "l": 1, "o</w>": 2}, [("l", "o</w>")])
    'char'
    """
    if END_OF_WORD in vocab:
        made = set(map(str.__add__, map(itemgetter(0), merges), map(itemgetter(1), merges)))
        if all(
            token in made for token in vocab if token.endswith(END_OF_WORD) and token != END_OF_WORD
        ):
            return "bpe"
    if 20 * sum(map(str.endswith, vocab, repeat(END_OF_WORD))) >= len(vocab):
        return "char"
    alphabet = set(bytes_to_unicode().values())
    if alphabet.issuperset("".join(vocab)):  # every character of every token
        return "byte_level"
    raise InvalidInput(
        "these files are neither byte-level BPE (GPT-2, RoBERTa: tokens spelled with "
        "Ġ for a space) nor GPT-1 style (a word's last symbol ends in </w>), so "
        "they do not say which pipeline to run: load the model's tokenizer.json"
    )


def tokenizer_from(vocab: dict[str, int], merges: list[tuple[str, str]], name: str = "") -> Any:
    """The tokeniser for a vocabulary and merge list (the pipeline chosen by `kind_of`)."""
    has = vocab.__contains__
    if not all(map(has, map(itemgetter(0), merges))) or not all(
        map(has, map(itemgetter(1), merges))
    ):  # (C speed; the model checks the merged tokens too, once, as it is built)
        missing = next(f"{a} {b}" for a, b in merges if a not in vocab or b not in vocab)
        raise InvalidInput(f"merges.txt names a symbol vocab.json lacks: {missing!r}")
    kind = kind_of(vocab, merges)
    if kind == "bpe":
        if UNK not in vocab:
            raise InvalidInput(f"a textbook bpe vocabulary holds {UNK}; this one does not")
        tok = bpe_tokenizer(vocab, merges)
    else:
        tok = from_dict(_hf_config(kind, vocab, merges), name=name)
    if name:
        tok.name = name
    return tok


def _hf_config(kind: str, vocab: dict[str, int], merges: list[tuple[str, str]]) -> dict:
    """The tokenizer.json Hugging Face's ByteLevelBPETokenizer / CharBPETokenizer builds."""
    model = {
        "type": "BPE",
        "dropout": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": vocab,
        "merges": merges,  # (pairs as they are: the model takes tuples without a copy)
    }
    if kind == "byte_level":
        level = {"add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        return {
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", **level},
            "post_processor": {
                "type": "ByteLevel",
                **level,
                "add_prefix_space": True,
                "trim_offsets": False,
            },
            "decoder": {"type": "ByteLevel", **level, "add_prefix_space": True},
            "model": {
                **model,
                "unk_token": None,
                "continuing_subword_prefix": "",
                "end_of_word_suffix": "",
            },
        }
    unk = "<unk>"
    added = (
        [
            {
                "id": vocab[unk],
                "content": unk,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ]
        if unk in vocab
        else []
    )
    return {
        "added_tokens": added,
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": False,
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "BPEDecoder", "suffix": END_OF_WORD},
        "model": {
            **model,
            "unk_token": unk,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": END_OF_WORD,
        },
    }


def load_bytes(data: bytes, *, name: str = "", **options: Any) -> Any:
    """A `Tokenizer` from a zip of vocab.json + merges.txt."""
    if options:
        raise InvalidInput(
            f"vocab.json + merges.txt take no options (got {', '.join(sorted(options))})"
        )
    vocab, merges = read_zip(data)
    return tokenizer_from(parse_vocab(vocab), parse_merges(merges), name)


def load_pair(vocab: bytes, merges: bytes, name: str = "") -> Any:
    """A `Tokenizer` from the two files' bytes."""
    return tokenizer_from(parse_vocab(vocab), parse_merges(merges), name)


# ---- writing -------------------------------------------------------------------------------------
def dump_bytes(tok: Any) -> bytes:
    """A zip of the vocab.json and merges.txt of a BPE model (ValueError when it is none). The
    same tokeniser always gives the same bytes: the entries carry a fixed date (1980-01-01, the
    zip format's first), not the time of writing.

    >>> from tokenizers_core import load
    >>> dump_bytes(load("r50k_base")) == dump_bytes(load("r50k_base"))
    True
    """
    files = vocab_merges_files(tok)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for file_name, content in files.items():
            entry = zipfile.ZipInfo(file_name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            zf.writestr(entry, content)
    return out.getvalue()
