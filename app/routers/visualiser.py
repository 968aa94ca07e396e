"""The visualiser: type, and watch the tokens form (`/`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel

from tokenizers_core import pretrained
from tokenizers_core.errors import InvalidInput
from tokenizers_core.fingerprints import PROBES

from ..deps import StateDep
from ..display import special_choice, special_param
from ..errors import BAD_INPUT, bad_input
from ..render import is_fragment_request, render, url_with
from ..services.corpora import put_text
from ..services.tokenizers import (
    REGEX,
    check_text,
    fingerprint_of,
    tokenizer_label,
    tokenizer_options,
)
from ..services.visualiser import (
    DEFAULT_TEXT,
    DEFER_CHARS,
    copied,
    default_tokenizer,
    special_labels,
    token_facts,
    visualise,
    window_choices,
)
from ..state import AppState
from ..store import is_sha256

router = APIRouter(tags=["pages"])

# The form is POSTed (a long text in a URL fails before it reaches the app: uvicorn refuses a
# request line over ~16 KB); the address bar gets a GET permalink when it is at most this long.
MAX_PERMALINK = 8000


class VisualiserForm(BaseModel):
    """The visualiser's text and settings: the form the three POSTs read, and (as
    `VisualiserQuery`) the URL that GET / reads."""

    text: str = ""
    tokenizer: str | None = None
    pattern: str = ""
    ids: bool = False
    raw: bool = False
    special: str = ""
    bos: bool = True
    budget: str = ""
    decode: str = ""
    window: str = ""

    def options(self) -> dict[str, Any]:
        """The page's settings besides the text, the tokeniser and its pattern (`special`: the
        switch's value as typed; a bad one is a 422)."""
        try:
            choice = special_choice(self.special)
        except InvalidInput as exc:
            raise HTTPException(422, str(exc)) from None
        return {
            "ids": self.ids,
            "raw": self.raw,
            "special": choice,
            "bos": self.bos,
            "budget": self.budget.strip(),
            "decode": self.decode.strip(),
            "window": self.window.strip(),
        }


class VisualiserQuery(VisualiserForm):
    """GET /'s parameters: no `text` is the default text; `stored`, a text kept by POST
    /permalink."""

    text: str | None = None  # type: ignore[assignment]
    stored: str | None = None


@router.get("/", response_class=HTMLResponse, summary="The visualiser page")
def visualiser_page(
    request: Request, state: StateDep, query: Annotated[VisualiserQuery, Query()]
) -> HTMLResponse:
    """`special`: how special tokens typed in the text (`<|endoftext|>`, `<|eot_id|>`,
    `[CLS]`) are read: left out, as the tokenizer's own library does by default (Hugging Face
    matches them, tiktoken refuses the text); `true`, as special tokens; `false`, as text.
    `bos`: let the post-processor add its special tokens (BERT's [CLS]/[SEP], Llama 3's
    <|begin_of_text|>; `add_special_tokens`). `budget`: split the text at this many tokens.
    `decode`: token ids to decode ("1, 2 3" or a JSON list). `window`: the context window
    (tokens) the count is a share of; blank: the model's.
    `stored`: the sha256 of a text kept by POST /permalink (a text too long for a URL)."""
    options = query.options()
    if query.stored is not None:
        stored = query.stored
        kept = state.store.get(stored) if is_sha256(stored) else None
        if kept is None:
            raise HTTPException(404, f"no stored text has sha256 {stored}")
        return _page(request, state, kept, query.tokenizer, query.pattern, options, stored=stored)
    text = DEFAULT_TEXT if query.text is None else query.text
    return _page(request, state, text, query.tokenizer, query.pattern, options)


@router.post(
    "/permalink",
    summary="Keep a long visualiser text and redirect to its permalink",
    description="Stores the text (content-addressed, like a corpus) and redirects to "
    "`/?stored=<sha256>&...` with the form's settings.",
)
def visualiser_permalink(
    request: Request,
    state: StateDep,
    form: Annotated[VisualiserForm, Form()],
) -> Response:
    check_text(state, form.text)
    digest = put_text(state, form.text, name="visualiser permalink")
    settings = _settings(form.tokenizer or default_tokenizer(), form.pattern, form.options())
    url = url_with("/", {"stored": digest, **settings})
    if request.headers.get("HX-Request") == "true":
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)


@router.post(
    "/",
    response_class=HTMLResponse,
    summary="The visualiser page, for a long text",
    description="The same page as GET /, from a form body, so a text of any length up "
    "to the limit never has to fit in a URL. htmx gets the GET permalink in "
    "`HX-Push-Url` when it fits in a URL, else the settings without the text. A text over "
    "20,000 characters gets its count alone; the page loads the rest from POST /tokens.",
)
def visualiser_post(
    request: Request,
    state: StateDep,
    form: Annotated[VisualiserForm, Form()],
) -> HTMLResponse:
    return _page(request, state, form.text, form.tokenizer, form.pattern, form.options())


@router.post(
    "/tokens",
    response_class=HTMLResponse,
    summary="The visualiser's tokens, after its count",
    description="What the visualiser shows under the count of a long text (chips, the input "
    "cut at token boundaries, ids, decode, the pipeline), from the same form body as POST /. "
    "htmx gets that part alone; a plain POST (no JavaScript) gets the whole page with it.",
)
def visualiser_tokens(
    request: Request,
    state: StateDep,
    form: Annotated[VisualiserForm, Form()],
) -> HTMLResponse:
    options = form.options()
    return _page(request, state, form.text, form.tokenizer, form.pattern, options, block="details")


@router.post(
    "/visualiser/pipeline",
    response_class=HTMLResponse,
    summary="The visualiser's pipeline panel",
    description="The pipeline's steps for the text (normalise, pre-tokenise, model, "
    "post-process), from the same form body as POST /: the panel loads them when it is "
    "opened, so a keystroke's answer encodes the text without tracing it. A plain POST (no "
    "JavaScript) gets the whole page with them.",
)
def visualiser_pipeline(
    request: Request,
    state: StateDep,
    form: Annotated[VisualiserForm, Form()],
) -> HTMLResponse:
    options = form.options()
    return _page(request, state, form.text, form.tokenizer, form.pattern, options, block="pipeline")


@router.post(
    "/visualiser/token",
    response_class=HTMLResponse,
    summary="What the visualiser's popover says about one chip",
    description="The facts of the chip at index `i` (its raw spelling, id, offsets, bytes, "
    "where its word was built, its vocabulary entry), from the same form body as POST / "
    "with `i` and, optionally, the chip's `id` (a 422 if the text has changed since).",
)
def visualiser_token(
    request: Request,
    state: StateDep,
    form: Annotated[VisualiserForm, Form()],
    i: Annotated[int, Form(ge=0)],
    chip_id: Annotated[int | None, Form(alias="id")] = None,
) -> HTMLResponse:
    options = form.options()
    name = pretrained.canonical_name(form.tokenizer or default_tokenizer())
    text = form.text[: state.settings.max_text_chars]
    ctx: dict[str, Any] = {"error": None}
    status = 200
    try:
        ctx.update(
            token_facts(
                state, text, name, form.pattern, i, chip_id, options["special"], options["bos"]
            )
        )
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "partials/chip_pop.html", ctx, status_code=status)


@router.post(
    "/visualiser/copy",
    summary="What the visualiser's copy buttons copy",
    description="The tokens (`what=tokens`) or the whole encoding with the tokenizer's name "
    "(`what=json`) of the form's text, as JSON: the buttons fetch them when clicked, so they "
    "do not ride in every answer.",
)
def visualiser_copy(
    state: StateDep,
    form: Annotated[VisualiserForm, Form()],
    what: Literal["tokens", "json"] = "json",
) -> Any:
    options = form.options()
    name = pretrained.canonical_name(form.tokenizer or default_tokenizer())
    text = form.text[: state.settings.max_text_chars]
    try:
        return copied(state, text, name, form.pattern, what, options["special"], options["bos"])
    except BAD_INPUT as exc:
        message, status = bad_input(exc)
        raise HTTPException(status, message) from None


@router.get(
    "/fingerprint",
    response_class=HTMLResponse,
    summary="A tokeniser's fingerprint",
    description="Its file's sha256, its behaviour hash and llama.cpp's chkhsh, as GET "
    "/api/fingerprint gives them; htmx gets the hashes alone (the visualiser opens them "
    "beside the tokenizer).",
)
def fingerprint_page(
    request: Request, state: StateDep, tokenizer: str = "", pattern: str = ""
) -> HTMLResponse:
    name = tokenizer or default_tokenizer()
    ctx: dict[str, Any] = {"tokenizer": name, "pattern": pattern, "probes": len(PROBES)}
    status = 200
    try:
        ctx["fp"] = fingerprint_of(state, name, pattern or None)
        ctx["bundled"] = pretrained.is_bundled(name)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "fingerprint.html", ctx, block="fingerprint", status_code=status)


def _settings(name: str, pattern: str, options: dict[str, Any]) -> dict[str, Any]:
    """The page's settings as URL parameters (everything but the text); `bos` is on unless
    the URL says `bos=false`."""
    return {
        "tokenizer": name,
        "pattern": pattern or None,
        **{k: "true" for k in ("ids", "raw") if options[k]},
        "special": special_param(options["special"]),
        "bos": None if options["bos"] else "false",
        "budget": options["budget"] or None,
        "decode": options["decode"] or None,
        "window": options["window"] or None,
    }


def _page(
    request: Request,
    state: AppState,
    text: str,
    tokenizer: str | None,
    pattern: str,
    options: dict[str, Any],
    stored: str | None = None,
    block: str = "result",
) -> HTMLResponse:
    """A text over the limit is cut at it, and the page says so (`cut`: the length given).
    A text over DEFER_CHARS gets its count alone, unless `block` asks for the tokens (POST
    /tokens): htmx then gets that block, a plain request the whole page with it."""
    name = pretrained.canonical_name(tokenizer or default_tokenizer())  # gpt2 -> r50k_base
    limit = state.settings.max_text_chars
    cut = len(text) if len(text) > limit else None
    text = text[:limit]
    try:
        ctx = {
            "error": None,
            **visualise(
                state,
                text,
                name,
                pattern,
                options["special"],
                options["bos"],
                options["budget"],
                options["decode"],
                options["window"],
                first=block == "result" and len(text) > DEFER_CHARS,
                pipeline=block == "pipeline" or not is_fragment_request(request),
            ),
        }
        status = 200
    except BAD_INPUT as exc:  # shown in place of the result, the form kept
        message, status = bad_input(exc)
        ctx = {"error": message, **special_labels(state, name, pattern)}
    settings_only = _settings(name, pattern, options)
    if stored is not None:
        link = url_with("/", {"stored": stored, **settings_only})
    elif text == DEFAULT_TEXT:
        link = url_with("/", settings_only)
    elif len(text) <= MAX_PERMALINK:  # else its URL is longer still: not worth quoting it
        link = url_with("/", {"text": text, **settings_only})
    else:
        link = None
    permalink = link if link is not None and len(link) <= MAX_PERMALINK else None
    ctx.update(
        text=text,
        cut=cut,
        max_chars=limit,
        tokenizer=name,
        pattern=pattern,
        show_ids=options["ids"],
        raw=options["raw"],
        special=options["special"],
        bos=options["bos"],
        budget_typed=options["budget"],
        ids_typed=options["decode"],
        window_typed=options["window"],
        window_choices=window_choices(options["window"]),
        # the picker is outside the blocks an htmx request gets: no need to list the store
        options=[] if is_fragment_request(request) else tokenizer_options(state, name),
        regex_name=REGEX,
        label=tokenizer_label(state, name),
        permalink=permalink,
        next=permalink or url_with("/", settings_only),
    )
    response = render(request, "visualiser.html", ctx, block=block, status_code=status)
    if block == "result":
        response.headers["HX-Push-Url"] = permalink or url_with("/", settings_only)
    return response
