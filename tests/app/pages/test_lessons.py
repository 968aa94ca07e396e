"""/lessons, the worked lessons: they name their sources, not seed numbers. Also every step of
every lesson renders (as a page and to htmx), every number a step says comes from the engine's
values for that step, the states equal the engine's steppers, and no lesson ends in a dead end."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

import tokenizers_core as tc
from app.lessons import LESSONS, SENNRICH, lesson
from tokenizers_core.models.bpe.session import training_session


def _text(html: str) -> str:
    """A page's words, tags dropped and spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# ---- the lessons name their sources --------------------------------------------------------------
def test_lessons_name_their_sources_not_seed_numbers(client):
    words = _text(client.get("/lessons").text)
    assert not re.search(r"\bseeds? \d{3}", words)
    assert "Sennrich et al. (2016)" in words
    from app import lessons

    source = open(lessons.__file__, encoding="utf-8").read()
    assert not re.search(r"\bseeds? \d{3}", source)


# ---- every step renders and says the engine's numbers --------------------------------------------
NUMBER = re.compile(r"(?<![\w.-])-?\d+(?:\.\d+)?")


def _numbers(value) -> set[str]:
    return {_norm(n) for n in NUMBER.findall(json.dumps(value, ensure_ascii=False))}


def _norm(n: str) -> str:
    return str(float(n))


@pytest.mark.parametrize("slug", list(LESSONS))
def test_every_number_in_a_step_comes_from_its_data(slug):
    ls = lesson(slug)
    for k, step in enumerate(ls.steps):
        allowed = _numbers(step.data) | {_norm(str(k)), _norm(str(len(ls.steps) - 1))}
        said = {_norm(n) for n in NUMBER.findall(step.text)}
        assert said <= allowed, (slug, k, step.text, said - allowed)


@pytest.mark.parametrize("slug", list(LESSONS))
def test_every_step_renders(client, slug):
    ls = lesson(slug)
    for k in range(len(ls.steps)):
        r = client.get(f"/lessons/{slug}?step={k}")
        assert r.status_code == 200
        assert 'data-testid="lesson-text"' in r.text
    r = client.get(f"/lessons/{slug}?step=1", headers={"HX-Request": "true"})
    assert "<html" not in r.text and "stepper" in r.text


def test_index_and_unknown(client):
    r = client.get("/lessons")
    assert r.status_code == 200 and all(f"/lessons/{s}" in r.text for s in LESSONS)
    assert client.get("/lessons/nope").status_code == 404


def test_bpe_lesson_is_the_engines_training():
    session = training_session(SENNRICH, "bpe", 24)
    ls = lesson("bpe-sennrich")
    for k, step in enumerate(ls.steps[1:], 1):
        merge = session.step(k)
        assert step.data["pair"] == list(merge.pair) and step.data["count"] == merge.count
    assert ls.steps[1].data["pair"] == ["e", "s"] and ls.steps[1].data["count"] == 9


def test_encoding_lessons_are_the_engines():
    tok = tc.train(
        "bpe", ["low low low low lowest lowest newer newer newer wider wider"], vocab_size=25
    )
    steps = [s for s in lesson("bpe-lowest").steps if s.panel == "bpe_encode"]
    assert [s.data["merged"] for s in steps if s.data["candidates"]] == [
        e.merged for e in tok.model.encode_steps("lowest")
    ]
    aab = lesson("byte-bpe-aabaa").steps
    assert [s.data["pair"] for s in aab[1:4]] == [["a", "a"], ["aa", "b"], ["Ġ", "aab"]]
    assert aab[-1].data["parts"] == ["aab"] and aab[-1].data["ids"] == [257]


def test_wordpiece_and_unigram_lessons_are_the_engines():
    score = lesson("wordpiece-score").steps[-1]
    assert score.data["winner"] == ["x", "##z"] and "7/80" in score.text
    enc = lesson("wordpiece-encode").steps
    hits = [s.data["candidate"] for s in enc if s.data.get("status") == "hit"]
    assert hits == ["play", "##ing", "un", "##aff", "##able"]
    cats = lesson("unigram-cats").steps
    assert cats[5].data["best"] == [0.0, -3.5, -5.0, -6.5, -2.0, -5.0]
    assert cats[-1].data["path"] == ["s", "▁cat"]


def test_sentence_lesson_uses_the_splitter():
    from tokenizers_core.implementations.rules import split_sentences

    last = lesson("sentences").steps[-1]
    assert last.data["spans"] == [list(s) for s in split_sentences(last.data["text"])]
    assert last.data["n"] == 3


def test_lessons_end_with_practice_of_the_same_example(client):
    for slug in ("bpe-sennrich", "wordpiece-encode", "unigram-cats"):
        ls = lesson(slug)
        r = client.get(f"/lessons/{slug}?step={len(ls.steps) - 1}")
        link = re.search(r'href="([^"]*)" data-testid="lesson-practice"', r.text).group(1)
        page = client.get(link.replace("&amp;", "&"))
        assert page.status_code == 200 and 'data-testid="practice-form"' in page.text


@pytest.mark.parametrize("slug", list(LESSONS))
def test_no_lesson_ends_in_a_dead_end(client, slug):
    """The last step leads on: to the next lesson (the last one to /check), and to the view
    where the reader's own text can go; every link there answers."""
    ls = lesson(slug)
    last = client.get(f"/lessons/{slug}?step={len(ls.steps) - 1}").text
    assert 'data-testid="lesson-next"' in last
    slugs = list(LESSONS)
    if slug != slugs[-1]:
        assert f'href="/lessons/{slugs[slugs.index(slug) + 1]}"' in last
    else:
        assert 'data-testid="lesson-check"' in last
    block = last.split('data-testid="lesson-next"', 1)[1].split("</div>", 1)[0]
    links = [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', block)]
    assert len(links) >= 2, links
    for link in links:
        assert client.get(link).status_code == 200, link
    first = client.get(f"/lessons/{slug}?step=0").text
    assert 'data-testid="lesson-next"' not in first or len(ls.steps) == 1
