"""`ByteFallback`: runs of `<0xHH>` tokens read as UTF-8, as Llama 2 and Mistral chain it
(`src/decoders/byte_fallback.rs`)."""

from __future__ import annotations

import re

from .base import _Decoder


def _byte_of(token: str) -> int | None:
    """The byte a `<0xHH>` token stands for, read as Hugging Face reads it: six UTF-8 bytes,
    "<0x" ... ">", two hex digits in either case (Rust's `u8::from_str_radix`, which also takes
    a "+" sign: "<0x+F>" is 15).

    >>> _byte_of("<0x8F>"), _byte_of("<0x8f>"), _byte_of("<0x8G>"), _byte_of("<0x100>")
    (143, 143, None, None)
    """
    if len(token) > 6 or not (token.startswith("<0x") and token.endswith(">")):
        return None
    raw = token.encode("utf-8", "surrogatepass")
    if len(raw) != 6:
        return None
    digits = raw[3:5]
    if not re.fullmatch(rb"\+?[0-9A-Fa-f]+", digits):
        return None
    return int(digits, 16)


class ByteFallback(_Decoder):
    """Turn runs of byte tokens (`<0xE6>`, or `<0xe6>`) back into text: each run is read as
    UTF-8; a run that is not valid UTF-8 becomes one U+FFFD **per byte** (Hugging Face's rule).
    Other tokens pass through.

    >>> ByteFallback().decode_chain(["a", "<0xE3>", "<0x81>", "<0x82>", "b"])
    ['a', 'あ', 'b']
    >>> ByteFallback().decode_chain(["<0xE3>", "<0x81>", "c"])      # half a character
    ['\\ufffd', '\\ufffd', 'c']
    """

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()
        for token in tokens:
            b = _byte_of(token)
            if b is not None:
                run.append(b)
                continue
            _flush_bytes(run, out)
            out.append(token)
        _flush_bytes(run, out)
        return out


def _flush_bytes(run: bytearray, out: list[str]) -> None:
    if not run:
        return
    try:
        out.append(run.decode("utf-8"))
    except UnicodeDecodeError:
        out.extend("\ufffd" * len(run))
    run.clear()
