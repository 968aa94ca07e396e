"""The FastAPI application (`uvicorn app.main:app`)."""

from __future__ import annotations

import logging
import re
import time
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tokenizers_core import __version__  # pyproject's, read from the installed metadata
from tokenizers_core.errors import InvalidInput, NotFound

from . import limits, openapi
from .config import Settings
from .db import shown
from .db.engine import DATABASE_AWAY, database_unreachable
from .embed import embed_mode
from .jobs import ClientGone, Engine, QueueFull, current_request
from .jobs.distributed import DistributedQueue
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
    compare,
    corpora,
    diff,
    docs,
    downloads,
    lessons,
    onward,
    tokenizations,
    tokenizers,
    unigram,
    visualiser,
    vocab,
    vocab_diff,
    wordpiece,
    worksheets,
)
from .sandbox import Sandbox, SandboxBusy, client_of, current_client
from .security import HostCheck, SecurityMiddleware, queued_work_refusal
from .services.tokenizations_work import SpacePool
from .store import CorpusStore, StoreFull
from .trained import TrainedTokenizers
from .uploads import UploadedTokenizers
from .warmup import WarmUp


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
    app.state.store.open()  # its schema checked (SchemaOutdated: run `tokvis db upgrade`),
    # its size limit written for every process, orphans dropped
    # where the corpora and uploads are kept (two checkouts sharing one store list each other's)
    _start_log.info("store: %s", shown(app.state.settings.store_url))
    app.state.sandbox.start()  # the warm pool where untrusted work runs
    app.state.tokenizations.start()  # the pool where /api/tokenizations' paths are worked out
    app.state.jobs.start()  # this process's job dispatcher
    if app.state.settings.warm_up:
        app.state.warm_up = WarmUp()
        app.state.warm_up.start()  # the first visits' caches, made in a thread
    yield
    app.state.jobs.stop()
    app.state.sandbox.stop()
    app.state.tokenizations.stop()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    body_limit = limits.body_limit(
        settings.max_corpus_bytes, settings.max_upload_bytes, settings.max_tokenizer_bytes
    )
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
    app.state.settings = settings
    app.state.store = CorpusStore(settings.store_url, max_bytes=settings.max_store_mb * 10**6)
    # the embedded queue runs jobs in this server's own processes; with PostgreSQL, servers
    # only queue and `tokvis worker` processes run them (app/jobs/distributed.py)
    queue_class = DistributedQueue if settings.shared else Engine
    app.state.jobs = queue_class(
        settings.store_url,
        workers=settings.job_workers,
        queue=settings.job_queue,
        cpu_seconds=settings.job_cpu_seconds,
        memory_mb=settings.job_memory_mb,
        stale=settings.job_stale_seconds,
        guard=queued_work_refusal,
    )
    app.state.trained = TrainedTokenizers(app.state.store, engine=app.state.jobs)
    app.state.sandbox = Sandbox(
        workers=settings.sandbox_workers,
        cpu_seconds=settings.sandbox_cpu_seconds,
        memory_mb=settings.sandbox_memory_mb,
        parse_seconds=settings.sandbox_parse_seconds,
        parse_memory_mb=settings.sandbox_parse_memory_mb,
    )
    app.state.tokenizations = SpacePool(workers=settings.sandbox_workers)
    app.state.uploads = UploadedTokenizers(
        app.state.store,
        max_bytes=settings.tokenizer_cache_mb * 10**6,
        parser=app.state.sandbox.parse,
    )
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    app.include_router(visualiser.router)
    app.include_router(corpora.router)
    app.include_router(compare.router)
    app.include_router(analytics.router)
    app.include_router(api.router)
    app.include_router(docs.router)
    app.include_router(vocab.router)
    app.include_router(tokenizers.router)
    # family routers (one line each)
    app.include_router(wordpiece.router)
    app.include_router(unigram.router)
    app.include_router(bpe.router)
    app.include_router(check.router)
    app.include_router(lessons.router)
    app.include_router(worksheets.router)
    app.include_router(downloads.router)
    app.include_router(onward.router)
    app.include_router(chat.router)
    app.include_router(diff.router)
    app.include_router(audit_numbers.router)
    app.include_router(vocab_diff.router)
    app.include_router(audit.router)
    app.include_router(audit_mix.router)
    app.include_router(tokenizations.router)

    # outermost last: RequestContext (timing, HEAD, the request for jobs), then the headers and
    # the cross-site check, then the host check (400 for a host not in TOKVIS_ALLOWED_HOSTS: DNS
    # rebinding), then the body limit, then FastAPI's own. No body need be larger than the
    # largest corpus or file, escaped, but a GGUF model sent whole (the upload form without
    # JavaScript), of which only the metadata prefix is kept
    app.add_middleware(
        limits.BodyLimit, limit=body_limit, max_model_bytes=settings.max_gguf_upload_mb * 10**6
    )
    app.add_middleware(HostCheck, allowed_hosts=settings.allowed_hosts)
    app.add_middleware(SecurityMiddleware, frame_ancestors=settings.frame_ancestors)
    app.add_middleware(RequestContext)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:  # every method the path takes, not one route's
            headers["Allow"] = allowed_methods(app, request.scope, headers.get("Allow", ""))
        return error_response(
            request,
            exc.status_code,
            exc.detail,
            headers,
            json=request.url.path.startswith("/static"),
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        message = (
            "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body')}: {e.get('msg')}"
                for e in exc.errors()
            )
            or "invalid request"
        )
        return error_response(request, 422, message)

    @app.exception_handler(QueueFull)
    async def queue_full(request: Request, exc: QueueFull):
        return error_response(request, 429, str(exc), {"Retry-After": "30"})

    @app.exception_handler(SandboxBusy)
    async def sandbox_busy(request: Request, exc: SandboxBusy):
        return error_response(request, 503, str(exc), {"Retry-After": "2"})

    @app.exception_handler(StoreFull)
    async def store_full(request: Request, exc: StoreFull):
        return error_response(request, 507, str(exc))

    @app.exception_handler(DBAPIError)
    async def database_away(request: Request, exc: DBAPIError):
        # the database restarting or out of reach (a connection refused or dropped): 503, try
        # again; any other database error is a bug, raised on to a 500
        if not database_unreachable(exc):
            raise exc
        return error_response(request, 503, DATABASE_AWAY, {"Retry-After": "5"})

    @app.exception_handler(ClientGone)
    async def client_gone(request: Request, exc: ClientGone):
        return JSONResponse({"detail": str(exc)}, status_code=499)  # nobody reads it

    @app.exception_handler(InvalidInput)
    async def invalid_input(request: Request, exc: InvalidInput):
        # Routes let the core's InvalidInput through: bad input is the user's, answered 422.
        # A plain ValueError is not caught here: from a bug it is a 500, not the user's fault.
        return error_response(request, 422, plain_message(exc))

    @app.exception_handler(ValueError)
    async def value_error(request: Request, exc: ValueError):
        # One plain ValueError is always the user's: Python's refusal to read a number of more
        # than 4,300 digits, which `int()` raises wherever a typed number is read. Any other is
        # a bug, raised on to a 500.
        if TOO_MANY_DIGITS.search(str(exc)) is None:
            raise exc
        return error_response(request, 422, plain_message(exc))

    @app.exception_handler(PermissionError)
    async def forbidden(request: Request, exc: PermissionError):
        # a job's cancel without its creator's id; a job another site's page asked for
        # (security.queued_work_refusal)
        return error_response(request, 403, str(exc))

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound):
        # ... and its NotFound (an unknown tokenizer, corpus or step), answered 404; a KeyError
        # or IndexError from a bug is a 500.
        message = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
        return error_response(request, 404, message)

    app.openapi = lambda: openapi.schema(app)
    return app


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


TOO_MANY_DIGITS = re.compile(
    r"Exceeds the limit \(\d+ digits\) for integer string conversion"
    r"(?:: value has (\d+) digits)?"
)


def plain_message(exc: ValueError) -> str:
    """The error's message, but Python's own refusal of a number too long to read (a
    5,000-digit id or count, from `int()` anywhere) said plainly."""
    found = TOO_MANY_DIGITS.search(str(exc))
    if found is None:
        return str(exc)
    digits = f"of {int(found.group(1)):,} digits " if found.group(1) else ""
    return f"a number {digits}is too long: no count, size or id here has that many digits"


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
