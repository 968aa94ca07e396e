"""One version string: pyproject.toml's `[project] version`, read at run time from the installed
package's metadata by `tokenizers_core.__version__`, the app's OpenAPI schema and
`tokvis --version`."""

from __future__ import annotations

import tomllib
from pathlib import Path

from app.cli import main
from app.main import app
from tokenizers_core import __version__

ROOT = Path(__file__).resolve().parents[2]
WRITTEN = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_the_package_reports_pyprojects_version():
    """Fails when the installed metadata is older than pyproject.toml: reinstall (`make test`
    does, whenever pyproject.toml changed)."""
    assert __version__ == WRITTEN


def test_tokvis_version_and_the_openapi_schema_say_the_same(capsys):
    try:
        main(["--version"])
    except SystemExit as exit:
        assert exit.code == 0
    assert capsys.readouterr().out.strip() == f"tokvis {WRITTEN}"
    assert app.version == WRITTEN
