"""Worksheets printed to PDF by a real browser (Chromium's print engine), on A4 and Letter."""

from __future__ import annotations

import io

import pytest

pytestmark = pytest.mark.browser

A4 = (595.3, 841.9)  # points
LETTER = (612.0, 792.0)


def _pdf(page, url: str):
    from pypdf import PdfReader

    page.goto(url)
    page.emulate_media(media="print")
    return PdfReader(io.BytesIO(page.pdf(prefer_css_page_size=True, print_background=True)))


@pytest.mark.parametrize("paper, size", [("a4", A4), ("letter", LETTER)])
def test_worksheet_and_key_print(page, server_url, screenshot_dir, paper, size):
    url = f"{server_url}/worksheet/bpe?start=1&end=4&paper={paper}"
    blank = _pdf(page, url)
    page.screenshot(path=str(screenshot_dir / f"worksheet_{paper}_print.png"), full_page=True)
    key = _pdf(page, url + "&key=1")
    for doc in (blank, key):
        assert 1 <= len(doc.pages) <= 6
        for p in doc.pages:
            w, h = float(p.mediabox.width), float(p.mediabox.height)
            assert abs(w - size[0]) < 1.5 and abs(h - size[1]) < 1.5, (paper, w, h)
    blank_text = "".join(p.extract_text() for p in blank.pages)
    key_text = "".join(p.extract_text() for p in key.pages)
    assert "Merge 4" in blank_text and "Name" in blank_text
    assert "e + s → es" not in blank_text and "Print" not in blank_text  # no controls on paper
    assert (
        "Answer key" in key_text and "e + s → es" in key_text and "es + t</w> → est</w>" in key_text
    )


def test_print_button(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/worksheet/bpe?start=1&end=2")
    page.evaluate("window.print = () => { window.printed = true; }")
    page.get_by_test_id("print").click()
    assert page.evaluate("window.printed === true")
    page.screenshot(path=str(screenshot_dir / "worksheet_screen.png"), full_page=True)
    page.get_by_test_id("key-link").click()
    page.wait_for_url("**key=1*")
    assert page.get_by_test_id("answer").first.inner_text() == "e + s → es"


def test_wordpiece_key_prints_on_letter(page, server_url):
    doc = _pdf(page, f"{server_url}/worksheet/wordpiece?start=1&end=3&paper=letter&key=1")
    text = "".join(p.extract_text() for p in doc.pages)
    assert "##i + ##d → ##id" in text and "score 3/9" in text
    assert all(abs(float(p.mediabox.width) - LETTER[0]) < 1.5 for p in doc.pages)


@pytest.mark.parametrize("paper, size", [("a4", A4), ("letter", LETTER)])
def test_bpe_encode_worksheet_and_key_print(page, server_url, screenshot_dir, paper, size):
    url = f"{server_url}/worksheet/bpe_encode?tokenizer=gpt2&text=lowest+newer&paper={paper}"
    blank, key = _pdf(page, url), _pdf(page, url + "&key=1")
    for doc in (blank, key):
        assert 1 <= len(doc.pages) <= 4
        for p in doc.pages:
            w, h = float(p.mediabox.width), float(p.mediabox.height)
            assert abs(w - size[0]) < 1.5 and abs(h - size[1]) < 1.5, (paper, w, h)
    blank_text = "".join(p.extract_text() for p in blank.pages)
    key_text = "".join(p.extract_text() for p in key.pages)
    assert "Word 2" in blank_text and "Name" in blank_text and "rank" in blank_text
    assert "es + t → est" not in blank_text and "Print" not in blank_text
    assert "Answer key" in key_text and "es + t → est" in key_text


@pytest.mark.parametrize("size", [(1400, 900), (390, 844)])
@pytest.mark.parametrize(
    "view, sheet",
    [
        ("/bpe/encode?text=lowest+newer", "bpe_encode"),
        ("/wordpiece/encode?text=unaffable+playing", "wordpiece_encode"),
        ("/unigram/lattice?text=cats+dog", "unigram_lattice"),
    ],
)
def test_encode_worksheets_on_screen(page, server_url, screenshot_dir, size, view, sheet):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(server_url + view)
    page.get_by_test_id("worksheet-link").click()
    page.wait_for_url(f"**/worksheet/{sheet}*")
    page.screenshot(path=str(screenshot_dir / f"worksheet_{sheet}_{size[0]}.png"), full_page=True)
    page.get_by_test_id("key-link").click()
    page.wait_for_url("**key=1*")
    assert page.get_by_test_id("answer").count() >= 1
    page.screenshot(
        path=str(screenshot_dir / f"worksheet_{sheet}_key_{size[0]}.png"), full_page=True
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0] + 1


def test_wordpiece_encode_key_prints_on_letter(page, server_url):
    doc = _pdf(page, f"{server_url}/worksheet/wordpiece_encode?paper=letter&key=1")
    text = "".join(p.extract_text() for p in doc.pages)
    assert "Answer key" in text and "##affable" in text and "##aff" in text and "##ing" in text
    assert 1 <= len(doc.pages) <= 3
    assert all(abs(float(p.mediabox.width) - LETTER[0]) < 1.5 for p in doc.pages)


def test_lattice_sheet_prints_on_a4(page, server_url):
    blank = _pdf(page, f"{server_url}/worksheet/unigram_lattice?text=cats")
    key = _pdf(page, f"{server_url}/worksheet/unigram_lattice?text=cats&key=1")
    for doc in (blank, key):
        assert len(doc.pages) == 1
        assert abs(float(doc.pages[0].mediabox.height) - A4[1]) < 1.5
    blank_text, key_text = blank.pages[0].extract_text(), key.pages[0].extract_text()
    assert "best[i]" in blank_text and "\n5 s\n" in blank_text  # row 5: i and the character
    assert "\n5 s -5.00 4 s\n" in key_text, key_text  # best[5], back[5], the piece


@pytest.mark.parametrize("size", [(1400, 900), (390, 844)])
def test_unigram_train_sheet_on_screen_and_letter(page, server_url, screenshot_dir, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{server_url}/worksheet/unigram_train?paper=letter")
    page.screenshot(
        path=str(screenshot_dir / f"worksheet_unigram_train_{size[0]}.png"), full_page=True
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0] + 1
    page.get_by_test_id("key-link").click()
    page.wait_for_url("**key=1*")
    page.screenshot(
        path=str(screenshot_dir / f"worksheet_unigram_train_key_{size[0]}.png"), full_page=True
    )
    assert page.get_by_test_id("answer").first.inner_text() == "84"  # the seed's pieces
    if size[0] == 1400:
        page.emulate_media(media="print")
        doc = _pdf(page, page.url)
        text = "".join(p.extract_text() for p in doc.pages)
        assert "Round 3" in text and "-838.58" in text and 1 <= len(doc.pages) <= 4
        assert all(abs(float(p.mediabox.height) - LETTER[1]) < 1.5 for p in doc.pages)


@pytest.mark.parametrize("sheet", ["bpe", "wordpiece"])
def test_a_letter_sheets_first_page_holds_an_exercise(page, server_url, sheet):
    """Letter is shorter than A4: its first page still holds merge 1 beside the word table."""
    for paper in ("letter", "a4"):
        doc = _pdf(page, f"{server_url}/worksheet/{sheet}?paper={paper}")
        assert "Merge 1" in doc.pages[0].extract_text(), paper
