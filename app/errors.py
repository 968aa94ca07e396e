"""The web layer's errors and the one table that maps every error to its HTTP answer.

Services and views raise domain errors (the core's `InvalidInput` and `NotFound`, `TooLarge`
here, the store's `StoreFull`, the queue's `QueueFull`, ...) and never know HTTP; `ERRORS` says
which status, headers and message each is answered with, and `create_app` registers a handler
per row (as httpx maps the errors of its transports to its own, by a table). A page that keeps
its form and shows the message in place reads the same table (`bad_input`).
"""

from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

from fastapi import HTTPException
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError

from tokenizers_core.errors import InvalidInput, NotFound

from .db.engine import DATABASE_AWAY, database_unreachable
from .jobs import ClientGone, QueueFull
from .sandbox import SandboxBusy
from .store import StoreFull


class TooLarge(Exception):
    """The input is over one of the app's size limits (a text, a file, a chat's messages): 413.
    Not an `InvalidInput`, so that code that catches bad input to try another way does not catch
    a limit."""


class TooManyRequests(Exception):
    """One client sent more than a route's sliding window lets it (a class's answers): 429."""


class NotReady(Exception):
    """What was asked depends on work still running (a class's reference training): 409, try
    again in a moment."""


TOO_MANY_DIGITS = re.compile(
    r"Exceeds the limit \(\d+ digits\) for integer string conversion"
    r"(?:: value has (\d+) digits)?"
)


def plain_message(exc: Exception) -> str:
    """The error's message, but Python's own refusal of a number too long to read (a
    5,000-digit id or count, from `int()` anywhere) said plainly."""
    found = TOO_MANY_DIGITS.search(str(exc))
    if found is None:
        return str(exc)
    digits = f"of {int(found.group(1)):,} digits " if found.group(1) else ""
    return f"a number {digits}is too long: no count, size or id here has that many digits"


def _lone_message(exc: Exception) -> str:
    """A NotFound's message: its one argument as given (str() of a LookupError may quote it)."""
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)


def _too_many_digits(exc: Exception) -> str | None:
    """One plain ValueError is always the user's: Python's refusal to read a number of more than
    4,300 digits, which `int()` raises wherever a typed number is read. Any other is a bug: None,
    raised on to a 500."""
    return plain_message(exc) if TOO_MANY_DIGITS.search(str(exc)) else None


def _database_away(exc: Exception) -> str | None:
    """The database restarting or out of reach (a connection refused or dropped): 503, try
    again; any other database error is a bug: None, raised on to a 500."""
    assert isinstance(exc, DBAPIError)
    return DATABASE_AWAY if database_unreachable(exc) else None


def _validation_message(exc: Exception) -> str:
    """FastAPI's validation errors in one line: `field: what is wrong; ...`."""
    assert isinstance(exc, RequestValidationError)
    said = (
        f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body')}: {e.get('msg')}"
        for e in exc.errors()
    )
    return "; ".join(said) or "invalid request"


class Mapped(NamedTuple):
    """How an error is answered: its status, its headers, and its message (a function of the
    error; None passes the error on, to a 500). `json`: always `{"detail": ...}`, a page never."""

    status: int
    headers: dict[str, str] | None = None
    message: Callable[[Exception], Any] = str
    json: bool = False


# Every error the app answers but FastAPI's HTTPException (main.http_error: its 405 names the
# methods). A KeyError, IndexError or plain ValueError from a bug is not here: it is a 500.
ERRORS: dict[type[Exception], Mapped] = {
    RequestValidationError: Mapped(422, message=_validation_message),
    QueueFull: Mapped(429, {"Retry-After": "30"}),
    TooManyRequests: Mapped(429, {"Retry-After": "60"}),
    NotReady: Mapped(409, {"Retry-After": "2"}),
    SandboxBusy: Mapped(503, {"Retry-After": "2"}),
    StoreFull: Mapped(507),
    DBAPIError: Mapped(503, {"Retry-After": "5"}, _database_away),
    ClientGone: Mapped(499, json=True),  # nobody reads it
    # bad input is the user's: the core's InvalidInput (and Python's refusal of a 5,000-digit
    # number) 422, a limit 413, an unknown tokenizer, corpus or step 404
    InvalidInput: Mapped(422, message=plain_message),
    ValueError: Mapped(422, message=_too_many_digits),
    TooLarge: Mapped(413),
    NotFound: Mapped(404, message=_lone_message),
    # a job's cancel without its creator's id; a job another site's page asked for
    # (security.queued_work_refusal)
    PermissionError: Mapped(403),
}

# What a page shows in place, its form kept (a KeyError or a plain ValueError from a bug is
# not among them: it goes on, to a 500)
BAD_INPUT = (HTTPException, NotFound, InvalidInput, TooLarge, StoreFull)


def bad_input(exc: Exception) -> tuple[str, int]:
    """The message and status a page shows for bad input: an HTTPException keeps its own, an
    unknown name (NotFound) is 404, the InvalidInput of the core or a service is 422, a limit
    413, a full store 507.

    Use: `except BAD_INPUT as exc: ctx["error"], status = bad_input(exc)`.
    """
    if isinstance(exc, HTTPException):
        return str(exc.detail), exc.status_code
    message = str(exc).strip("'\"") if isinstance(exc, NotFound) else str(exc)
    return message, next(m.status for error, m in ERRORS.items() if isinstance(exc, error))
