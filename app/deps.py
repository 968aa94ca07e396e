"""What routes are given: the app's state (`StateDep`), and the query and form parameters that
several routes declare alike."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Form, Query, Request
from pydantic import StringConstraints

from .state import AppState


def get_state(request: Request) -> AppState:
    """The app's state, which `create_app` built (and keeps as `app.state.app_state`)."""
    return request.app.state.app_state


# A route's `state: StateDep` (as the full-stack FastAPI template's `SessionDep`)
StateDep = Annotated[AppState, Depends(get_state)]

# A tokeniser, corpus or algorithm name in an API query: never empty (`/api/tax?tok=` is 422).
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]


def bounded(default: Any, lo: float, hi: float | None = None, form: bool = False) -> Any:
    """A query (or form) parameter whose bounds the OpenAPI schema states while the route checks
    them itself, so that a page shows its own message in place (FastAPI's validation would
    answer first, with its own). Use: `vocab_size: int = bounded(300, 4, 8000)`."""
    extra: dict[str, Any] = {"minimum": lo}
    if hi is not None:
        extra["maximum"] = hi
    return (Form if form else Query)(default, json_schema_extra=extra)
