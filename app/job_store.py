"""Moved to `app.jobs.store`. TODO(views): routers/bpe.py and wordpiece.py import `Job` from
here; once they import `app.jobs`, delete this module."""
from .jobs.store import Job  # noqa: F401
