"""The diff view's data: two tokenisers on the same texts (`tokenizers_core.diff`), with the
texts from a corpus (bundled or stored), a pasted text, or the generated stress set, and the
differing texts drawn as chips around their first divergence, a page at a time.

A corpus is cut at MAX_CORPUS_CHARS characters (at a line boundary) and the page says so:
diffing 1 MB takes a few seconds, so the request does it while the user waits, with htmx's
busy indicator, rather than queueing a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tokenizers_core as tc
from tokenizers_core.diff import DiffReport, Divergence, corpus_texts, diff, stress_texts
from tokenizers_core.errors import InvalidInput

from .. import display
from ..state import AppState
from ..trained import corpus_text
from .tokenizers import check_text, resolve_tokenizer, tokenizer_label

DEFAULT_A, DEFAULT_B = "cl100k_base", "o200k_base"
SOURCES = {"stress": "the stress set", "corpus": "a corpus", "text": "pasted text"}
DEFAULT_SOURCE = "stress"
DEFAULT_CORPUS = "botchan"
MAX_CORPUS_CHARS = 1_000_000
PAGE_SIZE = 20
STAGE_HELP = {
    "added tokens": "One tokeniser matched an added token (a special-token string) in the text "
    "where the other did not.",
    "normaliser": "The normalised texts differ (case, accents, Unicode forms, spaces).",
    "pre-tokenizer split": "The pre-tokenizers cut the text into different pieces.",
    "model": "The pieces are the same, but the models split a piece into different tokens "
    "or number the same tokens differently.",
    "post-processor": "The tokens are the same, but the post-processors add different special "
    "tokens (BOS, EOS).",
}


@dataclass(frozen=True)
class Texts:
    texts: list[str]
    label: str  # where they come from, for people
    cut: int | None  # the corpus length in characters, when it was cut


@dataclass(frozen=True)
class Row:
    """One differing text as the page draws it: the divergence and each side's chips."""

    d: Divergence
    chips_a: list[display.Chip]
    chips_b: list[display.Chip]
    more_before: bool  # tokens left out before the window
    more_after_a: bool
    more_after_b: bool
    # each side's tokens and pieces as text, with the spelling the pipeline uses when it differs
    # (a byte-level model's `à®µ` for `வ`): see `spelled`
    words_a: tuple[tuple[str, str], ...] = ()
    words_b: tuple[tuple[str, str], ...] = ()
    piece_a: tuple[str, str] | None = None
    piece_b: tuple[str, str] | None = None
    token: tuple[str, str] | None = None  # the renumbered token (stage "model", ids only)

    @property
    def byte_spelled(self) -> bool:
        """Some evidence of this row is shown decoded from a byte-level spelling."""
        pairs = [*self.words_a, *self.words_b, self.piece_a, self.piece_b, self.token]
        return any(p and p[0] != p[1] for p in pairs)

    @property
    def has_partial(self) -> bool:
        """Some chip shows its share of a character cut across tokens (`<E0 AE>`)."""
        return any(c.partial for c in (*self.chips_a, *self.chips_b))


def load_texts(state: AppState, source: str, corpus: str, text: str) -> Texts:
    """The texts of a source ("stress", "corpus" or "text"). Raises ValueError for an unknown
    source, NotFound for an unknown corpus."""
    if source == "stress":
        return Texts(stress_texts(), "the stress set", None)
    if source == "text":
        check_text(state, text)
        return Texts(corpus_texts(text), "the pasted text", None)
    if source != "corpus":
        raise InvalidInput(f"unknown text source {source!r}: use one of {', '.join(SOURCES)}")
    full = corpus_text(state.store, corpus)
    kept = (
        full
        if len(full) <= MAX_CORPUS_CHARS
        else full[: full.rfind("\n", 0, MAX_CORPUS_CHARS) + 1 or MAX_CORPUS_CHARS]
    )
    name = corpus if len(corpus) != 64 else corpus[:12] + "…"
    return Texts(corpus_texts(kept), f"the corpus {name}", len(full) if kept != full else None)


def run(state: AppState, a: str, b: str, texts: Texts) -> tuple[DiffReport, Any, Any]:
    """The report of tokenisers `a` and `b` on `texts`, and the two tokenisers."""
    tok_a, tok_b = resolve_tokenizer(state, a), resolve_tokenizer(state, b)
    report = diff(
        tok_a, tok_b, texts.texts, names=(tokenizer_label(state, a), tokenizer_label(state, b))
    )
    return report, tok_a, tok_b


def pages(report: DiffReport) -> int:
    return max(1, -(-len(report.differences) // PAGE_SIZE))


def rows(report: DiffReport, tok_a: Any, tok_b: Any, page: int) -> list[Row]:
    """The differing texts of page `page` (0-based), as chips around each divergence."""
    shown = report.differences[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    return [_row(d, tok_a, tok_b) for d in shown]


def spelled(tok: Any, value: str) -> tuple[str, str]:
    """(the text a token or piece stands for, its spelling in `tok`'s pipeline): a byte-level
    model writes each UTF-8 byte as one printable character, so `வ` is spelt `à®µ` and a space
    `Ġ`; other models' spellings (`##ing`, `▁cat`) are shown as they are. Bytes that are not
    whole characters are shown as `<E0 AE>`.

    >>> import tokenizers_core as tc
    >>> spelled(tc.load("gpt2"), "ĠcafÃ©")
    ('·café', 'ĠcafÃ©')
    >>> spelled(tc.load("bert-base-uncased"), "##ing")
    ('##ing', '##ing')
    """
    if not display.is_byte_level(tok):
        return value, value
    head, stem, tail = display.split_markers(tok.model, value)
    return head + display.token_label(display.stream_bytes(tok, stem, stem)) + tail, value


def _row(d: Divergence, tok_a: Any, tok_b: Any) -> Row:
    enc_a, enc_b = tok_a.encode(d.text), tok_b.encode(d.text)
    ev = d.evidence
    extra: dict[str, Any] = {}
    if d.stage == "model" and "word" in ev:
        extra["words_a"] = tuple(spelled(tok_a, t) for t in ev["a"])
        extra["words_b"] = tuple(spelled(tok_b, t) for t in ev["b"])
    elif d.stage == "model":
        extra["token"] = spelled(tok_a, ev["token"])
    elif d.stage == "pre-tokenizer split":
        for side, tok in (("a", tok_a), ("b", tok_b)):
            if ev.get(side):
                extra[f"piece_{side}"] = (display.visible(ev[side]["text"]), ev[side]["piece"])
    return Row(
        d,
        _window_chips(tok_a, d.text, enc_a, d.window_a),
        _window_chips(tok_b, d.text, enc_b, d.window_b),
        more_before=bool(
            d.window_a and d.window_a[0][0] > 0 or d.window_b and d.window_b[0][0] > 0
        ),
        more_after_a=bool(d.window_a) and d.window_a[-1][0] + 1 < len(enc_a),
        more_after_b=bool(d.window_b) and d.window_b[-1][0] + 1 < len(enc_b),
        **extra,
    )


def _window_chips(tok: Any, text: str, enc: tc.Encoding, window: tuple) -> list[display.Chip]:
    """The visualiser's chips of the tokens in `window` (their indices in `enc`)."""
    if not window:
        return []
    lo, hi = window[0][0], window[-1][0] + 1
    return display.chips(tok, text, enc, links=False, limit=hi)[lo:hi]


def api_report(report: DiffReport, limit: int) -> dict[str, Any]:
    """The JSON answer: the summary and the first `limit` differing texts."""
    data = report.to_dict()
    data["differences"] = data["differences"][:limit]
    data["differing"] = len(report.differences)
    return data
