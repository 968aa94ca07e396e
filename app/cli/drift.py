"""`tokvis drift FILE.jsonl`: the drift doctor (`tc.drift`) on conversations as RL frameworks log
them, one JSON record a line: `{"messages": [...], "completions"?: [{"message": i, "ids": [...]}],
"tokenizer"?: NAME, "tools"?: [...]}`.

    tokvis drift FILE.jsonl [-t NAME|FILE] [--template-name N | --template FILE] [--json]

A report per record (`--json`: one JSON line per record, the report with its `record` and
`line`). The tokenizer is `-t`, else the record's own `tokenizer`. Exit 0 when every record is
append-only and each sampled completion round-trips, 1 otherwise, 2 when the file, a record, its
tokenizer or its template cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Iterator

import tokenizers_core as tc
from tokenizers_core.drift_doctor import DriftReport
from tokenizers_core.errors import InvalidInput

from .inputs import load_tokenizer, read_file, tokenizer_options

UNREADABLE = 2  # the status when the file, a record, its tokenizer or its template is unreadable
RECORD_KEYS = ("messages", "completions", "tokenizer", "tools")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "drift",
        help="is each turn a token prefix of the next, do sampled ids round-trip (exit 0/1/2)",
    )
    p.add_argument(
        "file",
        metavar="FILE.jsonl",
        help='one conversation a line: {"messages", "completions"?, "tokenizer"?, "tools"?}',
    )
    p.add_argument(
        "-t", "--tokenizer", metavar="NAME|FILE", help="the tokenizer (default: each record's)"
    )
    chosen = p.add_mutually_exclusive_group()
    chosen.add_argument(
        "--template-name",
        help="a bundled template (llama3, chatml, ...) or one of the tokenizer's named ones "
        "(default: the tokenizer's own, Qwen3's)",
    )
    chosen.add_argument("--template", metavar="FILE", help="a chat template file (Jinja)")
    p.add_argument("--json", action="store_true", help="one JSON report a line")
    tokenizer_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        records = list(_records(read_file(args.file)))
        template = read_file(args.template) if args.template else None
    except (ValueError, OSError) as exc:
        return _unreadable(exc)
    tokenizers: dict[str, tc.Tokenizer] = {}
    all_ok = True
    for number, (line, record) in enumerate(records, 1):
        try:
            tok = _tokenizer(record, args, tokenizers)
            report = tc.drift(
                tok,
                record.get("messages"),
                completions=record.get("completions"),
                chat_template=template,
                template_name=args.template_name,
                tools=record.get("tools"),
            )
        except (ValueError, OSError) as exc:
            return _unreadable(exc, f"line {line}: ")
        ok = report.append_only and all(c.round_trip_equal for c in report.completions)
        all_ok = all_ok and ok
        if args.json:
            print(json.dumps({"record": number, "line": line, **report.to_dict()}))
        else:
            print(_describe(number, line, report, ok))
    return 0 if all_ok else 1


def _records(raw: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of each non-blank line; InvalidInput (exit 2) for one that is not
    a JSON object with a "messages" list."""
    for line, text in enumerate(raw.splitlines(), 1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"line {line} is not JSON ({exc.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
            raise InvalidInput(f'line {line}: a record is a JSON object with a "messages" list')
        unknown = sorted(set(record) - set(RECORD_KEYS))
        if unknown:
            raise InvalidInput(f"line {line}: unknown key {unknown[0]!r}")
        yield line, record


def _tokenizer(
    record: dict[str, Any], args: argparse.Namespace, loaded: dict[str, tc.Tokenizer]
) -> tc.Tokenizer:
    """`-t`, else the record's own tokenizer, each loaded once."""
    name = args.tokenizer or record.get("tokenizer")
    if not isinstance(name, str) or not name:
        raise InvalidInput("the record names no tokenizer: give one with -t NAME|FILE")
    if name not in loaded:
        loaded[name] = load_tokenizer(name, args)
    return loaded[name]


def _describe(number: int, line: int, report: DriftReport, ok: bool) -> str:
    """A record's report for people: the verdict, then each turn, completion and marker."""
    verdict = "append-only" if report.append_only else "NOT append-only"
    out = [f"record {number} (line {line}): {verdict}{'' if ok else ' -- fails'}"]
    for t in report.turns:
        kept = f"a prefix cache keeps {t.tokens_reused:,} of {t.tokens_total:,} tokens"
        if t.prefix_of_next:
            out.append(f"  messages[{t.message}]: a prefix of the next turn ({kept})")
            continue
        ours, theirs = t.diff_tokens or (None, None)
        out.append(
            f"  messages[{t.message}]: parts from messages[:{t.next_message}] at token "
            f"{t.first_diff_token} ({ours!r} / {theirs!r}); {kept}; "
            f"{t.tokens_moved:,} of the loss mask's tokens move"
        )
        if t.construct:
            out.append(f"    {t.construct}")
    for c in report.completions:
        if c.round_trip_equal:
            out.append(f"  completion of messages[{c.message}]: round-trips")
        else:
            canonical = (
                ""
                if c.canonical is None
                else (", canonical" if c.canonical else f", not canonical from id {c.first_break}")
            )
            out.append(
                f"  completion of messages[{c.message}]: encode(decode(ids)) differs at id "
                f"{c.first_diff}{canonical}"
            )
    for m in report.markers:
        if m.kind == "spelt":
            out.append(
                f"  marker {m.marker} spelt from sub-tokens in messages[{m.message}]'s "
                f"completion at id {m.position}"
            )
        else:
            out.append(
                f"  marker {m.marker} typed in messages[{m.message}]'s content at character "
                f"{m.position}: the tokenizer reads it as the control token (an injection)"
            )
    return "\n".join(out)


def _unreadable(exc: BaseException, where: str = "") -> int:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        reason = f"{exc.filename}: {exc.strerror}"
    else:
        reason = " ".join(str(exc).split())
    sys.stderr.write(f"tokvis drift: cannot read: {where}{reason}\n")
    return UNREADABLE
