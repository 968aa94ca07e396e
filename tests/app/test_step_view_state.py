"""The step views' state (app/views/): a step is put in words once, so a lesson says what the
page says at the same step, and the step routers share code through app/views/, not each other."""

from __future__ import annotations

import ast
import re
from html import unescape
from pathlib import Path

import pytest

from app.lessons import PLAYING_VOCAB, lesson

ROUTERS = Path(__file__).resolve().parents[2] / "app" / "routers"


def what(html: str) -> str:
    return unescape(re.search(r'data-testid="what">(.*?)</p>', html, re.S).group(1))


def test_the_wordpiece_lesson_says_what_the_page_says(client):
    """Each probe of "playing" in the lesson is the page's sentence at the same probe."""
    probes = [s for s in lesson("wordpiece-encode").steps if s.data.get("word") == "playing"]
    params = {"text": "playing", "vocab_text": "\n".join(PLAYING_VOCAB)}
    for k, step in enumerate(probes, 1):
        page = client.get("/wordpiece/encode", params={**params, "step": k})
        assert what(page.text) == step.text, k


def test_the_lattice_lesson_says_what_the_page_says(client):
    """Position 5 of "▁cats": the lesson's sentence starts with the page's."""
    step = next(s for s in lesson("unigram-cats").steps if s.data.get("position") == 5)
    page = client.get("/unigram/lattice", params={"text": "cats", "step": 5})
    assert step.text.startswith(what(page.text))


def test_the_bpe_lessons_say_a_merge_as_the_page_does(client):
    """Training: "e + s → es, 9 occurrences" in both; encoding: the page's merge sentence."""
    first = lesson("bpe-sennrich").steps[1].text
    page = what(client.get("/bpe/train", params={"step": 1}).text)
    assert first.startswith("Merge 1: e + s → es, 9 occurrences")
    assert page.startswith("Merged e + s → es, 9 occurrences")
    encode = [s for s in lesson("bpe-lowest").steps if s.panel == "bpe_encode"][0]
    assert encode.text.startswith("Merged ") and "is the lowest" in encode.text


@pytest.mark.parametrize("name", ["bpe", "wordpiece", "unigram", "lessons", "worksheets"])
def test_step_routers_import_no_other_router(name):
    siblings = {p.stem for p in ROUTERS.glob("*.py")} - {"__init__"}
    tree = ast.parse((ROUTERS / f"{name}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            assert node.module not in siblings, (name, node.module)
            assert node.module is not None or not {a.name for a in node.names} & siblings
