"""Downloads: every step-through as JSON Lines, merge lists and vocabularies as CSV.

A download is the JSON API's answer in another shape, never a second computation: each route
takes the function that answers the JSON endpoint as its dependency
(`Depends(answers.bpe_train_steps)`, from `app.views.answers`, which the step views' routers
answer with too), so it accepts the same query parameters, validates them the same way, fails
with the same 4xx, and writes one line per step dict of the answer (one CSV row per merge /
token).

The query parameters are those of the view, so a view's download URL is its own query string on
another path (extra keys such as `step`, `page` and `play` are ignored):

| view                 | JSON API                      | downloads (`/api/download/...`) |
|----------------------|-------------------------------|---------------------------------|
| `/bpe/train`         | `/api/bpe/train_steps`        | `bpe/train.jsonl`               |
|                      |                               | `bpe/train.merges.csv`          |
|                      | `/api/bpe/train_vocab`        | `bpe/train.vocab.csv`           |
| `/bpe/encode`        | `/api/bpe/encode_steps`       | `bpe/encode.jsonl`              |
| `/wordpiece/train`   | `/api/wordpiece/train_steps`  | `wordpiece/train.jsonl`         |
|                      |                               | `wordpiece/train.merges.csv`    |
|                      | `/api/wordpiece/train_vocab`  | `wordpiece/train.vocab.csv`     |
| `/wordpiece/encode`  | `/api/wordpiece/encode_steps` | `wordpiece/encode.jsonl`        |
| `/unigram/train`     | `/api/unigram/train`          | `unigram/train.jsonl`           |
|                      |                               | `unigram/train.vocab.csv`       |
| `/unigram/lattice`   | `/api/unigram/lattice`        | `unigram/lattice.jsonl`         |
| `/` (the visualiser) | `/api/trace`                  | `trace.jsonl`                   |
| any tokeniser (1)    | `/api/vocab`                  | `vocab.csv`                     |

(1) a bundled name, a trained or an uploaded handle.

`/api/bpe/train_vocab`, `/api/wordpiece/train_vocab`, `/api/unigram/train`, `/api/trace` and
`/api/vocab` are new here (the other JSON answers already existed). JSON Lines are UTF-8, one
`json.dumps(step, ensure_ascii=False)` per line. CSV is UTF-8, RFC 4180 (CRLF rows, fields
quoted where needed), with a header row; tokens are exactly as the model spells them (`Ġ`, `##`,
`▁` kept; a token such as `=1` is not escaped for spreadsheets, which may read it as a formula).

The downloads are one table, `DOWNLOADS`, and one loop that registers them: a row names the
path, the answer it reshapes, the summary, the file's name and which list of the answer it
writes (as it is, or through a shaping function of `app.services.downloads`); the path's
extension says JSON Lines or CSV, and the route's name (its OpenAPI operation id) is the path
with `_` for `/` and `.`. The JSON answers of this module (`/api/unigram/train`, `/api/trace`,
`/api/vocab`, the two `train_vocab`) and the tokeniser file are routes of their own.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response

from tokenizers_core.errors import InvalidInput

from .. import export
from ..deps import StateDep
from ..jobs import runs
from ..jobs.runs import unigram_run
from ..services.downloads import (
    filename,
    merge_table,
    piece_steps,
    piece_table,
    vocab_table,
    vocabulary_rows,
    wordpiece_merge_table,
)
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


# ---- the JSON answers served here ----------------------------------------------------------------
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
    "/wordpiece/train_vocab", tags=["api"], summary="The vocabulary WordPiece training ends with"
)
def wordpiece_train_vocab_api(
    data: dict = Depends(answers.wordpiece_train_vocab),
) -> dict[str, Any]:
    """The training view's vocabulary after its last merge, in id order (special tokens, the
    initial symbols, the merged ones); the parameters of `/api/wordpiece/train_steps`."""
    return data


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


def _wordpiece_encode_steps(
    request: Request, data: dict = Depends(answers.wordpiece_encode_steps)
) -> dict[str, Any]:
    """WordPiece encoding's probes, and the vocabulary's name the file is named after."""
    return {**data, "vocab": request.query_params.get("vocab", "bert-base-uncased")}


# ---- the downloads -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Download:
    """One download, `/api/download/{path}`: the list `rows` of the JSON answer `answer` (a
    dependency taking the view's query parameters), written as it is or through `shape`
    (JSON Lines: the dicts, one a line; CSV: a header and cells), in a file named by its
    first word and then the answer's values under the other keys of `file`."""

    path: str  # .jsonl or .csv
    answer: Callable[..., dict[str, Any]]
    summary: str
    file: tuple[str, ...]
    rows: str
    shape: Callable[[Any], Any] | None = None
    still_training: bool = False  # the answer may be a 503 while its run trains

    @property
    def name(self) -> str:
        """The route's name, and so its OpenAPI operation id: bpe/train.jsonl -> bpe_train_jsonl."""
        return self.path.replace("/", "_").replace(".", "_")

    def response(self, data: dict[str, Any]) -> Response:
        rows = data[self.rows] if self.shape is None else self.shape(data[self.rows])
        name = filename(self.file[0], *(data[key] for key in self.file[1:]))
        if self.path.endswith(".jsonl"):
            return jsonl_response(rows, name)
        header, cells = rows
        return csv_response(header, cells, name)

    def endpoint(self) -> Callable[..., Response]:
        # no docstring: a download's OpenAPI entry is its summary alone
        def download(data: dict = Depends(self.answer)) -> Response:
            return self.response(data)

        return download


BPE_TRAIN = ("variant", "vocab_size", "corpus")
TRAIN = ("vocab_size", "corpus")
DOWNLOADS = (
    Download(
        "bpe/train.jsonl",
        answers.bpe_train_steps,
        "BPE training: one merge step per line",
        ("bpe-train", *BPE_TRAIN),
        "steps",
    ),
    Download(
        "bpe/train.merges.csv",
        answers.bpe_train_steps,
        "BPE training: the merge list as CSV",
        ("bpe-merges", *BPE_TRAIN),
        "steps",
        merge_table,
    ),
    Download(
        "bpe/train.vocab.csv",
        answers.bpe_train_vocab,
        "BPE training: the vocabulary as CSV",
        ("bpe-vocab", *BPE_TRAIN),
        "vocab",
        vocab_table,
    ),
    Download(
        "bpe/encode.jsonl",
        answers.bpe_encode_steps,
        "BPE encoding: one merge per line, piece after piece",
        ("bpe-encode", "tokenizer"),
        "pieces",
        piece_steps,
    ),
    Download(
        "wordpiece/train.jsonl",
        answers.wordpiece_train_steps,
        "WordPiece training: one merge per line",
        ("wordpiece-train", *TRAIN),
        "steps",
    ),
    Download(
        "wordpiece/train.merges.csv",
        answers.wordpiece_train_steps,
        "WordPiece training: the merge list (with scores) as CSV",
        ("wordpiece-merges", *TRAIN),
        "steps",
        wordpiece_merge_table,
    ),
    Download(
        "wordpiece/train.vocab.csv",
        answers.wordpiece_train_vocab,
        "WordPiece training: the vocabulary as CSV (as vocab.txt, with ids)",
        ("wordpiece-vocab", *TRAIN),
        "vocab",
        vocab_table,
    ),
    Download(
        "wordpiece/encode.jsonl",
        _wordpiece_encode_steps,
        "WordPiece encoding: one probe per line (with its word_index)",
        ("wordpiece-encode", "vocab"),
        "steps",
    ),
    Download(
        "unigram/train.jsonl",
        unigram_train_api,
        "Unigram training: one round per line",
        ("unigram-train", *TRAIN),
        "steps",
        still_training=True,
    ),
    Download(
        "unigram/train.vocab.csv",
        unigram_train_api,
        "Unigram training: the pieces and their scores as CSV",
        ("unigram-vocab", *TRAIN),
        "pieces",
        piece_table,
        still_training=True,
    ),
    Download(
        "unigram/lattice.jsonl",
        answers.unigram_lattice_steps,
        "The Unigram lattice: one Viterbi step per line",
        ("unigram-lattice", "model"),
        "steps",
    ),
    Download(
        "trace.jsonl",
        trace_api,
        "The visualiser's pipeline trace: one stage per line",
        ("trace", "tokenizer"),
        "steps",
    ),
    Download(
        "vocab.csv",
        vocab_api,
        "A tokeniser's vocabulary as CSV",
        ("vocab", "tokenizer"),
        "vocab",
        vocab_table,
    ),
)

for download in DOWNLOADS:
    router.add_api_route(
        f"/download/{download.path}",
        download.endpoint(),
        methods=["GET"],
        name=download.name,
        response_class=Response,
        responses={
            **(JSONL_DOC if download.path.endswith(".jsonl") else CSV_DOC),
            **(STILL_TRAINING if download.still_training else {}),
        },
        summary=download.summary,
    )


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
