"""Pieces of a page's HTML that the page tests read: the text of an element by its test id, and
the markup of a box by its id."""

from __future__ import annotations

import html


def by_testid(body: str, name: str, end: str = "<") -> str:
    return html.unescape(body.split(f'data-testid="{name}"')[1].split(">", 1)[1].split(end)[0])


def box(body: str, box_id: str) -> str:
    return body.split(f'id="{box_id}"')[1].split("</div>")[0]
