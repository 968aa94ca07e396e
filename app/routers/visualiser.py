"""The visualiser: type, and watch the tokens form (`/`)."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from .. import display, export
from ..roundtrip import round_trip_notes
from ..deps import (BAD_INPUT, REGEX, bad_input, check_text, put_text, resolve_tokenizer,
                    special_kwargs, store, tokenizer_label, tokenizer_options)
from ..render import render, url_with
from ..store import is_sha256
from ..uploads import model_family
from tokenizers_core import pretrained

router = APIRouter(tags=["pages"])

DEFAULT_TEXT = ("The tokenization handles preprocessing: naïve cafés, 東京, 3.14 and "
                "<|endoftext|> all become tokens.\n\tDon't panic!")
MAX_PANEL_ITEMS = 400
MAX_COPY_TOKENS = 20_000   # the copy buttons' tokens and JSON ride in the page up to this many
MAX_CHIPS = 2000     # chips drawn; past that the page would weigh ~0.5 KB a token (80 MB for
                     # 100k characters of Japanese): the counts, ids and decode still cover all
# The form is POSTed (a long text in a URL fails before it reaches the app: uvicorn refuses a
# request line over ~16 KB); the address bar gets a GET permalink when it is at most this long.
MAX_PERMALINK = 8000

# Where a chip links to see how its word was built, by model (only if the page exists).
STEP_LINKS = {
    "bpe": ("/bpe/encode", "tokenizer"),
    "wordpiece": ("/wordpiece/encode", "vocab"),
    "unigram": ("/unigram/lattice", "model"),
}


def default_tokenizer() -> str:
    for name in ("cl100k_base", "word"):
        if pretrained.is_bundled(name):
            return name
    return "char"


def step_link(request: Request, tok) -> tuple[str, str] | None:
    link = STEP_LINKS.get(model_family(tok))
    if link is None:
        return None
    return link if link[0] in page_paths(request.app) else None


def page_paths(app) -> set[str]:
    """Every route path of the app, including those of included routers (FastAPI keeps an
    included router as one wrapper route that holds the original router)."""
    paths: set[str] = set()
    stack = list(app.router.routes)
    while stack:
        route = stack.pop()
        if getattr(route, "path", None) is not None:
            paths.add(route.path)
        inner = getattr(route, "original_router", None)
        if inner is not None:
            stack.extend(inner.routes)
    return paths


def stage_members(steps: list) -> list[tuple[Any, str]]:
    """Each pipeline step with its place among the steps of its stage, when a stage has several
    (the members of a Sequence normaliser or pre-tokeniser: "1 of 2", "2 of 2"), else "".

    >>> from types import SimpleNamespace as S
    >>> [m for _, m in stage_members([S(kind="normalize"), S(kind="normalize"), S(kind="model")])]
    ['1 of 2', '2 of 2', '']
    """
    totals: dict[str, int] = {}
    for s in steps:
        totals[s.kind] = totals.get(s.kind, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for s in steps:
        seen[s.kind] = seen.get(s.kind, 0) + 1
        out.append((s, f"{seen[s.kind]} of {totals[s.kind]}" if totals[s.kind] > 1 else ""))
    return out


def visualise(request: Request, text: str, name: str, pattern: str,
              special: bool = False) -> dict[str, Any]:
    """Everything the result block shows, or an `error` (with the status it deserves)."""
    ctx: dict[str, Any] = {"error": None, "status": 200}
    try:
        check_text(request, text)
        tok = resolve_tokenizer(request, name, pattern)
        kwargs = special_kwargs(tok, "all") if special and hasattr(tok, "special_tokens") else {}
        enc, trace = tok.trace(text, **kwargs)
    except BAD_INPUT as exc:
        message, status = bad_input(exc)
        return {**ctx, "error": message, "status": status}
    chips = display.chips(tok, text, enc, limit=MAX_CHIPS)
    shown_upto = max((c.end for c in chips), default=0) if len(chips) < len(enc) else None
    try:
        decoded = tok.decode(enc.ids, skip_special_tokens=True)
    except ValueError:  # the word and sentence tokenisers number tokens per input: no decode
        decoded = None
    n_tokens = len(enc)
    copy = {"tokenizer": name, **enc.to_dict()} if n_tokens <= MAX_COPY_TOKENS else None
    ctx.update(
        copy=copy,
        tok=tok, enc=enc, chips=chips, decoded=decoded,
        round_trip=round_trip_notes(tok, text, enc, decoded) if decoded is not None else [],
        segments=display.segments(text, enc, upto=shown_upto),
        stages=stage_members(list(trace)),
        step_link=step_link(request, tok), max_items=MAX_PANEL_ITEMS,
        downloads=export.tokenizer_downloads(name, export.formats_of(tok), pattern),
        counts={
            "chars": len(text), "bytes": len(text.encode("utf-8")),
            "words": len(text.split()), "tokens": n_tokens,
            "chars_per_token": (len(text) / n_tokens) if n_tokens else 0.0,
        },
    )
    return ctx


@router.get("/", response_class=HTMLResponse, summary="The visualiser page")
def visualiser_page(request: Request, text: str | None = None, tokenizer: str | None = None,
                    pattern: str = "", ids: bool = False, raw: bool = False,
                    special: bool = False, stored: str | None = None) -> HTMLResponse:
    """`special`: let the OpenAI encodings read `<|endoftext|>` and friends in the text as
    special tokens (otherwise they are ordinary text, as tiktoken's encode_ordinary).
    `stored`: the sha256 of a text kept by POST /permalink (a text too long for a URL)."""
    if stored is not None:
        kept = store(request).get(stored) if is_sha256(stored) else None
        if kept is None:
            raise HTTPException(404, f"no stored text has sha256 {stored}")
        return _page(request, kept, tokenizer, pattern, ids, raw, special, stored=stored)
    return _page(request, DEFAULT_TEXT if text is None else text, tokenizer, pattern, ids, raw,
                 special)


@router.post("/permalink", summary="Keep a long visualiser text and redirect to its permalink",
             description="Stores the text (content-addressed, like a corpus) and redirects to "
                         "`/?stored=<sha256>&...` with the form's settings.")
def visualiser_permalink(request: Request, text: str = Form(""),
                         tokenizer: str | None = Form(None), pattern: str = Form(""),
                         ids: bool = Form(False), raw: bool = Form(False),
                         special: bool = Form(False)) -> Response:
    check_text(request, text)
    digest = put_text(request, text, name="visualiser permalink")
    url = url_with("/", {"stored": digest, **_settings(tokenizer or default_tokenizer(), pattern,
                                                       ids, raw, special)})
    if request.headers.get("HX-Request") == "true":
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)


@router.post("/", response_class=HTMLResponse, summary="The visualiser page, for a long text",
             description="The same page as GET /, from a form body, so a text of any length up "
                         "to the limit never has to fit in a URL. htmx gets the GET permalink in "
                         "`HX-Push-Url` when it fits in a URL, else the settings without the text.")
def visualiser_post(request: Request, text: str = Form(""), tokenizer: str | None = Form(None),
                    pattern: str = Form(""), ids: bool = Form(False), raw: bool = Form(False),
                    special: bool = Form(False)) -> HTMLResponse:
    return _page(request, text, tokenizer, pattern, ids, raw, special)


def _settings(name: str, pattern: str, ids: bool, raw: bool, special: bool) -> dict[str, Any]:
    """The page's settings as URL parameters (everything but the text)."""
    return {"tokenizer": name, "pattern": pattern or None,
            **{k: "true" for k, on in (("ids", ids), ("raw", raw), ("special", special)) if on}}


def _page(request: Request, text: str, tokenizer: str | None, pattern: str, ids: bool,
          raw: bool, special: bool, stored: str | None = None) -> HTMLResponse:
    name = tokenizer or default_tokenizer()
    ctx = visualise(request, text, name, pattern, special)
    settings_only = _settings(name, pattern, ids, raw, special)
    link = url_with("/", {"text": text, **settings_only}) if text != DEFAULT_TEXT \
        else url_with("/", settings_only)
    if stored is not None:
        link = url_with("/", {"stored": stored, **settings_only})
    permalink = link if len(link) <= MAX_PERMALINK else None
    ctx.update(text=text, tokenizer=name, pattern=pattern, show_ids=ids, raw=raw, special=special,
               options=tokenizer_options(request, name), regex_name=REGEX,
               label=tokenizer_label(request, name), permalink=permalink,
               next=permalink or url_with("/", settings_only))
    response = render(request, "visualiser.html", ctx, block="result",
                      status_code=ctx["status"])
    response.headers["HX-Push-Url"] = permalink or url_with("/", settings_only)
    return response
