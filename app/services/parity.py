"""The parity view's data: one tokenizer as each runtime reads it (`tokenizers_core.runtime_parity`)
on the user's texts, drawn as a table of chips (a row per text, a column per runtime, the cells
that differ from the reference runtime marked), and the first mismatch drawn as the diff view
draws a divergence (`partials/diff_row.html`).

An uploaded tokenizer is read from its stored file: a tokenizer.json or a model folder's zip
gives tokenizers its tokenizer.json alone and transformers the folder (its tokenizer_config),
each parsed by the uploads' own parser (the server's sandbox) and its file's patterns run under
the regex time limit; any other upload is read from its parsed tokenizer. Readings are kept per
tokenizer object while it lives (building a GGUF of Qwen3 takes a second).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

from tokenizers_core import pretrained
from tokenizers_core.diff import DiffReport
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats import model_folder
from tokenizers_core.runtime_parity import (
    ParityReport,
    Readings,
    compare,
    read_runtimes,
    readings_of,
)

from .. import display
from ..errors import TooLarge
from ..state import AppState
from ..uploads import PREFIX as UPLOAD_PREFIX
from . import diff as diff_view
from .tokenizers import REGEX, check_text, resolve_tokenizer, tokenizer_label

DEFAULT_TOKENIZER = "qwen3"
# texts where Qwen3's runtimes part (its tokenizer.json normalises to NFC, its GGUF does not)
DEFAULT_TEXTS = (
    "Hello, world!",
    "cafe\u0301 au lait: an e, then a combining accent",
    "Ame\u0301lie and Zoe\u0308",
    "  two  spaces\tand a tab",
    "日本語の文章 🙂",
)
MAX_TEXTS = 200
MAX_CELL_TOKENS = 200  # chips drawn per cell (the ids are all in the JSON)

_READINGS: weakref.WeakKeyDictionary[Any, Readings] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Cell:
    runtime: str
    chips: list[display.Chip]
    marks: set[int]  # chips (by index) that the reference runtime does not have
    differs: bool
    error: str | None
    more: int  # tokens past the chips drawn
    round_trip: bool | None


@dataclass(frozen=True)
class TableRow:
    index: int
    text: str
    same: bool
    cells: list[Cell]


def parse_texts(raw: str) -> list[str]:
    """A textarea's texts: one per line (its CRLF a line end), empty lines left out.

    >>> parse_texts("one\\r\\n\\ntwo\\n")
    ['one', 'two']
    """
    lines = (line[:-1] if line.endswith("\r") else line for line in raw.split("\n"))
    return [line for line in lines if line]


def check_texts(state: AppState, texts: list[str]) -> None:
    """At least one text, at most MAX_TEXTS, and all of them within the text limit (TooLarge,
    413, past a limit; InvalidInput, 422, for none)."""
    if not texts:
        raise InvalidInput("give at least one text (one per line)")
    if len(texts) > MAX_TEXTS:
        raise TooLarge(f"{len(texts):,} texts; parity runs at most {MAX_TEXTS} at a time")
    check_text(state, "\n".join(texts), "texts together")


def readings(state: AppState, name: str) -> Readings:
    """Each runtime's reading of the tokenizer `name` names (a bundled one, an upload, a
    trained handle); UnknownTokenizer (404) for a name nobody knows."""
    if name == REGEX:
        raise InvalidInput("the custom regex tokenizer is no runtime's file: choose another")
    label = tokenizer_label(state, name) if name.startswith(UPLOAD_PREFIX) else name
    if pretrained.is_bundled(name):
        return read_runtimes(pretrained.canonical_name(name), label=name)
    tok = resolve_tokenizer(state, name)
    with _LOCK:
        known = _READINGS.get(tok)
    if known is not None:
        return known
    found = _upload_readings(state, name, label) if name.startswith(UPLOAD_PREFIX) else None
    found = found or read_runtimes(tok, parse=state.uploads.parser, label=label)
    with _LOCK:
        _READINGS[tok] = found
    return found


def _upload_readings(state: AppState, handle: str, label: str) -> Readings | None:
    """An uploaded tokenizer.json or model folder read from its stored file (None for the
    other formats: their parsed tokenizer is read)."""
    info = state.uploads.info(handle)
    if not info or info["format"] not in ("hf_json", "model_folder"):
        return None
    data = state.uploads.store.get_file(info["sha256"])
    if data is None:
        return None
    files = (
        model_folder.read_zip(data, state.settings.max_tokenizer_bytes)
        if info["format"] == "model_folder"
        else {model_folder.TOKENIZER: data}
    )
    found = readings_of(files, label, parse=state.uploads.parser)
    for tok in found.tokenizers.values():  # the file's own patterns, under the limit
        tok.limit_regex_time(state.settings.regex_timeout)
        tok.normalizer_runner = state.uploads.normalizer_runner
    return found


def run(state: AppState, name: str, texts: list[str], special: bool | None) -> ParityReport:
    check_texts(state, texts)
    return compare(readings(state, name), texts, special=special)


def table(report: ParityReport, found: Readings) -> list[TableRow]:
    """The report as the page's table: a row per text, a cell per runtime."""
    return [_table_row(report, found, row) for row in report.rows]


def _table_row(report: ParityReport, found: Readings, row: Any) -> TableRow:
    ref = report.runtimes[0]
    ref_enc = row.encodings.get(ref)
    ref_spans = set(zip(ref_enc.ids, ref_enc.offsets)) if ref_enc is not None else set()
    cells = []
    for runtime in report.runtimes:
        enc = row.encodings.get(runtime)
        if enc is None:
            cells.append(Cell(runtime, [], set(), True, row.errors.get(runtime), 0, None))
            continue
        tok = found.tokenizers[runtime]
        chips = display.chips(tok, row.text, enc, links=False, limit=MAX_CELL_TOKENS)
        marks = (
            {c.index for c in chips if (c.id, (c.start, c.end)) not in ref_spans}
            if runtime != ref
            else set()
        )
        differs = row.ids[runtime] != row.ids[ref]
        more = max(0, len(enc) - len(chips))
        cells.append(Cell(runtime, chips, marks, differs, None, more, row.round_trip.get(runtime)))
    return TableRow(row.index, row.text, row.same, cells)


def mismatch_row(report: ParityReport, found: Readings) -> tuple[Any, DiffReport] | None:
    """The first mismatch as the diff view draws a divergence (its row and a one-text report
    naming the two runtimes), or None when there is none or it is no divergence (a refusal)."""
    first = report.first_mismatch
    if first is None or first.divergence is None:
        return None
    a, b = first.runtimes
    one = DiffReport(a=a, b=b, texts=1, identical=0, differences=(first.divergence,))
    rows = diff_view.rows(one, found.tokenizers[a], found.tokenizers[b], 0)
    return rows[0], one


STAGE_HELP = {
    **diff_view.STAGE_HELP,
    "refused": "One runtime refused the text (tiktoken refuses a special token typed in it, "
    "unless the special switch says how to read it).",
    "special tokens": "The two read the special tokens typed in the text differently.",
}
