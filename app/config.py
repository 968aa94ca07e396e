"""Settings, read once from the environment (all optional; the defaults run the app as is).

TOKVIS_DB                 SQLite file of stored corpora and trained-tokeniser specs
                          (default: $XDG_DATA_HOME/tokvis/store.sqlite3, i.e. ~/.local/share/...)
TOKVIS_MAX_TEXT_CHARS     longest text the visualiser and /api/encode accept (default 100000)
TOKVIS_MAX_CORPUS_BYTES   largest corpus that can be stored or trained on (default 5 MB)
TOKVIS_MAX_UPLOAD_BYTES   largest uploaded file (default 5 MB)
TOKVIS_MAX_TOKENIZER_BYTES  largest uploaded tokenizer file, before and after gunzip (default 32 MB:
                          Llama 4's tokenizer.json is 12 MB)
TOKVIS_REGEX_TIMEOUT      seconds the user-supplied patterns may run in one encode (default 0.5): the
                          custom regex rule's, and an uploaded file's (Split, Replace, a ranks
                          file's pattern); past it the request answers 422 naming the pattern
TOKVIS_JOB_WORKERS        trainings run at once, across all server processes (default 2)
TOKVIS_JOB_QUEUE          trainings that may wait for a worker; more get 429 (default 16)
TOKVIS_JOB_CPU_SECONDS    CPU time one background training may use (default 600)
TOKVIS_JOB_MEMORY_MB      address space one background training may use (default 4096)
TOKVIS_MAX_STORE_MB       what stored corpora, uploaded tokenizer files and background jobs' results
                          may take together (default 4096); past it, the least recently used job
                          results are dropped (they are recomputed when asked for), then storing
                          a corpus or file is refused with 507. Tokenizer files no upload points
                          to (orphans) are deleted after an hour, at startup and at the limit
TOKVIS_TOKENIZER_CACHE_MB  memory the parsed uploaded tokenizers may keep in one server process
                          (default 1024); past it the least recently used is dropped (and parsed
                          again from the store when asked for). A tokenizer is weighed by an
                          estimate from its counts (app/jobs/cache.py, `tokenizer_bytes`: ~300
                          bytes per vocabulary entry, 200 per merge, 410 per added token: Llama 3
                          ~95 MB, Llama 4 ~150 MB); the newest always stays
TOKVIS_FRAME_ANCESTORS    who may show the pages in a frame: CSP frame-ancestors sources,
                          space-separated (default 'self'; e.g. "'self' https://course.example")
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def _default_db() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tokvis" / "store.sqlite3"


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from None
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def _sources(name: str, default: str) -> str:
    """A CSP source list from the environment (no `;` or `,`, which would end the directive)."""
    raw = " ".join((os.environ.get(name) or default).split())
    if not raw or any(c in raw for c in ";,"):
        raise ValueError(f"{name} must be CSP sources separated by spaces, got {raw!r}")
    return raw


@dataclass(frozen=True)
class Settings:
    db_path: Path
    max_text_chars: int
    max_corpus_bytes: int
    max_upload_bytes: int
    regex_timeout: float
    frame_ancestors: str = "'self'"
    job_workers: int = 2
    job_queue: int = 16
    job_cpu_seconds: int = 600
    job_memory_mb: int = 4096
    max_tokenizer_bytes: int = 32_000_000
    max_store_mb: int = 4096
    tokenizer_cache_mb: int = 1024

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(
            db_path=Path(os.environ.get("TOKVIS_DB") or _default_db()),
            max_text_chars=_int("TOKVIS_MAX_TEXT_CHARS", 100_000),
            max_corpus_bytes=_int("TOKVIS_MAX_CORPUS_BYTES", 5_000_000),
            max_upload_bytes=_int("TOKVIS_MAX_UPLOAD_BYTES", 5_000_000),
            regex_timeout=float(os.environ.get("TOKVIS_REGEX_TIMEOUT") or 0.5),
            frame_ancestors=_sources("TOKVIS_FRAME_ANCESTORS", "'self'"),
            job_workers=_int("TOKVIS_JOB_WORKERS", 2),
            job_queue=_int("TOKVIS_JOB_QUEUE", 16),
            job_cpu_seconds=_int("TOKVIS_JOB_CPU_SECONDS", 600),
            job_memory_mb=_int("TOKVIS_JOB_MEMORY_MB", 4096),
            max_tokenizer_bytes=_int("TOKVIS_MAX_TOKENIZER_BYTES", 32_000_000),
            max_store_mb=_int("TOKVIS_MAX_STORE_MB", 4096),
            tokenizer_cache_mb=_int("TOKVIS_TOKENIZER_CACHE_MB", 1024),
        )
