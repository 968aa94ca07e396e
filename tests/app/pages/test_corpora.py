"""/corpora, the stored corpora: a corpus pasted in a step view is named by its first words, and
the page confirms what was stored."""

from __future__ import annotations

import re
from html import unescape


def _text(html: str) -> str:
    """A page's words, tags dropped and spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# ---- corpora ------------------------------------------------------------------------------------
def test_a_corpus_pasted_in_a_step_view_is_named_by_its_first_words(client):
    text = "Colourless green ideas sleep furiously tonight and tomorrow too\nsecond line"
    r = client.post("/bpe/train", data={"corpus_text": text}, follow_redirects=False)
    assert r.status_code == 303
    digest = re.search(r"corpus=([0-9a-f]{64})", r.headers["location"]).group(1)
    page = client.get("/corpora").text
    row = [tr for tr in page.split("<tr>") if digest[:16] in tr][0]
    assert "Colourless green ideas sleep" in row


def test_corpora_confirms_what_was_stored(store_client):
    r = store_client.post("/corpora", data={"text": "one two three\nfour", "name": "my notes"})
    assert r.status_code == 200
    words = _text(r.text)
    assert "Stored “my notes”" in words
    assert "2 lines" in words
