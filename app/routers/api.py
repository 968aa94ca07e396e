"""The JSON API (contract: docs/ARCHITECTURE.md). Errors are 4xx with {"detail": message}."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException
from fastapi.responses import PlainTextResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

import tokenizers_core as tc
from tokenizers_core import pretrained
from tokenizers_core.byte_api import encoding_bytes

from .. import display, limits
from ..deps import StateDep
from ..services.corpora import corpus_summary, normalise_newlines, store_corpus
from ..services.specials import decode_ids
from ..services.tokenizers import (
    check_text,
    fingerprint_of,
    resolve_tokenizer,
    special_kwargs,
)

router = APIRouter(prefix="/api", tags=["api"])

# Text from JSON may hold lone surrogates ("\ud800"), which no UTF-8 response can carry:
# each becomes U+FFFD, as tiktoken does (one character for one, so offsets still fit).
Text = Annotated[str, AfterValidator(limits.without_lone_surrogates)]


class TokenizerInfo(BaseModel):
    name: str = Field(
        description="what /api/encode and page URLs take: a bundled name or the "
        "handle of an uploaded tokeniser"
    )
    algorithm: str
    vocab_size: int
    label: str
    aliases: list[str]
    stored: bool = Field(False, description="an uploaded tokeniser (POST /api/tokenizers)")
    format: str | None = Field(
        None, description="uploaded: hf_json, tiktoken, sentencepiece or vocab_txt"
    )
    sha256: str | None = Field(None, description="uploaded: the sha256 of the file's bytes")


class EncodeRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON as the schema says: no 0 for false, no "1" for 1
    tokenizer: str = Field(
        description="a bundled name, an alias, an OpenAI model name "
        "(gpt-4o-mini: its encoding), 'regex', a trained handle or "
        "an uploaded tokeniser's handle",
        examples=["cl100k_base"],
    )
    text: Text | None = Field(
        None,
        examples=["Hello, world!"],
        description="the text to tokenise (required unless `words`)",
    )
    pair: Text | None = Field(None, description="an optional second sequence (BERT pairs)")
    words: list[Text] | None = Field(
        None,
        examples=[["Hello", "world"]],
        description="pre-tokenized input instead of `text` (Hugging Face's is_pretokenized): "
        "each word is normalised and pre-tokenized on its own; `word_ids` are indices "
        "in this list and `offsets` are characters of each word",
    )
    pair_words: list[Text] | None = Field(
        None, description="a second sequence as words (with `words`)"
    )
    bytes: bool = Field(
        False,
        description="also answer `bytes`: each token's bytes as hex. For "
        "byte-level tokenisers these are exact (a character "
        "cut across tokens shows as its partial bytes); for "
        "others, the token as the vocabulary spells it, in "
        "UTF-8",
    )
    pattern: str | None = Field(None, description="the pattern of the 'regex' tokeniser")
    add_special_tokens: bool = Field(True, description="let the post-processor add [CLS]/[SEP]")
    special: bool | None = Field(
        None,
        description="special tokens typed in the text (`<|endoftext|>`, `<|eot_id|>`, "
        "`[CLS]`): true reads them as special tokens, false as ordinary text; left out, as "
        "the tokenizer's own library does by default (Hugging Face matches them; tiktoken "
        "refuses the text, a 422). The same switch as the page's `special` and tokvis's "
        "`--special` / `--no-special`",
    )
    allowed_special: list[str] | Literal["all"] | None = Field(
        None,
        description='tiktoken encodings: the special tokens (or "all") to read as special '
        "when they appear in the text, as tiktoken's `allowed_special` (the others then are "
        "ordinary text); takes the place of `special`",
    )


class EncodingOut(BaseModel):
    ids: list[int]
    tokens: list[str]
    offsets: list[tuple[int, int]]
    word_ids: list[int | None]
    special_tokens_mask: list[int]
    attention_mask: list[int]
    type_ids: list[int]


class EncodeResponse(EncodingOut):
    tokenizer: str
    bytes: list[str] | None = Field(
        None, description='each token\'s bytes as hex, when asked (`"bytes": true`)'
    )
    overflowing: list[EncodingOut] = Field(
        default_factory=list,
        description="what truncation cut off, as Hugging Face's "
        '`overflowing` (a tokenizer.json with "truncation" set), each window an encoding',
    )


MAX_TRAIN_VOCAB = 100_000  # the largest vocabulary /api/train builds


class TrainRequest(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    algorithm: str = Field(examples=["bpe"])
    corpus: Text | None = Field(None, description="the training text itself")
    corpus_name: str | None = Field(
        None,
        description="a bundled corpus (botchan, udhr/eng, ...) or the sha256 of a stored corpus",
    )
    vocab_size: int = Field(examples=[1000], ge=1, le=MAX_TRAIN_VOCAB)


class TrainResponse(BaseModel):
    tokenizer: str
    algorithm: str
    vocab_size: int
    corpus: str
    merges: list[tuple[str, str]] | None = None


class CorpusIn(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON as the schema says: no 0 for false, no "1" for 1
    text: Text
    name: str = ""


class CorpusOut(BaseModel):
    sha256: str
    bytes: int
    chars: int
    lines: int


@router.get("/tokenizers", response_model=list[TokenizerInfo])
def list_tokenizers(state: StateDep) -> list[dict[str, Any]]:
    """The bundled tokenisers, then the uploaded ones, most recent first (trained ones are
    reached by the handle `/api/train` returns)."""
    bundled = [
        {
            "name": n,
            "algorithm": e.algorithm,
            "vocab_size": e.vocab_size,
            "label": e.label,
            "aliases": pretrained.aliases_of(n),
        }
        for n, e in pretrained.bundled().items()
    ]
    stored = [
        {
            "name": r["handle"],
            "algorithm": r["algorithm"],
            "vocab_size": r["vocab_size"],
            "label": r["name"] or r["handle"],
            "aliases": [],
            "stored": True,
            "format": r["format"],
            "sha256": r["sha256"],
        }
        for r in state.uploads.list()
    ]
    return bundled + stored


@router.post("/encode", response_model=EncodeResponse, response_model_exclude_none=True)
def encode(state: StateDep, body: EncodeRequest) -> dict[str, Any]:
    """Tokenise a text, or a list of `words` (pre-tokenized input). Special-token strings such
    as `<|endoftext|>` in the text are read as the tokenizer's own library reads them unless
    `special` says otherwise (or `allowed_special` names them, for tiktoken encodings).
    `"bytes": true` adds each token's bytes as hex."""
    text, pair, words = _sequences(body)
    check_text(state, text + (pair or "") if not words else " ".join(text + (pair or [])))
    tok = resolve_tokenizer(state, body.tokenizer, body.pattern)
    enc = tok.encode(
        text,
        pair,
        add_special_tokens=body.add_special_tokens,
        **_special_options(tok, body, [text, pair] if not words else [*text, *(pair or [])]),
        **({"is_pretokenized": True} if words else {}),
    )
    hexes = [b.hex() for b in encoding_bytes(tok, enc)] if body.bytes else None
    return {
        "tokenizer": body.tokenizer,
        **enc.to_dict(),
        "bytes": hexes,
        "overflowing": [o.to_dict() for o in enc.overflowing],
    }


def _special_options(tok: Any, body: EncodeRequest, texts: list) -> dict[str, Any]:
    """The encode keywords of the request's `special` switch (`allowed_special` in its place
    when given), as the page and the CLI read it (`display.special_options`)."""
    if body.allowed_special:
        if body.special is not None:
            raise tc.InvalidInput("give special or allowed_special, not both")
        return special_kwargs(tok, body.allowed_special)
    if body.special is not None and display.special_note(tok) is not None:
        note = display.special_note(tok)
        raise tc.InvalidInput(f"{body.tokenizer}: special does nothing here. {note}")
    return display.special_options(tok, body.special, texts)


def _sequences(body: EncodeRequest) -> tuple[Any, Any, bool]:
    """(text or words, pair or pair words, whether words) of an encode request."""
    if (body.text is None) == (body.words is None):
        raise HTTPException(
            422,
            "give exactly one of 'text' (a string) or 'words' (a list of "
            "words, pre-tokenized input)",
        )
    if body.words is None:
        if body.pair_words is not None:
            raise HTTPException(422, "'pair_words' goes with 'words'; with 'text' give 'pair'")
        return body.text, body.pair, False
    if body.pair is not None:
        raise HTTPException(422, "with 'words', give the second sequence as 'pair_words'")
    return body.words, body.pair_words, True


class DecodeRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON as the schema says: no 0 for false, no "1" for 1
    tokenizer: str = Field(description="as in /api/encode", examples=["cl100k_base"])
    ids: list[int] = Field(examples=[[9906, 11, 1917, 0]])
    skip_special_tokens: bool = Field(False, description="leave special tokens out of the text")
    bytes: bool = Field(
        False,
        description="also answer `hex`: the tokens' bytes joined, as "
        "tiktoken's decode_bytes (partial UTF-8 kept, where "
        "`text` shows U+FFFD)",
    )


class DecodeResponse(BaseModel):
    tokenizer: str
    text: str
    hex: str | None = Field(None, description="the decoded bytes as hex, when asked")
    dropped: list[int] = Field(
        default_factory=list,
        description="ids the vocabulary lacks, left out of `text` as the owner library's "
        "decode leaves them out (a tokenizer.json's: Hugging Face drops them; a tiktoken "
        "encoding's raise instead: a 422)",
    )


@router.post("/decode", response_model=DecodeResponse, response_model_exclude_none=True)
def decode(state: StateDep, body: DecodeRequest) -> dict[str, Any]:
    """Turn token ids back into text (and, with `"bytes": true`, the raw bytes as hex). An id
    outside the vocabulary is dropped, and named in `dropped`, for a tokenizer.json's tokenizer
    (as Hugging Face's decode drops it); for the others (tiktoken's KeyError) it is a 422."""
    limit = state.settings.max_text_chars
    if len(body.ids) > limit:
        raise HTTPException(
            413,
            f"{len(body.ids):,} ids are more than one request may decode "
            f"({limit:,}, the text limit TOKVIS_MAX_TEXT_CHARS)",
        )
    tok = resolve_tokenizer(state, body.tokenizer)
    try:
        text, data, dropped = decode_ids(tok, body.ids, body.skip_special_tokens, body.bytes)
    except KeyError as exc:  # NotAToken: also a ValueError
        raise HTTPException(422, str(exc)) from None
    return {"tokenizer": body.tokenizer, "text": text, "hex": data, "dropped": dropped}


class FingerprintOut(BaseModel):
    tokenizer: str
    sha256: str = Field(description="the file's sha256 (a bundled tokeniser: its tokenizer.json's)")
    behaviour: str = Field(description="sha256 over the ids of a fixed set of probe texts")
    chkhsh: str = Field(description="llama.cpp's pre-tokenizer hash (convert_hf_to_gguf.py)")
    llama_cpp_pre: str | None = Field(description="the name llama.cpp gives chkhsh, if any")


@router.get("/fingerprint", response_model=FingerprintOut)
def fingerprint(state: StateDep, tokenizer: str, pattern: str = "") -> dict[str, Any]:
    """A tokeniser's fingerprint, as `tokvis fingerprint NAME --json` and `tc.fingerprint` give
    it: its file's `sha256`, its `behaviour` hash (the same across formats for the same ids),
    llama.cpp's `chkhsh` and `llama_cpp_pre`."""
    return {"tokenizer": tokenizer, **fingerprint_of(state, tokenizer, pattern or None)}


@router.post("/train", response_model=TrainResponse, response_model_exclude_none=True)
def train(state: StateDep, body: TrainRequest) -> dict[str, Any]:
    """Train a tokeniser; the returned handle works in `/api/encode` and in page URLs."""
    if body.algorithm not in tc.algorithms():
        raise HTTPException(
            422,
            f"unknown algorithm {body.algorithm!r}; choose one of: "
            f"{', '.join(tc.algorithms()) or 'none yet'}",
        )
    if (body.corpus is None) == (body.corpus_name is None):
        raise HTTPException(422, "give exactly one of 'corpus' (the text) or 'corpus_name'")
    ref = store_corpus(state, body.corpus) if body.corpus is not None else body.corpus_name
    handle, tok = state.trained.train(
        body.algorithm, ref, body.vocab_size, dict(body.model_extra or {})
    )
    merges = getattr(tok.model, "merges", None)
    return {
        "tokenizer": handle,
        "algorithm": body.algorithm,
        "vocab_size": tok.vocab_size,
        "corpus": ref,
        "merges": [tuple(m) for m in merges] if merges is not None else None,
    }


@router.post("/corpora", response_model=CorpusOut, status_code=201)
def save_corpus(state: StateDep, body: CorpusIn) -> dict[str, Any]:
    """Store a corpus; its sha256 names it in URLs (`corpus_name` in `/api/train`)."""
    text = normalise_newlines(body.text)
    return corpus_summary(store_corpus(state, text, body.name), text)


@router.get("/corpora/{sha256}", response_model=CorpusOut)
def corpus_info(state: StateDep, sha256: str) -> dict[str, Any]:
    text = state.store.get(sha256)
    if text is None:
        raise HTTPException(404, f"no stored corpus has sha256 {sha256}")
    return corpus_summary(sha256, text)


@router.get(
    "/corpora/{sha256}/text",
    response_class=PlainTextResponse,
    summary="A stored corpus's text, as text/plain",
)
def corpus_text(state: StateDep, sha256: str) -> PlainTextResponse:
    text = state.store.get(sha256)
    if text is None:
        raise HTTPException(404, f"no stored corpus has sha256 {sha256}")
    return PlainTextResponse(text)
