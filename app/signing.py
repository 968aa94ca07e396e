"""Pickled values kept in the store are signed, and read back only if the signature holds.

A job's result (a trained tokeniser, a step-through run) and a tokeniser handed to a job are
pickles written by one process and unpickled by another, perhaps on another machine. Unpickling
runs code, so whoever could write into a shared database could otherwise run code on every
server. Each value is stored as HMAC-SHA256(key, value) + value, and `verify` gives the value
back only if the code matches.

The key: `TOKVIS_SECRET_KEY` (the same on every server and worker; required when the store is
PostgreSQL). Without it an SQLite store keeps its own random key in a file beside it
(`<store>.key`, readable by its owner only), which every process of this machine shares.

    key = secret_key(url)
    stored = sign(key, pickle.dumps(run))
    run = pickle.loads(verify(key, stored))      # BadSignature if the bytes were changed

The store keeps a fingerprint of the first key it saw (`fingerprint`: an HMAC of a fixed
string, which does not give the key away), and a server or worker whose key gives another one
refuses to start (`check_fingerprint`, KeyMismatch): with the wrong key every result another
process stored would be unreadable, and each training run again and again.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from .db.engine import sqlite_path
from .setup_errors import KeyMismatch, MissingSecret

DIGEST = hashlib.sha256().digest_size


class BadSignature(ValueError):
    """Stored bytes whose signature does not match: written without the key, or changed."""


def secret_key(url: str) -> bytes:
    """The key that signs what the store at `url` keeps pickled."""
    given = os.environ.get("TOKVIS_SECRET_KEY", "")
    if given:
        if len(given) < 16:
            raise MissingSecret(
                "TOKVIS_SECRET_KEY is too short: use at least 16 characters, "
                "e.g. the output of `openssl rand -hex 32`"
            )
        return given.encode("utf-8")
    path = sqlite_path(url)
    if path is None:
        raise MissingSecret(
            "TOKVIS_SECRET_KEY is not set: a shared store (PostgreSQL) needs the same secret "
            "on every server and worker, to sign the results they keep in it; generate one "
            "with `openssl rand -hex 32`"
        )
    return _key_file(path.with_name(path.name + ".key"))


def _key_file(path: Path) -> bytes:
    """A random key kept in `path`, made on first use (by whichever process comes first)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_hex(32).encode("ascii")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it a moment ago
        return _settled(path)
    with os.fdopen(fd, "wb") as handle:
        handle.write(fresh)
    return fresh


def _settled(path: Path) -> bytes:
    for _ in range(100):
        key = path.read_bytes()
        if key:
            return key
        os.sched_yield()
    raise MissingSecret(f"the store's key file {path} is empty: delete it and start again")


MISMATCH = (
    "TOKVIS_SECRET_KEY is not the key this store's results are signed with (the store keeps "
    "a fingerprint of the key it first saw): every server and worker of one store needs the "
    "same TOKVIS_SECRET_KEY. To change the key for good, stop them all and run `tokvis db "
    "upgrade --new-secret-key` with the new key set (the results signed with the old one are "
    "trained again)"
)


def fingerprint(key: bytes) -> int:
    """A 63-bit fingerprint of `key` (kept in the store's `limits` table, a BIGINT).

    >>> fingerprint(b"0123456789abcdef") == fingerprint(b"0123456789abcdef")
    True
    >>> fingerprint(b"0123456789abcdef") == fingerprint(b"0123456789abcdeg")
    False
    """
    digest = hmac.new(key, b"tokvis: the store's signing key", hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def check_fingerprint(stored: int | None, key: bytes) -> None:
    """KeyMismatch when the store's fingerprint (None: none yet) is not `key`'s."""
    if stored is not None and stored != fingerprint(key):
        raise KeyMismatch(MISMATCH)


def sign(key: bytes, value: bytes) -> bytes:
    return hmac.new(key, value, hashlib.sha256).digest() + value


def verify(key: bytes, stored: bytes) -> bytes:
    """The value `sign` stored, if its signature holds; BadSignature otherwise."""
    stored = bytes(stored)
    mac, value = stored[:DIGEST], stored[DIGEST:]
    if len(mac) != DIGEST or not hmac.compare_digest(
        mac, hmac.new(key, value, hashlib.sha256).digest()
    ):
        raise BadSignature(
            "a stored result's signature does not match: it was written with another "
            "TOKVIS_SECRET_KEY than this process's (every server and worker of one store "
            "needs the same key), or changed; it is not read"
        )
    return value
