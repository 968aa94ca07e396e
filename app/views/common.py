"""What the step views share: the code panel (a textbook module's source, one line highlighted),
how a symbol is shown, the training corpus of a page, the tokenizer pickers' options and lookups,
a blank-or-whole-number field, and the one place a page turns bad input into an error shown in
place of its step. (Storing an edited corpus is `app.services.corpora.store_corpus`; the textbook
corpus is `tokenizers_core.corpora.SENNRICH`.)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Annotated, Any, Callable

from fastapi import Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel

import tokenizers_core as tc
from tokenizers_core.corpora import SENNRICH
from tokenizers_core.errors import InvalidInput

from ..deps import StateDep
from ..display import visible
from ..errors import BAD_INPUT, bad_input
from ..render import render, url_with
from ..services.corpora import store_corpus
from ..services.tokenizers import UPLOAD_PREFIX, resolve_tokenizer
from ..state import AppState
from ..trained import corpus_text as corpus_by_ref

SHOWN_CORPUS = 20_000  # a corpus this long is shown in the form's editor (longer: not shown)


@dataclass(frozen=True)
class CodePanel:
    """What a step view's code panel shows: the real source of the textbook generator that
    yields the view's steps (`lines`, from the module's CODE), the 1-based line the state is on
    (the module's `line_of`), the file to read it in, and, where the view runs a variant the
    module does not cover, one line saying what differs."""

    lines: tuple[str, ...]
    line: int
    source: str
    note: str = ""


def textbook_panel(
    module: ModuleType, step: Any, finished: bool = False, note: str = ""
) -> CodePanel:
    """The code panel of a `tokenizers_core.textbook` module at `step` (None: before any step).

    >>> from tokenizers_core.textbook import bpe_train
    >>> panel = textbook_panel(bpe_train, None)
    >>> panel.source, panel.lines[panel.line - 1].endswith("<- start")
    ('tokenizers_core/textbook/bpe_train.py', True)
    """
    return CodePanel(
        module.CODE,
        module.line_of(step, finished=finished),
        module.__name__.replace(".", "/") + ".py",
        note,
    )


def training_text(state: AppState, corpus: str, default: str = SENNRICH) -> str:
    """The text of a training view's corpus: a stored corpus (sha256) or a bundled one (name);
    blank is the view's default (the textbook corpus)."""
    return corpus_by_ref(state.store, corpus) if corpus else default


def shown_corpus(text: str) -> str:
    """The corpus as the form's editor shows it: itself, or blank when it is too long to edit."""
    return text if len(text) <= SHOWN_CORPUS else ""


def shower(byte_level: bool) -> Callable[[str], str]:
    """How a page shows a symbol: byte-level symbols as text (broken UTF-8 as <E3 81>),
    whitespace made visible.

    >>> shower(True)("ĠÃ©"), shower(False)("a b")
    ('·é', 'a·b')
    """
    from tokenizers_core.models.bpe.model import token_text

    return lambda symbol: token_text(symbol, byte_level, visible)


def after(step: Any) -> tuple[str, ...]:
    """A piece's parts after an encoding step: a merge joins two parts; a whole-word step
    (ignore_merges) leaves the word; byte fallback / unknown puts each replaced symbol's
    stand-ins in its place."""
    p = step.parts
    action = getattr(step, "action", "merge")
    if action == "whole_word":
        return (step.merged,)
    if action != "merge":
        instead = {pos: tuple(rep) for pos, _sym, rep in step.replaced}
        return tuple(x for i, part in enumerate(p) for x in instead.get(i, (part,)))
    return p[: step.chosen] + (step.merged,) + p[step.chosen + 2 :]


def whole(text: str | None, name: str = "vocab_size") -> int | None:
    """A form field that may be blank (None: use the default).

    >>> whole(" 30 "), whole("")
    (30, None)
    """
    if text is None or not str(text).strip():
        return None
    try:
        return int(str(text).strip())
    except ValueError:
        raise InvalidInput(f"{name} must be a whole number, got {text!r}") from None


def in_place(ctx: dict[str, Any], build: Callable[[], dict[str, Any] | None]) -> int:
    """Run `build` and add what it returns to the page's context; bad input (an unknown name:
    404, anything else the core refuses: 422) becomes `ctx["error"]`, shown where the step
    would be, so the page keeps its form and what the user typed. Returns the status."""
    try:
        ctx.update(build() or {})
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
        return status
    return 200


def posted_corpus(
    request: Request,
    state: AppState,
    ctx: dict[str, Any],
    template: str,
    path: str,
    *,
    use: str,
    corpus: str,
    corpus_text: str,
    params: dict[str, Any],
    check: Callable[[str], Any] = lambda digest: None,
) -> Response:
    """A training form's POST: "Train" (`use=pick`) takes the picked corpus; "Use this corpus"
    (or a bare POST of `corpus_text`) stores the edited text; `check(digest)` validates the
    options. Either way a redirect to the page's permalink (`path` with `params` and the
    corpus), or on bad input the form again, the error in place and the text as typed."""
    digest = ""

    def build() -> None:
        nonlocal digest
        digest = corpus if use == "pick" else store_corpus(state, corpus_text)
        check(digest)

    status = in_place(ctx, build)
    if ctx["error"] is not None:
        ctx["corpus_text"] = corpus_text
        return render(request, template, ctx, status_code=status)
    query = {"corpus": None, **params}  # the corpus first in the permalink
    query["corpus"] = digest or None
    return RedirectResponse(url_with(path, query), status_code=303)


class TrainForm(BaseModel):
    """What every training form POSTs: the picked corpus (`corpus`), or the edited text
    (`corpus_text`), and the button pressed (`use`); a family's form adds its options."""

    corpus_text: str = ""
    corpus: str = ""
    use: str = ""


def train_post(
    path: str,
    template: str,
    form_type: type[TrainForm],
    shown: Callable[[Any], dict[str, Any]],
    params: Callable[[Any], dict[str, Any]],
    check: Callable[[Any, str], Any] = lambda form, digest: None,
    elsewhere: Callable[[Any], str | None] = lambda form: None,
) -> Callable[..., Response]:
    """The route of a family's training-form POST (`path`), the same for every family: the
    form's options as `form_type` reads them, the form again as `shown(form)` renders it (the
    error in place), the permalink's `params(form)`, `check(form, digest)` validating the
    options, and `elsewhere(form)`: a URL to redirect to instead, or None. See posted_corpus."""

    def train_post(request: Request, state: StateDep, form: TrainForm) -> Response:
        """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus"
        (or a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to
        the page's permalink."""
        url = elsewhere(form)
        if url is not None:
            return RedirectResponse(url, status_code=303)
        return posted_corpus(
            request,
            state,
            shown(form),
            template,
            path,
            use=form.use,
            corpus=form.corpus,
            corpus_text=form.corpus_text,
            params=params(form),
            check=lambda digest: check(form, digest),
        )

    # the family's own form model, read from the form body (an annotation FastAPI reads as an
    # object: a string would name `form_type` in this module's globals, where it is not)
    train_post.__annotations__["form"] = Annotated[form_type, Form()]
    return train_post


# ---- the tokenizer pickers' options --------------------------------------------------------------
def _with_current(out: list[dict[str, str]], current: str, label: str) -> list[dict[str, str]]:
    """`current` (a trained handle typed into the URL) appended when no option names it."""
    if (
        current
        and not current.startswith(UPLOAD_PREFIX)
        and not any(
            o["value"] == current or current in tc.pretrained.aliases_of(o["value"]) for o in out
        )
    ):
        out.append({"value": current, "label": label})
    return out


def bpe_options(current: str) -> list[dict[str, str]]:
    """The bundled BPE tokenizers (with their aliases), and `current` if it is a trained one."""
    out = []
    for name, entry in tc.pretrained.bundled().items():
        if entry.algorithm in ("bpe", "byte_bpe", "sentencepiece_bpe"):
            aliases = tc.pretrained.aliases_of(name)
            out.append(
                {
                    "value": name,
                    "label": entry.label + (f" ({', '.join(aliases)})" if aliases else ""),
                }
            )
    return _with_current(out, current, f"trained: {current}")


def wordpiece_options(current: str) -> list[dict[str, str]]:
    """The editable small vocabulary, the bundled WordPiece vocabularies, and `current`."""
    out = [{"value": "small", "label": "small (editable)"}]
    out += [
        {"value": name, "label": entry.label}
        for name, entry in tc.pretrained.bundled().items()
        if entry.algorithm == "wordpiece"
    ]
    return _with_current(out, current, f"trained: {current}")


def unigram_options(current: str) -> list[dict[str, str]]:
    """The tiny demo model, the bundled Unigram models, and `current`."""
    out = [{"value": "tiny", "label": "tiny demo (▁cat scores high)"}]
    out += [
        {"value": name, "label": entry.label}
        for name, entry in tc.pretrained.bundled().items()
        if entry.algorithm == "unigram"
    ]
    return _with_current(out, current, f"trained: {current[:24]}")


# ---- the tokenizers a step view runs on ----------------------------------------------------------
def wordpiece_tokenizer(state: AppState, vocab: str, vocab_text: str) -> tc.Tokenizer:
    """`vocab=small` (BERT's pipeline over the edited vocabulary) or a WordPiece tokenizer's
    name; ValueError for any other kind of tokenizer."""
    from tokenizers_core.implementations.bert import bert_pipeline
    from tokenizers_core.models.wordpiece.model import WordPiece, vocab_from_text

    if vocab == "small":
        return bert_pipeline(vocab_from_text(vocab_text), name="small")
    tok = resolve_tokenizer(state, vocab)
    if not isinstance(tok.model, WordPiece):
        raise InvalidInput(
            f"{vocab!r} is a {tok.algorithm or 'non-WordPiece'} tokeniser; this "
            "view steps through WordPiece (try bert-base-uncased)"
        )
    return tok


def unigram_model(state: AppState, name: str) -> tc.Tokenizer:
    """The tokenizer behind `model=` (`tiny` is the demo); ValueError if it is not Unigram."""
    from tokenizers_core.implementations.unigram import demo_tokenizer

    if name == "tiny":
        return demo_tokenizer()
    tok = resolve_tokenizer(state, name)
    if not hasattr(tok.model, "viterbi_steps"):
        raise InvalidInput(
            f"{name!r} is a {tok.algorithm or 'non-Unigram'} tokeniser; the lattice "
            "view steps through Unigram models (try tiny or botchan_en_unigram_1000)"
        )
    return tok
