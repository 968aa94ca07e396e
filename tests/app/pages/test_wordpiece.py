"""/wordpiece/train and /wordpiece/encode: the step view's scores share one notation, and an error
answering htmx is the message alone."""

from __future__ import annotations

import re


def test_wordpiece_scores_share_one_notation_and_the_bpe_pick_sits_in_the_pair_cell(client):
    html = client.get("/wordpiece/train", params={"step": 3}).text
    table = html.split('data-testid="pair-table"', 1)[1].split("</table>", 1)[0]
    scores = re.findall(r'<td class="num score">([^<]*)</td>', table)
    assert scores and all(re.fullmatch(r"\d\.\d{3}e[-+]\d\d", s) for s in scores), scores
    assert "<th><abbr" not in table  # no narrow trailing BPE column to clip
    assert 'style="' not in html


def test_an_error_answering_htmx_is_the_message_alone(client):
    """An error from the app's handlers (here a parameter that does not parse) lands where the
    htmx request's answer would: the message, not a whole page inside the page."""
    r = client.get("/wordpiece/train?vocab_size=lots", headers={"HX-Request": "true"})
    assert r.status_code == 422 and 'data-testid="error"' in r.text and "<html" not in r.text
    full = client.get("/wordpiece/train?vocab_size=lots")
    assert full.status_code == 422 and "<html" in full.text
