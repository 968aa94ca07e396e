"""The PostgreSQL fixtures of tests/postgres.py: a real server, and a fresh, empty database for
each test, reached through SQLAlchemy and psycopg 3."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

pytestmark = pytest.mark.slow  # starts a real PostgreSQL server


def test_round_trip(pg_url):
    engine = sa.create_engine(pg_url)
    try:
        with engine.begin() as conn:
            assert conn.execute(sa.text("SELECT 1")).scalar_one() == 1
            conn.execute(sa.text("CREATE TABLE words (id serial PRIMARY KEY, word text NOT NULL)"))
            conn.execute(
                sa.text("INSERT INTO words (word) VALUES (:w)"), [{"w": "héllo"}, {"w": "wörld"}]
            )
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT id, word FROM words ORDER BY id")).all()
        assert [tuple(row) for row in rows] == [(1, "héllo"), (2, "wörld")]
    finally:
        engine.dispose()


def test_databases_are_fresh_and_distinct(pg_server, pg_url):
    other = f"t_{uuid.uuid4().hex}"  # a second database, made as pg_url makes its own
    other_url = pg_server.create_database(other)
    try:
        assert other_url != pg_url
        first = sa.create_engine(pg_url)
        with first.begin() as conn:
            assert tables(conn) == []
            conn.execute(sa.text("CREATE TABLE only_here (x int)"))
        first.dispose()
        second = sa.create_engine(other_url)
        with second.connect() as conn:
            assert tables(conn) == []  # the first database's table is not here
        second.dispose()
    finally:
        pg_server.drop_database(other)


def tables(conn) -> list[str]:
    return list(
        conn.execute(
            sa.text(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        ).scalars()
    )
