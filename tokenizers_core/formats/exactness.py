"""Does a file in this format reproduce the tokeniser exactly? And if not, what changes?

Each format rebuilds part of a pipeline when it is loaded, and holds nothing else:

| format          | what loading it rebuilds                                                     |
|-----------------|------------------------------------------------------------------------------|
| `hf_json`       | the whole pipeline (the writer refuses what it cannot hold; Hugging Face     |
|                 | matches a sentencepiece model's "<unk>", "<s>", "</s>" typed in the text)    |
| `tiktoken`      | byte-level BPE ranked by id; the pattern and special tokens come at load time |
| `sentencepiece` | sentencepiece's normaliser, model and decoder (`.model`)                     |
| `vocab_txt`     | BERT's pipeline around the WordPiece vocabulary                              |
| `vocab_merges`  | the pipeline read off the vocabulary (byte-level, or "</w>"-suffixed)         |
| `gguf`          | llama.cpp's model for it: byte-level BPE with a named pre-tokenizer and no   |
|                 | normaliser, sentencepiece BPE without normalisation, Unigram, WordPiece     |

`exactness(tok, format)` compares the tokeniser's parts with what the format rebuilds and says,
in plain sentences, what a file in that format loses: a normaliser dropped, a suffix lost, added
tokens it cannot hold, a pre-tokenizer replaced, a post-processor dropped. A format that cannot
hold the tokeniser at all (the writer refuses it) says why instead. tiktoken, vocab.txt and the
vocab.json + merges.txt are compared with what their readers build; tokenizer.json's writer
refuses any part it cannot write exactly, so it only adds what Hugging Face reads differently.

>>> from tokenizers_core import load
>>> exactness(load("r50k_base"), "tiktoken").exact
True
>>> exactness(load("bert-base-uncased"), "tiktoken").refused
'bert-base-uncased is not byte-level BPE, so it has no tiktoken form; save it as tokenizer.json'

Not handled: two readers may still disagree on an input that no part describes (the documented
edge cases of `hf_json_writer.sentencepiece_sections`); the differential tests
(`tests/core/formats/test_exactness.py`) run every claim on real text through the reference
libraries.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from ..decoders import ByteLevel as ByteLevelDecoder
from ..errors import InvalidInput
from ..hf_regex import translate
from ..models.bpe.model import BPE
from ..models.unigram.model import CONTROL, UNKNOWN
from ..normalizers.sentencepiece import SentencePieceNormalizer
from ..pre_tokenizers import HF_BYTE_LEVEL_PATTERN, PRESETS, ByteLevel, Regex, Sequence
from ..pre_tokenizers.hf import Split

READERS = {
    "sentencepiece": "tokenizers_core.formats.sentencepiece_model",
    "vocab_txt": "tokenizers_core.formats.vocab_txt",
    "vocab_merges": "tokenizers_core.formats.vocab_merges",
}
WRITE_UP_TO = 60_000  # vocabularies this size or smaller are asked by writing them


@dataclass(frozen=True)
class Exactness:
    """What a file of `format` keeps of a tokeniser.

    `refused`: why the format cannot hold it at all (None when a file can be written);
    `changes`: what a written file loses, one sentence each (empty: the file is exact);
    `pattern`: for tiktoken, the regex to give tiktoken again when loading (None when the
    tokeniser's pre-tokenizer is no single regex)."""

    format: str
    refused: str | None = None
    changes: tuple[str, ...] = ()
    pattern: str | None = None

    @property
    def exact(self) -> bool:
        return self.refused is None and not self.changes

    @property
    def lossy(self) -> bool:
        return self.refused is None and bool(self.changes)


def exactness(tok: Any, format: str) -> Exactness:
    """Whether a file of `format` reproduces `tok` exactly, and if not, what changes."""
    if not _has_vocabulary(tok):
        return Exactness(
            format,
            refused=f"{_name(tok)} has no file form: its tokens are cut from the text by rules",
        )
    try:
        if format == "tiktoken":
            _check_tiktoken(tok)
            pattern, changes = tiktoken_changes(tok)
            return Exactness(format, changes=tuple(changes), pattern=pattern)
        if format == "hf_json":  # the writer refuses what it cannot hold
            _check_writes(tok, format)
            return Exactness(format, changes=tuple(hf_json_changes(tok)))
        if format == "sentencepiece" and getattr(tok, "proto", None) is not None:
            return Exactness(format)  # a loaded .model writes its own proto back
        if format == "gguf":  # what llama.cpp's tokenizer models rebuild
            return Exactness(format, changes=tuple(_writer(format).changes(tok)))
        return Exactness(format, changes=tuple(reload_changes(tok, format)))
    except ValueError as exc:
        return Exactness(format, refused=str(exc))


# ---- can the format hold it at all ---------------------------------------------------------------
def _check_writes(tok: Any, format: str) -> bytes | None:
    """The file's bytes, or a ValueError saying why the writer refuses `tok`. Small models
    are asked by writing them; a large one by its type (what the writer decides), so that the
    OpenAI encodings are not written on every page view (then None)."""
    if _size(tok) <= WRITE_UP_TO:
        return _writer(format).dump_bytes(tok)
    if format == "hf_json" and (hasattr(tok.model, "to_hf_config") or _sentencepiece_style(tok)):
        return None
    if format == "vocab_merges":
        raise InvalidInput(
            f"{_name(tok)} is too large to check as vocab.json + merges.txt here; "
            "its tokenizer.json holds the same vocabulary and merges"
        )
    if format == "vocab_txt" or (format == "sentencepiece" and _sentencepiece_style(tok)):
        return _writer(format).dump_bytes(tok)  # quick to write, or quick to refuse
    raise InvalidInput(f"{_name(tok)} has no {format} form")


def _check_tiktoken(tok: Any) -> None:
    """The tiktoken writer's checks without writing the file (ValueError when it refuses)."""
    module = _writer("tiktoken")
    model = tok.model
    if not isinstance(model, BPE) or not model.byte_level:
        module.dump_bytes(tok)  # raises, saying why
    if model.rank_by == "merges":
        module.check_merges_follow_ids(model)


def _writer(format: str) -> Any:
    return importlib.import_module(f"tokenizers_core.formats.{_MODULES[format]}")


_MODULES = {
    "hf_json": "hf_json_writer",
    "tiktoken": "tiktoken_file",
    "sentencepiece": "sentencepiece_model",
    "vocab_txt": "vocab_txt",
    "vocab_merges": "vocab_merges",
    "gguf": "gguf_writer",
}


# ---- tokenizer.json: the whole pipeline, and Hugging Face's reading of control pieces -----------
def hf_json_changes(tok: Any) -> list[str]:
    """What a tokenizer.json loses: only a sentencepiece model's reading of its control and
    unknown pieces' strings ("<s>", "</s>", "<unk>"), which sentencepiece reads as text and
    Hugging Face matches as those tokens (`hf_json_writer.sentencepiece_sections`, case 1)."""
    if not _sentencepiece_style(tok):
        return []
    types = getattr(tok.model, "types", None) or ()
    pieces = [p for (p, _s), t in zip(tok.model.pieces, types) if t in (CONTROL, UNKNOWN)]
    return [control_piece_change(pieces)] if pieces else []


def control_piece_change(pieces: list[str]) -> str:
    """The sentence for a sentencepiece model's control and unknown pieces in tokenizer.json.

    >>> print(control_piece_change(["<unk>"]))  # doctest: +NORMALIZE_WHITESPACE
    Text that spells a control or unknown piece (<unk>) becomes that token: sentencepiece reads it
    as text, Hugging Face matches it.
    """
    shown = ", ".join(pieces[:3]) + (", ..." if len(pieces) > 3 else "")
    return (
        f"Text that spells a control or unknown piece ({shown}) becomes that token: "
        "sentencepiece reads it as text, Hugging Face matches it."
    )


# ---- tiktoken: ranks only; the pattern and the special tokens come at load time ------------------
def tiktoken_changes(tok: Any) -> tuple[str | None, list[str]]:
    """(the regex tiktoken must be given, what a ranks file loses) for a byte-level BPE."""
    changes: list[str] = []
    if tok.normalizer is not None:
        changes.append(
            f"The normaliser ({_label(tok.normalizer)}) is dropped: tiktoken reads "
            "the text as it is."
        )
    pattern = tiktoken_pattern(tok)
    if pattern is None:
        changes.append(
            f"The pre-tokenizer ({_label(tok.pre_tokenizer)}) is not one regex, so "
            "tiktoken splits the text another way."
        )
    elif _prefix_space(tok.pre_tokenizer):
        changes.append("The space the pre-tokenizer puts before the text is no longer added.")
    changes += _model_changes(tok.model)
    changes += _added_token_changes(tok)
    processor = tok.post_processor
    if processor is not None and _adds_tokens(processor):
        changes.append(
            f"The post-processor ({_label(processor)}) is dropped: its tokens are no longer added."
        )
    decoder = tok.decoder
    if decoder is not None and not isinstance(decoder, ByteLevelDecoder):
        changes.append(
            f"The decoder ({_label(decoder)}) is dropped: tiktoken decodes the bytes as they are."
        )
    changes += _length_changes(tok)
    return pattern, changes


def tiktoken_pattern(tok: Any) -> str | None:
    """The one regex that splits text as `tok`'s pre-tokenizer does, or None.

    >>> from tokenizers_core import load
    >>> tiktoken_pattern(load("cl100k_base"))[:20]
    "'(?i:[sdmt]|ll|ve|re"
    """
    own = getattr(tok, "pattern", None)
    if isinstance(own, str) and own:
        return own  # a tiktoken-style tokeniser's own pattern
    return _split_regex(tok.pre_tokenizer)


def _split_regex(pre: Any) -> str | None:
    parts = list(pre.pre_tokenizers) if isinstance(pre, Sequence) else [pre]
    if len(parts) == 1 and isinstance(parts[0], ByteLevel) and parts[0].use_regex:
        return HF_BYTE_LEVEL_PATTERN
    if (
        len(parts) == 2
        and isinstance(parts[1], ByteLevel)
        and not parts[1].use_regex
        and not parts[1].add_prefix_space
    ):
        return _single_regex(parts[0])
    return None


def _single_regex(pre: Any) -> str | None:
    if isinstance(pre, Regex):
        return pre.pattern
    if (
        isinstance(pre, Split)
        and pre.is_regex
        and (
            (pre.behavior == "isolated" and not pre.invert)
            or (pre.behavior == "removed" and pre.invert)
        )
    ):
        return translate(pre.pattern)  # as the `regex` module (tiktoken) reads it
    return None


def _prefix_space(pre: Any) -> bool:
    parts = list(pre.pre_tokenizers) if isinstance(pre, Sequence) else [pre]
    return any(isinstance(p, ByteLevel) and p.add_prefix_space for p in parts)


def _model_changes(model: BPE) -> list[str]:
    changes = []
    suffix = getattr(model, "end_of_word_suffix", None) or getattr(model, "end_of_word", None)
    if suffix:
        changes.append(
            f"The end-of-word suffix {suffix!r} is lost: tiktoken's tokens carry no "
            "suffix, so the last token of each word changes."
        )
    prefix = getattr(model, "continuing_subword_prefix", None)
    if prefix:
        changes.append(f"The continuing-subword prefix {prefix!r} is lost.")
    if getattr(model, "dropout", None):
        changes.append("BPE dropout is dropped: tiktoken always merges.")
    ties = _tied_merges(model)
    if ties:
        changes.append(
            f"{ties:,} merges make a token another merge also makes; tiktoken ranks "
            "them as one, so where two of them overlap in a word it may merge in "
            "another order."
        )
    return changes


def _tied_merges(model: BPE) -> int:
    """How many merges make the same token as the merge before them (ranked alike by id)."""
    if model.rank_by != "merges":
        return 0
    vocab, last, ties = model.vocab, -1, 0
    for left, right in model.merges:
        id_ = vocab.get(left + right)
        ties += id_ == last
        last = id_ if id_ is not None else last
    return ties


def _added_token_changes(tok: Any) -> list[str]:
    added = list(getattr(tok, "added_tokens", None) or ())
    plain = [t.content for t in added if not t.special]
    stripping = [t.content for t in added if t.special and (t.lstrip or t.rstrip or t.single_word)]
    changes = []
    if plain:
        changes.append(
            f"Added tokens that are not special ({len(plain):,}, first: "
            f"{plain[0]!r}) become special tokens: tiktoken matches them only where "
            "allowed_special allows."
        )
    if stripping:
        changes.append(
            f"Special tokens that take in the spaces around them ({len(stripping):,}, "
            f"first: {stripping[0]!r}) match only their bare string in tiktoken."
        )
    return changes


# ---- the other formats: what their reader rebuilds, part by part ---------------------------------
def reload_changes(tok: Any, format: str) -> list[str]:
    """What differs between `tok` and the tokeniser its `format` file loads back as (a
    ValueError when the writer refuses it, or the file does not load back)."""
    data = _check_writes(tok, format) or _writer(format).dump_bytes(tok)
    try:
        back = importlib.import_module(READERS[format]).load_bytes(data, name=tok.name)
    except ValueError as exc:
        raise InvalidInput(f"a {format} file of {_name(tok)} does not load back: {exc}") from None
    changes = []
    for what, label in (
        ("normalizer", "normaliser"),
        ("pre_tokenizer", "pre-tokenizer"),
        ("post_processor", "post-processor"),
        ("decoder", "decoder"),
    ):
        ours, theirs = getattr(tok, what), getattr(back, what)
        if _behaviour(what, ours) != _behaviour(what, theirs):
            changes.append(_replaced(label, ours, theirs))
    if format != "sentencepiece":
        ours, theirs = _model_options(tok.model), _model_options(back.model)
        changes += [
            f"The model's {key} changes from {ours.get(key)!r} to {theirs.get(key)!r}."
            for key in sorted(set(ours) | set(theirs))
            if ours.get(key) != theirs.get(key)
        ]
    lost = sorted(
        {(t.id, t.content) for t in tok.added_tokens}
        - {(t.id, t.content) for t in back.added_tokens}
    )
    if lost:
        changes.append(
            f"{_count(len(lost), 'added token')} no longer matched whole in the "
            f"text (first: {lost[0][1]!r})."
        )
    return changes + _length_changes(tok)


def _replaced(label: str, ours: Any, theirs: Any) -> str:
    if theirs is None:
        return f"The {label} ({_label(ours)}) is dropped."
    if ours is None:
        return f"A {label} is added: {_label(theirs)}."
    return f"The {label} {_label(ours)} is replaced by {_label(theirs)}."


def _behaviour(what: str, component: Any) -> Any:
    """What a part does, to compare with the part a file loads back as: its tokenizer.json
    config; for a pre-tokenizer that is one regex and ByteLevel, that regex (the gpt2 preset is
    GPT-2's ByteLevel regex); for a post-processor, the tokens it adds (offset trimming aside)."""
    if what == "pre_tokenizer" and component is not None:
        pattern = _split_regex(component)
        if pattern is not None:
            return HF_BYTE_LEVEL_PATTERN if pattern == PRESETS["gpt2"] else pattern
    if what == "post_processor" and component is not None and not _adds_tokens(component):
        return None
    return _config(component)


def _config(component: Any) -> Any:
    if component is None:
        return None
    to_config = getattr(component, "to_hf_config", None)
    try:
        return to_config() if to_config else _label(component)
    except ValueError:
        return _label(component)


def _model_options(model: Any) -> dict[str, Any]:
    """The model's settings other than its vocabulary (unk token, prefixes, suffixes)."""
    to_config = getattr(model, "to_hf_config", None)
    if to_config is None:
        return {"type": type(model).__name__}
    try:
        config = to_config()
    except ValueError:
        return {"type": type(model).__name__}
    return {k: v for k, v in config.items() if k not in ("vocab", "merges")}


# ---- shared --------------------------------------------------------------------------------------
def _length_changes(tok: Any) -> list[str]:
    changes = []
    if getattr(tok, "truncation", None):
        changes.append("Truncation is dropped: every token is kept.")
    if getattr(tok, "padding", None):
        changes.append("Padding is dropped.")
    return changes


def _count(n: int, noun: str) -> str:
    """ "1 added token is", "3 added tokens are"."""
    return f"{n:,} {noun} is" if n == 1 else f"{n:,} {noun}s are"


def _adds_tokens(processor: Any) -> bool:
    added = getattr(processor, "added_tokens", None)
    try:
        return bool(added(False)) if callable(added) else True
    except (TypeError, ValueError):
        return True


def _has_vocabulary(tok: Any) -> bool:
    return (
        isinstance(getattr(tok.model, "vocab", None), dict)
        or getattr(tok.model, "pieces", None) is not None
    )


def _size(tok: Any) -> int:
    vocab = getattr(tok.model, "vocab", None)
    if isinstance(vocab, dict):
        return len(vocab)
    return len(getattr(tok.model, "pieces", None) or ())


def _sentencepiece_style(tok: Any) -> bool:
    return isinstance(tok.normalizer, SentencePieceNormalizer)


def _label(component: Any) -> str:
    describe = getattr(component, "describe", None)
    return describe() if callable(describe) else type(component).__name__


def _name(tok: Any) -> str:
    return tok.name or tok.algorithm or "this tokeniser"


__all__ = ["Exactness", "control_piece_change", "exactness", "tiktoken_pattern"]
