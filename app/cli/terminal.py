"""How the command shows things in a terminal: token chips, a table, a progress bar.

Chips are `app.display.chips`, the same values the web draws: whitespace made visible (`·` for a
space, `↵` for a newline, `→` for a tab); a character cut across tokens is drawn once, by the
token that completes it, and the tokens before it show their bytes as `<E3 81>` (the same for
a ranks file, a tokenizer.json or a vocab.json + merges.txt). With colour, each chip gets the
background of its web colour (xterm's 256 colours, nearest to the Okabe-Ito tints of
static/app.css); without, chips are separated by a space (a token's own spaces are shown as `·`,
so a real space is always a boundary). An unknown token shows what it stands for, in words:
`[UNK ☃]`, with colour or without.
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO, Iterable, Sequence

import tokenizers_core as tc

from .. import display

# chip-0 .. chip-7 of static/app.css (Okabe-Ito at 20% on white), as xterm-256 backgrounds
_BACKGROUNDS = (223, 153, 158, 229, 189, 217, 225, 252)
_RESET = "\x1b[0m"
_SEPARATOR = " "  # unambiguous: a token's own spaces show as ·


def use_colour(choice: bool | None, stream: IO[str]) -> bool:
    """`--color` / `--no-color`, else colour on a terminal unless NO_COLOR is set."""
    if choice is not None:
        return choice
    return stream.isatty() and not os.environ.get("NO_COLOR")


def chip_line(tok: tc.Tokenizer, text: str, enc: tc.Encoding, colour: bool) -> str:
    """The tokens as chips; a chip whose text ends a line ends the printed line too.

    >>> tok = tc.load("word")
    >>> enc = tok.encode("hi there")
    >>> chip_line(tok, "hi there", enc, colour=False)
    'hi there'
    """
    lines: list[list[str]] = [[]]
    for chip in display.chips(tok, text, enc, links=False):
        label = chip.text
        if chip.mark == "unk":  # marked in words, so not by colour alone
            label = f"[UNK {label}]"
        if colour:
            style = "1;7" if chip.special else f"30;48;5;{_BACKGROUNDS[chip.colour]}"
            label = f"\x1b[{style}m{label}{_RESET}"
        lines[-1].append(label)
        if not chip.special and text[chip.start : chip.end].endswith("\n"):
            lines.append([])
    joiner = "" if colour else _SEPARATOR
    return "\n".join(joiner.join(line) for line in lines if line)


def table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    """A plain text table, numbers right-aligned.

    >>> print(table([("gpt2", 3, "1.67")], ("tokenizer", "tokens", "chars/token")))
    tokenizer  tokens  chars/token
    gpt2            3         1.67
    """
    cells = [list(map(str, header))] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    numeric = [all(_is_number(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for r in cells:
        parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(r, widths, numeric)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def _cell(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) or str(value).replace(".", "", 1).isdigit()


class Progress:
    """A one-line progress bar on `stream` (stderr), redrawn at most ten times a second and
    shown only once a run has lasted `delay` seconds (short runs print nothing)."""

    def __init__(
        self,
        label: str,
        total: int | None,
        unit: str,
        stream: IO[str] = sys.stderr,
        enabled: bool = True,
        delay: float = 0.5,
        width: int = 30,
    ) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.stream, self.enabled, self.delay, self.width = stream, enabled, delay, width
        self.start = time.monotonic()
        self._drawn = 0.0
        self._shown = False

    def update(self, done: int, note: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or now - self._drawn < 0.1:
            return
        self._drawn = now
        self._draw(done, note, now)

    def _draw(self, done: int, note: str, now: float) -> None:
        if self.total:
            filled = min(self.width, self.width * done // self.total)
            bar = (
                f"[{'#' * filled}{'.' * (self.width - filled)}] {done:,}/{self.total:,} {self.unit}"
            )
        else:
            bar = ""  # an open-ended run: the note says it all
        text = " ".join(x for x in (self.label, bar, note, f"{now - self.start:.1f} s") if x)
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self._shown = True

    def close(self, done: int, note: str = "") -> None:
        """Draw the final state (if the bar was shown) and end its line."""
        if self._shown:
            self._draw(done, note, time.monotonic())
            self.stream.write("\n")
            self.stream.flush()


def pairs_text(pairs: Iterable[tuple[str, str]], show=display.visible) -> str:
    """Merges as `a + b`, comma-separated.

    >>> pairs_text([("l", "o"), ("lo", "w")])
    'l + o, lo + w'
    """
    return ", ".join(f"{show(a)} + {show(b)}" for a, b in pairs)
