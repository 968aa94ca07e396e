"""Your tokenizers: upload a tokenizer file, get a handle that works wherever a name does.

`POST /api/tokenizers` (JSON API) and `POST /tokenizers` (the upload form every view carries:
a 303 to the page it came from, with the new handle chosen there) share `uploads.upload`.
`/tokenizers` lists what is stored.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from .. import uploads
from ..deps import StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import is_fragment_request, render
from ..state import AppState

router = APIRouter(tags=["tokenizers"])

# Where an upload form may send the user back to, and the query parameter that names the tokeniser.
TARGETS = {
    "/": "tokenizer",
    "/compare": "col",
    "/bpe/encode": "tokenizer",
    "/wordpiece/encode": "vocab",
    "/unigram/lattice": "model",
    "/tokenizers": "saved",
    "/chat": "tokenizer",
    "/diff": "b",
    "/vocab": "tokenizer",
    "/vocab/diff": "b",
}
MAX_COLUMNS = 20  # every bundled real tokeniser side by side
_DROP = ("step", "play", "token", "saved", "wait", "page")  # a new tokeniser starts at step 0


def next_url(next: str, handle: str) -> str:
    """The page to go to after an upload: `next` (a page of ours) with the handle chosen.

    >>> next_url("/compare?text=hi&col=bpe", "upload-0123456789abcdef")
    '/compare?text=hi&col=bpe&col=upload-0123456789abcdef'
    >>> next_url("https://elsewhere.example/", "upload-0123456789abcdef")
    '/tokenizers?saved=upload-0123456789abcdef'
    """
    parts = urlsplit(next or "")
    path = (
        parts.path
        if not parts.scheme and not parts.netloc and parts.path in TARGETS
        else "/tokenizers"
    )
    key = TARGETS[path]
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query if path == parts.path else "", keep_blank_values=True)
        if k not in _DROP
    ]
    if key == "col":
        cols = [v for k, v in query if k == "col"]
        if handle not in cols:
            cols = (cols + [handle])[-MAX_COLUMNS:]
        query = [(k, v) for k, v in query if k != "col"] + [("col", c) for c in cols]
    else:
        query = [(k, v) for k, v in query if k != key] + [(key, handle)]
    return f"{path}?{urlencode(query)}"


def summary(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "tokenizer": row["handle"],
        "name": row["name"],
        "format": row["format"],
        "algorithm": row["algorithm"],
        "vocab_size": row["vocab_size"],
        "model": row["family"],
        "sha256": row["sha256"],
        "bytes": row["bytes"],
        "options": row["options"],
    }


@router.post(
    "/api/tokenizers",
    tags=["api"],
    status_code=201,
    summary="Upload a tokenizer file; its handle works wherever a tokeniser name does",
)
async def upload_api(
    state: StateDep,
    file: UploadFile = File(...),
    name: str = Form(""),
    format: str = Form(""),
    pattern: str = Form(""),
    special_tokens: str = Form(""),
    special_preset: str = Form(""),
    lowercase: str = Form(""),
) -> dict[str, Any]:
    """A Hugging Face tokenizer.json, a tiktoken ranks file, a sentencepiece .model or a
    WordPiece vocab.txt (gzipped is fine; the format is sniffed from the content unless
    `format` names it). A ranks file takes `pattern` (a preset: llama3, o200k, cl100k, p50k,
    gpt2; or a regex) and `special_tokens` as a JSON object `{"<|endoftext|>": 100257}` or
    `special_preset` (gpt2, cl100k, o200k, llama3, llama4, or none); what is left out comes
    from the encoding with as many ranks (128,000: Llama 3), and a file of no known size
    needs its pattern. A vocab.txt takes `lowercase` (true, false, or empty: from the
    vocabulary). Options a format does not take are ignored. The file is stored under the
    sha256 of its bytes."""
    row = await uploads.upload(
        state.uploads,
        state.settings.max_tokenizer_bytes,
        file,
        name=name,
        format=format,
        pattern=pattern,
        special_tokens=special_tokens,
        special_preset=special_preset,
        lowercase=lowercase,
    )
    return summary(row)


@router.get("/api/tokenizers/{handle}", tags=["api"], summary="One uploaded tokeniser")
def tokenizer_info(state: StateDep, handle: str) -> dict[str, Any]:
    row = state.uploads.info(handle)
    if row is None:
        raise HTTPException(404, f"no uploaded tokeniser has handle {handle!r}")
    return summary(row)


@router.post(
    "/tokenizers/sniff",
    response_class=HTMLResponse,
    summary="What a tokenizer file is, from its first bytes (the upload form's note)",
)
async def sniff(request: Request, state: StateDep, file: UploadFile = File(...)) -> HTMLResponse:
    """The upload form sends a file's first 64 KB (`uploads.HEAD_BYTES`) when one is chosen and
    shows the answer: which format the server will read it as (`data-format`, which options
    the form then shows), or that it is no tokenizer file. More bytes than that are not read."""
    head = await file.read(uploads.HEAD_BYTES)
    return render(
        request,
        "partials/tokenizer_upload.html",
        {
            "sniffed": {
                "filename": file.filename or "the file",
                "format": uploads.sniff_head(head),
                "slice": state.settings.max_tokenizer_bytes,
            }
        },  # a GGUF sends this much
        block="sniffed",
    )


def _page(request: Request, state: AppState, status: int = 200, **ctx: Any) -> HTMLResponse:
    ctx.setdefault("error", None)
    ctx.setdefault("pending", None)
    ctx.setdefault("saved", None)
    ctx.setdefault("next", "/tokenizers")
    ctx.update(stored=state.uploads.list())
    return render(request, "tokenizers.html", ctx, status_code=status)


@router.get("/tokenizers", response_class=HTMLResponse, summary="Your uploaded tokenisers")
def tokenizers_page(request: Request, state: StateDep, saved: str | None = None) -> HTMLResponse:
    return _page(request, state, saved=saved)


@router.post(
    "/tokenizers",
    response_class=HTMLResponse,
    summary="Upload a tokenizer file from a page's form, then go back to that page",
)
async def upload_form(
    request: Request,
    state: StateDep,
    file: UploadFile | None = File(None),
    sha256: str = Form(""),
    next: str = Form("/tokenizers"),
    name: str = Form(""),
    format: str = Form(""),
    pattern: str = Form(""),
    regex: str = Form(""),
    special_tokens: str = Form(""),
    special_preset: str = Form(""),
    lowercase: str = Form(""),
) -> Response:
    """Without JavaScript: a 303 to `next` with the handle chosen, or this page with the
    error. With htmx: an `HX-Redirect`, or just the form's status line with the error."""
    pending = None
    try:
        row = await uploads.upload(
            state.uploads,
            state.settings.max_tokenizer_bytes,
            file,
            sha256=sha256,
            name=name,
            format=format,
            pattern=pattern,
            regex=regex,
            special_tokens=special_tokens,
            special_preset=special_preset,
            lowercase=lowercase,
        )
    except BAD_INPUT as exc:
        error, status = bad_input(exc)
        pending = getattr(exc, "sha256", None) or (sha256 or None)
        form = {
            "name": name,
            "format": format,
            "pattern": pattern,
            "regex": regex,
            "special_tokens": special_tokens,
            "special_preset": special_preset,
            "lowercase": lowercase,
        }
        if is_fragment_request(request):
            return render(
                request,
                "partials/upload_status.html",
                {"error": error, "pending": pending},
                status_code=status,
            )
        return _page(
            request, state, status=status, error=error, pending=pending, next=next, form=form
        )
    target = next_url(next, row["handle"])
    if is_fragment_request(request):
        return Response(status_code=200, headers={"HX-Redirect": target})
    return RedirectResponse(target, status_code=303)
