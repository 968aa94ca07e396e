"""A class on a shared deployment: two apps on one real PostgreSQL (tests/postgres.py) are two
servers; a class made on one, answered on both, shows every answer on either, and deleted on
one is gone on the other. (The store's schema is created by the migrations, 0003 included.)"""

from __future__ import annotations

import dataclasses
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient

from app.db import migrate
from app.main import create_app
from tests.app.pages.classroom import answer, make_class, right_answer, wrong_answer
from tests.conftest import make_settings

pytestmark = pytest.mark.slow


def test_two_servers_on_one_postgresql_see_each_others_answers(pg_url, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKVIS_SECRET_KEY", "a secret the servers share, for the test")
    settings = dataclasses.replace(make_settings(tmp_path / "unused.sqlite3"), database_url=pg_url)
    with ExitStack() as stack:
        a, b = (
            stack.enter_context(TestClient(create_app(settings), base_url="http://127.0.0.1"))
            for _ in range(2)
        )
        assert migrate.current(pg_url) == migrate.head()
        made = make_class(a, "bpe", checkpoints=(1, 2))
        code, key = made["code"], made["teacher_key"]
        assert b.get(f"/class/{code}").status_code == 200
        answer(a, code, "ana", 1, right_answer("bpe", 1))
        answer(b, code, "bo", 1, wrong_answer("bpe", 1))
        answer(b, code, "ana", 2, right_answer("bpe", 2))
        for server in (a, b):
            table = server.get(f"/api/classes/{code}/results", params={"key": key}).json()
            rows = {r["student"]: r for r in table["students"]}
            assert rows["ana"]["right"] == 2 and rows["bo"]["right"] == 0
        assert b.get(f"/class/{code}/results.csv", params={"key": "wrong"}).status_code == 403
        assert b.delete(f"/api/classes/{code}", params={"key": key}).json()["answers"] == 3
        assert a.get(f"/api/classes/{code}").status_code == 404
