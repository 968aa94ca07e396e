"""A class's pages: the teacher's form at /class/new, the student's page at /class/<code> (a
name, then each checkpoint's question; the form posts without JavaScript, htmx gets the
fragment), the results page and its delete form. User text (a title, a name) is text."""

from __future__ import annotations

import csv
import io
import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.app.pages.classroom import (
    WORD,
    answer,
    make_class,
    merges,
    right_answer,
    splits,
    wrong_answer,
)
from tests.conftest import make_settings

XSS = '<script>alert(1)</script><img src=x onerror="alert(2)">'
HX = {"HX-Request": "true"}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("class-pages") / "store.sqlite3"
    with TestClient(create_app(make_settings(db)), base_url="http://127.0.0.1") as c:
        yield c


def test_the_form_makes_a_class_without_javascript(client):
    page = client.get("/class/new")
    assert page.status_code == 200 and 'data-testid="class-form"' in page.text
    assert 'href="/class/new"' in page.text  # in the menu
    made = client.post(
        "/class/new",
        data={
            "title": "BPE week 2",
            "algorithm": "bpe",
            "corpus": "udhr/eng",
            "vocab_size": "150",
            "checkpoints": "1, 2 5",
        },
    )
    assert made.status_code == 201, made.text
    student = re.search(r'data-testid="student-link">(/class/\w+)<', made.text).group(1)
    teacher = re.search(
        r'href="(/class/\w+/results\?key=[^"]+)" data-testid="teacher-link"', made.text
    )
    assert client.get(student).status_code == 200
    assert client.get(teacher.group(1).replace("&amp;", "&")).status_code == 200
    fragment = client.post("/class/new", data={"title": "x", "checkpoints": "1"}, headers=HX)
    assert fragment.status_code == 422 and "<html" not in fragment.text  # no corpus named
    assert "corpus" in fragment.text
    bad = client.post(
        "/class/new",
        data={"title": "x", "corpus": "udhr/eng", "vocab_size": "lots", "checkpoints": "1"},
    )
    assert bad.status_code == 422 and "vocab_size" in bad.text and 'value="x"' in bad.text


def test_the_student_gives_a_name_then_answers_each_checkpoint(client):
    code = make_class(client, "bpe", checkpoints=(1, 2))["code"]
    first = client.get(f"/class/{code}")
    assert first.status_code == 200 and 'data-testid="name-form"' in first.text
    q = client.get(f"/class/{code}", params={"student": "ana"})
    assert 'data-testid="question"' in q.text and "Checkpoint 1" in q.text
    a, b = merges("bpe")[0]
    assert f'<option value="{a}\t{b.replace("<", "&lt;").replace(">", "&gt;")}">' in q.text
    posted = client.post(
        f"/class/{code}", data={"student": "ana", "checkpoint": "1", "answer": f"{a}\t{b}"}
    )
    assert posted.status_code == 200 and "✓ Right" in posted.text
    assert 'data-testid="real-step"' in posted.text and "/bpe/train?" in posted.text
    assert 'data-testid="next"' in posted.text and "checkpoint=2" in posted.text
    wrong = client.post(
        f"/class/{code}",
        data={
            "student": "ana",
            "checkpoint": "2",
            "left": wrong_answer("bpe", 2)[0],
            "right": wrong_answer("bpe", 2)[1],
        },
        headers=HX,
    )
    assert wrong.status_code == 200 and "✗ Not quite" in wrong.text and "<html" not in wrong.text
    done = client.get(f"/class/{code}", params={"student": "ana"})
    assert 'data-testid="all-done"' in done.text and "1 of 2 right" in done.text
    again = client.get(f"/class/{code}", params={"student": "ana", "checkpoint": 1})
    assert "(your first answer)" in again.text and "✓ Right" in again.text


@pytest.mark.parametrize("algorithm", ["wordpiece", "unigram"])
def test_wordpiece_and_unigram_pages_ask_their_own_question(client, algorithm):
    code = make_class(client, algorithm, checkpoints=(1,))["code"]
    q = client.get(f"/class/{code}", params={"student": "ana"})
    assert q.status_code == 200
    if algorithm == "wordpiece":
        assert "best score" in q.text and "count(ab)" in q.text
    else:
        assert f"split “{WORD}”" in q.text and "".join(splits()[1]) in q.text
    given = (
        " ".join(right_answer(algorithm, 1))
        if algorithm == "unigram"
        else "\t".join(right_answer(algorithm, 1))
    )
    posted = client.post(
        f"/class/{code}", data={"student": "ana", "checkpoint": "1", "answer": given}
    )
    assert "✓ Right" in posted.text
    wrong = (
        " ".join(wrong_answer(algorithm, 1))
        if algorithm == "unigram"
        else "\t".join(wrong_answer(algorithm, 1))
    )
    posted = client.post(
        f"/class/{code}", data={"student": "bo", "checkpoint": "1", "answer": wrong}
    )
    assert "✗ Not quite" in posted.text


def test_the_page_shows_bad_input_in_place(client):
    code = make_class(client, "bpe", checkpoints=(1,))["code"]
    long = client.get(f"/class/{code}", params={"student": "x" * 81})
    assert long.status_code == 422 and "at most 80" in long.text
    empty = client.post(f"/class/{code}", data={"student": " ", "checkpoint": "1", "answer": "a b"})
    assert empty.status_code == 422 and "give your name" in empty.text
    other = client.get(f"/class/{code}", params={"student": "ana", "checkpoint": 7})
    assert other.status_code == 404 and "not one of this class" in other.text
    assert client.get("/class/nosuchcl").status_code == 404
    assert client.get("/class/nosuchcl/results", params={"key": "k"}).status_code == 404


def test_the_results_page_and_its_delete_form(client):
    made = make_class(client, "bpe", checkpoints=(1, 2))
    code, key = made["code"], made["teacher_key"]
    answer(client, code, "ana", 1, right_answer("bpe", 1))
    answer(client, code, "bo", 1, wrong_answer("bpe", 1))
    page = client.get(f"/class/{code}/results", params={"key": key})
    assert page.status_code == 200 and 'data-testid="results"' in page.text
    rows = re.findall(r'<th scope="row" class="class-student">([^<]+)</th>', page.text)
    assert rows == ["ana", "bo"]
    assert "✓ right" in page.text and "✗ wrong" in page.text
    assert f"/class/{code}/results.csv?key={key}" in page.text
    assert client.get(f"/class/{code}/results").status_code == 403
    refused = client.post(f"/class/{code}/delete", data={"key": "wrong"})
    assert refused.status_code == 403
    gone = client.post(f"/class/{code}/delete", data={"key": key}, headers=HX)
    assert gone.status_code == 200 and "2 answers are deleted" in gone.text
    assert client.get(f"/class/{code}").status_code == 404


def test_a_title_and_a_name_are_text(client):
    made = make_class(client, "bpe", checkpoints=(1,), title=XSS)
    code, key = made["code"], made["teacher_key"]
    answer(client, code, XSS[:80], 1, right_answer("bpe", 1))
    for path, params in (
        (f"/class/{code}", {"student": XSS[:80]}),
        (f"/class/{code}/results", {"key": key}),
    ):
        page = client.get(path, params=params)
        assert page.status_code == 200
        assert "<script>alert(1)" not in page.text and "&lt;script&gt;alert(1)" in page.text
        assert "<img src=x" not in page.text
    sheet = client.get(f"/class/{code}/results.csv", params={"key": key}).text
    (row,) = list(csv.DictReader(io.StringIO(sheet)))
    assert row["student"] == XSS[:80]  # CSV is data: the name as given


def test_a_name_like_a_formula_is_text_in_the_csv(client):
    made = make_class(client, "bpe", checkpoints=(1,))
    answer(client, made["code"], "=HYPERLINK(1)", 1, right_answer("bpe", 1))
    sheet = client.get(f"/class/{made['code']}/results.csv", params={"key": made["teacher_key"]})
    assert "'=HYPERLINK(1)" in sheet.text


def test_answers_survive_a_new_app_on_the_same_store(tmp_path):
    """Answers are rows of the store: a restarted server (a new app on the same SQLite file)
    reads them."""
    db = tmp_path / "store.sqlite3"
    with TestClient(create_app(make_settings(db)), base_url="http://127.0.0.1") as first:
        made = make_class(first, "bpe", checkpoints=(1,))
        answer(first, made["code"], "ana", 1, right_answer("bpe", 1))
    with TestClient(create_app(make_settings(db)), base_url="http://127.0.0.1") as second:
        table = second.get(
            f"/api/classes/{made['code']}/results", params={"key": made["teacher_key"]}
        ).json()
        assert [r["student"] for r in table["students"]] == ["ana"]
        assert table["students"][0]["cells"]["1"]["correct"] is True
        assert answer(second, made["code"], "bo", 1, ["t", "h"])["correct"] is False
