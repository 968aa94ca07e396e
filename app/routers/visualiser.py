"""The visualiser: type, and watch the tokens form (`/`)."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from .. import display
from ..deps import (BAD_INPUT, REGEX, bad_input, check_text, resolve_tokenizer, special_kwargs,
                    tokenizer_label, tokenizer_options)
from ..render import render, url_with
from ..uploads import model_family
from tokenizers_core import pretrained

router = APIRouter(tags=["pages"])

DEFAULT_TEXT = ("The tokenization handles preprocessing: naïve cafés, 東京, 3.14 and "
                "<|endoftext|> all become tokens.\n\tDon't panic!")
MAX_PANEL_ITEMS = 400

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
    chips = display.chips(tok, text, enc)
    try:
        decoded = tok.decode(enc.ids, skip_special_tokens=True)
    except ValueError:  # the word and sentence tokenisers number tokens per input: no decode
        decoded = None
    n_tokens = len(enc)
    ctx.update(
        tok=tok, enc=enc, chips=chips, decoded=decoded, segments=display.segments(text, enc),
        stages=stage_members(list(trace)),
        step_link=step_link(request, tok), max_items=MAX_PANEL_ITEMS,
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
                    special: bool = False) -> HTMLResponse:
    """`special`: let the OpenAI encodings read `<|endoftext|>` and friends in the text as
    special tokens (otherwise they are ordinary text, as tiktoken's encode_ordinary)."""
    text = DEFAULT_TEXT if text is None else text
    name = tokenizer or default_tokenizer()
    ctx = visualise(request, text, name, pattern, special)
    ctx.update(text=text, tokenizer=name, pattern=pattern, show_ids=ids, raw=raw, special=special,
               options=tokenizer_options(request, name), regex_name=REGEX,
               label=tokenizer_label(request, name),
               next=url_with("/", {"text": text, "tokenizer": name, "pattern": pattern or None}))
    return render(request, "visualiser.html", ctx, block="result", status_code=ctx["status"])
