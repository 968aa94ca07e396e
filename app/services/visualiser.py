"""The visualiser's result for a text and a tokeniser: the count first (tokens, characters, the
share of a context window), then chips, the pipeline trace, the decode and its round-trip notes,
and where a chip links to see how its word was built.

A long text (over DEFER_CHARS characters) gets its count alone (`visualise(..., first=True)`:
one encode, no trace, no chips), and the page loads the rest in a second request (POST /tokens):
a 99,000-character paste shows its count before the browser has to draw 2,000 chips."""

from __future__ import annotations

from typing import Any

from tokenizers_core import pretrained
from tokenizers_core.budget import chunks, split_at_tokens
from tokenizers_core.errors import InvalidInput, NotFound
from tokenizers_core.incremental import reencode
from tokenizers_core.tokenizations import is_canonical

from .. import display, export
from ..roundtrip import round_trip_notes
from ..state import AppState
from ..uploads import model_family
from .specials import bos_note, bos_summary, decode_pasted
from .tokenizers import resolve_tokenizer

# (no special token: typed in the text, cl100k's own library refuses one by default)
DEFAULT_TEXT = (
    "The tokenization handles preprocessing: naïve cafés, 東京, 3.14 and "
    "👍 all become tokens.\n\tDon't panic!"
)
MAX_PANEL_ITEMS = 400
MAX_COPY_TOKENS = 20_000  # the copy buttons give the tokens and the JSON up to this many
MAX_CHIPS = 2000  # chips drawn; past that the page would weigh ~0.5 KB a token (80 MB for
# 100k characters of Japanese): the counts, ids and decode still cover all
DEFER_CHARS = 20_000  # a longer text's page shows the count, and loads the chips after it
INCREMENTAL_CHARS = 20_000  # a longer text is re-encoded from the last one, where it changed

# The context window the share is of, by bundled tokenizer: the model the tokenizer was made for
# and its published window, in tokens (an uploaded tokenizer, or a tokenizer of no one model, gets
# DEFAULT_WINDOW; the page lets the reader pick another from WINDOWS).
CONTEXT_WINDOWS: dict[str, tuple[int, str]] = {
    "r50k_base": (1_024, "GPT-2"),
    "p50k_base": (4_097, "text-davinci-003"),
    "cl100k_base": (8_192, "GPT-4"),
    "o200k_base": (128_000, "GPT-4o"),
    "o200k_harmony": (131_072, "gpt-oss"),
    "bert-base-uncased": (512, "BERT"),
    "whisper_multilingual": (448, "Whisper's decoder"),
    "whisper_en": (448, "Whisper's decoder"),
    "claude_2023": (100_000, "Claude 2"),
    "qwen3": (131_072, "Qwen3"),  # its tokenizer_config.json's model_max_length
    "mistral_tekken": (128_000, "Mistral NeMo"),
    "mistral_v1": (8_192, "Mistral 7B v0.1"),
    "mistral_v3": (32_768, "Mistral 7B v0.3"),
    "mistral_v7": (32_768, "Mistral Small 3"),
    "clip": (77, "CLIP's text encoder"),
}
DEFAULT_WINDOW = 8_192
WINDOWS = (512, 2_048, 4_096, 8_192, 32_768, 128_000, 200_000, 1_000_000)
MAX_WINDOW = 100_000_000

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


def step_link(state: AppState, tok) -> tuple[str, str] | None:
    """(path, parameter) of the step-through view of `tok`'s model, if the app serves it."""
    link = STEP_LINKS.get(model_family(tok))
    if link is None:
        return None
    return link if link[0] in state.page_paths else None


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


MAX_BUDGET_CHUNKS = 100  # chunks the token budget panel cuts and lists


def trace(
    state: AppState,
    text: str,
    name: str,
    pattern: str = "",
    special: bool | None = None,
    bos: bool = True,
):
    """(tokeniser, encoding, trace) of `text`; `special` is the switch for special tokens typed
    in the text (None: the tokenizer's own library's default; True: special tokens; False:
    ordinary text; `display.special_options`); `bos`
    lets the post-processor add its special tokens ([CLS]/[SEP], <|begin_of_text|>). Raises
    NotFound / InvalidInput for a bad name or pattern."""
    tok = resolve_tokenizer(state, name, pattern)
    enc, steps = tok.trace(
        text, add_special_tokens=bos, **display.special_options(tok, special, text)
    )
    return tok, enc, steps


def parse_budget(typed: str) -> int | None:
    """The budget field: blank is no budget; else a whole number of at least 1 (ValueError).

    >>> parse_budget(""), parse_budget(" 12 ")
    (None, 12)
    """
    typed = typed.strip()
    if not typed:
        return None
    # the length first: int() refuses 5,000 digits, and reads "²" (a digit to isdigit) not
    if not (typed.isascii() and typed.isdigit()) or len(typed) > 9 or int(typed) < 1:
        raise InvalidInput(
            f"the token budget is a whole number of tokens, at least 1 (got {typed[:20]!r})"
        )
    return int(typed)


def budget_panel(
    tok, text: str, typed: str, special: bool | None, enc=None
) -> dict[str, Any] | None:
    """The token budget panel: the text cut where its first N tokens end, and the text in
    chunks of at most N tokens (the first MAX_BUDGET_CHUNKS of them); `error` instead for a
    bad budget or a single character that takes more than N tokens. None without a budget.
    `enc`: the page's own encoding of `text`, read instead of encoding the text again (the
    pieces on either side of a cut are still encoded on their own: that is the point)."""
    try:
        n = parse_budget(typed)
        if n is None:
            return None
        options = display.special_options(tok, special, text)
        offsets = text_offsets(tok, enc)
        split = split_at_tokens(tok, text, n, offsets=offsets, **options)
    except ValueError as exc:
        return {"error": str(exc)}
    try:
        parts = chunks(tok, text, n, limit=MAX_BUDGET_CHUNKS, offsets=offsets, **options)
        chunks_error = None
    except ValueError as exc:  # a later character alone takes more than n tokens
        parts, chunks_error = [], str(exc)
    return {
        "n": n,
        "error": None,
        "split": split,
        "head": text[: split.cut],
        "rest": text[split.cut :],
        "more": bool(parts) and parts[-1].end < len(text),
        "rows": [(c, text[c.start : c.end]) for c in parts],
        "chunks_error": chunks_error,
    }


def text_offsets(tok, enc) -> list[tuple[int, int]] | None:
    """The offsets of the text's own tokens in `enc` (the post-processor's left out: a special
    token with no characters), as `encode(text, add_special_tokens=False)` gives them; None
    without an encoding, or for a tokenizer that truncates or pads (its encoding is not the
    text's tokens alone)."""
    if enc is None or getattr(tok, "truncation", None) or getattr(tok, "padding", None):
        return None
    return [
        (s, e)
        for (s, e), special in zip(enc.offsets, enc.special_tokens_mask)
        if not (special and s == e)
    ]


def ids_panel(tok, typed: str) -> dict[str, Any] | None:
    """The paste-ids box's result (None when the box is empty): the decode and whether the ids
    are canonical (what encode gives for their text), or the error."""
    if not typed.strip():
        return None
    try:
        decoded = decode_pasted(tok, typed)
    except ValueError as exc:
        return {"decoded": None, "error": str(exc)}
    return {"decoded": decoded, "error": None, "canonical": canonical_note(tok, decoded.ids)}


def canonical_note(tok, ids: list[int]) -> dict[str, Any] | None:
    """Whether pasted ids are canonical: {"canonical": True}, or where they first break and
    what encode gives instead; None where the question has no answer here (special tokens, a
    model without a fixed vocabulary, a text over the bound of the space of tokenisations)."""
    try:
        found = is_canonical(tok, ids)
    except InvalidInput:
        return None
    if found is None:
        return {"canonical": True, "name": tok.name}
    return {
        "canonical": False,
        "name": tok.name,
        "index": found.index,
        "reason": found.reason,
        "canonical_ids": list(found.canonical_ids),
        "canonical_tokens": list(found.canonical_tokens),
    }


def context_window(name: str, typed: str, tokens: int) -> dict[str, Any]:
    """The window the count is a share of: the one picked (`typed`, a whole number of tokens),
    else the model's (CONTEXT_WINDOWS), else DEFAULT_WINDOW; with the share `tokens` take of it
    and the choices the picker offers. A `typed` that is not a window is ignored, and said so.

    >>> w = context_window("cl100k_base", "", 4096)
    >>> w["size"], w["model"], w["label"], w["picked"]
    (8192, 'GPT-4', '50%', False)
    >>> w = context_window("word", "1000", 1500)
    >>> w["size"], w["model"], w["share"], w["picked"], 1000 in w["choices"]
    (1000, None, 1.5, True, True)
    >>> context_window("word", "lots", 5)["error"]
    "the context window is a whole number of tokens (got 'lots')"
    """
    size, model = CONTEXT_WINDOWS.get(name, (DEFAULT_WINDOW, None))
    picked = parse_window(typed)
    error = None
    if picked is None and typed.strip():
        error = f"the context window is a whole number of tokens (got {typed.strip()[:20]!r})"
    share = tokens / (picked or size)
    return {
        "size": picked or size,
        "model": model,
        "picked": picked is not None,
        "error": error,
        "share": share,
        "label": share_label(share),
        "choices": window_choices(typed),
    }


def parse_window(typed: str) -> int | None:
    """A picked context window: a whole number of tokens from 1 to MAX_WINDOW, else None.

    >>> parse_window("4096"), parse_window(""), parse_window("0"), parse_window("²")
    (4096, None, None, None)
    """
    typed = typed.strip()
    if not (typed.isascii() and typed.isdigit()) or len(typed) > 9:
        return None
    return int(typed) if 0 < int(typed) <= MAX_WINDOW else None


def window_choices(typed: str) -> list[int]:
    """The windows the picker offers: WINDOWS, and the one in the URL if it is another."""
    picked = parse_window(typed)
    return sorted({*WINDOWS, *([picked] if picked else [])})


def share_label(share: float) -> str:
    """A share of a window as the count shows it.

    >>> [share_label(x) for x in (0, 0.0004, 0.0123, 0.5, 1.0, 3.25)]
    ['0%', '<0.1%', '1.2%', '50%', '100%', '325%']
    """
    if share == 0:
        return "0%"
    if share < 0.001:
        return "<0.1%"
    percent = share * 100
    return f"{percent:,.1f}%" if percent < 10 else f"{percent:,.0f}%"


def special_labels(state: AppState, name: str, pattern: str) -> dict[str, Any]:
    """What the special switch says for this tokenizer (its note and its default), for a page
    whose result is an error (none when the tokenizer itself is the error)."""
    try:
        tok = resolve_tokenizer(state, name, pattern)
    except (InvalidInput, NotFound):
        return {}
    return {
        "special_note": display.special_note(tok),
        "special_default": display.special_default(tok),
    }


def visualise(
    state: AppState,
    text: str,
    name: str,
    pattern: str,
    special: bool | None = None,
    bos: bool = True,
    budget: str = "",
    typed_ids: str = "",
    window: str = "",
    first: bool = False,
    pipeline: bool = True,
) -> dict[str, Any]:
    """Everything the result block shows (the caller has checked the text's length), from one
    encode of the text: the counts, the chips, the round trip and the budget all read it.
    `first`: only what the count block shows (no chips), the rest left to `details` (the page
    asks for it in a second request). `pipeline`: trace the text (one pass that gives the
    encoding and the pipeline's steps); else encode it, and the pipeline panel loads its
    steps when opened (POST /visualiser/pipeline): tracing costs up to 50 times an encode."""
    tok = resolve_tokenizer(state, name, pattern)
    options = display.special_options(tok, special, text)
    steps = None
    if pipeline and not first:
        enc, steps = tok.trace(text, add_special_tokens=bos, **options)
    else:
        enc = encoded(state, tok, text, bos, options)
    rest: dict[str, Any] = {}
    if not first:
        rest = details(state, tok, enc, steps, text, name, pattern, special, budget)
    n_tokens = len(enc)
    return dict(
        tok=tok,
        deferred=first,
        special_note=display.special_note(tok),
        special_default=display.special_default(tok),
        bos_note=bos_note(tok),
        bos_summary=bos_summary(tok),
        pasted=ids_panel(tok, typed_ids),
        window=context_window(name, window, n_tokens),
        counts={
            "chars": len(text),
            "bytes": len(text.encode("utf-8")),
            "words": len(text.split()),
            "tokens": n_tokens,
            "chars_per_token": (len(text) / n_tokens) if n_tokens else 0.0,
        },
        **rest,
    )


def encoded(state: AppState, tok, text: str, bos: bool, options: dict[str, Any]):
    """`tok.encode(text, add_special_tokens=bos, **options)`, kept in `state.encodings` for the
    requests that follow a keystroke's answer (a long text's tokens after its count, a chip's
    popover, a copy): one encode of a text, not one a request. A kept encoding is read only if
    it was made by this very tokenizer object (an upload replaced under its name is another).
    A text over INCREMENTAL_CHARS is re-encoded from the last one encoded with the same
    tokenizer and switches, only around the edit (`incremental.reencode`: the same answer)."""
    switches = (id(tok), bos, tuple(sorted(options.items())))
    key = (switches[0], text, *switches[1:])
    kept = state.encodings.get(key)
    if kept is not None and kept[0] is tok:
        return kept[1]
    last = state.last_encodings.get(switches) if len(text) > INCREMENTAL_CHARS else None
    if last is not None and last[0] is tok:
        enc = reencode(
            tok,
            last[1],
            last[2],
            text,
            min_chars=INCREMENTAL_CHARS,
            add_special_tokens=bos,
            **options,
        )
    else:
        enc = tok.encode(text, add_special_tokens=bos, **options)
    state.encodings.put(key, (tok, enc))
    state.last_encodings.put(switches, (tok, text, enc))
    return enc


def details(
    state: AppState,
    tok,
    enc,
    steps,
    text: str,
    name: str,
    pattern: str,
    special: bool | None,
    budget: str,
) -> dict[str, Any]:
    """What the page shows under the count: chips, the input cut at token boundaries, the ids
    and their decode, the pipeline's stages (None: `steps` is None, the panel loads them on
    demand), the budget panel and the downloads."""
    # the slim chips carry no step-through link (the popover works out its own word)
    chips = display.chips(tok, text, enc, links=False, limit=MAX_CHIPS)
    shown_upto = max((c.end for c in chips), default=0) if len(chips) < len(enc) else None
    try:
        decoded = tok.decode(enc.ids)  # special tokens kept, as decode does by default
    except ValueError:  # the word and sentence tokenisers number tokens per input: no decode
        decoded = None
    return dict(
        copy=len(enc) <= MAX_COPY_TOKENS,  # the buttons fetch them (POST /visualiser/copy)
        enc=enc,
        chips=chips,
        decoded=decoded,
        round_trip=round_trip_notes(tok, text, enc, decoded) if decoded is not None else [],
        segments=display.segments(text, enc, upto=shown_upto),
        stages=None if steps is None else stage_members(list(steps)),
        step_link=step_link(state, tok),
        max_items=MAX_PANEL_ITEMS,
        budget=budget_panel(tok, text, budget, special, enc),
        downloads=export.tokenizer_downloads(
            name, export.formats_of(tok), pattern, lossy=export.lossy_formats_of(tok)
        ),
    )


def token_facts(
    state: AppState,
    text: str,
    name: str,
    pattern: str,
    index: int,
    expected_id: int | None = None,
    special: bool | None = None,
    bos: bool = True,
) -> dict[str, Any]:
    """What the popover says about the chip at `index` (POST /visualiser/token): that chip, as
    the page drew it (`display.chips`), with where its word was built and its vocabulary
    entry. `expected_id`: the id the chip carries; a text that has changed since it was drawn
    gives another id there, and InvalidInput says so."""
    tok = resolve_tokenizer(state, name, pattern)
    enc = encoded(state, tok, text, bos, display.special_options(tok, special, text))
    if not 0 <= index < min(len(enc), MAX_CHIPS):
        raise InvalidInput(f"no chip {index}: the text has {len(enc):,} tokens")
    if expected_id is not None and enc.ids[index] != expected_id:
        raise InvalidInput("the text has changed since this chip was drawn")
    chip = display.chips(tok, text, enc, limit=index + 1)[index]
    return {
        "chip": chip,
        "marks": None,
        "step_link": step_link(state, tok),
        "name": tok.name,
        "vocab_name": name if tok.vocab_size else None,
    }


def copied(state: AppState, text: str, name: str, pattern: str, what: str, special, bos) -> Any:
    """What a copy button copies (POST /visualiser/copy): the tokens ("tokens") or the whole
    encoding with the tokenizer's name ("json"), as the page's encode gives them."""
    tok = resolve_tokenizer(state, name, pattern)
    enc = encoded(state, tok, text, bos, display.special_options(tok, special, text))
    if len(enc) > MAX_COPY_TOKENS:
        raise InvalidInput(f"over {MAX_COPY_TOKENS:,} tokens: use POST /api/encode")
    return enc.tokens if what == "tokens" else {"tokenizer": name, **enc.to_dict()}
