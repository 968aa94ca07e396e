"""`tokvis vocab-diff A B`: two vocabularies compared by the bytes their tokens stand for
(`tokenizers_core.audit.vocab_diff`): the counts of shared tokens and of tokens only one has,
how far their ids agree, and, with `--corpus`, the words the two split differently.

Exit status as diff(1): 0 when the two have the same tokens under the same ids, 1 when they
differ, 2 for bad input."""

from __future__ import annotations

import argparse
import json
import os
import sys

from tokenizers_core import pretrained
from tokenizers_core.audit.token_bytes import TokenEntry
from tokenizers_core.audit.vocab_diff import VocabDiff, vocab_diff

from .. import display
from .compare import column_labels
from .inputs import load_tokenizer, read_corpus, tokenizer_options

_NO_FILE_OPTIONS = argparse.Namespace(
    special_tokens=None, pattern=None, lowercase=None, in_format=None
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "vocab-diff",
        help="two vocabularies compared by bytes: shared tokens, "
        "tokens only one has, where the ids part (exit 0: "
        "the same, 1: they differ)",
    )
    p.add_argument("a", metavar="A", help="a bundled name or a tokenizer file")
    p.add_argument("b", metavar="B", help="a bundled name or a tokenizer file")
    p.add_argument(
        "--corpus",
        metavar="NAME|FILE",
        help="also list the words of this corpus "
        "(bundled, a file, - for stdin) the "
        "two split differently",
    )
    p.add_argument(
        "--show",
        type=int,
        default=10,
        metavar="N",
        help="print the N most frequent differing words (default 10)",
    )
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.add_argument(
        "--limit",
        type=int,
        default=100,
        metavar="N",
        help="--json: list at most N entries of each list (default 100)",
    )
    tokenizer_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        tok_a, tok_b = (load_tokenizer(s, _options_for(s, args)) for s in (args.a, args.b))
        text, label = read_corpus(args.corpus) if args.corpus is not None else (None, "")
        report = vocab_diff(tok_a, tok_b, text)
    except (ValueError, OSError, LookupError) as exc:
        sys.stderr.write(f"tokvis vocab-diff: error: {' '.join(str(exc).split())}\n")
        return 2
    if args.json:
        print(json.dumps(report.to_dict(args.limit), ensure_ascii=False))
    else:
        a, b = column_labels([args.a, args.b])
        print("\n".join(summary(report, a, b, label, args.show)))
    same = not report.only_a and not report.only_b and report.ranks.same_id == len(report.shared)
    return 0 if same else 1


def _options_for(source: str, args: argparse.Namespace) -> argparse.Namespace:
    """The file options (--pattern, --special-tokens, ...) go to a file, not a bundled name."""
    if pretrained.is_bundled(source) and not os.path.isfile(source):
        return _NO_FILE_OPTIONS
    return args


def summary(d: VocabDiff, a: str, b: str, corpus: str = "", show: int = 10) -> list[str]:
    """The report as lines of text.

    >>> import tokenizers_core as tc
    >>> d = vocab_diff(tc.load("r50k_base"), tc.load("p50k_base"))
    >>> for line in summary(d, "gpt2", "p50k")[:2]:
    ...     print(line)
    gpt2 vs p50k: 50,257 tokens shared; 0 only in gpt2, 24 only in p50k
      ids: 50,257 shared tokens have the same id; 50,257 (100.0%) keep their order
    """
    r = d.ranks
    order = f"{r.in_order:,} ({100 * r.in_order / r.shared:.1f}%)" if r.shared else "0"
    lines = [
        f"{a} vs {b}: {len(d.shared):,} tokens shared; {len(d.only_a):,} only in {a}, "
        f"{len(d.only_b):,} only in {b}",
        f"  ids: {r.same_id:,} shared tokens have the same id; {order} keep their order",
    ]
    if r.parted:
        lines.append(
            f"  ranks agree up to {r.prefix:,}, then part: id {r.prefix:,} is "
            f"{_label(r.part_a)} in {a}{_elsewhere(r.part_a_in_b, b)} and "
            f"{_label(r.part_b)} in {b}{_elsewhere(r.part_b_in_a, a)}"
        )
    elif r.part_a is not None or r.part_b is not None:
        ends, goes_on = (b, a) if r.part_a is not None else (a, b)
        lines.append(
            f"  ranks agree up to {r.prefix:,}, where {ends} has no id {r.prefix:,} "
            f"and {goes_on} goes on: every id below it holds the same token in both"
        )
    else:
        lines.append(
            f"  ranks agree up to {r.prefix:,}: every id below it holds the same token in both"
        )
    if d.corpus is not None:
        c = d.corpus
        lines.append(
            f"words of {corpus} split differently: {c.words - c.same:,} of "
            f"{c.words:,} ({len(c.differing):,} distinct); tokens: {c.tokens_a:,} "
            f"in {a}, {c.tokens_b:,} in {b}"
        )
        for w in c.differing[:show]:
            lines.append(
                f"  {display.visible(w.word)} ×{w.count:,}   {a}: {_split(w.a)}   "
                f"{b}: {_split(w.b)}"
            )
    return lines


def _label(e: TokenEntry | None) -> str:
    if e is None:
        return "nothing"
    return repr(e.token if e.special else display.token_label(e.data))


def _elsewhere(id_: int | None, name: str) -> str:
    return f" ({id_:,} in {name})" if id_ is not None else f" (not in {name})"


def _split(entries: tuple[TokenEntry, ...]) -> str:
    return " ".join(e.token if e.special else display.token_label(e.data) for e in entries)
