"""MkDocs hooks: the pages that are read from the code at build time, so nothing is written twice.

A page asks for a generated part with a marker comment on a line of its own:

    <!-- generated: cli -->          every `tokvis` command, from the argparse parser (app/cli/)
    <!-- generated: settings -->     every TOKVIS_* setting, from app/config.py
    <!-- generated: benchmarks -->   every script in benchmarks/, from its module docstring
    <!-- generated: trainers -->     `::: tokenizers_core.trainers` once that module exists
    <!-- generated: errors -->       `::: tokenizers_core.errors` once that module exists

The hooks read the source with `ast` where they can (the settings, the benchmarks) and import
only the CLI's parser; they fetch nothing. An unknown marker is an error, so a typo fails
`mkdocs build --strict`.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- generated: ([a-z_]+) -->$", re.M)


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace each marker with the part it names."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(
                f"{page.file.src_path}: no generated part named {name!r}; "
                f"known: {', '.join(sorted(GENERATORS))}"
            )
        return GENERATORS[name]()

    return MARKER.sub(replace, markdown)


# ---- markdown helpers -------------------------------------------------------------------------


def _cell(text: str) -> str:
    """Text fit for one table cell: one line, pipes escaped, `<` shown as text."""
    return _prose(" ".join(str(text).split())).replace("|", "\\|")


def _prose(text: str) -> str:
    """Docstring prose as Markdown: outside code spans, `<`, `[` and `{` are escaped, so `<= 2 s`,
    `<0xE6>`, `[--repeat 3]` and `{"ids"}` show as written instead of as HTML, a link or
    attributes. A run of
    lines indented four spaces (a command line, an example) becomes a fenced block, so that it
    stays code even after a list item."""
    out: list[str] = []
    code = False
    for line in text.splitlines():
        indented = line.startswith("    ")
        if indented and not code and (not out or not out[-1].strip()):
            out.append("```text")
            code = True
        elif code and not indented:
            out.append("```")
            code = False
        if code:
            out.append(line[4:])
            continue
        parts = line.split("`")
        parts[::2] = [
            p.replace("<", "&lt;").replace("[", "\\[").replace("{", "&#123;") for p in parts[::2]
        ]
        out.append("`".join(parts))
    if code:
        out.append("```")
    return "\n".join(out)


# ---- the command line ---------------------------------------------------------------------------


def cli() -> str:
    """One section per `tokvis` command: its help, usage and a table of its arguments."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from app.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    lines = [_prose(parser.description or ""), ""]
    for name, command in sub.choices.items():
        lines += _command(f"tokvis {name}", helps.get(name), command)
    return "\n".join(lines)


def _command(title: str, summary: str | None, parser: argparse.ArgumentParser) -> list[str]:
    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    lines = [f"## `{title}`", ""]
    if summary:
        lines += [_prose(summary[:1].upper() + summary[1:]) + ".", ""]
    if parser.description and parser.description != summary:
        lines += [_prose(parser.description), ""]
    lines += ["```text", parser.format_usage().strip().replace("usage: ", "", 1), "```", ""]
    rows = [
        a
        for a in parser._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        and a.help != argparse.SUPPRESS
    ]
    if rows:
        lines += ["| argument | default | what it does |", "|---|---|---|"]
        for action in rows:
            names = ", ".join(action.option_strings) or (action.metavar or action.dest)
            if action.option_strings and action.nargs != 0:
                names += f" {action.metavar or action.dest.upper()}"
            default = action.default
            if default in (None, False, argparse.SUPPRESS) or action.nargs == 0:
                shown = ""
            else:
                shown = f"`{default}`"
            lines.append(f"| `{names}` | {shown} | {_cell(action.help or '')} |")
        lines.append("")
    for action in nested:
        helps = {a.dest: a.help for a in action._choices_actions}
        for name, command in action.choices.items():
            lines += _command(f"{title} {name}", helps.get(name), command)
    return lines


# ---- the settings -----------------------------------------------------------------------------


def settings() -> str:
    """A table of the TOKVIS_* settings: the descriptions of app/config.py's docstring, the
    defaults and the `Settings` fields from its `from_env` (read with `ast`, not imported)."""
    source = (ROOT / "app" / "config.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    meanings = _setting_meanings(ast.get_docstring(tree) or "")
    defaults, fields = _setting_defaults(tree)
    missing = [name for name in defaults if name not in meanings]
    if missing:
        raise ValueError(
            f"app/config.py reads {', '.join(missing)} but its docstring does not describe them"
        )
    lines = ["| variable | default | `Settings` field | meaning |", "|---|---|---|---|"]
    for name, meaning in meanings.items():
        default = defaults.get(name)
        shown = "" if default is None else f"`{default}`"
        field = f"`{fields[name]}`" if name in fields else ""
        lines.append(f"| `{name}` | {shown} | {field} | {_cell(meaning)} |")
    return "\n".join(lines)


def _setting_meanings(doc: str) -> dict[str, str]:
    """{name: description} from the docstring's table: a line that starts with a TOKVIS_ name,
    then its continuation lines (indented)."""
    meanings: dict[str, str] = {}
    name = None
    for line in doc.splitlines():
        match = re.match(r"(TOKVIS_[A-Z_]+)\s+(.*)", line)
        if match:
            name = match.group(1)
            meanings[name] = match.group(2)
        elif name and line.startswith(" ") and line.strip():
            meanings[name] += " " + line.strip()
        else:
            name = None
    return meanings


def _setting_defaults(tree: ast.Module) -> tuple[dict[str, object], dict[str, str]]:
    """({name: default}, {name: Settings field}) from the calls that read the environment:
    `_int("TOKVIS_X", 2)`, `_seconds("TOKVIS_X", 10.0)`, `os.environ.get("TOKVIS_X") or 0.5`."""
    defaults: dict[str, object] = {}
    fields: dict[str, str] = {}

    def env_name(node: ast.AST) -> str | None:
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            value = node.args[0].value
            if isinstance(value, str) and value.startswith("TOKVIS_"):
                return value
        return None

    for node in ast.walk(tree):
        name = env_name(node)
        if name and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
            defaults[name] = node.args[1].value
        elif name:
            defaults.setdefault(name, None)
        if isinstance(node, ast.BoolOp) and isinstance(node.values[-1], ast.Constant):
            name = env_name(node.values[0])
            if name:
                defaults[name] = node.values[-1].value
        if isinstance(node, ast.keyword) and node.arg:
            for inner in ast.walk(node.value):
                name = env_name(inner)
                if name:
                    fields.setdefault(name, node.arg)
    return defaults, fields


# ---- the benchmarks ---------------------------------------------------------------------------


def benchmarks() -> str:
    """One section per script in benchmarks/ (bench_* and verify_*): its module docstring."""
    lines = []
    scripts = sorted((ROOT / "benchmarks").glob("*.py"))
    for path in scripts:
        if not path.name.startswith(("bench_", "verify_")):
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if not doc:
            raise ValueError(f"benchmarks/{path.name} has no docstring to say what it measures")
        lines += [
            f"### `{path.name}`",
            "",
            _prose(doc),
            "",
            f"Run it: `.venv/bin/python benchmarks/{path.name}`",
            "",
        ]
    return "\n".join(lines)


# ---- modules that are still arriving ------------------------------------------------------------


def _optional_module(name: str) -> str:
    """mkdocstrings' directive for `tokenizers_core.<name>` if the module is in the tree, else a
    sentence saying it is not (so the site builds before and after it lands)."""
    base = ROOT / "tokenizers_core"
    if (base / f"{name}.py").exists() or (base / name / "__init__.py").exists():
        return f"::: tokenizers_core.{name}"
    return f"`tokenizers_core.{name}` is not in this version of the library yet."


GENERATORS = {
    "cli": cli,
    "settings": settings,
    "benchmarks": benchmarks,
    "trainers": lambda: _optional_module("trainers"),
    "errors": lambda: _optional_module("errors"),
}
