"""Writing a Hugging Face `tokenizer.json`: the whole pipeline, as `tokenizers` 0.23.3 writes it
(`Tokenizer.to_str()`: the same sections, keys and order), so that `tokenizers.Tokenizer.from_file`
gives the ids, tokens, offsets, special-tokens mask and decode our `Tokenizer` gives.

Each component writes its own section with `to_hf_config()` (normalizers, pre-tokenizers,
post-processors, decoders, models, added tokens, truncation, padding). Three kinds of tokenizer
need more than that:

- **tiktoken-style BPE** (the OpenAI encodings, a loaded `.tiktoken`): HF BPE with the merges
  recovered from the ranks and `ignore_merges`, behind the same Split + ByteLevel; the special
  tokens (`<|endoftext|>` ...) become special added tokens, so Hugging Face matches them in any
  text, as our `encode(text, allowed_special="all")` does (our plain `encode` reads them as
  ordinary text, tiktoken's default, and our mask marks them special where HF's does not).
  A `byte_bpe` trained here with `special_tokens` is written the same way (as Hugging Face's own
  trainer leaves them): on a text that holds one, HF gives its id where ours reads it as text.
- **sentencepiece** (our `Unigram` / `SentencePieceBpe` behind `SentencePieceNormalizer`: trained
  here or read from a `.model`): see `sentencepiece_sections` for the pipeline and the inputs on
  which Hugging Face cannot follow sentencepiece.
- **no form**: the textbook `bpe` ("</w>" is a symbol of its own: `save_vocab_merges` writes the
  vocab.json + merges.txt it does have) and the rule tokenizers (char, word, sentence: no fixed
  vocabulary) raise `ValueError` saying so.
"""

from __future__ import annotations

import json
import os
from json.encoder import encode_basestring
from typing import Any

from .. import normalizers
from ..added_tokens import AddedToken
from ..decoders import SentencePieceDecoder
from ..errors import InvalidInput
from ..models.bpe.model import gc_paused
from ..models.bpe.sentencepiece import SentencePieceBpe
from ..models.unigram.model import CONTROL, UNKNOWN, UNUSED, USER_DEFINED, Unigram
from ..normalizers.hf import Precompiled
from ..normalizers.sentencepiece import SentencePieceNormalizer

SPACE = "\u2581"


def to_hf_json(tok: Any) -> dict[str, Any]:
    """The tokenizer.json of `tok` as a dict (ValueError when it has no exact form)."""
    with gc_paused:  # a million small lists (the merges), none cyclic
        return _to_hf_json(tok)


def _to_hf_json(tok: Any) -> dict[str, Any]:
    model = tok.model
    if isinstance(tok.normalizer, SentencePieceNormalizer):
        return _sentencepiece(tok)
    to_config = getattr(model, "to_hf_config", None)
    if to_config is None:
        raise InvalidInput(
            f"{_name(tok)} has no tokenizer.json form: its model "
            f"({type(model).__name__}) has no fixed vocabulary (a rule tokenizer)"
        )
    added = list(tok.added_tokens)
    model_cfg = to_config()
    specials = getattr(tok, "special_tokens", None) or getattr(model, "special_tokens", None)
    if isinstance(specials, dict) and specials:  # tiktoken-style special tokens: token -> id
        known = {t.content for t in added}
        added += [
            AddedToken(s, id=i, special=True, normalized=False)
            for s, i in specials.items()
            if s not in known
        ]
        # in the model's vocabulary too: HF gives an added token that is not there the next id
        # after the vocabulary, whatever id the file says (cl100k leaves 100256 unused)
        vocab = dict(model_cfg["vocab"])
        for s, i in specials.items():
            vocab.setdefault(s, i)
        model_cfg["vocab"] = dict(sorted(vocab.items(), key=lambda kv: kv[1]))
    decoder = tok.decoder
    return _document(
        tok,
        model=model_cfg,
        added=added,
        normalizer=_section("normalizer", tok.normalizer),
        pre_tokenizer=_section("pre-tokenizer", tok.pre_tokenizer),
        post_processor=_section("post-processor", tok.post_processor),
        decoder=_section("decoder", decoder),
    )


def _document(
    tok: Any,
    *,
    model: dict,
    added: list[AddedToken],
    normalizer: Any,
    pre_tokenizer: Any,
    post_processor: Any,
    decoder: Any,
) -> dict[str, Any]:
    """The sections in the order tokenizers 0.23.3 writes them."""
    return {
        "version": "1.0",
        "truncation": tok.truncation.to_hf_config() if tok.truncation else None,
        "padding": tok.padding.to_hf_config() if tok.padding else None,
        # (a tokenizer's added tokens all have ids; `or 0` only gives None a place in the order)
        "added_tokens": [t.to_hf_config() for t in sorted(added, key=lambda t: t.id or 0)],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post_processor,
        "decoder": decoder,
        "model": model,
    }


def _section(what: str, component: Any) -> dict | None:
    """`component.to_hf_config()`, or a ValueError naming a component with no JSON form."""
    if component is None:
        return None
    if what == "normalizer":
        return normalizers.hf_config_of(component)
    to_config = getattr(component, "to_hf_config", None)
    if to_config is None:
        describe = getattr(component, "describe", None)
        label = describe() if callable(describe) else type(component).__name__
        raise InvalidInput(f"the {what} {label!r} has no tokenizer.json form")
    return to_config()


def _name(tok: Any) -> str:
    return repr(tok.name) if getattr(tok, "name", "") else "this tokenizer"


def dump_bytes(tok: Any) -> bytes:
    """The tokenizer.json file: UTF-8, indented as tokenizers' `save` writes it (pretty)."""
    doc = to_hf_json(tok)
    with gc_paused:
        return dumps(doc).encode("utf-8")


def dumps(doc: dict[str, Any]) -> str:
    """JSON text for a tokenizer.json dict, quickly: the small sections indented, the model's
    vocabulary and merges (millions of entries for Llama 3) written one entry a line by the C
    encoder."""
    compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    string = encode_basestring  # the C encoder of one string
    parts = []
    for key, value in doc.items():
        if key == "model" and isinstance(value, dict):
            fields = []
            for k, v in value.items():
                if isinstance(v, dict) and len(v) > 16 and _all_int(v.values()):
                    body = ",\n      ".join([f"{string(a)}: {b}" for a, b in v.items()])
                    fields.append(f"    {compact(k)}: {{\n      {body}\n    }}")
                elif isinstance(v, list) and len(v) > 16 and _all_pairs(v):
                    body = ",\n      ".join([f"[{string(a)}, {string(b)}]" for a, b in v])
                    fields.append(f"    {compact(k)}: [\n      {body}\n    ]")
                elif isinstance(v, list) and len(v) > 16:
                    body = ",\n      ".join(map(compact, v))
                    fields.append(f"    {compact(k)}: [\n      {body}\n    ]")
                else:
                    fields.append(f"    {compact(k)}: " + _indent(v, 4))
            text = "{\n" + ",\n".join(fields) + "\n  }"
        else:
            text = _indent(value, 2)
        parts.append(f"  {compact(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}"


def _all_int(values: Any) -> bool:
    return all(type(x) is int for x in values)


def _all_pairs(items: list) -> bool:
    return all(
        type(x) is list and len(x) == 2 and type(x[0]) is str and type(x[1]) is str for x in items
    )


def _indent(value: Any, level: int) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text.replace("\n", "\n" + " " * level)


# ---- sentencepiece -------------------------------------------------------------------------------
def sentencepiece_sections(tok: Any) -> dict[str, Any]:
    """The Hugging Face pipeline of a sentencepiece tokenizer (after transformers'
    `SpmConverter`, adjusted to follow sentencepiece itself rather than the slow tokenizer):

    - normalizer: `Precompiled` (the model's charsmap, when it has one), then, for
      `remove_extra_whitespaces`, `Replace` of leading and trailing spaces by nothing and of
      runs of spaces by one space (sentencepiece's whitespace rules, on " " only, as its own);
    - pre-tokenizer: `Metaspace("▁", prepend_scheme "always" for `add_dummy_prefix`, else
      "never", split)`; sentencepiece's pieces never hold "▁" inside, so splitting before each
      "▁" changes no segmentation;
    - model: HF `Unigram` (the pieces and scores) or HF `BPE` (the merges recovered from the
      pieces' scores, `fuse_unk`, `byte_fallback`; sentencepiece's char model is a BPE without
      merges; its word model has no form);
    - added tokens: the control pieces (special: `skip_special_tokens` drops them) and the
      unknown piece, matched in the original text; a Unigram's user-defined pieces stay in the
      model with the score sentencepiece's lattice gives them (a BPE model with user-defined
      pieces has no form: ValueError);
    - decoder: "▁" to space, byte pieces read as UTF-8 (`ByteFallback` + `Fuse`), the first
      space dropped.

    Where Hugging Face cannot follow sentencepiece (documented, not hidden):

    1. a text holding a control or unknown piece's string ("<s>", "</s>", "<unk>"): HF matches
       it as that token; sentencepiece reads it as text;
    2. `Precompiled` rewrites whole grapheme clusters where sentencepiece rewrites the longest
       matching prefix (`normalizers.hf.Precompiled`): a charsmap rule followed by a combining
       mark ("ﬁ\\u0301") may normalise differently, and a cluster of 6 UTF-8 bytes or more is
       looked up character by character, so an NFKC composition inside it is missed (Bengali
       "ঘো" written with two vowel signs, "\\u0998\\u09c7\\u09be": sentencepiece's nmt_nfkc
       composes "\\u09cb", HF keeps both signs); and sentencepiece never normalises a
       user-defined piece, so a combining mark after one ("Botchan" + U+0301) stays apart
       there and composes with the piece's last letter in HF;
    3. decoding: sentencepiece drops control pieces and shows an unknown id as " ⁇ "; HF's
       decode shows "<s>", "<unk>" (and `skip_special_tokens` drops them);
    4. Unigram: HF adds scores in 64-bit floats, sentencepiece in 32-bit: two segmentations
       whose scores tie in 32 bits but not in 64 (very rare) may be chosen differently;
    5. the dummy-prefix "▁" when it is a token alone: sentencepiece (and we) give it an empty
       span at the first character, (s, s); HF gives it that character's span, (s, s + 1);
    6. BPE: an unknown character's token string is the text itself in sentencepiece and the
       unknown piece ("<unk>") in HF (the id is the same);
    7. decoding a text that began with "▁" characters: sentencepiece drops every leading space,
       HF's Strip decoder only the first;
    8. offsets where the charsmap rewrites several characters as one ("e\\u0301" -> "é"):
       sentencepiece's token covers all of them, HF's the first (HF's alignment of a rewrite),
       and where the text starts with a character the charsmap turns into a space (a literal
       "▁" under the botchan BPE model's map): sentencepiece's first token covers it, HF's does
       not; the ids and tokens are the same;
    9. Unigram with byte fallback: HF fuses a run of unknown characters first, so each of its
       byte pieces covers the whole run; sentencepiece's cover their own character.
    """
    normalizer: SentencePieceNormalizer = tok.normalizer
    model = tok.model
    if normalizer.treat_whitespace_as_suffix:
        raise InvalidInput(
            "a sentencepiece model with treat_whitespace_as_suffix has no "
            "tokenizer.json form (Hugging Face's Metaspace puts ▁ before words)"
        )
    if not normalizer.escape_whitespaces:
        raise InvalidInput(
            "a sentencepiece model without escape_whitespaces has no tokenizer.json "
            "form (Hugging Face's Metaspace always turns spaces into ▁)"
        )
    steps: list[dict[str, Any]] = []
    if normalizer.charsmap is not None:
        steps.append(Precompiled(normalizer.charsmap.blob).to_hf_config())
    if normalizer.remove_extra_whitespaces:
        # leading spaces go; trailing spaces and "▁"s go (sentencepiece strips the escaped
        # text's trailing "▁", a literal one too); a run of spaces keeps its first
        steps += [
            _replace_regex(r"\A +", ""),
            _replace_regex(f"[ {SPACE}]+\\z", ""),
            _replace_regex("(?<= ) +", ""),
        ]
    if normalizer.add_dummy_prefix:
        steps.append({"type": "Prepend", "prepend": SPACE})
    types = list(model.types)
    if UNUSED in types:
        raise InvalidInput(
            "a sentencepiece model with unused pieces has no tokenizer.json form "
            "(Hugging Face would match them)"
        )
    pieces = model.pieces
    added = [
        AddedToken(p, id=i, special=t == CONTROL, normalized=False)
        for i, ((p, _s), t) in enumerate(zip(pieces, types))
        if t in (CONTROL, UNKNOWN)
    ]
    byte_fallback = bool(model.byte_fallback)
    if isinstance(model, Unigram):
        model_cfg = model.to_hf_config()
        # a user-defined piece scores as sentencepiece 0.2.3's encoder scores it (0.1 per UTF-8
        # byte past the first, `user_defined_score`), above every normal piece
        for i, t in enumerate(types):
            if t == USER_DEFINED:
                model_cfg["vocab"][i] = [pieces[i][0], model.match_scores[i]]
    elif getattr(model, "kind", "") == "word":
        raise InvalidInput(
            f"{_name(tok)}: a sentencepiece word model has no tokenizer.json form "
            "(Hugging Face's WordLevel neither fuses consecutive unknown words nor "
            "names them by their text)"
        )
    elif USER_DEFINED in types:
        raise InvalidInput(
            f"{_name(tok)}: a sentencepiece BPE model with user-defined pieces has "
            "no tokenizer.json form (sentencepiece starts from them as whole "
            "symbols; Hugging Face's BPE starts from characters, and as added "
            "tokens they would change the ▁ around them)"
        )
    elif isinstance(model, SentencePieceBpe):
        unk = pieces[model.unk_id][0]
        model_cfg = {
            "type": "BPE",
            "dropout": None,
            "unk_token": unk,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": byte_fallback,
            "ignore_merges": False,
            "vocab": {p: i for i, (p, _s) in enumerate(pieces)},
            "merges": [[a, b] for a, b in model.merges],
        }
    else:
        raise InvalidInput(
            f"{_name(tok)}: a sentencepiece {type(model).__name__} model has no "
            "tokenizer.json form (only Unigram and BPE do)"
        )
    decoders: list[dict[str, Any]] = [
        {"type": "Replace", "pattern": {"String": SPACE}, "content": " "}
    ]
    # sentencepiece's decode: the unknown piece shows as " ⁇ ", control pieces vanish (each a
    # whole token: a Replace of its string, where no other piece holds that string)
    spd = tok.decoder if isinstance(tok.decoder, SentencePieceDecoder) else SentencePieceDecoder()
    shown = {
        p: spd.unk_surface if t == UNKNOWN else ""
        for (p, _s), t in zip(pieces, types)
        if t in (UNKNOWN, CONTROL)
    }
    for piece, surface in shown.items():
        if any(piece in p and p != piece for p, _s in pieces):
            raise InvalidInput(
                f"{_name(tok)}: the piece {piece!r} is inside another piece, so "
                "no tokenizer.json decoder can show it as sentencepiece does"
            )
        decoders.insert(0, {"type": "Replace", "pattern": {"String": piece}, "content": surface})
    if byte_fallback:
        decoders.append({"type": "ByteFallback"})
    decoders.append({"type": "Fuse"})
    if normalizer.add_dummy_prefix:
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    return {
        "normalizer": {"type": "Sequence", "normalizers": steps} if steps else None,
        "pre_tokenizer": {
            "type": "Metaspace",
            "replacement": SPACE,
            "prepend_scheme": "never",
            "split": True,
        },
        "model": model_cfg,
        "added": added,
        "decoder": {"type": "Sequence", "decoders": decoders},
    }


def _replace_regex(pattern: str, content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": content}


def _sentencepiece(tok: Any) -> dict[str, Any]:
    if not isinstance(tok.decoder, (SentencePieceDecoder, type(None))):
        raise InvalidInput(
            f"{_name(tok)}: a sentencepiece normaliser with a "
            f"{type(tok.decoder).__name__} decoder has no tokenizer.json form"
        )
    if tok.pre_tokenizer is not None:
        raise InvalidInput(
            f"{_name(tok)}: a sentencepiece normaliser with a pre-tokenizer has no "
            "tokenizer.json form"
        )
    sections = sentencepiece_sections(tok)
    known = {t.id for t in sections["added"]}
    added = sections["added"] + [t for t in tok.added_tokens if t.id not in known]
    return _document(
        tok,
        model=sections["model"],
        added=added,
        normalizer=sections["normalizer"],
        pre_tokenizer=sections["pre_tokenizer"],
        post_processor=_section("post-processor", tok.post_processor),
        decoder=sections["decoder"],
    )


# ---- vocab.json + merges.txt ------------------------------------------------------------------
def vocab_merges_files(tok: Any) -> dict[str, bytes]:
    """A BPE model as the GPT-2 / Hugging Face "files" form: {"vocab.json": token -> id,
    "merges.txt": a "#version" line, then "left right" per merge, in rank order}. This is what
    the textbook `bpe` has in place of a tokenizer.json (`formats.vocab_merges` reads it back as
    it was; Hugging Face's `models.BPE.from_file(vocab, merges, end_of_word_suffix="</w>")` reads
    it too: see the tests for where it encodes as ours)."""
    model = tok.model
    merges = getattr(model, "merges", None)
    vocab = getattr(model, "vocab", None)
    if (
        not isinstance(vocab, dict)
        or merges is None
        or isinstance(model, SentencePieceBpe)
        or not hasattr(model, "rank")
    ):
        raise InvalidInput(
            f"{_name(tok)} is not a BPE model: vocab.json + merges.txt hold BPE only"
        )
    for a, b in merges:
        if " " in a or " " in b:
            raise InvalidInput(
                f"the merge {a!r} + {b!r} holds a space, which merges.txt cannot "
                "write (one merge a line, its two sides split at the space)"
            )
    full = dict(vocab)
    for s, i in (getattr(model, "special_tokens", None) or {}).items():
        full.setdefault(s, i)
    ordered = dict(sorted(full.items(), key=lambda kv: kv[1]))
    return {
        "vocab.json": json.dumps(ordered, ensure_ascii=False).encode("utf-8"),
        "merges.txt": ("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges)).encode(
            "utf-8"
        ),
    }


def save_vocab_merges(tok: Any, directory: str) -> list[str]:
    """Write `vocab_merges_files(tok)` into `directory`; returns the two paths."""
    files = vocab_merges_files(tok)
    paths = []
    try:
        os.makedirs(directory, exist_ok=True)
        for file_name, content in files.items():
            paths.append(os.path.join(directory, file_name))
            with open(paths[-1], "wb") as fh:
                fh.write(content)
    except OSError as exc:
        raise InvalidInput(f"cannot write {directory!r}: {exc.strerror}") from None
    return paths


__all__ = [
    "dump_bytes",
    "dumps",
    "save_vocab_merges",
    "sentencepiece_sections",
    "to_hf_json",
    "vocab_merges_files",
]
