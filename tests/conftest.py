"""Shared fixtures: an app on a temporary database, a live uvicorn server, and a real browser.

Browser tests drive Debian's chromium (/usr/bin/chromium, or $TOKVIS_CHROMIUM) through
Playwright; `playwright install` cannot download here, so the executable is set explicitly.
Screenshots go to $TOKVIS_SCREENSHOTS if set (look at them), else to a pytest temp directory.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

# the PostgreSQL fixtures (`pg_server`, `pg_url`) for every test that asks for them by name
pytest_plugins = ["tests.postgres"]

# FastAPI's TestClient sends `Host: testserver`, and the server answers only the hosts it is
# configured for (app/security.py, `HostCheck`: 127.0.0.1, localhost, [::1] and what
# TOKVIS_ALLOWED_HOSTS adds). Set here, at import, before any test imports the app: `Settings`
# reads it even when a test builds `Settings(...)` itself, and the uvicorn servers the tests
# start inherit it.
os.environ.setdefault("TOKVIS_ALLOWED_HOSTS", "testserver")
# the servers the browser tests start read the environment: no start-up warm-up there (many start
# at once on 2 cores; tests/app/test_warmup.py starts one with it)
os.environ.setdefault("TOKVIS_WARM_UP", "0")

# No example database in the working tree, and no per-example deadline: CI machines are shared
# and a slow example is not a wrong one. Under CI the examples are derandomised, so a run is
# reproducible; locally each run explores new ones.
hypothesis_settings.register_profile(
    "tokvis",
    database=None,
    deadline=None,
    derandomize=os.environ.get("CI") == "true",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
hypothesis_settings.load_profile("tokvis")

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("TOKVIS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


INSTALL_HINT = (
    "install it with `apt-get install -y chromium` (Debian/Ubuntu), "
    "or set TOKVIS_CHROMIUM to a Chromium executable"
)


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None if they can."""
    if not Path(CHROMIUM).exists():
        return f"chromium not found at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


# the docstring examples over two seconds, `heavy` as the tests are (a doctest has no decorator):
# a real vocabulary audited, a child process started under its limits
HEAVY_DOCTESTS = {
    "tokenizers_core.audit",
    "tokenizers_core.runtime_parity",  # Qwen3 read three ways, its GGUF built
    "app.sandbox.supervisor.limit_resources",
    "app.sandbox.supervisor.set_soft_limit",
}


@pytest.hookimpl(tryfirst=True)  # before `-m` picks a tier by these marks
def pytest_collection_modifyitems(config, items):
    """Browser tests are marked `browser`. Without Chromium they are left out with one line
    at the end of the run (see pytest_terminal_summary); under CI=true a missing browser
    stops the run instead, so CI never passes without its browser tests.

    The slow tier (`slow`: the browser tests, the wheel, end-to-end job-pool runs, and the
    `heavy` cases, each over a second) is what `make test` leaves out and `make test-slow`
    runs; CI runs both."""
    browser_items = [
        item for item in items if "tests/browser" in str(item.fspath).replace(os.sep, "/")
    ]
    for item in browser_items:
        item.add_marker(pytest.mark.browser)
    for item in items:
        if item.name in HEAVY_DOCTESTS:
            item.add_marker(pytest.mark.heavy)
        if any(item.get_closest_marker(mark) for mark in ("browser", "package", "heavy")):
            item.add_marker(pytest.mark.slow)
    missing = browser_items and browser_missing()
    if not missing:
        return
    if os.environ.get("CI") == "true":
        raise pytest.UsageError(f"{missing}: the browser tests cannot run under CI; {INSTALL_HINT}")
    config.hook.pytest_deselected(items=browser_items)
    items[:] = [item for item in items if item not in set(browser_items)]
    config.stash[_SKIPPED] = (len(browser_items), missing)


_SKIPPED = pytest.StashKey[tuple]()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = config.stash.get(_SKIPPED, None)
    if skipped:
        count, why = skipped
        terminalreporter.write_line(
            f"{count} browser tests skipped: {why}; {INSTALL_HINT}", yellow=True
        )


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("tokvis-data")


def make_settings(db_path: Path):
    """The tests' settings over the store at `db_path`: the bundled defaults with smaller limits."""
    from app.config import Settings

    return Settings(
        db_path=db_path,
        max_text_chars=20_000,
        max_corpus_bytes=2_000_000,
        max_upload_bytes=2_000_000,
        regex_timeout=0.5,
    )


@pytest.fixture(scope="session")
def settings(data_dir):
    return make_settings(data_dir / "store.sqlite3")


@pytest.fixture(scope="session")
def app(settings):
    from app.main import create_app

    return create_app(settings)


@pytest.fixture(scope="session")
def client(app):
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="module")
def isolated_client(tmp_path_factory):
    """A TestClient over its own store, for a module whose pages list every stored tokenizer
    (uploads made by other tests would change what they show)."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    db = tmp_path_factory.mktemp("isolated") / "store.sqlite3"
    with TestClient(create_app(make_settings(db))) as c:
        yield c


@pytest.fixture
def store_client(tmp_path):
    """A TestClient over a store made for this one test, for a test that writes (stores a
    corpus or a tokenizer): what it stores is gone after it, so no other test sees it, in
    any order. (A fresh app costs about 0.1 s; the read-only tests share `client`.)"""
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(make_settings(tmp_path / "store.sqlite3"))) as c:
        yield c


@pytest.fixture(scope="session")
def server_url(data_dir):
    """A real uvicorn serving the app on 127.0.0.1 and a free port, through the protocol that
    closes a connection whose request head is late (as `make run` and `tokvis serve` do)."""
    from tests.servers import HTTP_PROTOCOL, run_uvicorn

    env = {"TOKVIS_DB": str(data_dir / "server.sqlite3")}
    with run_uvicorn("--http", HTTP_PROTOCOL, env=env, timeout=30) as server:
        yield server.url


@pytest.fixture(scope="session")
def browser():
    missing = browser_missing()
    if missing:
        pytest.fail(f"{missing}: {INSTALL_HINT}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs  # an XSS test checks that no alert() ever ran
    yield pg
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    target = os.environ.get("TOKVIS_SCREENSHOTS")
    if target:
        path = Path(target)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="session")
def shared_data():
    """The shared data folder (tests/shared_data.py): skipped with the reason when it is absent,
    and a failure under CI=true, where the clone always has ../shared beside it (unless
    TOKVIS_HIDE_SHARED=1 hides it on purpose: then it skips)."""
    from tests import shared_data as where

    missing = where.missing_reason()
    if missing and os.environ.get("CI") == "true" and not where.HIDDEN:
        pytest.fail(f"{missing} (CI clones the repository with ../shared beside it)")
    if missing:
        pytest.skip(missing)
    return where
