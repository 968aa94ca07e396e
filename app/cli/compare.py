"""`tokvis compare` and `tokvis diff`: several tokenisers on one text, side by side, and where
two of them first differ on many texts."""

from __future__ import annotations

import argparse
import json
import os
import sys

from tokenizers_core import diff as tc_diff
from tokenizers_core import formats, pretrained
from tokenizers_core.errors import InvalidInput

from .. import display
from .inputs import (
    colour_switch,
    load_tokenizer,
    read_corpus,
    read_text,
    special_switch,
    text_source,
    tokenizer_options,
)
from .terminal import chip_line, table, use_colour


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="several tokenisers on one text")
    p.add_argument(
        "-t",
        "--tokenizer",
        dest="tokenizers",
        action="append",
        required=True,
        metavar="NAME|FILE",
        help="give it two or more times",
    )
    text_source(p)
    special_switch(p)
    colour_switch(p)
    tokenizer_options(p)
    p.set_defaults(run=compare)

    p = sub.add_parser(
        "diff",
        help="where two tokenisers first differ, text by text (exit 0: identical, 1: they differ)",
    )
    p.add_argument("-a", required=True, metavar="NAME|FILE")
    p.add_argument("-b", required=True, metavar="NAME|FILE")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--corpus",
        metavar="NAME|FILE",
        help="a bundled corpus or a text file (- for stdin), one text a line",
    )
    src.add_argument("--text", metavar="TEXT|-", help="texts, one a line (- for stdin)")
    src.add_argument("--stress", action="store_true", help="the generated stress set (the default)")
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.add_argument(
        "--show",
        type=int,
        default=5,
        metavar="N",
        help="print the first N differing texts (default 5)",
    )
    tokenizer_options(p)
    p.set_defaults(run=diff)


def compare(args: argparse.Namespace) -> int:
    if len(args.tokenizers) < 2:
        raise InvalidInput("give two or more tokenisers to compare: -t A -t B")
    text = read_text(args.text, args.file)
    colour = use_colour(args.colour, sys.stdout)
    results = []
    for source, label in zip(args.tokenizers, column_labels(args.tokenizers)):
        tok = load_tokenizer(source, args)
        # --special applies to the columns that read special tokens at all, as on the page
        options = display.special_options(tok, args.special, text)
        results.append((label, tok, tok.encode(text, **options)))
    rows = [
        (name, len(enc), f"{len(text) / len(enc):.2f}" if len(enc) else "-")
        for name, _tok, enc in results
    ]
    print(table(rows, ("tokenizer", "tokens", "chars/token")))
    for name, tok, enc in results:
        print(f"\n{name}:")
        print(chip_line(tok, text, enc, colour))
    return 0


def column_labels(sources: list[str]) -> list[str]:
    """A compare column's label: a file by its name (not the whole path), a bundled tokeniser
    by the name given; two files of the same name keep the paths given.

    >>> column_labels(["gpt2", "/tmp/a/tokenizer.json", "/tmp/b/vocab.txt"])
    ['gpt2', 'tokenizer.json', 'vocab.txt']
    """
    names = [os.path.basename(s) if os.sep in s or "/" in s else s for s in sources]
    return [n if names.count(n) == 1 else s for n, s in zip(names, sources)]


def diff(args: argparse.Namespace) -> int:
    """Two tokenisers on the same texts (a corpus or --text, one text a line, or the stress
    set): exit status 0 when every text is tokenised identically, 1 when some differ, 2 for
    bad input (as diff(1))."""
    try:
        tok_a, tok_b = (load_tokenizer(s, _file_options(s, args)) for s in (args.a, args.b))
        texts, label = _diff_texts(args)
    except (ValueError, OSError, LookupError) as exc:
        sys.stderr.write(f"tokvis diff: error: {' '.join(str(exc).split())}\n")
        return 2
    report = tc_diff.diff(tok_a, tok_b, texts, names=(args.a, args.b))
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        print(
            f"{args.a} vs {args.b} on {label}: {report.identical:,} of {report.texts:,} "
            f"texts identical ({100 * report.share_identical:.1f}%)"
        )
        for stage, n in report.by_stage.items():
            print(f"  first differ at the {stage}: {n:,}")
        for d in report.differences[: args.show]:
            print(
                f"\nline {d.index + 1}, character {d.position}: {d.stage} "
                f"(different: {', '.join(d.differs)})"
            )
            print(f"  text: {display.visible(d.text[:120])}")
            print(f"  {args.a}: {_window_line(d.text, d.window_a, d.token_a)}")
            print(f"  {args.b}: {_window_line(d.text, d.window_b, d.token_b)}")
            print(f"  evidence: {json.dumps(d.evidence, ensure_ascii=False)}")
    return 0 if report.identical == report.texts else 1


def _window_line(text: str, window: tuple, first: int) -> str:
    """The tokens around a divergence, by the text they cover (a special token by its name),
    the first differing one in [brackets].

    >>> _window_line("ab c", ((0, "ab", 5, 0, 2, False), (1, "Ġc", 9, 2, 4, False)), 1)
    'ab [·c]'
    """
    parts = []
    spans = [(s, e) for _, _, _, s, e, _ in window]
    for i, token, _id, s, e, special in window:
        shared = spans.count((s, e)) > 1  # bytes of one character: the tokens
        label = token if special or s == e or shared else display.visible(text[s:e])
        parts.append(f"[{label}]" if i == first else label)
    return " ".join(parts)


def _file_options(source: str, args: argparse.Namespace) -> argparse.Namespace:
    """`args` for loading `source`: the file options go to the files that take them (a ranks
    file's --pattern), not to a bundled tokeniser or a tokenizer.json, which has them all."""
    if os.path.isfile(source) and not args.in_format:
        with open(source, "rb") as fh:
            takes = formats.sniff(fh.read(4096)) != "hf_json"
    else:
        takes = not pretrained.is_bundled(source) or os.path.isfile(source)
    return (
        args
        if takes
        else argparse.Namespace(special_tokens=None, pattern=None, lowercase=None, in_format=None)
    )


def _diff_texts(args: argparse.Namespace) -> tuple[list[str], str]:
    if args.corpus is not None:
        text, label = read_corpus(args.corpus)
        return tc_diff.corpus_texts(text), f"the corpus {label}"
    if args.text is not None:
        return tc_diff.corpus_texts(read_text(args.text)), "the text"
    return tc_diff.stress_texts(), "the stress set"
