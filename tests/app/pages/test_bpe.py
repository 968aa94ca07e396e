"""/bpe/train and /bpe/encode, BPE's step views: a late training step lists the words its merge
changed first, the encoder opens at step zero, jumps by word and plays at a chosen speed; every
training view's vocabulary-size field says that view's limit; the worksheet link is an icon."""

from __future__ import annotations

import re
import time


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


# ---- the worksheet link's icon ------------------------------------------------------------------
def test_the_worksheet_link_draws_an_svg_icon_not_a_glyph(client):
    r = client.get("/bpe/train", params={"step": 1})
    link = r.text.split('data-testid="worksheet-link"')[1].split("</a>")[0]
    assert "<svg" in link and "🖶" not in link and "⎙" not in link
    assert 'aria-hidden="true"' in link
