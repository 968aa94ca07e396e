"""`tokvis serve`: the web app under uvicorn, with the bounds that keep slow clients from
holding a worker."""

from __future__ import annotations

import argparse
import os
from typing import TypedDict

from tokenizers_core.errors import InvalidInput

LIMIT_CONCURRENCY = 500  # open connections (and requests) per worker


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the web app")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--db",
        metavar="URL|FILE",
        help="the store: a database URL or an SQLite file (default: $TOKVIS_DATABASE_URL, "
        "else $TOKVIS_DB, else ~/.local/share/tokvis/store.sqlite3)",
    )
    p.add_argument(
        "--limit-concurrency",
        type=int,
        default=LIMIT_CONCURRENCY,
        metavar="N",
        help="open connections per worker past which new ones get 503 "
        f"(default {LIMIT_CONCURRENCY}; uvicorn has no header-read timeout, "
        "so this is what bounds clients that send headers slowly)",
    )
    p.set_defaults(run=serve)


def serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise InvalidInput(f"--port must be between 0 and 65535, got {args.port}")
    if args.workers < 1:
        raise InvalidInput(f"--workers must be at least 1, got {args.workers}")
    if args.db:  # a database URL, or an SQLite file (as `tokvis db` and `worker` read --db)
        os.environ["TOKVIS_DATABASE_URL"] = (
            args.db if "://" in args.db else f"sqlite:///{os.path.abspath(args.db)}"
        )
    if args.limit_concurrency < 1:
        raise InvalidInput(f"--limit-concurrency must be at least 1, got {args.limit_concurrency}")
    from .deploy import preflight

    preflight()  # an outdated store or a missing secret: one line, before serving
    import uvicorn

    bounds = uvicorn_bounds(args.limit_concurrency)
    # uvicorn's h11 protocol with a deadline for a request's head (TOKVIS_HEADER_TIMEOUT): a
    # connection that sends its headers a byte at a time is closed (app/serving.py)
    from app.serving import HeaderTimeoutProtocol  # a bad TOKVIS_HEADER_TIMEOUT fails here

    if args.workers == 1:
        from app.main import app  # a bad setting fails here, as one line

        uvicorn.run(app, host=args.host, port=args.port, http=HeaderTimeoutProtocol, **bounds)
    else:
        uvicorn.run(
            "app.main:app",
            host=args.host,
            port=args.port,
            workers=args.workers,
            http="app.serving:HeaderTimeoutProtocol",
            **bounds,
        )
    return 0


class UvicornBounds(TypedDict):
    """`uvicorn_bounds`' keywords, typed one by one so that `uvicorn.run(**bounds)` checks."""

    timeout_keep_alive: int
    limit_concurrency: int
    h11_max_incomplete_event_size: int


def uvicorn_bounds(limit_concurrency: int = LIMIT_CONCURRENCY) -> UvicornBounds:
    """What uvicorn offers against clients that hold connections open, beside the header-read
    timeout of our own protocol (`app.serving`, which uvicorn lacks): idle keep-alive
    connections close after 5 s, a request's headers may not exceed 16 KiB while incomplete,
    and past `limit_concurrency` connections new ones get 503 instead of exhausting the
    worker's file descriptors. (The Makefile's `run` line says the same.)"""
    return {
        "timeout_keep_alive": 5,
        "limit_concurrency": limit_concurrency,
        "h11_max_incomplete_event_size": 16 * 1024,
    }
