"""A class in a real browser: a teacher makes it with the form, a student gives a name and
answers one checkpoint right and one wrong (htmx swaps the feedback in), and the teacher's page
shows both; a script as the title and as the name is text. Screenshots of the student's and the
teacher's pages at 1400 and 390 px go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.pages.classroom import VOCAB, corpus, merges, wrong_answer

pytestmark = pytest.mark.slow

XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def shoot(page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / name), full_page=True)


def test_a_teacher_makes_a_class_a_student_answers_the_teacher_reads(
    page, server_url, screenshot_dir
):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{server_url}/class/new")
    page.fill("#title", "BPE week 2 " + XSS)
    page.select_option("#algorithm", "bpe")
    page.fill("#corpus_text", corpus())
    page.fill("#vocab_size", str(VOCAB["bpe"]))
    page.fill("#checkpoints", "1, 2, 3")
    page.get_by_role("button", name="Make the class").click()
    made = page.get_by_test_id("class-made")
    made.wait_for()
    student_url = page.get_by_test_id("student-link").get_attribute("href")
    teacher_url = page.get_by_test_id("teacher-link").get_attribute("href")

    page.goto(server_url + student_url)
    assert "alert(2)" in page.get_by_test_id("class-title").inner_text()  # as text
    page.fill("#student", "Ana " + XSS[:40])
    page.get_by_role("button", name="Start").click()
    page.get_by_test_id("question").wait_for()
    a, b = merges("bpe")[0]
    page.select_option("#answer", value=f"{a}\t{b}")
    page.get_by_role("button", name="Answer").click()
    feedback = page.get_by_test_id("feedback")
    feedback.wait_for()
    assert "✓ Right" in feedback.inner_text()
    page.get_by_test_id("next").click()
    page.locator("h2", has_text="Checkpoint 2").wait_for()
    shoot(page, screenshot_dir, "class-student-1400.png")
    wa, wb = wrong_answer("bpe", 2)
    page.select_option("#answer", value=f"{wa}\t{wb}")
    page.get_by_role("button", name="Answer").click()
    page.get_by_test_id("feedback").wait_for()
    assert "✗ Not quite" in page.get_by_test_id("feedback").inner_text()
    shoot(page, screenshot_dir, "class-student-answered-1400.png")
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    shoot(page, screenshot_dir, "class-student-390.png")

    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(server_url + teacher_url)
    results = page.get_by_test_id("results")
    assert "✓ right" in results.inner_text() and "✗ wrong" in results.inner_text()
    assert "Ana <img" in results.inner_text()
    shoot(page, screenshot_dir, "class-teacher-1400.png")
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    shoot(page, screenshot_dir, "class-teacher-390.png")
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0

    # the delete form asks first (htmx's hx-confirm); the page fixture dismisses every dialog,
    # so the question is seen, then asked no more, and the form deletes
    page.get_by_role("button", name="Delete the class").click()
    page.wait_for_function("() => true")
    assert page.dialogs and "Delete this class" in page.dialogs[-1]
    assert page.get_by_test_id("results").count() == 1  # dismissed: nothing deleted
    page.evaluate(
        "document.querySelector('[data-testid=delete-form]').removeAttribute('hx-confirm')"
    )
    page.get_by_role("button", name="Delete the class").click()
    page.get_by_test_id("deleted").wait_for()
    assert page.goto(server_url + student_url).status == 404
