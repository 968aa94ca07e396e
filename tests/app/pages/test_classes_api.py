"""A class's checkpoints through the JSON API: a teacher makes a class over a training run,
students predict its steps (checkpoint k is step k: BPE's and WordPiece's merge k, Unigram's
round k), each answer is graded with the step's own numbers and stored; the teacher alone reads
the results (CSV too) and deletes the class. Bad input is a 4xx with a message."""

from __future__ import annotations

import csv
import hashlib
import io

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import connect
from app.db.schema import class_answers, classes
from app.main import create_app
from app.rate import SlidingWindow
from tests.app.pages.classroom import (
    VOCAB,
    answer,
    corpus,
    make_class,
    merges,
    right_answer,
    splits,
    wrong_answer,
)
from tests.conftest import make_settings
from tests.polling import wait_until

ALGORITHMS = ("bpe", "wordpiece", "unigram")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("classes") / "store.sqlite3"
    with TestClient(create_app(make_settings(db)), base_url="http://127.0.0.1") as c:
        yield c


def test_making_a_class_gives_its_links_and_a_key_kept_only_as_a_hash(client):
    made = make_class(client)
    code, key = made["code"], made["teacher_key"]
    assert made["student_url"] == f"/class/{code}"
    assert made["teacher_url"] == f"/class/{code}/results?key={key}"
    assert len(code) == 8 and len(key) >= 32
    with connect(client.app.state.store.url) as conn:
        stored = conn.execute(select(classes.c.teacher_key).where(classes.c.code == code)).scalar()
    assert stored != key and stored == hashlib.sha256(key.encode()).hexdigest()
    about = client.get(f"/api/classes/{code}").json()
    assert about["algorithm"] == "bpe" and about["checkpoints"] == [1, 2, 3] and about["ready"]
    assert "teacher_key" not in about


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_right_and_a_wrong_answer_for_each_algorithm(client, algorithm):
    """The reference is the core's own training (`tc.train`, the Unigram trainer's rounds),
    so the class's step k is the library's step k."""
    code = make_class(client, algorithm, checkpoints=(1, 2))["code"]
    right = answer(client, code, "ana", 2, right_answer(algorithm, 2))
    assert right["correct"] is True and right["explanation"].startswith("Right")
    wrong = answer(client, code, "bo", 2, wrong_answer(algorithm, 2))
    assert wrong["correct"] is False and not wrong["explanation"].startswith("Right")
    if algorithm == "unigram":
        assert " ".join(splits()[2]) in wrong["explanation"]
    else:
        a, b = merges(algorithm)[1]
        assert f"{a}" in wrong["explanation"] and f"{b}" in wrong["explanation"]
    assert right["step"] == wrong["step"] and right["view_url"].endswith("step=2")


def test_bpe_explains_with_counts_and_the_first_merge_is_checkpoint_1(client):
    code = make_class(client, "bpe", checkpoints=(1,))["code"]
    assert merges("bpe")[0] == ("e", "</w>")  # Botchan's first merge: e at a word's end
    got = answer(client, code, "ana", 1, ["e", "</w>"])
    assert got["correct"] and "occurs" in got["explanation"] and "times" in got["explanation"]
    assert got["step"].startswith("Merged e + </w> → e</w>")
    wrong = answer(client, code, "ana", 1, "t h")  # a string is split at whitespace
    assert not wrong["correct"] and "Not this one: t + h occurs" in wrong["explanation"]


def test_unigram_accepts_the_first_piece_without_its_leading_space_mark(client):
    code = make_class(client, "unigram", checkpoints=(1,))["code"]
    best = splits()[1]
    bare = [best[0].removeprefix("▁"), *best[1:]]
    assert answer(client, code, "ana", 1, bare)["correct"]
    assert not answer(client, code, "ana", 1, ["▁", "xyz"])["correct"]


def test_the_results_show_each_students_first_answer_and_how_many_they_gave(client):
    made = make_class(client, "bpe", checkpoints=(1, 2))
    code, key = made["code"], made["teacher_key"]
    answer(client, code, "ana", 1, right_answer("bpe", 1))
    answer(client, code, "ana", 2, wrong_answer("bpe", 2))
    answer(client, code, "ana", 2, right_answer("bpe", 2))  # after seeing it: not counted
    answer(client, code, "bo", 1, wrong_answer("bpe", 1))
    table = client.get(f"/api/classes/{code}/results", params={"key": key}).json()
    rows = {r["student"]: r for r in table["students"]}
    assert set(rows) == {"ana", "bo"} and table["checkpoints"] == [1, 2]
    assert rows["ana"]["right"] == 1 and rows["ana"]["cells"]["2"]["tries"] == 2
    assert rows["ana"]["cells"]["2"]["correct"] is False
    assert rows["bo"]["right"] == 0 and "2" not in rows["bo"]["cells"]
    sheet = client.get(f"/class/{code}/results.csv", params={"key": key})
    assert sheet.status_code == 200 and sheet.headers["content-type"].startswith("text/csv")
    lines = list(csv.DictReader(io.StringIO(sheet.text)))
    by = {r["student"]: r for r in lines}
    assert by["ana"]["checkpoint 1"] == "right" and by["ana"]["checkpoint 2"] == "wrong"
    assert by["ana"]["checkpoint 2 tries"] == "2" and by["ana"]["right"] == "1"
    assert by["bo"]["checkpoint 1"] == "wrong" and by["bo"]["checkpoint 2"] == ""
    assert by["ana"]["checkpoint 1 at"].endswith("+00:00")


@pytest.mark.parametrize("key", [None, "", "not-the-key"])
def test_the_results_need_the_teacher_key(client, key):
    made = make_class(client)
    code = made["code"]
    params = {} if key is None else {"key": key}
    for path in (f"/api/classes/{code}/results", f"/class/{code}/results.csv"):
        r = client.get(path, params=params)
        assert r.status_code == 403, path
    assert client.get(f"/class/{code}/results", params=params).status_code == 403
    assert client.delete(f"/api/classes/{code}", params=params).status_code == 403
    assert client.get(f"/api/classes/{code}").status_code == 200  # still there


def test_the_teacher_deletes_the_class_and_every_answer(client):
    made = make_class(client)
    code, key = made["code"], made["teacher_key"]
    answer(client, code, "ana", 1, right_answer("bpe", 1))
    answer(client, code, "bo", 1, wrong_answer("bpe", 1))
    gone = client.delete(f"/api/classes/{code}", params={"key": key})
    assert gone.status_code == 200 and gone.json() == {"deleted": code, "answers": 2}
    assert client.get(f"/api/classes/{code}").status_code == 404
    assert client.get(f"/class/{code}").status_code == 404
    with connect(client.app.state.store.url) as conn:
        left = conn.execute(
            select(class_answers.c.id).where(class_answers.c.class_code == code)
        ).all()
    assert left == []


# ---- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "change, status, said",
    [
        ({"algorithm": "sentencepiece"}, 422, "algorithm"),
        ({"vocab_size": 0}, 422, "vocab_size"),
        ({"vocab_size": 10**7}, 422, "vocab_size"),
        ({"vocab_size": "many"}, 422, "vocab_size"),
        ({"checkpoints": []}, 422, "checkpoints"),
        ({"checkpoints": [0]}, 422, "checkpoints"),
        ({"checkpoints": [150]}, 422, "past the training"),  # 200 - alphabet: fewer merges
        ({"checkpoints": [1, 999]}, 422, "past the training"),
        ({"title": "  "}, 422, "title"),
        ({"title": "x" * 201}, 422, "title"),
        ({"corpus_text": None, "corpus": "no-such-corpus"}, 404, "unknown corpus"),
        ({"corpus_text": None, "corpus": "0" * 64}, 404, "no stored corpus"),
    ],
)
def test_a_bad_class_is_refused_with_a_message(client, change, status, said):
    body = {
        "title": "t",
        "algorithm": "bpe",
        "corpus_text": corpus(),
        "vocab_size": VOCAB["bpe"],
        "checkpoints": [1],
    }
    body.update(change)
    r = client.post("/api/classes", json={k: v for k, v in body.items() if v is not None})
    assert r.status_code == status, r.text
    assert said in r.json()["detail"]


def test_a_bundled_corpus_is_named(client):
    r = client.post(
        "/api/classes",
        json={
            "title": "t",
            "algorithm": "bpe",
            "corpus": "udhr/eng",
            "vocab_size": 120,
            "checkpoints": [1],
        },
    )
    assert r.status_code == 201, r.text
    assert client.get(f"/api/classes/{r.json()['code']}").json()["corpus"] == "udhr/eng"


@pytest.mark.parametrize(
    "body, status, said",
    [
        ({"student": "", "checkpoint": 1, "answer": ["a", "b"]}, 422, "student"),
        ({"student": "   ", "checkpoint": 1, "answer": ["a", "b"]}, 422, "student"),
        ({"student": "x" * 81, "checkpoint": 1, "answer": ["a", "b"]}, 422, "80"),
        ({"student": "ana", "checkpoint": 4, "answer": ["a", "b"]}, 404, "not one of"),
        ({"student": "ana", "checkpoint": 1, "answer": ["a"]}, 422, "two tokens"),
        ({"student": "ana", "checkpoint": 1, "answer": ["a", "b", "c"]}, 422, "two tokens"),
        ({"student": "ana", "checkpoint": 1, "answer": ["a", ""]}, 422, "answer"),
        ({"student": "ana", "checkpoint": "one", "answer": ["a", "b"]}, 422, "checkpoint"),
        ({"student": "ana", "checkpoint": 1}, 422, "answer"),
    ],
)
def test_a_bad_answer_is_refused_with_a_message(client, body, status, said):
    code = make_class(client)["code"]
    r = client.post(f"/api/classes/{code}/answers", json=body)
    assert r.status_code == status, r.text
    assert said in r.json()["detail"]


def test_a_name_of_80_characters_is_fine_and_an_unknown_class_is_404(client):
    code = make_class(client)["code"]
    assert answer(client, code, "é" * 80, 1, right_answer("bpe", 1))["correct"]
    r = client.post(
        "/api/classes/nosuchcl/answers", json={"student": "a", "checkpoint": 1, "answer": "a b"}
    )
    assert r.status_code == 404 and "no class" in r.json()["detail"]
    assert client.get("/api/classes/nosuchcl").status_code == 404


def test_too_many_answers_from_one_client_get_429(client):
    code = make_class(client)["code"]
    state = client.app.state.app_state
    kept = state.class_answers
    state.class_answers = SlidingWindow(5, 60.0)
    try:
        statuses = [
            client.post(
                f"/api/classes/{code}/answers",
                json={"student": "ana", "checkpoint": 1, "answer": ["e", "</w>"]},
            )
            for _ in range(7)
        ]
    finally:
        state.class_answers = kept
    assert [r.status_code for r in statuses] == [200] * 5 + [429] * 2
    assert statuses[-1].headers["Retry-After"] and "a minute" in statuses[-1].json()["detail"]


def test_the_sliding_window_gives_room_back_as_it_moves():
    now = [0.0]
    window = SlidingWindow(3, 60.0, clock=lambda: now[0])
    assert [window.allow("a") for _ in range(4)] == [True, True, True, False]
    assert window.allow("b")  # another client has its own
    now[0] = 59.0
    assert not window.allow("a") and window.retry_after("a") == 2
    now[0] = 60.5
    assert window.allow("a")


@pytest.mark.heavy
def test_a_thousand_answers_in_a_minute_from_one_client_get_429(tmp_path):
    """The real limit: a client sending 1,000 answers at once is refused past it."""
    with TestClient(
        create_app(make_settings(tmp_path / "s.sqlite3")), base_url="http://127.0.0.1"
    ) as c:
        code = make_class(c)["code"]
        statuses = [
            c.post(
                f"/api/classes/{code}/answers",
                json={"student": "ana", "checkpoint": 1, "answer": ["e", "</w>"]},
            ).status_code
            for _ in range(1000)
        ]
    assert statuses.count(429) > 0 and set(statuses) == {200, 429}
    assert statuses.index(429) == statuses.count(200)  # refused from then on


@pytest.mark.heavy
def test_a_large_corpus_trains_in_the_job_pool_and_the_class_waits_for_it(tmp_path, monkeypatch):
    """Botchan (270 kB) trains in a job: the class is made at once (the request not waiting
    for it here, and a vocab_size no other test trains), answers get 409 while it trains, its
    page shows progress (202); then a checkpoint past the training is refused."""
    from app.services import classes as service

    monkeypatch.setattr(service, "WAIT_SECONDS", 0.0)
    with TestClient(
        create_app(make_settings(tmp_path / "s.sqlite3")), base_url="http://127.0.0.1"
    ) as c:
        r = c.post(
            "/api/classes",
            json={
                "title": "big",
                "algorithm": "bpe",
                "corpus": "botchan",
                "vocab_size": 517,
                "checkpoints": [1, 516],
            },
        )
        assert r.status_code == 201, r.text
        code = r.json()["code"]
        early = c.post(
            f"/api/classes/{code}/answers",
            json={"student": "a", "checkpoint": 1, "answer": ["e", "</w>"]},
        )
        assert early.status_code in (200, 409)  # 409 while training, with Retry-After
        if early.status_code == 409:
            assert early.headers["Retry-After"] and "still running" in early.json()["detail"]
        page = wait_until(
            lambda: (
                (p := c.get(f"/class/{code}", params={"student": "a"})).status_code != 202 and p
            ),
            timeout=300,
        )
        assert page.status_code == 200 and "past the training" in page.text
        past = c.post(
            f"/api/classes/{code}/answers",
            json={"student": "a", "checkpoint": 516, "answer": ["e", "</w>"]},
        )
        assert past.status_code == 422 and "past the training" in past.json()["detail"]
        assert answer(c, code, "a", 1, ["e", "</w>"])["correct"]


def test_a_code_already_taken_is_drawn_again(client, monkeypatch):
    from app.services import classes as service

    taken = make_class(client)["code"]
    codes = iter([taken, "fresh234"])
    monkeypatch.setattr(service, "_new_code", lambda: next(codes))
    assert make_class(client)["code"] == "fresh234"
