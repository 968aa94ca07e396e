"""PostgreSQL's drivers are the `shared` extra: the default install serves on SQLite without
them, and a PostgreSQL store without them is refused at start with what to install."""

from __future__ import annotations

import sys

import pytest

from app.db import engine
from app.setup_errors import SetupError


@pytest.fixture
def without_the_extra(monkeypatch):
    for name in engine.SHARED_EXTRA:  # None in sys.modules: the import system's "not there"
        monkeypatch.setitem(sys.modules, name, None)


def test_a_postgres_store_without_the_extra_says_what_to_install(without_the_extra):
    url = "postgresql+psycopg://tokvis:secret@db.example/tokvis"
    with pytest.raises(SetupError) as raised:
        engine.get_engine(url)
    message = str(raised.value)
    assert "pip install 'tokenizer-visualiser[shared]'" in message
    assert "psycopg, procrastinate" in message and "secret" not in message


def test_an_sqlite_store_needs_no_extra(without_the_extra, tmp_path):
    url = engine.database_url(tmp_path / "store.sqlite3")
    with engine.get_engine(url).connect() as conn:
        assert conn.exec_driver_sql("select 1").scalar() == 1


def test_the_default_install_lists_no_database_driver():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.startswith(("psycopg", "procrastinate"))]
    assert {d.split(">")[0].split("[")[0] for d in project["optional-dependencies"]["shared"]} == {
        "psycopg",
        "procrastinate",
    }


@pytest.mark.parametrize("command", [["db", "upgrade"], ["worker"], ["serve", "--port", "1"]])
def test_each_command_of_the_shared_mode_stops_saying_what_to_install(
    without_the_extra, monkeypatch, capsys, command
):
    from app.cli import main

    monkeypatch.setenv("TOKVIS_DATABASE_URL", "postgresql+psycopg://tokvis:pw@127.0.0.1:1/tokvis")
    monkeypatch.setenv("TOKVIS_SECRET_KEY", "k" * 40)
    assert main(command) == 1
    assert "pip install 'tokenizer-visualiser[shared]'" in capsys.readouterr().err
