"""/lessons, the worked lessons: they name their sources, not seed numbers."""

from __future__ import annotations

import re
from html import unescape


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
