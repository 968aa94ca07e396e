"""HTML for a notebook: `_repr_html_` of an `Encoding`, a chat render, a lock's check (and the
drift and parity reports), drawn as the app draws them, as chips, with no server and no JavaScript.

Jupyter shows an object's `_repr_html_()` in place of its repr. The HTML comes from the Jinja2
templates in `data/notebook/` with autoescaping on, so a token such as `<|endoftext|>` or a
text holding `<script>` is shown as text; its style sits in the output itself, scoped under the
`tokvis-nb` class, so it changes nothing else in the notebook.

>>> import tokenizers_core as tc
>>> html = tc.load("gpt2").encode("<b>Hi</b>")._repr_html_()
>>> "&lt;" in html and "<b>" not in html
True
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from .byte_level import CHAR_TO_BYTE

TEMPLATES = Path(__file__).resolve().parent / "data" / "notebook"

# how the chips show characters that would otherwise be invisible (as the app's chips do)
VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}
MAX_CHIPS = 2000  # chips drawn in one output; the counts cover every token


@functools.lru_cache(maxsize=1)
def _environment() -> Any:  # a jinja2.Environment
    import jinja2  # lazy: jinja2 loads only when a notebook draws something

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["visible"] = visible
    env.filters["num"] = lambda n: f"{n:,}"
    return env


def render(template: str, **context: Any) -> str:
    """`data/notebook/<template>` rendered with `context` (autoescaped), its style included."""
    env = _environment()
    return env.get_template(template).render(
        style=env.get_template("style.css").render(), **context
    )


def visible(token: str) -> str:
    """A token as a person reads it: a byte-level token (`Ġthere`) as the text its bytes spell
    (` there`), then its spaces, tabs and line ends drawn (`·`, `→`, `↵`); empty as `∅`."""
    return "".join(VISIBLE.get(ch, ch) for ch in _unbyte(token)) or "∅"


def _unbyte(token: str) -> str:
    """The text a byte-level token's characters spell as bytes (GPT-2's byte-to-unicode map),
    when they spell whole UTF-8 and that differs; else the token as it is."""
    if not token or not all(ch in CHAR_TO_BYTE for ch in token):
        return token
    try:
        text = bytes(CHAR_TO_BYTE[ch] for ch in token).decode("utf-8")
    except UnicodeDecodeError:
        return token
    return text


# ---- the objects' HTML ------------------------------------------------------------------------
def encoding_html(enc: Any) -> str:
    """An `Encoding` as chips: each token, its id under it, its offsets in the title."""
    chips = [
        {"token": tok, "id": id_, "offsets": off, "special": bool(sp)}
        for tok, id_, off, sp in zip(
            enc.tokens[:MAX_CHIPS],
            enc.ids,
            enc.offsets,
            enc.special_tokens_mask or [0] * len(enc.ids),
        )
    ]
    return render("encoding.html", items=chips, total=len(enc.ids), capped=len(enc.ids) > MAX_CHIPS)


def chat_html(chat: Any) -> str:
    """A chat render: each message's stretch of the text, with its tokens as chips when the
    render was tokenised (the assistant mask marked)."""
    rows = []
    for i, segment in enumerate(chat.segments):
        tokens = [t for t in chat.tokens or () if t.segment == i]
        rows.append(
            {
                "role": segment.role if segment.index is not None else "template",
                "index": segment.index,
                "text": chat.text[segment.start : segment.end],
                "tokens": [
                    {"token": t.token, "id": t.id, "assistant": t.assistant}
                    for t in tokens[:MAX_CHIPS]
                ],
            }
        )
    total = None if chat.tokens is None else len(chat.tokens)
    return render("chat.html", rows=rows, total=total, lints=chat.lints)


def verify_html(report: Any) -> str:
    """A lock's check: the summary, then each failing text with the first token that moved."""
    return render("verify.html", report=report, side=_side)


def _side(ids: list[int], tokens: list[str], at: int, around: int = 3) -> list[dict[str, Any]]:
    """The chips around position `at` of one side, the token at `at` marked as the one moved."""
    start = max(0, at - around)
    return [
        {"token": tokens[k], "id": ids[k], "moved": k == at}
        for k in range(start, min(len(ids), at + around + 1))
    ]


def drift_html(report: Any) -> str:
    """The drift doctor's report: a row per assistant turn (prefix of the next or not, what a
    prefix cache keeps, the first token that differs and why), then completions and markers."""
    return render("drift.html", report=report, diff_chips=_diff_chips)


def parity_html(report: Any) -> str:
    """Runtime parity: a row per text, a column per runtime, the cells that differ marked."""
    return render("parity.html", report=report, cells=_cells)


def _diff_chips(turn: Any) -> list[dict[str, Any]]:
    """The two tokens at a turn's first difference: as generated, then in the next turn."""
    at = turn.first_diff_token
    ids = (turn.ids, turn.next_ids)
    out = []
    for side, token in enumerate(turn.diff_tokens or ()):
        if token is not None and at is not None and at < len(ids[side]):
            out.append({"token": token, "id": ids[side][at], "moved": True})
    return out


def _cells(row: Any, runtime: str) -> list[dict[str, Any]]:
    """One runtime's tokens for one text, as chips."""
    ids, tokens = row.ids.get(runtime) or [], row.tokens.get(runtime) or []
    return [{"token": t, "id": i} for t, i in zip(tokens[:MAX_CHIPS], ids)]
