"""The `tokvis` command: serve the app, and encode / train / trace / compare / export from a
terminal.

    tokvis serve [--host H] [--port P] [--workers N] [--db FILE]
    tokvis encode -t NAME|FILE [--json] [--count] [--special | --no-special] TEXT|-|-f FILE
    tokvis train ALGO CORPUS --vocab-size N [-o OUT] [--format F]
    tokvis trace ALGO CORPUS --vocab-size N [--steps A:B]
    tokvis compare -t A -t B [...] [--special | --no-special] TEXT|-|-f FILE
    tokvis diff -a A -b B [--corpus NAME|FILE | --text T | --stress] [--json]
    tokvis export NAME|FILE -o OUT [--format F] [--lossy]
    tokvis chat MESSAGES.json|- [-t NAME|FILE] [--template-name N | --template FILE] [--json]
    tokvis audit NAME|FILE [--category C] [--show N] [--json]
    tokvis fingerprint NAME|FILE [--json]
    tokvis lock -t NAME|FILE --texts FILE -o LOCK
    tokvis verify LOCK [-t NAME|FILE] [--format text|json|junit] [-o FILE] [--max-tokens N]
    tokvis parity NAME|FILE|FOLDER [--text T]... [--texts FILE] [--json]
    tokvis drift FILE.jsonl [-t NAME|FILE] [--template-name N | --template FILE] [--json]
    tokvis grade (--minbpe PATH.py:Class | --adapters PATH.py) --corpus NAME|FILE --vocab-size N

`--format` is always the format written; `--from` names a tokenizer file's own format.

A module per family of commands (`serve`, `encoding`, `training`, `compare`, `vocab_diff`,
`export`, `chat`, `audit`, `tokenizations`, `lock`, `deploy`) adds its own to the parser with
`register(subparsers)`, each with the function it runs (`set_defaults(run=...)`); the options
several of them share, and reading their values, are in `inputs`.

Stdlib `argparse`: six subcommands and a dozen options need nothing more, and the command then
starts without importing a framework (only `serve` imports FastAPI and uvicorn). Errors are one
line on stderr and exit status 1 (2 for a usage error, 130 for Ctrl-C, 70 for a bug: set
TOKVIS_DEBUG=1 to see its traceback), never a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any, Sequence

from tokenizers_core import __version__

from ..setup_errors import SetupError
from . import (
    audit,
    chat,
    compare,
    count,
    deploy,
    drift,
    encoding,
    export,
    grade,
    lock,
    parity,
    serve,
    tokenizations,
    training,
    vocab_diff,
)

# each module adds its commands (and the function each runs) to the parser, in this order,
# which is the order `tokvis --help` lists them in
COMMANDS = (
    serve,  # serve
    encoding,  # encode, decode
    training,  # train, trace
    count,  # count
    compare,  # compare, diff
    vocab_diff,  # vocab-diff
    export,  # export
    chat,  # chat
    audit,  # audit
    tokenizations,  # tokenizations
    lock,  # fingerprint, lock, verify
    parity,  # parity
    drift,  # drift
    grade,  # grade
    deploy,  # db, worker
)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (and a pointer to --help)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tokvis",
        description="Watch tokenisers work: the web app, and the same engine from a terminal.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for module in COMMANDS:
        module.register(sub)
    return parser


LONG_RUNNING = ("serve", "worker")  # servers: their own SIGINT handling shuts them down


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command not in LONG_RUNNING and argv is None:  # a process of its own, not a test's
        signal.signal(signal.SIGINT, _interrupted)
    try:
        return args.run(args) or 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tokvis trace ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (ValueError, OSError, LookupError, SetupError) as exc:
        sys.stderr.write(f"tokvis {args.command}: error: {_one_line(exc)}\n")
        return 1
    except Exception as exc:  # a bug, not bad input: still one line, unless asked
        if _unreachable_database(exc):
            sys.stderr.write(
                f"tokvis {args.command}: error: the store's database cannot be "
                f"reached: {_one_line(exc.__cause__ or exc)}\n"
            )
            return 1
        if os.environ.get("TOKVIS_DEBUG"):
            raise
        sys.stderr.write(
            f"tokvis {args.command}: internal error: {type(exc).__name__}: "
            f"{_one_line(exc)} (TOKVIS_DEBUG=1 shows the traceback)\n"
        )
        return 70


def _interrupted(signum: int, frame: Any) -> None:
    """Ctrl-C: stop now, quietly, with the status a shell gives (130). What was printed is
    flushed; nothing runs after (no finaliser, no thread, no `finally` to be interrupted half-way
    and print a traceback, which a KeyboardInterrupt landing anywhere could). A second Ctrl-C
    during the flush stops at once."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    try:
        sys.stdout.flush()
    except Exception:  # a closed pipe: nothing more to say
        pass
    os._exit(130)


def _unreachable_database(exc: BaseException) -> bool:
    """SQLAlchemy's OperationalError: the database is down, or the URL names no server."""
    errors = sys.modules.get("sqlalchemy.exc")  # loaded if the command used the store
    return errors is not None and isinstance(exc, errors.OperationalError)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.strip("'\"") if isinstance(exc, KeyError) else text
