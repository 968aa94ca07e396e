"""`tokvis grade`: run a student's BPE tokenizer against the course's reference
(`tokenizers_core.grading`), or write a Gradescope autograder that does.

    tokvis grade (--minbpe PATH.py:Class | --adapters PATH.py) --corpus NAME|FILE --vocab-size N
                 [--special TOKEN]... [--ties minbpe|cs336|hf]
                 [--format text|json|junit|gradescope] [-o FILE]
                 [--time-limit S] [--timeout S] [--memory-mb MB]
    tokvis grade --bundle -o autograder.zip (the same options; the path inside the submission)

Exit 0 when every check passes, 1 when any fails, 2 on a usage error (a bad option, a missing
file, a target that is not PATH.py:Class).
"""

from __future__ import annotations

import argparse
import sys

from tokenizers_core import grading
from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput
from tokenizers_core.grading import bundle

USAGE = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "grade",
        help="run a student's BPE (minbpe or CS336 shape) against the reference: exit 0 all "
        "pass, 1 any fails, 2 usage; --bundle writes a Gradescope autograder",
    )
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--minbpe", metavar="PATH.py:Class", help="a minbpe-shaped class")
    target.add_argument(
        "--adapters", metavar="PATH.py", help="CS336's adapters.py (its tests folder)"
    )
    p.add_argument(
        "--corpus", required=True, metavar="NAME|FILE", help="a bundled corpus or a file"
    )
    p.add_argument("--vocab-size", required=True, type=int, metavar="N")
    p.add_argument(
        "--special", action="append", default=[], metavar="TOKEN", help="a special token (repeat)"
    )
    p.add_argument(
        "--ties", choices=tuple(grading.TIES), help="the tie rule (default: the shape's own)"
    )
    p.add_argument("--format", choices=grading.FORMATS, default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report (or the zip) there")
    p.add_argument(
        "--time-limit", type=float, default=60.0, metavar="S", help="training's allowed seconds"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="wall-clock seconds before a child process is killed",
    )
    p.add_argument("--memory-mb", type=int, default=2048, metavar="MB", help="a child's memory")
    p.add_argument(
        "--bundle", action="store_true", help="write a Gradescope autograder zip to -o instead"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    shape = "minbpe" if args.minbpe else "cs336"
    target = args.minbpe or args.adapters
    try:
        if args.bundle:
            return _bundle(args, shape, target)
        report = grading.grade(
            shape,
            target,
            corpus=args.corpus,
            vocab_size=args.vocab_size,
            special_tokens=args.special,
            ties=args.ties,
            time_limit=args.time_limit,
            timeout=args.timeout,
            memory_mb=args.memory_mb,
        )
    except (InvalidInput, OSError) as exc:
        sys.stderr.write(f"tokvis grade: error: {exc}\n")
        return USAGE
    out = report.render(args.format)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(out)
        sys.stderr.write(
            f"{args.output}: {report.score:g}/{report.max_score:g} "
            f"({len(report.failures)} of {len(report.tests)} checks failed)\n"
        )
    else:
        sys.stdout.write(out)
    return 0 if report.ok else 1


def _bundle(args: argparse.Namespace, shape: str, target: str) -> int:
    if not args.output:
        raise InvalidInput("--bundle writes a zip: give its path with -o autograder.zip")
    grading.parse_target(shape, target)
    is_file = args.corpus not in corpus_names()
    if is_file:
        grading.read_corpus(args.corpus)  # a missing file is a usage error now, not later
    floor = 256 + (len(set(args.special)) if shape == "cs336" else 0)
    if args.vocab_size < floor:
        raise InvalidInput(f"vocab_size must be at least {floor}")
    bundle.write_bundle(
        args.output,
        shape=shape,
        target=target,
        corpus=args.corpus,
        vocab_size=args.vocab_size,
        special_tokens=args.special,
        options={
            "ties": args.ties,
            "time_limit": args.time_limit,
            "timeout": args.timeout,
            "memory_mb": args.memory_mb,
        },
        corpus_is_file=is_file,
    )
    sys.stderr.write(f"{args.output}: a Gradescope autograder (setup.sh, run_autograder)\n")
    return 0
