"""`tokvis count`: a corpus's pre-token counts as a counts file, made on N processes, merged from
shards, and trained from (`tokvis train NAME --from-counts C.counts`).

    tokvis count --algorithm byte_bpe [--pattern P] [--processes N] FILE... -o C.counts
    tokvis count --merge A.counts B.counts ... -o C.counts     (the same as counting together)
    tokvis count --show C.counts                               (what it holds, and under what)

A FILE may also be a bundled corpus (botchan, udhr/eng, ...). `--min-frequency N` leaves out the
pre-tokens seen fewer than N times (pruned counts do not merge: prune the sum).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.counting import COUNTED_ALGORITHMS, Counts

from .inputs import case_switch


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "count", help="a corpus's pre-token counts as a counts file (to merge and train from)"
    )
    p.add_argument(
        "inputs",
        metavar="FILE",
        nargs="+",
        help="text files or bundled corpora to count; with --merge or --show, counts files",
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--algorithm",
        choices=COUNTED_ALGORITHMS,
        help="the trainer the counts are for (it decides how words are split and spelled)",
    )
    what.add_argument(
        "--merge", action="store_true", help="add up counts files made under the same rules"
    )
    what.add_argument("--show", action="store_true", help="describe a counts file")
    p.add_argument("--pattern", help="byte_bpe: the split pattern (gpt2, cl100k, o200k, a regex)")
    case_switch(p)
    p.add_argument(
        "--processes", type=int, default=1, metavar="N", help="count files on N processes"
    )
    p.add_argument(
        "--min-frequency",
        type=int,
        default=0,
        metavar="N",
        help="leave out pre-tokens seen fewer than N times",
    )
    p.add_argument("--top", type=int, default=10, metavar="K", help="--show: the K most frequent")
    p.add_argument("-o", "--output", metavar="C.counts", help="write the counts file here")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    if args.show:
        for path in args.inputs:
            _show(Counts.load(path), path, args.top)
        return 0
    if not args.output:
        args.parser.error("give the counts file to write (-o C.counts)")
    if not args.merge and not args.algorithm:
        args.parser.error("give the trainer to count for (--algorithm NAME), or --merge")
    start = time.monotonic()
    if args.merge:
        if args.pattern or args.lowercase is not None:
            raise InvalidInput("--merge takes counts files as they are: no --pattern or --cased")
        counts = tc.merge_counts(
            [Counts.load(p) for p in args.inputs], min_frequency=args.min_frequency
        )
    else:
        counts = _count(args)
    counts.save(args.output)
    seconds = time.monotonic() - start
    print(
        f"wrote {args.output}: {len(counts):,} distinct pre-tokens, {counts.total:,} in all "
        f"({counts.counted_under.algorithm}), in {seconds:.1f} s",
        file=sys.stderr,
    )
    return 0


def _count(args: argparse.Namespace) -> Counts:
    options = {}
    if args.pattern:
        options["pattern"] = args.pattern
    if args.lowercase is not None:
        options["lowercase"] = args.lowercase
    files = [p for p in args.inputs if os.path.isfile(p)]
    named = [p for p in args.inputs if p not in files]
    unknown = [p for p in named if p not in corpus_names()]
    if unknown:
        raise InvalidInput(f"{unknown[0]}: no such file, and not a bundled corpus")
    parts = []
    if files:
        parts.append(
            tc.count(files=files, algorithm=args.algorithm, processes=args.processes, **options)
        )
    for name in named:
        parts.append(tc.count(load_corpus(name).splitlines(), args.algorithm, **options))
    if len(parts) == 1:
        return parts[0].pruned(args.min_frequency)
    return tc.merge_counts(parts, min_frequency=args.min_frequency)


def _show(counts: Counts, path: str, top: int) -> None:
    print(f"{path}: {counts!r}")
    print(f"counted under: {counts.counted_under.describe()}")
    print(f"signature: {counts.signature}")
    if counts.min_frequency > 1:
        print(f"pruned: pre-tokens seen fewer than {counts.min_frequency} times left out")
    for word, n in counts.most_common(top):
        print(f"{n:>12,}  {word!r}")
