"""The FastAPI application (`uvicorn app.main:app`)."""

from __future__ import annotations

import logging
import re
import time
from contextlib import asynccontextmanager
from typing import Any, Awaitable, Callable

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders, State
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tokenizers_core import __version__  # pyproject's, read from the installed metadata

from . import limits, openapi
from .config import Settings
from .db import shown
from .embed import embed_mode
from .errors import ERRORS, Mapped, plain_message
from .jobs import current_request
from .render import STATIC_DIR, render
from .routers import (
    analytics,
    api,
    audit,
    audit_mix,
    audit_numbers,
    bpe,
    chat,
    check,
    classes,
    compare,
    corpora,
    diff,
    docs,
    downloads,
    drift,
    lessons,
    onward,
    parity,
    sharded,
    tokenizations,
    tokenizers,
    unigram,
    visualiser,
    vocab,
    vocab_diff,
    wordpiece,
    worksheets,
)
from .sandbox import client_of, current_client
from .security import HostCheck, SecurityMiddleware, queued_work_refusal
from .services.visualiser import page_paths
from .state import AppState
from .warmup import WarmUp

__all__ = ["app", "create_app", "error_response", "plain_message"]


class RequestContext:
    """Pure ASGI: the `Server-Timing` header (how long the server spent, for the browser's
    devtools and the benchmarks); the request in `jobs.current_request`, so that a route
    waiting for a training can tell when its client has left; and HEAD answered as GET without
    the body (FastAPI routes list GET only)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        head = scope["method"] == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}
        token = current_request.set(Request(scope, receive))
        client = current_client.set(client_of(scope))  # whose work the sandbox runs

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)["Server-Timing"] = (
                    f"app;dur={(time.perf_counter() - start) * 1000:.1f}"
                )
            elif head and message["type"] == "http.response.body":
                if message.get("more_body"):
                    return
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        try:
            await self.app(scope, receive, timed)
        finally:
            current_request.reset(token)
            current_client.reset(client)


# uvicorn's own logger: its handler prints INFO lines as the server starts (`make run`, `tokvis
# serve`), where a logger of ours would print nothing without a logging set-up of its own
_start_log = logging.getLogger("uvicorn.error")


@asynccontextmanager
async def _lifespan(app: FastAPI):
    state: AppState = app.state.app_state
    state.store.open()  # its schema checked (SchemaOutdated: run `tokvis db upgrade`),
    # its size limit written for every process, orphans dropped
    # where the corpora and uploads are kept (two checkouts sharing one store list each other's)
    _start_log.info("store: %s", shown(state.settings.store_url))
    state.sandbox.start()  # the warm pool where untrusted work runs
    state.tokenizations.start()  # the pool where /api/tokenizations' paths are worked out
    state.jobs.start()  # this process's job dispatcher
    if state.settings.warm_up:
        app.state.warm_up = WarmUp()
        app.state.warm_up.start()  # the first visits' caches, made in a thread
    yield
    state.jobs.stop()
    state.sandbox.stop()
    state.tokenizations.stop()


ROUTERS = [
    *(visualiser, corpora, compare, analytics, api, docs, vocab, tokenizers),
    *(wordpiece, unigram, bpe, check, lessons, worksheets, downloads, onward, chat, diff),
    *(audit_numbers, vocab_diff, audit, audit_mix, tokenizations, drift),
    parity,
    classes,
    sharded,
]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    app = FastAPI(
        lifespan=_lifespan,
        title="Tokenizer Visualiser",
        description="Watch tokenisers work, step by step: BPE, WordPiece, Unigram and "
        "real tokenisers (GPT-2, GPT-4, GPT-4o, BERT, SentencePiece).",
        version=__version__,
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(embed_mode)],
        # one corpus limit for every way in: a multipart text field may be as large as
        # a corpus (Starlette's default stops it at 1 MB); the body limit is
        # `limits.BodyLimit`, below
        form_limits={"max_part_size": settings.max_corpus_bytes * 3},
    )
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    for module in ROUTERS:
        app.include_router(module.router)
    state = AppState.build(settings, guard=queued_work_refusal)
    state.page_paths = frozenset(page_paths(app))
    # app.state reads and writes the AppState's own attributes: app.state.store is state.store
    app.state = State(vars(state))
    app.state.app_state = state
    _add_middleware(app, settings)
    app.add_exception_handler(StarletteHTTPException, http_error)
    for error, mapped in ERRORS.items():
        app.add_exception_handler(error, _answer(mapped))
    app.openapi = lambda: openapi.schema(app)
    return app


def _add_middleware(app: FastAPI, settings: Settings) -> None:
    """Outermost last: RequestContext (timing, HEAD, the request for jobs), then the headers and
    the cross-site check, then the host check (400 for a host not in TOKVIS_ALLOWED_HOSTS: DNS
    rebinding), then the body limit, then FastAPI's own. No body need be larger than the
    largest corpus or file, escaped, but a GGUF model sent whole (the upload form without
    JavaScript), of which only the metadata prefix is kept."""
    body_limit = limits.body_limit(
        settings.max_corpus_bytes, settings.max_upload_bytes, settings.max_tokenizer_bytes
    )
    app.add_middleware(
        limits.BodyLimit, limit=body_limit, max_model_bytes=settings.max_gguf_upload_mb * 10**6
    )
    app.add_middleware(HostCheck, allowed_hosts=settings.allowed_hosts)
    app.add_middleware(SecurityMiddleware, frame_ancestors=settings.frame_ancestors)
    app.add_middleware(RequestContext)


def _answer(mapped: Mapped) -> Callable[[Request, Exception], Awaitable[Response]]:
    """The exception handler for one row of `errors.ERRORS`."""

    async def handler(request: Request, exc: Exception) -> Response:
        message = mapped.message(exc)
        if message is None:
            raise exc  # a bug's error: a 500
        return error_response(request, mapped.status, message, mapped.headers, json=mapped.json)

    return handler


async def http_error(request: Request, exc: Exception) -> Response:
    """FastAPI's and Starlette's HTTPException: its status, detail and headers; a 405 names
    every method the path takes, not one route's."""
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(getattr(exc, "headers", None) or {})
    if exc.status_code == 405:
        headers["Allow"] = allowed_methods(request.app, request.scope, headers.get("Allow", ""))
    return error_response(
        request, exc.status_code, exc.detail, headers, json=request.url.path.startswith("/static")
    )


def error_response(
    request: Request,
    status: int,
    message: Any,
    headers: dict[str, str] | None = None,
    json: bool = False,
) -> Response:
    """An error as the API gives it (`{"detail": message}`), as a page (error.html), or for an
    htmx request as the message alone, which lands where the request's answer would."""
    if json or request.url.path.startswith("/api"):
        return JSONResponse({"detail": message}, status_code=status, headers=headers)
    response = render(
        request,
        "error.html",
        {"status": status, "message": message},
        block="message",
        status_code=status,
    )  # htmx: just the message
    response.headers.update(headers or {})
    return response


def allowed_methods(app: FastAPI, scope: Scope, starlette_allow: str = "") -> str:
    """The methods this path answers, for `Allow`: those the OpenAPI schema lists for the
    templates that match it, the most specific template only (the one with the most literal
    segments, as routers such as Go's ServeMux rank them), and HEAD wherever GET is.

    So `/api/corpora/upload` answers POST alone, though `/api/corpora/{sha256}` (GET) matches
    it too: "upload" is no sha256. (Starlette names only the first route that matched the path,
    and FastAPI's GET routes do not list the HEAD that `RequestContext` answers. The schema,
    not `app.routes`, because FastAPI keeps included routers' routes behind private types; for
    a path the schema leaves out (/docs, /openapi.json, /static) Starlette's `Allow` is used.)"""
    path = scope.get("path", "")
    best, methods = -1, set[str]()
    for template, item in app.openapi()["paths"].items():
        pattern = "^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$"
        if not re.match(pattern, path):
            continue
        literal = sum(1 for part in template.split("/") if part and "{" not in part)
        if literal > best:
            best, methods = literal, set()
        if literal == best:
            methods |= {m.upper() for m in item}
    if not methods:
        methods = {m.strip().upper() for m in starlette_allow.split(",") if m.strip()}
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


app = create_app()
