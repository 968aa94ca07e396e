"""Pieces of a page's HTML that the page tests read: the text of an element by its test id, the
markup of a box by its id, and the tokens of a page's chips."""

from __future__ import annotations

import html
import re


def by_testid(body: str, name: str, end: str = "<") -> str:
    return html.unescape(body.split(f'data-testid="{name}"')[1].split(">", 1)[1].split(end)[0])


def box(body: str, box_id: str) -> str:
    return body.split(f'id="{box_id}"')[1].split("</div>")[0]


def chips_of(body: str) -> list[str]:
    """Each chip's token as drawn (a space as `·`), in order: in its `tok` span, or (the
    visualiser's slim chips) the chip's own text."""
    found = re.findall(
        r'<span class="tok">(.*?)</span>|<li class="chip[^"]*" tabindex=0 [^>]*>([^<]*)</li>',
        body,
        re.S,
    )
    return [html.unescape(a or b) for a, b in found]
