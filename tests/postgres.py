"""A real PostgreSQL server for the tests: Debian's `postgresql` package, started in a temporary
directory, no mocks and no SQLite stand-in, so what passes here passes against PostgreSQL.

`pg_server` starts one server for the session (under pytest-xdist, one a worker: each in its own
directory under the temporary directory, on its own free port on 127.0.0.1) and removes it at
the end; `pg_url` gives each test a fresh, empty database on it, as a SQLAlchemy URL. Without
PostgreSQL the tests that ask for it are skipped with one line, except under CI=true, where
they fail (`.ci/run` installs the package). As root, the server runs as the `postgres` system
user: PostgreSQL refuses to run as root.

A pytest plugin (tests/conftest.py names it in `pytest_plugins`), so a test asks for the
fixtures by name, with no import:

    def test_round_trip(pg_url):
        engine = sqlalchemy.create_engine(pg_url)
        ...
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

USER = "tokvis"  # the database superuser initdb creates (trust auth)
SYSTEM_USER = "postgres"  # who runs the server when the tests run as root
START_TIMEOUT = 30.0  # seconds for the server to accept connections
INSTALL_HINT = "install it with `apt-get install -y postgresql` (Debian/Ubuntu)"


def _version(bin_dir: str) -> tuple[int, ...]:
    """(15,) for /usr/lib/postgresql/15/bin, (9, 6) for .../9.6/bin."""
    name = Path(bin_dir).parent.name
    return tuple(int(part) for part in re.findall(r"\d+", name)) or (0,)


def find_bin_dir() -> str | None:
    """The directory holding `initdb` and `pg_ctl`: Debian's newest /usr/lib/postgresql/*/bin,
    else the PATH's, else None."""
    for bin_dir in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True):
        if all(os.access(os.path.join(bin_dir, tool), os.X_OK) for tool in ("initdb", "pg_ctl")):
            return bin_dir
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl and os.path.dirname(initdb) == os.path.dirname(pg_ctl):
        return os.path.dirname(initdb)
    return None


def postgres_missing() -> str | None:
    """Why a PostgreSQL server cannot run here (one line), or None if it can."""
    if find_bin_dir() is None:
        return (
            "PostgreSQL not found (no initdb and pg_ctl in /usr/lib/postgresql/*/bin or on "
            f"PATH): {INSTALL_HINT}"
        )
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SYSTEM_USER)
        except KeyError:
            return (
                f"running as root and there is no `{SYSTEM_USER}` system user to run "
                f"PostgreSQL as (it refuses to run as root): {INSTALL_HINT}"
            )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg (3) is not installed (pip install -e '.[test]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One PostgreSQL server in its own temporary directory, on 127.0.0.1 and a free port.

    `start()` runs initdb and pg_ctl and waits until the server accepts connections; `stop()`
    stops it (immediate shutdown: the data is thrown away) and deletes the directory."""

    def __init__(self) -> None:
        self.bin_dir = find_bin_dir()
        self.dir: Path | None = None
        self.port: int | None = None
        self._as: dict = {}  # subprocess user/group when root: the `postgres` user

    @property
    def data(self) -> Path:
        return self.dir / "data"

    @property
    def log(self) -> Path:
        return self.dir / "log"

    def url(self, dbname: str = "postgres") -> str:
        """The SQLAlchemy URL of database `dbname` (psycopg 3 driver)."""
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{dbname}"

    def conninfo(self, dbname: str = "postgres") -> str:
        """The libpq connection string of database `dbname`, for psycopg itself."""
        return f"host=127.0.0.1 port={self.port} user={USER} dbname={dbname} connect_timeout=5"

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        return subprocess.run(
            [os.path.join(self.bin_dir, args[0]), *args[1:]],
            cwd=self.dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            **self._as,
        )

    def _log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"

    def start(self) -> PostgresServer:
        why = postgres_missing()
        if why:
            raise RuntimeError(why)
        self.dir = Path(tempfile.mkdtemp(prefix="tokvis-pg-", dir=tempfile.gettempdir()))
        try:
            if os.geteuid() == 0:
                user = pwd.getpwnam(SYSTEM_USER)
                os.chown(self.dir, user.pw_uid, user.pw_gid)
                self._as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
            self._initdb()
            self._pg_ctl_start()
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _initdb(self) -> None:
        base = [
            "initdb",
            "-D",
            str(self.data),
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ]  # a throwaway cluster: no fsync of its files
        done = self._run(*base, "--locale=C.UTF-8")
        if done.returncode != 0:  # no C.UTF-8 locale here: the C locale, still UTF-8
            shutil.rmtree(self.data, ignore_errors=True)
            done = self._run(*base, "--no-locale")
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    def _pg_ctl_start(self) -> None:
        for attempt in range(3):  # another process may take the free port first
            self.port = _free_port()
            options = (
                f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c max_connections=200"
            )
            done = self._run(
                "pg_ctl",
                "-D",
                str(self.data),
                "-o",
                options,
                "-l",
                str(self.log),
                "-t",
                str(int(START_TIMEOUT)),
                "-w",
                "start",
            )
            if done.returncode == 0:
                return
            if "could not bind" not in self._log_tail() or attempt == 2:
                raise RuntimeError(
                    f"pg_ctl start failed ({done.returncode}): "
                    f"{done.stdout}{done.stderr}\nserver log:\n{self._log_tail()}"
                )

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with psycopg.connect(self.conninfo(), autocommit=True) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError as error:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"PostgreSQL did not accept connections in "
                        f"{START_TIMEOUT:.0f} s: {error}\nserver log:\n"
                        f"{self._log_tail()}"
                    ) from None
                time.sleep(0.1)

    def create_database(self, name: str) -> str:
        """Create the empty database `name`; its SQLAlchemy URL."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop database `name`, closing the connections still open on it."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.conninfo(), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    def stop(self) -> None:
        if self.dir is None:
            return
        if (self.data / "postmaster.pid").exists():
            done = self._run(
                "pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=60
            )
            if done.returncode != 0:  # pg_ctl could not stop it: kill the postmaster
                try:
                    pid = int((self.data / "postmaster.pid").read_text().split()[0])
                    os.kill(pid, 9)
                except (OSError, ValueError, IndexError):
                    pass
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None


@pytest.fixture(scope="session")
def pg_server():
    """A running PostgreSQL server for the session (one a pytest-xdist worker). Skipped with
    the reason when PostgreSQL cannot run here; under CI=true, failed instead."""
    missing = postgres_missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing} (CI=true: the PostgreSQL tests must run)", pytrace=False)
        pytest.skip(missing)
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server):
    """The SQLAlchemy URL of a new, empty database `t_<hex>` on the session's server, dropped
    after the test."""
    name = f"t_{uuid.uuid4().hex}"
    url = pg_server.create_database(name)
    yield url
    try:
        pg_server.drop_database(name)
    except Exception:  # the server goes at the end of the session anyway
        pass
