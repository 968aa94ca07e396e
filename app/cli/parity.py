"""`tokvis parity NAME|FILE|FOLDER [--text T]... [--texts FILE] [--json]`: one tokenizer as each
runtime reads it (tokenizers, transformers, llama.cpp, mistral-common, tiktoken) on the same
texts (`tokenizers_core.runtime_parity`). Without --text or --texts, the fingerprint's probe
texts (`tokenizers_core.fingerprints.PROBES`).

Exit 0 when every runtime gives every text the same ids, 1 when any differs, 2 when the
tokenizer or the texts cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import tokenizers_core as tc
from tokenizers_core.fingerprints import PROBES
from tokenizers_core.locks import read_texts

from .. import display
from .inputs import file_options, read_file, special_switch, tokenizer_options

UNREADABLE = 2
SHOWN = 20  # differing texts printed (--json has them all)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "parity",
        help="one tokenizer in each runtime (tokenizers, transformers, llama.cpp, ...): "
        "exit 0 all agree, 1 any differs, 2 unreadable",
    )
    p.add_argument(
        "source", metavar="NAME|FILE|FOLDER", help="a bundled tokeniser, a file or a model folder"
    )
    p.add_argument(
        "--text", action="append", default=[], metavar="T", help="a text (repeat for more)"
    )
    p.add_argument("--texts", metavar="FILE", help="a file of texts, one per line (UTF-8)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"runtimes", "rows": [{"text", "ids", "same"}], "first_mismatch", ...}',
    )
    special_switch(p)
    tokenizer_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        texts = [*args.text, *(read_texts(read_file(args.texts)) if args.texts else [])]
        options = file_options(args.source, args)
        report = tc.parity(args.source, texts or list(PROBES), special=args.special, **options)
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"tokvis parity: cannot read: {_reason(exc)}\n")
        return UNREADABLE
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        _print(report)
    return 0 if report.ok else 1


def _print(report: Any) -> None:
    print(report.summary())
    for runtime in report.runtimes:
        print(f"  {runtime:<15} {report.how.get(runtime, '')}")
    for runtime, why in report.skipped.items():
        print(f"  {runtime:<15} skipped: {why}")
    differing = [row for row in report.rows if not row.same]
    for row in differing[:SHOWN]:
        print(f"\ntext {row.index + 1}: {display.visible(row.text[:80])}")
        for runtime in report.runtimes:
            ids = row.ids[runtime]
            shown = "refused" if ids is None else " ".join(map(str, ids[:24]))
            more = " …" if ids is not None and len(ids) > 24 else ""
            print(f"  {runtime:<15} {shown}{more}")
    if len(differing) > SHOWN:
        print(f"\n… and {len(differing) - SHOWN} more (--json has them all)")
    first = report.first_mismatch
    if first is not None:
        a, b = first.runtimes
        print(
            f"\nfirst mismatch: text {first.index + 1}, {a} against {b} at token {first.position}: "
            f"{_tokens(first.a)} / {_tokens(first.b)}"
        )
        print(f"  rule: {first.rule}: {first.explanation}")


def _tokens(side: list[dict[str, Any]]) -> str:
    return " ".join(f"{t['token']!r} ({t['id']})" for t in side) or "(nothing)"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return " ".join(str(exc).split())
