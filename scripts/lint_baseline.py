"""Hold ruff and mypy to a committed baseline that only shrinks (`make lint`).

Findings are grouped by (file, rule): `tokenizers_core/hf_regex.py` has 3 `E501`, 2 mypy
`arg-type`. Lines are left out of the key on purpose: moving or editing code around an old
finding does not break the check; adding a finding does, because its group grows (or a new
group appears). The baselines live in lint-baseline/{ruff,mypy}.json.

    python scripts/lint_baseline.py ruff            # check: fails on a group that grew
    python scripts/lint_baseline.py mypy --update   # a fix shrank a group: record it
    python scripts/lint_baseline.py all --update --allow-growth   # accept new findings (rare)

`--update` refuses to write a baseline in which a count grew unless `--allow-growth` is given,
so the baseline can be lowered in any commit but raised only on purpose.

It does not judge *which* finding in a grown group is new (lines move); it prints the whole
group, marked with how many are over the baseline.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE_DIR = ROOT / "lint-baseline"

# `path:line: error: message  [code]` (mypy's default output; a column may follow the line)
MYPY_LINE = re.compile(
    r"^(?P<file>[^:\s][^:]*):(?P<line>\d+)(?::\d+)?: error: (?P<message>.*?)"
    r"(?:  \[(?P<code>[a-z0-9-]+)\])?$"
)


def parse_ruff(text: str, root: Path = ROOT) -> list[dict]:
    """Findings of `ruff check --output-format json`, with paths relative to `root`.

    >>> parse_ruff('[{"filename": "/r/a.py", "code": "E501", "location": {"row": 3},'
    ...            ' "message": "Line too long"}]', Path("/r"))
    [{'file': 'a.py', 'code': 'E501', 'line': 3, 'message': 'Line too long'}]
    """
    findings = []
    for item in json.loads(text or "[]"):
        path = Path(item["filename"])
        if path.is_absolute() and path.is_relative_to(root):
            path = path.relative_to(root)
        findings.append(
            {
                "file": path.as_posix(),
                "code": item["code"] or "syntax",
                "line": item["location"]["row"],
                "message": item["message"],
            }
        )
    return findings


def parse_mypy(text: str) -> list[dict]:
    """Error lines of mypy's output; notes and the summary line are skipped.

    >>> parse_mypy("app/x.py:4: error: Bad  [arg-type]\\napp/x.py:4: note: see\\nFound 1 error")
    [{'file': 'app/x.py', 'code': 'arg-type', 'line': 4, 'message': 'Bad'}]
    """
    findings = []
    for raw in text.splitlines():
        match = MYPY_LINE.match(raw.strip())
        if match:
            findings.append(
                {
                    "file": match["file"].replace("\\", "/"),
                    "code": match["code"] or "misc",
                    "line": int(match["line"]),
                    "message": match["message"],
                }
            )
    return findings


def group(findings: list[dict]) -> dict[str, dict[str, int]]:
    """Counts per file, then per rule: the shape of a baseline file.

    >>> group([{"file": "b.py", "code": "F401"}, {"file": "a.py", "code": "E501"},
    ...        {"file": "b.py", "code": "F401"}])
    {'a.py': {'E501': 1}, 'b.py': {'F401': 2}}
    """
    counts = Counter((f["file"], f["code"]) for f in findings)
    grouped: dict[str, dict[str, int]] = {}
    for (file, code), n in sorted(counts.items()):
        grouped.setdefault(file, {})[code] = n
    return grouped


def total(grouped: dict[str, dict[str, int]]) -> int:
    return sum(n for codes in grouped.values() for n in codes.values())


def compare(
    baseline: dict[str, dict[str, int]], now: dict[str, dict[str, int]]
) -> tuple[list[tuple[str, str, int, int]], list[tuple[str, str, int, int]]]:
    """The groups that grew (a new group counts as grown from 0) and those that shrank, each
    as (file, code, baseline count, count now).

    >>> compare({"a.py": {"E501": 2, "F401": 1}}, {"a.py": {"E501": 3}, "b.py": {"E741": 1}})
    ([('a.py', 'E501', 2, 3), ('b.py', 'E741', 0, 1)], [('a.py', 'F401', 1, 0)])
    """
    keys = sorted({(f, c) for side in (baseline, now) for f, codes in side.items() for c in codes})
    grown, shrunk = [], []
    for file, code in keys:
        before = baseline.get(file, {}).get(code, 0)
        after = now.get(file, {}).get(code, 0)
        if after > before:
            grown.append((file, code, before, after))
        elif after < before:
            shrunk.append((file, code, before, after))
    return grown, shrunk


def run_tool(tool: str) -> list[dict]:
    """Run ruff or mypy from the same environment as this script (their config is pyproject's)."""
    if tool == "ruff":
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "ruff",
                "check",
                "--output-format",
                "json",
                "--exit-zero",
                "--no-cache",
                ".",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return parse_ruff(out.stdout)
    # mypy exits 1 when it finds errors and 2 when it could not run: only 2 is a failure here
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty", "--show-error-codes"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode not in (0, 1):
        raise SystemExit(f"mypy could not run:\n{out.stdout}{out.stderr}")
    return parse_mypy(out.stdout)


def check(tool: str, update: bool, allow_growth: bool) -> bool:
    path = BASELINE_DIR / f"{tool}.json"
    baseline = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    findings = run_tool(tool)
    now = group(findings)
    grown, shrunk = compare(baseline, now)
    print(
        f"{tool}: {total(baseline)} in the baseline -> {total(now)} now "
        f"({len(grown)} groups grew, {len(shrunk)} shrank)"
    )
    for file, code, before, after in grown:
        print(f"  {file} [{code}]: {before} -> {after} ({after - before} new; the whole group:)")
        for f in findings:
            if f["file"] == file and f["code"] == code:
                print(f"    {f['file']}:{f['line']}: {f['message']}")
    if update:
        if grown and not allow_growth:
            print(f"  refusing to raise the {tool} baseline; pass --allow-growth to accept it")
            return False
        BASELINE_DIR.mkdir(exist_ok=True)
        path.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"  wrote {path.relative_to(ROOT)}")
        return True
    if shrunk and not grown:
        print(
            f"  fewer findings than the baseline: lower it with "
            f"`python scripts/lint_baseline.py {tool} --update`"
        )
    return not grown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tool", choices=["ruff", "mypy", "all"])
    parser.add_argument("--update", action="store_true", help="rewrite the baseline")
    parser.add_argument(
        "--allow-growth", action="store_true", help="with --update: accept groups that grew"
    )
    args = parser.parse_args(argv)
    tools = ["ruff", "mypy"] if args.tool == "all" else [args.tool]
    results = [check(tool, args.update, args.allow_growth) for tool in tools]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
