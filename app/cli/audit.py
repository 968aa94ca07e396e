"""`tokvis audit NAME|FILE [--json] [--category C] [--show N]`: the vocabulary health audit in a
terminal (`tokenizers_core.audit`): the counts per category and flag, then a few entries of each
category (or of the one chosen) with the reason; `--json` prints the summary and the chosen
entries (every entry of the category with --category, else none)."""

from __future__ import annotations

import argparse
import json

import tokenizers_core as tc
from tokenizers_core.audit import CATEGORIES, FLAGS, LABELS

from .inputs import load_tokenizer, tokenizer_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="the vocabulary's health: which tokens are broken, and why")
    p.add_argument("source", metavar="NAME|FILE", help="a bundled tokeniser or a tokenizer file")
    p.add_argument(
        "--category",
        choices=CATEGORIES + FLAGS,
        help="only this category (or flag: intermediate, duplicate, unseen)",
    )
    p.add_argument(
        "--show", type=int, default=5, metavar="N", help="entries printed per category (default 5)"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the summary as JSON (with every entry of --category)",
    )
    tokenizer_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    tok = load_tokenizer(args.source, args)
    report = tc.audit(tok)
    if args.json:
        out = report.summary()
        if args.category:
            out["entries"] = [report.entry_dict(h) for h in report.select(args.category)]
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"{tok.name or args.source}: {len(report.entries):,} entries")
    counts = {**report.counts(), **report.flag_counts()}
    for name in CATEGORIES + FLAGS:
        print(f"  {LABELS.get(name, name):<32} {counts[name]:>9,}")
    for name in [args.category] if args.category else CATEGORIES:
        chosen = report.select(name)
        if chosen and name != "ok" or args.category:
            print(f"\n{LABELS.get(name, name)} ({len(chosen):,}):")
            for h in chosen[: max(args.show, 0)]:
                print(f"  {h.id:>7}  {h.token!r}: {h.reason}{_reencoding(tok, h.reencoded)}")
    return 0


def _reencoding(tok: tc.Tokenizer, ids: tuple[int, ...]) -> str:
    return " -> " + " ".join(repr(tok.id_to_token(i)) for i in ids) if ids else ""
