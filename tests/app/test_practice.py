"""Practice mode: the step-through views ask for the next step and the server checks the answer.
Score and streak live in the URL; the answer is a plain GET form field (`answer`)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit


def _feedback(html: str) -> str:
    m = re.search(r'data-testid="feedback"[^>]*>([^<]*)<', html)
    return m.group(1).strip() if m else ""


def _next(html: str) -> dict[str, list[str]]:
    url = re.search(r'data-testid="next-question"', html) and re.search(
        r'href="([^"]*)"[^>]*data-testid="next-question"', html
    ).group(1)
    return parse_qs(urlsplit(url.replace("&amp;", "&")).query)


def test_bpe_training_question_hides_the_answer(client):
    r = client.get("/bpe/train?step=0&practice=1")
    assert r.status_code == 200
    assert 'data-testid="practice-form"' in r.text and 'data-testid="pair-table"' not in r.text
    assert 'class="stepper"' not in r.text
    choices = re.findall(r'name="answer" value="([^"]*)"', r.text)
    assert "e\ts" in choices and len(choices) >= 8
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)"', r.text))
    assert hidden["practice"] == "1" and hidden["step"] == "0" and hidden["score"] == "0"


def test_bpe_training_right_then_wrong(client):
    r = client.get("/bpe/train?step=0&practice=1&answer=e%09s")
    assert _feedback(r.text).startswith("✓ Right: e + s occurs 9 times")
    q = _next(r.text)
    assert (
        q["step"] == ["1"] and q["score"] == ["1"] and q["asked"] == ["1"] and q["streak"] == ["1"]
    )
    assert 'data-testid="pair-table"' in r.text  # answered: the table is back
    r = client.get("/bpe/train?step=1&practice=1&score=1&asked=1&streak=1&answer=es%09t")
    fb = _feedback(r.text)
    assert fb.startswith("✗ Close: es + t also occurs 9 times, a tie with t + &lt;/w&gt;")
    q = _next(r.text)
    assert q["score"] == ["1"] and q["asked"] == ["2"] and q["streak"] == ["0"]
    r = client.get("/bpe/train?step=3&practice=1&answer=e%09w")
    assert "✗ Not this one: e + w occurs 6 times, but l + o occurs 7 times" in _feedback(r.text)


def test_until_ends_the_round(client):
    r = client.get(
        "/bpe/train?step=1&practice=1&until=2&score=1&asked=1&streak=1&answer=t%09%3C/w%3E"
    )
    assert _feedback(r.text).startswith("✓")
    assert _next(r.text)["step"] == ["2"]
    r = client.get("/bpe/train?step=2&practice=1&until=2&score=2&asked=2&streak=2")
    assert 'data-testid="practice-done"' in r.text and "Final score: 2 of 2" in r.text


def test_bpe_encoding(client):
    base = "/bpe/encode?text=lowest&practice=1&step=0"
    r = client.get(base)
    assert re.findall(r'name="answer" value="([^"]*)"', r.text) == ["0", "1", "2", "3", "4"]
    assert _feedback(client.get(base + "&answer=3").text).startswith(
        "✓ Right: e + s is merge number 275"
    )
    wrong = _feedback(client.get(base + "&answer=0").text)
    assert "l + o is a known merge, number 5,440, but e + s is number 275" in wrong


def test_wordpiece_encoding_skips_the_misses(client):
    base = "/wordpiece/encode?practice=1&step=0"
    r = client.get(base + "&answer=un")
    assert _feedback(r.text).startswith("✓ Right: un is the longest window")
    q = _next(r.text)
    assert q["step"] == ["8"]  # unaffable .. una missed (7 probes), un hit: 8
    assert "keeps shrinking until un" in _feedback(client.get(base + "&answer=unaff").text)
    assert "longer than u" in _feedback(client.get(base + "&answer=u").text)
    r = client.get("/wordpiece/encode?practice=1&step=8")
    assert "##aff" in re.findall(r'name="answer" value="([^"]*)"', r.text)


def test_unigram_back_pointer(client):
    base = "/unigram/lattice?practice=1&step=4"
    r = client.get(base)
    assert re.findall(r'name="answer" value="([^"]*)"', r.text) == ["0", "2", "3", "4"]
    assert _feedback(client.get(base + "&answer=4").text).startswith("✓ Right: ending with s")
    assert "back[5] = 4" in _feedback(client.get(base + "&answer=0").text)
    r = client.get("/unigram/lattice?practice=1&step=5")
    assert "The lattice is full" in r.text


def test_practice_link_and_bad_state(client):
    r = client.get("/bpe/train?step=3")
    assert 'data-testid="practice-link"' in r.text and "practice=1" in r.text
    for query in ("score=5&asked=2", "asked=-1", "until=0", "score=x"):
        r = client.get(f"/bpe/train?practice=1&{query}")
        assert r.status_code == 422, query


def test_a_link_to_share_starts_with_a_fresh_score(client):
    r = client.get("/bpe/train?step=4&practice=1&until=9&score=3&asked=4&streak=2")
    share = re.search(r'href="([^"]*)" data-testid="practice-share"', r.text).group(1)
    q = parse_qs(urlsplit(share.replace("&amp;", "&")).query)
    assert q["step"] == ["4"] and q["until"] == ["9"] and q["practice"] == ["1"]
    assert "score" not in q and "asked" not in q


def test_encoding_steps_that_are_not_merges_are_not_asked():
    """Hugging Face models take a whole word (ignore_merges) or fall back to bytes in a step of
    their own; practice asks about the next merge instead."""
    from app import practice
    from app.views.bpe_encode import practice as bpe_encode_question
    from tokenizers_core.models.bpe.model import BpeEncodeStep

    flat = [
        (0, BpeEncodeStep(0, ("h", "i"), (), -1, -1, "hi", "whole_word")),
        (1, BpeEncodeStep(0, ("l", "o"), ((0, 0),), 0, 0, "lo")),
    ]
    state = practice.PracticeState(on=True, answer="0")
    q = bpe_encode_question(state, "/bpe/encode", {"text": "hi lo"}, 0, flat, str)
    assert q.right and "lo" in q.prompt and "step=2" in q.next_url
    done = bpe_encode_question(practice.PracticeState(on=True), "/bpe/encode", {}, 0, flat[:1], str)
    assert done.done
