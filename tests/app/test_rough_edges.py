"""Rough edges a new user hit (issue 13, items 10-13), checked on the HTML."""

from __future__ import annotations

import re
import time

import pytest


def test_wordpiece_scores_share_one_notation_and_the_bpe_pick_sits_in_the_pair_cell(client):
    html = client.get("/wordpiece/train", params={"step": 3}).text
    table = html.split('data-testid="pair-table"', 1)[1].split("</table>", 1)[0]
    scores = re.findall(r'<td class="num score">([^<]*)</td>', table)
    assert scores and all(re.fullmatch(r"\d\.\d{3}e[-+]\d\d", s) for s in scores), scores
    assert "<th><abbr" not in table  # no narrow trailing BPE column to clip
    assert 'style="' not in html


def test_unigram_rounds_add_up_and_say_why_round_one_repeats_the_seed(client):
    html = client.get("/unigram/train", params={"step": 99}).text
    table = html.split('data-testid="rounds"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(
        r"<tr[^>]*>\s*<td>([^<]*)</td>\s*<td class=\"num\">([\d,]+)</td>\s*"
        r"<td class=\"num\" data-col=\"dropped\">([^<]*)(?:<span[^>]*>[^<]*</span>)?"
        r"</td>\s*<td class=\"num\" data-col=\"pruned\">([\d,]+)</td>",
        table,
    )
    num = lambda s: int(s.replace(",", "").strip())  # noqa: E731
    assert len(rows) >= 3 and rows[0][0] == "seed" and rows[-1][0] == "final"
    for (_, before, _, _), (_, after, dropped, pruned) in zip(rows, rows[1:]):
        assert num(before) - num(dropped) - num(pruned) == num(after)
    assert "round 1 shows the seed model's likelihood" in html


def test_line_chart_labels_never_overlap():
    from app.charts import MIN_TICK_GAP, line_chart

    chart = line_chart(
        {"nats per word": [(300, 9), (330, 9), (370, 8), (498, 9), (1980, 9)]},
        x_label="vocab",
        y_label="nats",
    )
    xs = [x for x, _ in chart.x_ticks]
    assert all(b - a >= MIN_TICK_GAP for a, b in zip(xs, xs[1:]))
    assert chart.x_ticks[0][1] == "300" and chart.x_ticks[-1][1] == "1980"


@pytest.mark.heavy
def test_tax_table_keeps_every_column_and_the_unk_badge_whole(client):
    html = client.get("/tax").text
    assert 'class="num tok-head"' in html and "unk-badge" in html
    assert 'style="' not in html


def test_unicode_lab_shows_byte_level_tokens_as_text(client):
    html = client.get("/unicode", params={"text": "café naïve", "tok": "cl100k_base"}).text
    pieces = re.findall(r'<li class="piece[^"]*"[^>]*>([^<]*)</li>', html)
    assert pieces and not any(c in p for p in pieces for c in "ĠÃ"), pieces
    assert "·na" in "".join(pieces) or "·naïve" in pieces


def test_late_bpe_training_steps_list_the_words_the_merge_changed_first(client):
    for _ in range(600):  # botchan is large enough to train in the job pool
        html = client.get(
            "/bpe/train", params={"corpus": "botchan", "vocab_size": 1200, "step": 600}
        ).text
        if 'data-testid="training"' not in html:
            break
        time.sleep(0.1)
    table = html.split('data-testid="word-table"', 1)[1].split("</table>", 1)[0]
    assert "changed by merge 600" in table
    first_row = table.split("changed by merge 600", 1)[1].split("</tr>", 2)[1]
    assert 'class="changed"' in first_row


def test_bpe_encode_opens_at_step_zero_like_the_other_views(client):
    html = client.get("/bpe/encode", params={"tokenizer": "gpt2", "text": "lowest"}).text
    assert "step <b>0</b>" in html


def test_encoders_jump_by_word_and_play_at_a_chosen_speed(client):
    html = client.get(
        "/wordpiece/encode",
        params={"vocab": "bert-base-uncased", "text": "unaffable tokenization", "step": 1},
    ).text
    nxt = re.search(r'href="([^"]*)"[^>]*aria-label="next word"', html).group(1)
    assert "step=" in nxt
    html = client.get(
        "/bpe/encode",
        params={"tokenizer": "gpt2", "text": "lowest newer", "step": 1, "play": 1, "speed": 4},
    ).text
    assert 'hx-trigger="load delay:175ms"' in html and '<b aria-current="true">4×</b>' in html
    assert (
        client.get("/bpe/encode", params={"tokenizer": "gpt2", "text": "x", "speed": 3}).status_code
        == 422
    )


def test_an_error_answering_htmx_is_the_message_alone(client):
    """An error from the app's handlers (here a parameter that does not parse) lands where the
    htmx request's answer would: the message, not a whole page inside the page."""
    r = client.get("/wordpiece/train?vocab_size=lots", headers={"HX-Request": "true"})
    assert r.status_code == 422 and 'data-testid="error"' in r.text and "<html" not in r.text
    full = client.get("/wordpiece/train?vocab_size=lots")
    assert full.status_code == 422 and "<html" in full.text


def test_vocab_size_fields_say_each_views_limit(client):
    """The number field stops what the view would refuse, before the form is sent."""
    from app.routers import bpe, unigram, wordpiece
    from app.services import check

    for path, limit in (
        ("/bpe/train", bpe.MAX_VIEW_VOCAB),
        ("/wordpiece/train", wordpiece.MAX_TRAIN_VOCAB),
        ("/unigram/train", unigram.MAX_TRAIN_VOCAB),
        ("/check", check.MAX_VOCAB),
    ):
        html = client.get(path).text
        field = re.search(r'<input id="vocab_size"[^>]*>', html).group(0)
        assert f'max="{limit}"' in field, (path, field)
