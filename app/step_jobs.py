"""Moved to `app.jobs.runs`. TODO(views): routers/bpe.py, wordpiece.py and unigram.py import
from here; once they import `app.jobs.runs`, delete this module."""
from .jobs.runs import bpe_session, unigram_run, wordpiece_run  # noqa: F401
