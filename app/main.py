"""The FastAPI application (`uvicorn app.main:app`)."""
from __future__ import annotations

import time

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .config import Settings
from .embed import embed_mode
from .render import STATIC_DIR, render
from .routers import analytics, api, compare, corpora, docs, tokenizers, visualiser, vocab
from .routers import wordpiece
from .routers import unigram
from .routers import bpe
from .routers import check
from .routers import downloads
from .routers import lessons
from .routers import worksheets
from .store import CorpusStore
from .trained import TrainedTokenizers
from .uploads import UploadedTokenizers


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    app = FastAPI(title="Tokenizer Visualiser",
                  description="Watch tokenisers work, step by step: BPE, WordPiece, Unigram and "
                              "real tokenisers (GPT-2, GPT-4, GPT-4o, BERT, SentencePiece).",
                  version="0.1.0", docs_url=None, redoc_url=None,
                  dependencies=[Depends(embed_mode)])
    app.state.settings = settings
    app.state.store = CorpusStore(settings.db_path)
    app.state.trained = TrainedTokenizers(app.state.store)
    app.state.uploads = UploadedTokenizers(app.state.store)
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

    @app.middleware("http")
    async def server_timing(request: Request, call_next):
        # how long the server spent on a request, for the browser's devtools and the benchmarks
        start = time.perf_counter()
        response = await call_next(request)
        response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - start) * 1000:.1f}"
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if request.url.path.startswith("/api") or request.url.path.startswith("/static"):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code,
                                headers=getattr(exc, "headers", None))
        return render(request, "error.html", {"status": exc.status_code, "message": exc.detail},
                      status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        message = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body')}: {e.get('msg')}"
            for e in errors) or "invalid request"
        if request.url.path.startswith("/api"):
            return JSONResponse({"detail": message}, status_code=422)
        return render(request, "error.html", {"status": 422, "message": message},
                      status_code=422)

    @app.exception_handler(ValueError)
    async def value_error(request: Request, exc: ValueError):
        # A safety net: bad input that a route did not catch is still the user's, not a 500.
        if request.url.path.startswith("/api"):
            return JSONResponse({"detail": str(exc)}, status_code=422)
        return render(request, "error.html", {"status": 422, "message": str(exc)},
                      status_code=422)

    return app


app = create_app()
