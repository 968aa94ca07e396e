"""What several `tokvis` commands take: the options they share (a text, a tokenizer file's
options, the special-token switch, colour) and how their values are read.

Reading fails with InvalidInput (a ValueError) saying what to give instead; `main` prints it as
one line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from itertools import chain
from typing import Any, Iterable, Iterator

import tokenizers_core as tc
from tokenizers_core import formats, pretrained
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.counting.shards import Shard, read_blocks


# ---- the options -------------------------------------------------------------------------------
def text_source(p: argparse.ArgumentParser) -> None:
    """The text of `encode` and `compare`: TEXT, `-` for stdin, or `-f FILE` (one of them)."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("text", nargs="?", metavar="TEXT|-", help="the text, or - to read stdin")
    source.add_argument(
        "-f", "--file", metavar="FILE", help="read the text from FILE (UTF-8) instead of TEXT"
    )


def special_switch(p: argparse.ArgumentParser) -> None:
    """`--special` / `--no-special`: the one switch for special tokens typed in the text, as
    the page's and the API's `special` (left out: the tokenizer's own library's default)."""
    p.add_argument(
        "--special",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="special tokens typed in the text (<|endoftext|>, <|eot_id|>, [CLS]): --special "
        "reads them as special tokens, --no-special as ordinary text; left out, as the "
        "tokenizer's own library does (Hugging Face matches them, tiktoken refuses the text)",
    )
    # the old spelling of --special, kept working
    p.add_argument(
        "--allow-special", dest="special", action="store_const", const=True, help=argparse.SUPPRESS
    )


def tokenizer_options(p: argparse.ArgumentParser) -> None:
    """The options of a tokenizer file given instead of a bundled name (`load_tokenizer`)."""
    g = p.add_argument_group("tokenizer files (not the bundled names)")
    g.add_argument(
        "--from",
        dest="in_format",
        metavar="F",
        help="the file's format, if sniffing its content is not enough: hf_json, "
        "tiktoken, sentencepiece, vocab_txt",
    )
    g.add_argument(
        "--pattern",
        help="a tiktoken ranks file's split pattern: a preset (gpt2, "
        "cl100k, o200k, llama3, ...) or a regex",
    )
    g.add_argument(
        "--special-tokens",
        metavar="JSON",
        help="a tiktoken ranks file's special tokens, "
        """e.g. '{"<|endoftext|>": 100257}'""",
    )
    case_switch(g)


def case_switch(g: argparse._ActionsContainer) -> None:
    """`--lowercase` / `--cased` (WordPiece), for a vocab.txt and for training."""
    case = g.add_mutually_exclusive_group()
    case.add_argument(
        "--lowercase",
        dest="lowercase",
        action="store_true",
        default=None,
        help="lowercase the text first (WordPiece)",
    )
    case.add_argument(
        "--cased", dest="lowercase", action="store_false", help="keep the case (WordPiece)"
    )


def colour_switch(p: argparse.ArgumentParser) -> None:
    """`--color` / `--no-color` (left out: colour on a terminal; `terminal.use_colour`)."""
    c = p.add_mutually_exclusive_group()
    c.add_argument(
        "--color",
        "--colour",
        dest="colour",
        action="store_true",
        default=None,
        help="colour the chips even when the output is not a terminal",
    )
    c.add_argument(
        "--no-color",
        "--no-colour",
        dest="colour",
        action="store_false",
        help="never colour (also: NO_COLOR=1)",
    )


# ---- reading them ------------------------------------------------------------------------------
def read_text(arg: str | None, path: str | None = None) -> str:
    """The TEXT argument, stdin for `-`, or the file `path` (`-f FILE`), read as UTF-8."""
    if path is not None:
        if arg is not None:
            raise InvalidInput("give the text as TEXT or as -f FILE, not both")
        try:
            with open(path, "rb") as fh:
                return utf8(fh.read(), path)
        except OSError as exc:
            raise InvalidInput(f"{path}: {exc.strerror or exc}") from None
    if arg is None:
        raise InvalidInput("give the text: TEXT, - to read stdin, or -f FILE")
    if arg != "-":
        return arg
    return utf8(sys.stdin.buffer.read(), "stdin")


def read_corpus(arg: str) -> tuple[str, str]:
    """(text, label) of a CORPUS argument: `-` (stdin), a file, or a bundled corpus name."""
    if arg == "-":
        return utf8(sys.stdin.buffer.read(), "stdin"), "stdin"
    if os.path.isfile(arg):
        with open(arg, "rb") as fh:
            return utf8(fh.read(), arg), arg
    if arg in corpus_names():
        return load_corpus(arg), arg
    raise InvalidInput(
        f"{arg}: no such file, and not a bundled corpus (botchan, udhr/eng, udhr/<code>, ...)"
    )


class CorpusLines:
    """The lines of a CORPUS argument as they are read (a file as a stream of blocks, never one
    string; stdin and a bundled corpus whole), counting the lines and characters read."""

    def __init__(self, arg: str) -> None:
        if arg != "-" and not os.path.isfile(arg) and arg not in corpus_names():
            read_corpus(arg)  # (raises: no such file, not a bundled corpus)
        self.arg = arg
        self.label = "stdin" if arg == "-" else arg
        self.lines = self.chars = 0

    def __iter__(self) -> Iterator[str]:
        if os.path.isfile(self.arg):
            shard = Shard(self.arg, 0, os.path.getsize(self.arg))
            source: Iterable[str] = chain.from_iterable(read_blocks(shard))
        else:
            source = read_corpus(self.arg)[0].splitlines()
        for line in source:
            self.lines += 1
            self.chars += len(line)
            yield line


def read_file(path: str) -> str:
    """A file's text (UTF-8); OSError as it comes (`main` prints the file and the reason)."""
    with open(path, "rb") as fh:
        return utf8(fh.read(), path)


def utf8(data: bytes, where: str) -> str:
    """`data` as UTF-8 text, else InvalidInput naming `where` and the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{where} is not UTF-8 text (byte {exc.start})") from None


def json_option(raw: str | None, kind: type, example: str) -> Any:
    """`--special-tokens`' JSON, which must be a `kind` (a dict for a ranks file, a list for
    training); None when the option was left out."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--special-tokens is not JSON ({exc.msg}); e.g. {example}") from None
    if not isinstance(value, kind):
        raise InvalidInput(f"--special-tokens must be a JSON {kind.__name__}, e.g. {example}")
    return value


def load_tokenizer(source: str, args: argparse.Namespace) -> tc.Tokenizer:
    """A bundled tokeniser by name, or a tokenizer file with the file options given."""
    return tc.load(source, **file_options(source, args))


def file_options(source: str, args: argparse.Namespace) -> dict[str, Any]:
    """The `tc.load` options of the file options given (`tokenizer_options`), checked: none
    for a bundled name, and the source a bundled name or an existing path."""
    options: dict[str, Any] = {}
    specials = json_option(args.special_tokens, dict, "'{\"<|endoftext|>\": 100257}'")
    if specials is not None:
        options["special_tokens"] = specials
    if args.pattern:
        options["pattern"] = args.pattern
    if args.lowercase is not None:
        options["lowercase"] = args.lowercase
    if args.in_format:
        options["format"] = args.in_format
    if options and pretrained.is_bundled(source) and not os.path.isfile(source):
        flags = {
            "special_tokens": "--special-tokens",
            "pattern": "--pattern",
            "lowercase": "--lowercase/--cased",
            "format": "--from",
        }
        given = ", ".join(flags[k] for k in options)
        verb = "apply" if len(options) > 1 else "applies"
        raise InvalidInput(
            f"{given} {verb} only to tokenizer files; {source} is a bundled tokeniser"
        )
    if not pretrained.is_bundled(source) and not os.path.exists(source):
        raise InvalidInput(
            f"{source}: no such file, and not a bundled tokeniser (e.g. gpt2, "
            f"cl100k_base, o200k_base, bert-base-uncased)"
        )
    return options


def save(tok: tc.Tokenizer, path: str, fmt: str | None) -> str:
    """Write `tok` (the format from `fmt` or the extension); returns the format written."""
    write = getattr(tok, "save", None)
    if write is None:  # until Tokenizer.save wraps it
        return formats.save(tok, path, fmt)
    return write(path, format=fmt) or fmt or ""
