"""The start-up warm-up (app/warmup.py): the server makes the first visits' caches in a thread,
and a page asked for meanwhile still answers."""

from __future__ import annotations

import dataclasses

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.services import analytics, vocab_diff
from tests.conftest import make_settings
from tests.polling import wait_until


@pytest.mark.heavy
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
        # /tax's first visit read the scripts of 33 texts and compiled its template (17 s on
        # a loaded fresh start, with /compare's): the warm-up has made both
        assert "the tax page's language facts" in warm.done
        assert analytics.language_facts.cache_info().currsize == 1
        assert "the compare and tax pages' templates" in warm.done


def test_off_unless_asked(tmp_path):
    app = create_app(make_settings(tmp_path / "w.sqlite3"))
    with TestClient(app, base_url="http://127.0.0.1"):
        assert not hasattr(app.state, "warm_up")


def test_two_threads_asking_for_one_bundled_tokenizer_load_it_once():
    """The warm-up and a first visit asking for o200k_base at once: one load, both get it."""
    import threading

    from tokenizers_core import pretrained

    pretrained._load_bundled_once.cache_clear()
    made, real = [], pretrained._load_bundled_once.__wrapped__

    def counting(name):
        made.append(name)
        return real(name)

    once = pretrained.functools.lru_cache(maxsize=None)(counting)
    saved, pretrained._load_bundled_once = pretrained._load_bundled_once, once
    try:
        got = []
        threads = [
            threading.Thread(target=lambda: got.append(pretrained.load("r50k_base")))
            for _ in range(3)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert made == ["r50k_base"] and len(got) == 3 and got[0] is got[1] is got[2]
    finally:
        pretrained._load_bundled_once = saved
