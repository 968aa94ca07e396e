"""The domain errors: what the core raises when the caller asked for something wrong.

The web layer maps them to status codes (`InvalidInput` -> 422, `NotFound` -> 404), so a
`KeyError` or `IndexError` from a bug is not mistaken for either.
"""

from __future__ import annotations


class InvalidInput(ValueError):
    """The input cannot be used: a bad option, a malformed file, a text too long."""


class NotFound(LookupError):
    """What was asked for does not exist: an unknown tokenizer, a step past the end."""
