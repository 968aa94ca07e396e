"""`pip install .` gives a package that serves: the wheel holds the code, the bundled data, the
templates and the static files, and `tokvis serve` run from another directory serves every page
with its CSS and JS.

The wheel test builds the wheel from a copy of the checkout (nothing is written into the working
tree), installs it *with its dependencies* into a fresh venv (from pip's cache or PyPI), and
starts the installed `tokvis serve` from a temporary directory. It takes ~30 s; skip it offline
with `-m "not package"`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.servers import run_uvicorn

ROOT = Path(__file__).resolve().parents[2]
# a page whose defaults take a cold server long (/tax: ~14 s of tokenising) gets a cheaper query
CHEAP_QUERY = {"/tax": "?tok=char"}


def _listed_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(config["tool"]["setuptools"]["packages"])


def test_every_python_package_is_in_the_package_list():
    """pyproject lists its packages (the templates and static dirs need a mapping, which rules
    out automatic discovery): a new subpackage must be added there, or the wheel lacks it."""
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("tokenizers_core", "app")
        for p in (ROOT / top).rglob("__init__.py")
    }
    assert found - _listed_packages() == set()


def test_the_package_data_globs_cover_every_template_and_static_file():
    """Every file under templates/ and static/ matches one of pyproject's package-data globs
    (setuptools reads `**` as any depth), so the wheel carries it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    for package, folder in config["setuptools"]["package-dir"].items():
        root = ROOT / folder
        globs = config["setuptools"]["package-data"][package]
        covered = {p for pattern in globs for p in root.glob(pattern) if p.is_file()}
        assert {p for p in root.rglob("*") if p.is_file()} - covered == set(), package


def _page_paths(app) -> list[str]:
    """Every GET page of the app (no path parameters, not the JSON API)."""
    stack, paths = list(app.router.routes), set()
    while stack:
        route = stack.pop()
        stack.extend(getattr(getattr(route, "original_router", None), "routes", []))
        path, methods = getattr(route, "path", ""), getattr(route, "methods", None) or set()
        if (
            "GET" in methods
            and "{" not in path
            and not path.startswith(("/api", "/docs", "/redoc", "/openapi"))
        ):
            paths.add(path)
    return sorted(paths)


def _get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.headers.get("content-type", ""), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), exc.read()


def _copy_source(dest: Path) -> Path:
    skip = shutil.ignore_patterns(
        ".venv",
        ".git",
        "build",
        "dist",
        "*.egg-info",
        "__pycache__",
        ".pytest_cache",
        ".hypothesis",
        "tests",
        "benchmarks",
        "artifacts",
        "*.sqlite3",
    )
    return Path(shutil.copytree(ROOT, dest / "src", ignore=skip))


@pytest.mark.package
def test_the_wheel_installs_and_serves_every_page_with_its_css_and_js(tmp_path, app):
    src = _copy_source(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TOKVIS_DB")}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(src)],
        check=True,
        env=env,
        cwd=tmp_path,
        capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "app/templates/base.html",
        "app/templates/steps/bpe_merge.html",
        "app/static/htmx.min.js",
        "app/static/app.css",
        "app/cli/__main__.py",
        "tokenizers_core/data/corpora/udhr/eng.txt",
        "tokenizers_core/data/vocab/mistral_tekken_240718.json.gz",
    } <= names
    assert wheel.stat().st_size < 40 * 2**20, f"the wheel is {wheel.stat().st_size:,} bytes"

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", str(wheel)],
        check=True,
        env=env,
        cwd=tmp_path,
        capture_output=True,
    )  # with its dependencies
    where = subprocess.run(
        [str(python), "-c", "import app; print(app.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    ).stdout
    assert where.startswith(str(venv)), where  # the installed copy, not the checkout
    drivers = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('psycopg'))"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    ).stdout
    assert drivers.strip() == "None", drivers  # PostgreSQL's driver is the `shared` extra

    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    command = [str(venv / "bin" / "tokvis"), "serve", "--db", "store.sqlite3"]
    serving = run_uvicorn(
        command=command,
        cwd=run_dir,
        env=env,
        unset=["PYTHONPATH", "TOKVIS_DB"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    with serving as server:
        base = server.url
        assets: set[str] = set()
        statuses = {}
        for path in _page_paths(app):  # (a fragment route without its inputs is a 422 page)
            status, kind, body = _get(base + path + CHEAP_QUERY.get(path, ""))
            assert status < 500 and kind.startswith("text/html"), (path, status, body[:300])
            statuses[path] = status
            assets.update(re.findall(r'(?:href|src)="(/static/[^"?#]+)', body.decode()))
        assert {"/static/htmx.min.js", "/static/app.css"} <= assets
        pages = (
            "/",
            "/compare",
            "/bpe/train",
            "/bpe/encode",
            "/wordpiece/train",
            "/wordpiece/encode",
            "/unigram/lattice",
        )
        assert all(statuses[p] == 200 for p in pages), statuses
        for asset in sorted(assets):
            status, kind, body = _get(base + asset)
            assert status == 200 and body, asset
        assert _get(base + "/static/app.css")[1].startswith("text/css")
        assert (run_dir / "store.sqlite3").exists()
