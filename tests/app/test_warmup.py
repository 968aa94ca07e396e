"""The start-up warm-up (app/warmup.py): the server makes the first visits' caches in a thread,
and a page asked for meanwhile still answers."""

from __future__ import annotations

import dataclasses

from fastapi.testclient import TestClient

from app.main import create_app
from app.services import vocab_diff
from tests.conftest import make_settings
from tests.polling import wait_until


def test_the_warm_up_makes_the_default_diff_and_pages_answer_meanwhile(tmp_path):
    settings = dataclasses.replace(make_settings(tmp_path / "w.sqlite3"), warm_up=True)
    app = create_app(settings)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get("/corpora").status_code == 200  # not held up by the thread
        warm = app.state.warm_up
        assert wait_until(warm.finished.is_set, timeout=300)
        assert warm.done[:2] == ["cl100k_base", "o200k_base"]
        assert "the default vocabulary diff" in warm.done
        assert (vocab_diff.DEFAULT_A, vocab_diff.DEFAULT_B) in vocab_diff._diffs
        assert client.get("/vocab/diff").status_code == 200


def test_off_unless_asked(tmp_path):
    app = create_app(make_settings(tmp_path / "w.sqlite3"))
    with TestClient(app, base_url="http://127.0.0.1"):
        assert not hasattr(app.state, "warm_up")
