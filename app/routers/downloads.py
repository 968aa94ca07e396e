"""Downloads: every step-through as JSON Lines, merge lists and vocabularies as CSV.

A download is the JSON API's answer in another shape, never a second computation: each route
takes the function that answers the JSON endpoint as its dependency
(`Depends(answers.bpe_train_steps)`, from `app.views.answers`, which the step views' routers
answer with too), so it accepts the same query parameters, validates them the same way, fails
with the same 4xx, and writes one line per step dict of the answer (one CSV row per merge /
token).

The query parameters are those of the view, so a view's download URL is its own query string on
another path (extra keys such as `step`, `page` and `play` are ignored):

| view                  | JSON API                    | downloads (`/api/download/...`)                  |
|-----------------------|-----------------------------|--------------------------------------------------|
| `/bpe/train`          | `/api/bpe/train_steps`      | `bpe/train.jsonl`, `bpe/train.merges.csv`        |
|                       | `/api/bpe/train_vocab`      | `bpe/train.vocab.csv`                            |
| `/bpe/encode`         | `/api/bpe/encode_steps`     | `bpe/encode.jsonl`                               |
| `/wordpiece/train`    | `/api/wordpiece/train_steps`| `wordpiece/train.jsonl`, `wordpiece/train.merges.csv` |
|                       | `/api/wordpiece/train_vocab`| `wordpiece/train.vocab.csv`                      |
| `/wordpiece/encode`   | `/api/wordpiece/encode_steps` | `wordpiece/encode.jsonl`                       |
| `/unigram/train`      | `/api/unigram/train`        | `unigram/train.jsonl`, `unigram/train.vocab.csv` |
| `/unigram/lattice`    | `/api/unigram/lattice`      | `unigram/lattice.jsonl`                          |
| `/` (the visualiser)  | `/api/trace`                | `trace.jsonl`                                    |
| any tokeniser         | `/api/vocab`                | `vocab.csv` (bundled name, trained or uploaded handle) |

`/api/bpe/train_vocab`, `/api/wordpiece/train_vocab`, `/api/unigram/train`, `/api/trace` and
`/api/vocab` are new here (the other JSON answers already existed). JSON Lines are UTF-8, one
`json.dumps(step, ensure_ascii=False)` per line. CSV is UTF-8, RFC 4180 (CRLF rows, fields
quoted where needed), with a header row; tokens are exactly as the model spells them (`Ġ`, `##`,
`▁` kept; a token such as `=1` is not escaped for spreadsheets, which may read it as a formula).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response

from tokenizers_core.errors import InvalidInput

from .. import export
from ..deps import StateDep
from ..jobs import runs
from ..jobs.runs import unigram_run
from ..services.downloads import filename, vocab_table, vocabulary_rows
from ..services.tokenizers import check_text, resolve_tokenizer
from ..services.training import DEFAULT_CORPORA, MAX_VOCAB, UNIGRAM_DEFAULT_VOCAB, sample_words
from ..services.visualiser import DEFAULT_TEXT, default_tokenizer, trace
from ..trained import corpus_text as corpus_by_ref
from ..views import answers

router = APIRouter(prefix="/api", tags=["downloads"])

UNIGRAM_WAIT_SECONDS = 30.0  # a Unigram download waits this long for its training run
JSONL_DOC: dict = {
    200: {
        "content": {"application/x-ndjson": {}},
        "description": "JSON Lines: one step per line (an attachment)",
    }
}
CSV_DOC: dict = {
    200: {"content": {"text/csv": {}}, "description": "CSV with a header row (an attachment)"}
}
STILL_TRAINING: dict = {
    503: {
        "description": "The training is still running: ask again after "
        "Retry-After seconds (the run goes on meanwhile)",
        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
    }
}


# ---- shaping ------------------------------------------------------------------------------------
def jsonl_response(rows: Iterable[dict[str, Any]], name: str) -> Response:
    body = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return Response(
        body.encode("utf-8"),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{name}.jsonl"'},
    )


def csv_response(header: list[str], rows: Iterable[Iterable[Any]], name: str) -> Response:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180; and a token "\r" is quoted
    writer.writerow(header)
    writer.writerows(rows)
    return Response(
        out.getvalue().encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


# ---- BPE -----------------------------------------------------------------------------------------
@router.get(
    "/download/bpe/train.jsonl",
    response_class=Response,
    responses=JSONL_DOC,
    summary="BPE training: one merge step per line",
)
def bpe_train_jsonl(data: dict = Depends(answers.bpe_train_steps)) -> Response:
    return jsonl_response(
        data["steps"], filename("bpe-train", data["variant"], data["vocab_size"], data["corpus"])
    )


@router.get(
    "/download/bpe/train.merges.csv",
    response_class=Response,
    responses=CSV_DOC,
    summary="BPE training: the merge list as CSV",
)
def bpe_train_merges_csv(data: dict = Depends(answers.bpe_train_steps)) -> Response:
    rows = (
        (k, s["pair"][0], s["pair"][1], s["new_symbol"], s["count"])
        for k, s in enumerate(data["steps"], 1)
    )
    return csv_response(
        ["step", "left", "right", "new_symbol", "count"],
        rows,
        filename("bpe-merges", data["variant"], data["vocab_size"], data["corpus"]),
    )


@router.get(
    "/bpe/train_vocab",
    tags=["api"],
    summary="The vocabulary BPE training ends with (bpe, byte_bpe, sentencepiece_bpe)",
)
def bpe_train_vocab_api(data: dict = Depends(answers.bpe_train_vocab)) -> dict[str, Any]:
    """The training view's vocabulary after its last merge, in id order (the same parameters
    as `/api/bpe/train_steps`; the run is the view's cached one)."""
    return data


@router.get(
    "/download/bpe/train.vocab.csv",
    response_class=Response,
    responses=CSV_DOC,
    summary="BPE training: the vocabulary as CSV",
)
def bpe_train_vocab_csv(data: dict = Depends(bpe_train_vocab_api)) -> Response:
    return vocab_csv_response(
        data["vocab"], filename("bpe-vocab", data["variant"], data["vocab_size"], data["corpus"])
    )


@router.get(
    "/download/bpe/encode.jsonl",
    response_class=Response,
    responses=JSONL_DOC,
    summary="BPE encoding: one merge per line, piece after piece",
)
def bpe_encode_jsonl(data: dict = Depends(answers.bpe_encode_steps)) -> Response:
    steps = (step for piece in data["pieces"] for step in piece["steps"])
    return jsonl_response(steps, filename("bpe-encode", data["tokenizer"]))


# ---- WordPiece -----------------------------------------------------------------------------------
@router.get(
    "/download/wordpiece/train.jsonl",
    response_class=Response,
    responses=JSONL_DOC,
    summary="WordPiece training: one merge per line",
)
def wordpiece_train_jsonl(data: dict = Depends(answers.wordpiece_train_steps)) -> Response:
    return jsonl_response(
        data["steps"], filename("wordpiece-train", data["vocab_size"], data["corpus"])
    )


@router.get(
    "/download/wordpiece/train.merges.csv",
    response_class=Response,
    responses=CSV_DOC,
    summary="WordPiece training: the merge list (with scores) as CSV",
)
def wordpiece_train_merges_csv(data: dict = Depends(answers.wordpiece_train_steps)) -> Response:
    rows = (
        (
            k,
            s["pair"][0],
            s["pair"][1],
            s["new_symbol"],
            s["count"],
            s["freq_left"],
            s["freq_right"],
            repr(s["score"]),
        )
        for k, s in enumerate(data["steps"], 1)
    )
    return csv_response(
        ["step", "left", "right", "new_symbol", "count", "freq_left", "freq_right", "score"],
        rows,
        filename("wordpiece-merges", data["vocab_size"], data["corpus"]),
    )


@router.get(
    "/wordpiece/train_vocab", tags=["api"], summary="The vocabulary WordPiece training ends with"
)
def wordpiece_train_vocab_api(
    data: dict = Depends(answers.wordpiece_train_vocab),
) -> dict[str, Any]:
    """The training view's vocabulary after its last merge, in id order (special tokens, the
    initial symbols, the merged ones); the parameters of `/api/wordpiece/train_steps`."""
    return data


@router.get(
    "/download/wordpiece/train.vocab.csv",
    response_class=Response,
    responses=CSV_DOC,
    summary="WordPiece training: the vocabulary as CSV (as vocab.txt, with ids)",
)
def wordpiece_train_vocab_csv(data: dict = Depends(wordpiece_train_vocab_api)) -> Response:
    return vocab_csv_response(
        data["vocab"], filename("wordpiece-vocab", data["vocab_size"], data["corpus"])
    )


@router.get(
    "/download/wordpiece/encode.jsonl",
    response_class=Response,
    responses=JSONL_DOC,
    summary="WordPiece encoding: one probe per line (with its word_index)",
)
def wordpiece_encode_jsonl(
    request: Request, data: dict = Depends(answers.wordpiece_encode_steps)
) -> Response:
    vocab = request.query_params.get("vocab", "bert-base-uncased")
    return jsonl_response(data["steps"], filename("wordpiece-encode", vocab))


# ---- Unigram -------------------------------------------------------------------------------------
@router.get(
    "/unigram/train",
    tags=["api"],
    responses=STILL_TRAINING,
    summary="Unigram training: every EM + pruning round, and the final pieces",
)
def unigram_train_api(
    state: StateDep,
    corpus: str = DEFAULT_CORPORA["unigram"],
    vocab_size: int = UNIGRAM_DEFAULT_VOCAB,
    words: str = "",
) -> dict[str, Any]:
    """The rounds the training view shows (same corpus, vocab_size and sample `words`), and
    the trained pieces as [piece, score] in id order. A run still training after 30 s answers
    503 with Retry-After: ask again within a few seconds (the run goes on while somebody asks;
    one nobody asks about for 8 s is stopped)."""
    if not 4 <= vocab_size <= MAX_VOCAB["unigram"]:
        raise InvalidInput(f"vocab_size must be between 4 and {MAX_VOCAB['unigram']:,}")
    text = corpus_by_ref(state.store, corpus)
    sample = sample_words(text, words)
    run = unigram_run(state, corpus, text, vocab_size, sample, wait=UNIGRAM_WAIT_SECONDS)
    if not run.finished:
        raise HTTPException(
            503,
            f"training is still running ({len(run.rounds)} rounds so far); "
            "ask again in a moment (a run nobody asks about for "
            f"{runs.ABANDON:.0f} s is stopped)",
            headers={"Retry-After": "3"},
        )
    return {
        "corpus": corpus,
        "vocab_size": vocab_size,
        "words": list(sample),
        "steps": [s.to_dict() for s in run.rounds],
        "pieces": [[p, s] for p, s in run.pieces],
    }


@router.get(
    "/download/unigram/train.jsonl",
    response_class=Response,
    responses={**JSONL_DOC, **STILL_TRAINING},
    summary="Unigram training: one round per line",
)
def unigram_train_jsonl(data: dict = Depends(unigram_train_api)) -> Response:
    return jsonl_response(
        data["steps"], filename("unigram-train", data["vocab_size"], data["corpus"])
    )


@router.get(
    "/download/unigram/train.vocab.csv",
    response_class=Response,
    responses={**CSV_DOC, **STILL_TRAINING},
    summary="Unigram training: the pieces and their scores as CSV",
)
def unigram_train_vocab_csv(data: dict = Depends(unigram_train_api)) -> Response:
    rows = ((i, p, repr(s)) for i, (p, s) in enumerate(data["pieces"]))
    return csv_response(
        ["id", "piece", "score"],
        rows,
        filename("unigram-vocab", data["vocab_size"], data["corpus"]),
    )


@router.get(
    "/download/unigram/lattice.jsonl",
    response_class=Response,
    responses=JSONL_DOC,
    summary="The Unigram lattice: one Viterbi step per line",
)
def unigram_lattice_jsonl(data: dict = Depends(answers.unigram_lattice_steps)) -> Response:
    return jsonl_response(data["steps"], filename("unigram-lattice", data["model"]))


# ---- the visualiser's pipeline trace, and any tokeniser's vocabulary -----------------------------
@router.get(
    "/trace",
    tags=["api"],
    summary="The pipeline trace of an encoding (normalise, pre-tokenise, model, post-process)",
)
def trace_api(
    state: StateDep,
    text: str = DEFAULT_TEXT,
    tokenizer: str = "",
    pattern: str = "",
    special: bool | None = None,
    bos: bool = True,
) -> dict[str, Any]:
    """The stages the visualiser shows for `text` (its query parameters: `tokenizer`,
    `pattern` for the custom regex, `special` for special tokens typed in the text (left out:
    the tokenizer's own library's default; true: special tokens; false: text), `bos`
    false to leave out the post-processor's special tokens)."""
    name = tokenizer or default_tokenizer()
    check_text(state, text)
    _tok, _enc, steps = trace(state, text, name, pattern, special, bos)
    return {"tokenizer": name, "steps": steps.to_list()}


@router.get(
    "/download/trace.jsonl",
    response_class=Response,
    responses=JSONL_DOC,
    summary="The visualiser's pipeline trace: one stage per line",
)
def trace_jsonl(data: dict = Depends(trace_api)) -> Response:
    return jsonl_response(data["steps"], filename("trace", data["tokenizer"]))


@router.get(
    "/vocab",
    tags=["api"],
    summary="A tokeniser's vocabulary in id order (with scores where the model has them)",
)
def vocab_api(state: StateDep, tokenizer: str, pattern: str = "") -> dict[str, Any]:
    """`tokenizer`: a bundled name, a trained handle (`/api/train`) or an uploaded one.
    Rows are {"id", "token", "special", "added"} (+ "score" for Unigram and sentencepiece
    models) in id order, added tokens included: `added` marks those outside the model's own
    vocabulary (a tokenizer.json's added tokens, the OpenAI encodings' special tokens)."""
    tok = resolve_tokenizer(state, tokenizer, pattern)
    return {"tokenizer": tokenizer, "vocab": vocabulary_rows(tok)}


@router.get(
    "/download/vocab.csv",
    response_class=Response,
    responses=CSV_DOC,
    summary="A tokeniser's vocabulary as CSV",
)
def vocab_csv(data: dict = Depends(vocab_api)) -> Response:
    return vocab_csv_response(data["vocab"], filename("vocab", data["tokenizer"]))


def vocab_csv_response(rows: list[dict[str, Any]], name: str) -> Response:
    return csv_response(*vocab_table(rows), name)


# ---- a tokeniser as a file -----------------------------------------------------------------------
@router.get(
    "/download/tokenizer",
    response_class=Response,
    responses={
        200: {
            "content": {t.split(";")[0]: {} for t in export.MEDIA_TYPES.values()},
            "description": "the tokeniser's file (an attachment): "
            "application/json (hf_json), text/plain (tiktoken, "
            "vocab_txt), application/octet-stream "
            "(sentencepiece), application/zip (vocab_merges)",
        }
    },
    summary="A tokeniser as a file: tokenizer.json, .tiktoken, .model, vocab.txt, or "
    "vocab.json + merges.txt (zipped)",
)
def tokenizer_download(
    state: StateDep,
    tokenizer: str,
    format: str = "hf_json",
    pattern: str = "",
    lossy: bool = False,
) -> Response:
    """`tokenizer`: a bundled name, a trained handle or an uploaded one; `format`: one of
    hf_json, tiktoken, sentencepiece, vocab_txt, vocab_merges. A format the tokeniser has no
    form in answers 422 naming the formats it has; a format whose file does not reproduce it
    exactly (Claude's NFKC or CLIP's "</w>" in a .tiktoken) answers 422 saying what changes,
    unless asked with `lossy=true`."""
    tok = resolve_tokenizer(state, tokenizer, pattern)
    body = export.download(tok, tokenizer, format, lossy=lossy)
    name = export.file_name(tokenizer, format)
    return Response(
        body,
        media_type=export.MEDIA_TYPES[format],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
