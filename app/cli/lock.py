"""`tokvis fingerprint`, `tokvis lock` and `tokvis verify`: a tokenizer's identity, and the ids
of a set of texts locked and checked in CI (`tokenizers_core.fingerprints`, `.locks`).

    tokvis fingerprint NAME|FILE [--json]
    tokvis lock -t NAME|FILE --texts FILE -o tokvis.lock.json [--special | --no-special]
    tokvis verify LOCK [-t NAME|FILE] [--format text|json|junit] [-o FILE] [--max-tokens N]

`verify` exits 0 when every text gives its locked ids, 1 when any differs (or is over
`--max-tokens`), 2 when the lock or the tokenizer cannot be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from typing import Any

import tokenizers_core as tc
from tokenizers_core import locks
from tokenizers_core.errors import InvalidInput

from .inputs import load_tokenizer, read_file, special_switch, tokenizer_options

UNREADABLE = 2  # verify's status when the lock or the tokenizer cannot be read


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fingerprint", help="a tokenizer's hashes: its file, its behaviour, llama.cpp's chkhsh"
    )
    p.add_argument("source", metavar="NAME|FILE", help="a bundled tokeniser, a file or a folder")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"sha256", "behaviour", "chkhsh", "llama_cpp_pre"}',
    )
    tokenizer_options(p)
    p.set_defaults(run=fingerprint)

    p = sub.add_parser("lock", help="write the ids of a file of texts, to check in CI (verify)")
    p.add_argument("-t", "--tokenizer", required=True, metavar="NAME|FILE")
    p.add_argument("--texts", required=True, metavar="FILE", help="one text per line (UTF-8)")
    p.add_argument("-o", "--output", default="tokvis.lock.json", metavar="LOCK")
    special_switch(p)
    p.add_argument(
        "--no-special-tokens",
        action="store_true",
        help="leave out what the post-processor adds (BOS, [CLS]): add_special_tokens=False",
    )
    tokenizer_options(p)
    p.set_defaults(run=write_lock)

    p = sub.add_parser("verify", help="check a lock: exit 0 same ids, 1 any differs, 2 unreadable")
    p.add_argument("lock", metavar="LOCK", help="a lock written by tokvis lock")
    p.add_argument(
        "-t", "--tokenizer", metavar="NAME|FILE", help="the tokenizer (default: the lock's own)"
    )
    p.add_argument("--format", choices=("text", "json", "junit"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report there, not stdout")
    p.add_argument(
        "--max-tokens", type=int, metavar="N", help="fail a text of more than N tokens (a budget)"
    )
    tokenizer_options(p)
    p.set_defaults(run=verify)


def fingerprint(args: argparse.Namespace) -> int:
    tok = load_tokenizer(args.source, args)
    fp = tc.fingerprint(tok)
    if args.json:
        print(json.dumps(fp.to_dict()))
        return 0
    print(f"{tok.name or args.source}")
    print(f"  sha256         {fp.sha256}")
    print(f"  behaviour      {fp.behaviour}")
    print(f"  chkhsh         {fp.chkhsh}")
    print(f"  llama_cpp_pre  {fp.llama_cpp_pre or '(not one llama.cpp knows)'}")
    return 0


def write_lock(args: argparse.Namespace) -> int:
    tok = load_tokenizer(args.tokenizer, args)
    texts = locks.read_texts(read_file(args.texts))
    doc = tc.lock(
        tok,
        texts,
        special=args.special,
        add_special_tokens=not args.no_special_tokens,
        tokenizer=args.tokenizer,
        **_load_options(args),
    )
    with open(args.output, "w", encoding="utf-8") as fh:
        fh.write(locks.dumps(doc))
    n = len(texts)
    sys.stderr.write(f"{args.output}: {n:,} text{'' if n == 1 else 's'} locked ({tok.name})\n")
    return 0


def verify(args: argparse.Namespace) -> int:
    if args.max_tokens is not None and args.max_tokens < 1:
        raise InvalidInput("--max-tokens is a whole number of at least 1")
    try:
        doc = locks.load_lock(_read_bytes(args.lock))
        tok = load_tokenizer(args.tokenizer, args) if args.tokenizer else _locked_tokenizer(doc)
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"tokvis verify: cannot read: {_reason(exc)}\n")
        return UNREADABLE
    report = tc.verify(doc, tok, max_tokens=args.max_tokens)
    report = _named(report, args.tokenizer or doc.get("tokenizer") or tok.name)
    out = {
        "text": report.to_text,
        "json": lambda: json.dumps(report.to_dict(), ensure_ascii=False) + "\n",
        "junit": report.to_junit,
    }[args.format]()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(out)
        sys.stderr.write(report.summary() + "\n")
    else:
        sys.stdout.write(out)
    return 0 if report.ok else 1


# ---- helpers ------------------------------------------------------------------------------------
def _load_options(args: argparse.Namespace) -> dict[str, Any]:
    """The file options given, kept in the lock so that `verify` loads the file the same way."""
    options: dict[str, Any] = {}
    if args.pattern:
        options["pattern"] = args.pattern
    if args.special_tokens:
        options["special_tokens"] = json.loads(args.special_tokens)
    if args.lowercase is not None:
        options["lowercase"] = args.lowercase
    if args.in_format:
        options["format"] = args.in_format
    return options


def _locked_tokenizer(doc: dict[str, Any]) -> tc.Tokenizer:
    name = doc.get("tokenizer")
    if not isinstance(name, str) or not name:
        raise InvalidInput("the lock names no tokenizer: give one with -t NAME|FILE")
    return tc.load(name, **doc.get("load_options", {}))


def _named(report: locks.VerifyReport, name: str) -> locks.VerifyReport:
    return replace(report, tokenizer=name)


def _read_bytes(path: str) -> bytes:
    if not os.path.isfile(path):
        raise InvalidInput(f"{path}: no such lock file")
    with open(path, "rb") as fh:
        return fh.read()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return " ".join(str(exc).split())
