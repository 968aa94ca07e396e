"""Settings, read once from the environment (all optional; the defaults run the app as is).

TOKVIS_DATABASE_URL       the store's database, as a SQLAlchemy URL: corpora, uploaded tokenizer
                          files, trained-tokeniser specs and job results. Default: the SQLite file
                          TOKVIS_DB names (the embedded mode: jobs run in the server's own
                          processes). A PostgreSQL URL (postgresql+psycopg://user:pw@host/db)
                          is the shared mode: several servers on one database, and jobs run by
                          `tokvis worker` processes (docs/deployment.md)
TOKVIS_DB                 the SQLite file, when TOKVIS_DATABASE_URL is not set (default:
                          $XDG_DATA_HOME/tokvis/store.sqlite3, i.e. ~/.local/share/..., one per
                          user, which every `tokvis serve` shares; `make run` sets it to
                          .tokvis/store.sqlite3 in the checkout, so each checkout has its own).
                          The server's first lines name the store it opened ("store: sqlite:///...")
TOKVIS_SECRET_KEY         signs the pickled results kept in the store (HMAC), so that a value is
                          unpickled only if a server or worker holding the key wrote it. Required
                          with PostgreSQL (the same on every server and worker; at least 16
                          characters: `openssl rand -hex 32`); an SQLite store without it keeps
                          its own random key in a file beside it (<store>.key)
TOKVIS_JOB_STALE_SECONDS  a running job whose process stopped beating its heartbeat (every 2 s) this
                          long ago is marked `interrupted` by any server or worker (default 30)
TOKVIS_MAX_TEXT_CHARS     longest text the visualiser and /api/encode accept (default 100000)
TOKVIS_MAX_CORPUS_BYTES   largest corpus that can be stored or trained on (default 5 MB)
TOKVIS_MAX_UPLOAD_BYTES   largest uploaded file (default 5 MB)
TOKVIS_MAX_TOKENIZER_BYTES  largest uploaded tokenizer file, before and after gunzip, and a zip's
                          files together once unzipped (default 48 MB: Gemma 3's tokenizer.json
                          is 33.4 MB, Llama 4's 12 MB); of a GGUF model, the first this many
                          bytes are read
TOKVIS_REGEX_TIMEOUT      CPU seconds the user-supplied patterns may use in one encode (default 0.5): the
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
TOKVIS_SANDBOX_WORKERS    sandboxed child processes in each of the two pools where untrusted work
                          runs (default 2): the "search" pool runs the regexes of uploaded and
                          custom tokenisers, the "work" pool chat templates and the parse of
                          uploaded files (with as many again kept for small work: at most this
                          many tasks run past 0.25 s of CPU at once). 0 runs all of it in the
                          serving process (no sandbox)
TOKVIS_SANDBOX_CPU_SECONDS  CPU seconds one chat template's render may use in its child (default 4;
                          the render's own budget, 2 s, stops an ordinary slow template first); the
                          server kills a child that is stalled (neither running nor waiting for a
                          CPU) for twice that, and one that runs, however slowly, after about 16
                          times that in wall clock
TOKVIS_SANDBOX_MEMORY_MB  address space one chat template's render may add (default 256)
TOKVIS_SANDBOX_PARSE_SECONDS  CPU seconds the parse of one uploaded file may use (default 8; Llama 4's
                          tokenizer.json takes 1 s on an idle machine, 2.6 s at load 20 and over
                          4 s beside six CPU hogs); past it the upload is refused with 422
TOKVIS_SANDBOX_PARSE_MEMORY_MB  address space the parse of one uploaded file may add (default 400;
                          Llama 4's tokenizer.json, among the largest real ones, needs about 320)
TOKVIS_FRAME_ANCESTORS    who may show the pages in a frame (`?embed=1` in an <iframe>): CSP
                          frame-ancestors sources, space-separated (default 'self': only this
                          server's own pages). An origin names its port: a course page served on
                          another port is "'self' http://localhost:8080", one opened from a file
                          needs `file:`, a site "'self' https://course.example". A page it does
                          not name gets a blank frame ("refused to connect"); every page's footer
                          ("Embed this view") shows the <iframe> code and the value in force
TOKVIS_WARM_UP            1 (default): as the server starts, one thread loads the bundled tokenizers
                          the pages open with and the default vocabulary diff, so first visits
                          find them made (app/warmup.py); 0: each is made on its first visit
TOKVIS_ALLOWED_HOSTS      host names the server answers for, besides 127.0.0.1, localhost and
                          [::1] (always allowed): space- or comma-separated, any port; a leading
                          wildcard `*.example.org` allows its subdomains (not example.org itself),
                          and `*` alone allows every host (only behind a proxy that checks Host
                          itself). A request for any other host gets 400, so a page on another
                          domain that rebinds its DNS to this server reads and writes nothing
                          (app/security.py, `HostCheck`). A deployment names itself here, e.g.
                          "tokvis.example.org"
TOKVIS_HEADER_TIMEOUT     seconds a connection may take to send a request's line and headers
                          (default 10); past it, it is closed (app/serving.py: what `make run`,
                          `tokvis serve` and the Dockerfile serve through). Between requests on a
                          kept-alive connection uvicorn's --timeout-keep-alive (5 s) applies
TOKVIS_MAX_GGUF_UPLOAD_MB  largest GGUF model sent whole to a tokenizer upload (the form without
                          JavaScript, curl): default 8192. Only its metadata prefix (up to
                          TOKVIS_MAX_TOKENIZER_BYTES) is read into memory; the rest passes through
                          the temporary directory while the request lasts (app/limits.py,
                          `BodyLimit`)
TOKVIS_CORPUS_DIRS        folders whose files a training on shards may read on the server
                          (`POST /api/corpora/shards/paths`), separated by `:` (default: none,
                          so no server-side path is read). A path outside them, or a link that
                          leads outside, is refused with 403. Every `tokvis worker` reads the
                          files itself, so give the workers the same setting and the same files
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tokenizers_core.errors import InvalidInput

from .db.engine import database_url, is_postgres

DEFAULT_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_HOST_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")  # DNS labels; IPv4 fits too


def _default_db() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tokvis" / "store.sqlite3"


def _int(name: str, default: int, minimum: int = 1) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidInput(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise InvalidInput(f"{name} must be at least {minimum}, got {value}")
    return value


def _sources(name: str, default: str) -> str:
    """A CSP source list from the environment (no `;` or `,`, which would end the directive)."""
    raw = " ".join((os.environ.get(name) or default).split())
    if not raw or any(c in raw for c in ";,"):
        raise InvalidInput(f"{name} must be CSP sources separated by spaces, got {raw!r}")
    return raw


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise InvalidInput(f"{name} must be a number of seconds, got {raw!r}") from None
    if not 0 < value < float("inf"):
        raise InvalidInput(f"{name} must be a positive number of seconds, got {raw!r}")
    return value


def host_patterns(raw: str, name: str = "TOKVIS_ALLOWED_HOSTS") -> tuple[str, ...]:
    """The host names in `raw` (space- or comma-separated), checked and written as the Host
    header carries them: lower case, an IPv6 address in brackets (`::1` -> `[::1]`). A pattern
    is a name, `*.name` (its subdomains, as Starlette's TrustedHostMiddleware reads it) or `*`
    (every host). No port: every port of an allowed host is answered. Repeats are dropped.

    >>> host_patterns("Tokvis.Example.org, *.course.example  ::1 10.0.0.7")
    ('tokvis.example.org', '*.course.example', '[::1]', '10.0.0.7')
    >>> host_patterns("*"), host_patterns("")
    (('*',), ())
    >>> host_patterns("example.org:8000")
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: TOKVIS_ALLOWED_HOSTS: 'example.org:8000' has a port; name the host alone (every port of an allowed host is answered)

    Not handled: internationalised names in Unicode (write their `xn--` form, as the browser
    sends it) and IPv6 zone ids (`fe80::1%eth0`).
    """
    out: list[str] = []
    for entry in raw.replace(",", " ").split():
        host = entry.lower()
        if host != "*":
            host = _host_pattern(host, entry, name)
        if host not in out:
            out.append(host)
    return tuple(out)


def _host_pattern(host: str, entry: str, name: str) -> str:
    """One pattern of `host_patterns`, checked (ValueError naming `entry` and `name`)."""
    if "://" in host or "/" in host:
        raise InvalidInput(
            f"{name}: {entry!r} is a URL; name the host alone, e.g. tokvis.example.org"
        )
    if "%" in host:
        raise InvalidInput(f"{name}: {entry!r} has an IPv6 zone id, which no Host header carries")
    try:  # ::1, [::1], [0:0::1] -> [::1]
        return f"[{ipaddress.IPv6Address(host.strip('[]')).compressed}]"
    except ValueError:
        pass
    if ":" in host:
        raise InvalidInput(
            f"{name}: {entry!r} has a port; name the host alone (every port of "
            "an allowed host is answered)"
        )
    wildcard = host.startswith("*.")
    if not _HOST_NAME.fullmatch(host[2:] if wildcard else host):
        raise InvalidInput(
            f"{name}: {entry!r} is not a host name; give names such as "
            "tokvis.example.org, *.example.org (its subdomains), 10.0.0.7, or * "
            "(every host)"
        )
    return host


def allowed_hosts_from_env() -> tuple[str, ...]:
    """127.0.0.1, localhost and [::1], then what TOKVIS_ALLOWED_HOSTS adds."""
    added = host_patterns(os.environ.get("TOKVIS_ALLOWED_HOSTS") or "")
    return DEFAULT_HOSTS + tuple(h for h in added if h not in DEFAULT_HOSTS)


def corpus_dirs_from_env() -> tuple[Path, ...]:
    """TOKVIS_CORPUS_DIRS: the folders server-side corpus files may be in, resolved (links
    followed). Read where it is used (a worker checks each file it reads again)."""
    raw = os.environ.get("TOKVIS_CORPUS_DIRS")
    if not raw:
        return ()
    return tuple(Path(d).resolve() for d in raw.split(os.pathsep) if d.strip())


def inside(path: str | Path, folders: tuple[Path, ...]) -> Path | None:
    """`path` resolved (links followed), if it is in one of `folders`; else None. A path is
    first checked as written, so nothing outside the folders is looked at.

    >>> inside("/srv/corpora/../corpora/a.txt", (Path("/srv/corpora"),))
    PosixPath('/srv/corpora/a.txt')
    >>> inside("/etc/passwd", (Path("/srv/corpora"),)) is None
    True
    """
    written = Path(os.path.abspath(path))
    if not any(written.is_relative_to(folder) for folder in folders):
        return None
    resolved = written.resolve()
    return resolved if any(resolved.is_relative_to(folder) for folder in folders) else None


def header_timeout_from_env() -> float:
    """TOKVIS_HEADER_TIMEOUT: seconds a connection may take to send a request's head (read by
    the server's HTTP protocol, app/serving.py, when uvicorn loads it: not a `Settings` field,
    since the protocol runs before and outside the app)."""
    return _seconds("TOKVIS_HEADER_TIMEOUT", 10.0)


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
    max_tokenizer_bytes: int = 48_000_000
    max_store_mb: int = 4096
    tokenizer_cache_mb: int = 1024
    sandbox_workers: int = 2
    sandbox_cpu_seconds: int = 4
    sandbox_memory_mb: int = 256
    sandbox_parse_seconds: int = 8
    sandbox_parse_memory_mb: int = 400
    max_gguf_upload_mb: int = 8192
    database_url: str | None = None  # None: the SQLite file `db_path`
    job_stale_seconds: float = 30.0
    warm_up: bool = False  # make the first visits' caches at start-up (app/warmup.py)
    # read from the environment even when a test builds Settings(...) itself (the tests' client
    # sends Host: testserver, which tests/conftest.py adds to TOKVIS_ALLOWED_HOSTS)
    allowed_hosts: tuple[str, ...] = field(default_factory=allowed_hosts_from_env)

    @property
    def store_url(self) -> str:
        """The store's database: TOKVIS_DATABASE_URL, else the SQLite file."""
        return self.database_url or database_url(self.db_path)

    @property
    def shared(self) -> bool:
        """A PostgreSQL store: jobs run on `tokvis worker` processes."""
        return is_postgres(self.store_url)

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(
            db_path=Path(os.environ.get("TOKVIS_DB") or _default_db()),
            max_text_chars=_int("TOKVIS_MAX_TEXT_CHARS", 100_000),
            max_corpus_bytes=_int("TOKVIS_MAX_CORPUS_BYTES", 5_000_000),
            max_upload_bytes=_int("TOKVIS_MAX_UPLOAD_BYTES", 5_000_000),
            regex_timeout=float(os.environ.get("TOKVIS_REGEX_TIMEOUT") or 0.5),
            frame_ancestors=_sources("TOKVIS_FRAME_ANCESTORS", "'self'"),
            warm_up=os.environ.get("TOKVIS_WARM_UP", "1").strip() not in ("0", "false", "no", ""),
            job_workers=_int("TOKVIS_JOB_WORKERS", 2),
            job_queue=_int("TOKVIS_JOB_QUEUE", 16),
            job_cpu_seconds=_int("TOKVIS_JOB_CPU_SECONDS", 600),
            job_memory_mb=_int("TOKVIS_JOB_MEMORY_MB", 4096),
            max_tokenizer_bytes=_int("TOKVIS_MAX_TOKENIZER_BYTES", Settings.max_tokenizer_bytes),
            max_store_mb=_int("TOKVIS_MAX_STORE_MB", 4096),
            tokenizer_cache_mb=_int("TOKVIS_TOKENIZER_CACHE_MB", 1024),
            sandbox_workers=_int("TOKVIS_SANDBOX_WORKERS", 2, minimum=0),
            sandbox_cpu_seconds=_int("TOKVIS_SANDBOX_CPU_SECONDS", 4),
            sandbox_memory_mb=_int("TOKVIS_SANDBOX_MEMORY_MB", 256),
            sandbox_parse_seconds=_int("TOKVIS_SANDBOX_PARSE_SECONDS", 8),
            sandbox_parse_memory_mb=_int("TOKVIS_SANDBOX_PARSE_MEMORY_MB", 400),
            max_gguf_upload_mb=_int("TOKVIS_MAX_GGUF_UPLOAD_MB", 8192),
            database_url=os.environ.get("TOKVIS_DATABASE_URL") or None,
            job_stale_seconds=_seconds("TOKVIS_JOB_STALE_SECONDS", 30.0),
            allowed_hosts=allowed_hosts_from_env(),
        )
