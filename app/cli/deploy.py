"""`tokvis db upgrade` and `tokvis worker`: the commands of a shared deployment (docs/deployment.md,
"Serving a class"), which work on the embedded SQLite store too."""

from __future__ import annotations

import argparse
import os

from tokenizers_core.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db", help="the store's schema: `tokvis db upgrade` migrates it")
    p.add_argument(
        "action",
        choices=("upgrade", "current"),
        help="upgrade: to the newest schema (idempotent; keeps every row); "
        "current: print the schema version",
    )
    p.add_argument(
        "--new-secret-key",
        action="store_true",
        help="upgrade: record the fingerprint of this TOKVIS_SECRET_KEY as the store's (the key "
        "changed for good; servers and workers with another key refuse to start)",
    )
    _db_option(p)
    p.set_defaults(run=db)

    p = sub.add_parser(
        "worker",
        help="run queued jobs (trainings) from a shared PostgreSQL store (TOKVIS_DATABASE_URL)",
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=2,
        metavar="N",
        help="trainings this worker runs at once, each in its own child (default 2)",
    )
    _db_option(p)
    p.set_defaults(run=worker)


def _db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="URL|FILE",
        help="the store: a database URL or an SQLite "
        "file (default: $TOKVIS_DATABASE_URL, else $TOKVIS_DB, else "
        "~/.local/share/tokvis/store.sqlite3)",
    )


def _settings(args: argparse.Namespace):  # noqa: ANN202 - Settings, imported late
    if args.db:
        os.environ["TOKVIS_DATABASE_URL"] = (
            args.db if "://" in args.db else f"sqlite:///{os.path.abspath(args.db)}"
        )
    from app.config import Settings

    return Settings.from_env()


def preflight() -> None:
    """What would stop a server at start, said before it starts: the store's schema (a new one
    is created) and, in the shared mode, the secret (SetupError)."""
    from app.config import Settings
    from app.db import ensure_current
    from app.jobs.store import JobStore

    settings = Settings.from_env()
    ensure_current(settings.store_url)
    if settings.shared:
        JobStore(settings.store_url).key  # set, long enough, and the store's (KeyMismatch)


def db(args: argparse.Namespace) -> int:
    from app.db import migrate, shown

    url = _settings(args).store_url
    if args.action == "current":
        print(
            f"{shown(url)}: schema {migrate.current(url) or 'none'} "
            f"(this version's newest: {migrate.head()})"
        )
        return 0
    before, after = migrate.upgrade(url)
    if before == after:
        print(f"{shown(url)}: schema {after}, the newest; nothing to do")
    else:
        print(f"{shown(url)}: schema {before or 'none'} -> {after}")
    if getattr(args, "new_secret_key", False):
        from app.jobs.store import JobStore

        JobStore(url).forget_key()
        print(f"{shown(url)}: results are signed with this TOKVIS_SECRET_KEY from now on")
    return 0


def worker(args: argparse.Namespace) -> int:
    if args.concurrency < 1:
        raise InvalidInput(f"--concurrency must be at least 1, got {args.concurrency}")
    settings = _settings(args)
    if not settings.shared:
        raise InvalidInput(
            "a worker runs jobs from a shared PostgreSQL store: set "
            "TOKVIS_DATABASE_URL (postgresql+psycopg://...); with the SQLite "
            "store the server runs its jobs itself"
        )
    from app.jobs.distributed import run_worker

    run_worker(
        settings.store_url,
        args.concurrency,
        settings.job_cpu_seconds,
        settings.job_memory_mb,
        settings.job_stale_seconds,
    )
    return 0
