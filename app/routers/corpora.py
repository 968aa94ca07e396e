"""Stored corpora: paste or upload a text, get its sha256, read it back (`/corpora`)."""

from __future__ import annotations

import functools
from typing import Any

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse

from tokenizers_core.corpora import ALL_UDHR, WAGAHAI, corpus_names, load_corpus, udhr_languages

from ..deps import StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services.corpora import corpus_summary, read_corpus_upload, store_corpus
from ..state import AppState
from ..store import is_sha256

router = APIRouter(tags=["corpora"])


@router.post("/api/corpora/upload", tags=["api"], status_code=201)
async def upload_corpus_api(state: StateDep, file: UploadFile = File(...)) -> dict[str, Any]:
    """Store an uploaded UTF-8 text file as a corpus."""
    text = await read_corpus_upload(state, file)
    return corpus_summary(store_corpus(state, text), text)


@router.get("/api/corpora/upload", include_in_schema=False)
def upload_corpus_api_get() -> None:
    """405 (`Allow: POST`): the upload path takes POST only. Without this route the API's
    `GET /api/corpora/{sha256}` would take "upload" for a sha256 and answer 404."""
    raise HTTPException(405, "this path takes POST only: the file to store as a corpus")


@functools.cache  # the bundled texts never change: measured once per process
def bundled_corpora() -> tuple[dict[str, Any], ...]:
    """The bundled corpora as the page lists them: name, language, size in bytes and lines."""
    names = {f"udhr/{lang.code}": lang.name for lang in udhr_languages()}
    names.update(
        {
            "botchan": "English (a novel)",
            ALL_UDHR: "all 33 UDHR languages",
            WAGAHAI: "Japanese (a novel)",
        }
    )
    rows = []
    for name in corpus_names():
        text = load_corpus(name)
        rows.append(
            {
                "name": name,
                "language": names.get(name, ""),
                "bytes": len(text.encode("utf-8")),
                "lines": text.count("\n") + (not text.endswith("\n")),
            }
        )
    return tuple(rows)


def _page(request: Request, state: AppState, status: int = 200, **ctx: Any) -> HTMLResponse:
    ctx.setdefault("error", None)
    ctx.setdefault("text", "")
    ctx.update(stored=state.store.list(), bundled=bundled_corpora())
    return render(request, "corpora.html", ctx, status_code=status)


@router.get("/corpora", response_class=HTMLResponse, summary="Stored corpora page")
def corpora_page(request: Request, state: StateDep, saved: str | None = None) -> HTMLResponse:
    """`saved`: the sha256 just stored, confirmed with its name and size (if it is stored)."""
    text = state.store.get(saved) if saved and is_sha256(saved) else None
    kept = (
        None
        if text is None
        else {
            **corpus_summary(saved, text),
            "name": next((c["name"] for c in state.store.list() if c["sha256"] == saved), ""),
        }
    )
    return _page(request, state, saved=kept)


@router.post("/corpora", response_class=HTMLResponse, summary="Store a pasted or uploaded corpus")
async def corpora_save(
    request: Request,
    state: StateDep,
    text: str = Form(""),
    name: str = Form(""),
    file: UploadFile | None = File(None),
) -> Any:
    try:
        if file is not None and file.filename:
            text = await read_corpus_upload(state, file)
            name = name or file.filename
        digest = store_corpus(state, text, name)
    except BAD_INPUT as exc:
        error, status = bad_input(exc)
        return _page(request, state, status=status, error=error, text=text, name=name)
    return RedirectResponse(f"/corpora?saved={digest}", status_code=303)
