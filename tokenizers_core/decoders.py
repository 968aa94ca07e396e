"""Decoders: turn a list of token strings back into text (stage 5, after the model).

Each decoder has `decode(tokens: list[str]) -> str` and `describe() -> str`. Decoders of the
model families are appended below by the family that needs them (byte-level, WordPiece,
Metaspace).
"""
from __future__ import annotations
