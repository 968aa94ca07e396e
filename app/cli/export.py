"""`tokvis export NAME|FILE -o OUT`: a tokeniser written in another format; a format that does
not reproduce it exactly needs `--lossy` (else exit status 2 and what would change)."""

from __future__ import annotations

import argparse
import sys

from tokenizers_core import formats
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats import gguf_writer
from tokenizers_core.formats.exactness import Exactness, exactness

from .inputs import load_tokenizer, save, tokenizer_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="convert a tokeniser (bundled or a file) to another format "
        "(.json, .tiktoken, .model, .txt, .zip, .gguf)",
    )
    p.add_argument("source", metavar="NAME|FILE")
    p.add_argument("-o", "--output", required=True, metavar="OUT")
    p.add_argument(
        "--format",
        dest="out_format",
        metavar="F",
        help="the saved format (default: from OUT's extension)",
    )
    p.add_argument(
        "--lossy",
        action="store_true",
        help="write a format that does not reproduce the tokeniser exactly",
    )
    p.add_argument(
        "--gguf-pre",
        metavar="NAME",
        help="a .gguf's tokenizer.ggml.pre: one of "
        "llama.cpp's pre-tokenizer names instead of the one that splits text most "
        "like the tokeniser (e.g. default, to see what a wrong one does)",
    )
    tokenizer_options(p)
    p.set_defaults(run=export)


def export(args: argparse.Namespace) -> int:
    """Write the tokeniser in another format; a format that does not reproduce it exactly
    needs --lossy (else exit status 2 and what would change)."""
    tok = load_tokenizer(args.source, args)
    fmt = formats.format_for_path(args.output, args.out_format)
    if args.gguf_pre is not None and fmt != "gguf":
        raise InvalidInput("--gguf-pre names a GGUF file's pre-tokenizer: write a .gguf")
    said = (
        exactness(tok, fmt)
        if args.gguf_pre is None
        else Exactness(fmt, changes=tuple(gguf_writer.changes(tok, pre=args.gguf_pre)))
    )
    if said.lossy and not args.lossy:
        print(
            f"tokvis export: error: {args.output} ({fmt}) would not reproduce {args.source} "
            f"exactly: {' '.join(said.changes)} Give --lossy to write it anyway.",
            file=sys.stderr,
        )
        return 2
    if args.gguf_pre is None:
        written = save(tok, args.output, fmt)
    else:
        written = fmt
        _write_bytes(args.output, gguf_writer.dump_bytes(tok, pre=args.gguf_pre))
    print(f"wrote {args.output} ({written}, {tok.vocab_size:,} tokens)", file=sys.stderr)
    for change in said.changes:
        print(f"  changed: {change}", file=sys.stderr)
    if said.pattern is not None:
        preset = getattr(tok, "preset", None)
        print(
            f"  load it with the pattern {preset or said.pattern} and the special tokens "
            "again (the file holds neither)",
            file=sys.stderr,
        )
    return 0


def _write_bytes(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise InvalidInput(f"cannot write {path!r}: {exc.strerror}") from None
