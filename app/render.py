"""Template rendering: a full page, or, for an htmx request, just the named block.

`render(request, "visualiser.html", ctx, block="result")` renders the whole page for a normal
request, and only `{% block result %}` when htmx asks (header `HX-Request`), except for htmx's
history restore, which needs the full page. Blocks are rendered with the page's context, so a
block must import the macros it uses inside itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from tokenizers_core.formats import tiktoken_specials

from . import display, export
from .embed import EMBED
from .services.tokenizers import stored_corpora
from .uploads import FORMAT_LABELS, PATTERN_PRESETS
from .urls import url_with

ROOT = Path(__file__).resolve().parent.parent


def page_globals(request: Request) -> dict[str, Any]:
    """What every page may call: `stored_corpora()` (the corpus pickers' stored options,
    read from SQLite only when a picker asks), and `frame_ancestors`, who may frame the pages
    (TOKVIS_FRAME_ANCESTORS: the footer's embed code says it)."""
    state = getattr(request.app.state, "settings", None) if "app" in request.scope else None
    return {
        "stored_corpora": lambda: stored_corpora(request.app.state.store),
        "frame_ancestors": getattr(state, "frame_ancestors", "'self'"),
    }


def asset_dir(name: str) -> Path:
    """`templates` or `static`: inside the package when installed from a wheel (pyproject maps
    them to app/templates and app/static), else at the top of the checkout."""
    packaged = Path(__file__).resolve().parent / name
    return packaged if packaged.is_dir() else ROOT / name


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """A count with separators and its noun, singular for 1 (pages' one number filter,
    `{{ n | count_of("occurrence") }}`).

    >>> count_of(1, "occurrence"), count_of(1455, "merge"), count_of(2, "entry", "entries")
    ('1 occurrence', '1,455 merges', '2 entries')
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


TEMPLATES_DIR = asset_dir("templates")
STATIC_DIR = asset_dir("static")
templates = Jinja2Templates(directory=str(TEMPLATES_DIR), context_processors=[page_globals])
env = templates.env
env.autoescape = True  # everything a user types is text; never turn this off
env.filters["visible"] = display.visible
env.filters["hexbytes"] = display.hex_bytes
env.filters["token_label"] = display.token_label
env.filters["filesize"] = display.filesize
env.filters["sci"] = display.sci
env.filters["day"] = display.day
env.filters["ordinal"] = display.ordinal
env.filters["num"] = "{:,}".format  # 12813 -> 12,813: every count a page shows
env.filters["count_of"] = count_of  # 1 -> "1 merge", 1455 -> "1,455 merges"


env.globals["url_with"] = url_with
env.globals["embedded"] = EMBED.get  # this request is an embed (?embed=1): macros see it too
env.globals["trained_links"] = export.trained_links  # a training view's onward links
env.globals["tokenizer_downloads"] = export.tokenizer_downloads
env.globals["upload_formats"] = FORMAT_LABELS  # the tokenizer upload form's choices
env.globals["pattern_presets"] = PATTERN_PRESETS
env.globals["special_presets"] = tiktoken_specials.LABELS


def is_fragment_request(request: Request) -> bool:
    return (
        request.headers.get("HX-Request") == "true"
        and request.headers.get("HX-History-Restore-Request") != "true"
    )


def render(
    request: Request,
    template: str,
    context: dict[str, Any],
    block: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    """Render `template` (or only its `block` for an htmx request)."""
    if block is not None and is_fragment_request(request):
        tmpl = env.get_template(template)
        ctx = tmpl.new_context({"request": request, **page_globals(request), **context})
        html = "".join(tmpl.blocks[block](ctx))
        return HTMLResponse(html, status_code=status_code)
    return templates.TemplateResponse(request, template, context, status_code=status_code)
