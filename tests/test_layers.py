"""The code is laid out like the pipeline, and its imports say so.

Every module of `tokenizers_core` belongs to a layer; a module imports only modules of its own
package and of layers below its own (docs/ARCHITECTURE.md draws the picture):

    base             encoding, steps, normalized, byte_level, hf_regex, user_regex, corpora, added_tokens,
                     byte_api, pretokenized, pipeline_steps, errors, deprecation, hf_config,
                     special_switch, version, notebook (HTML for a notebook: duck-typed)
    normalizers/     the first stage
    pre_tokenizers/  the second (byte-level splitting builds on the normalizers' alignment)
    models/          the third: bpe/, wordpiece/, unigram/, wordlevel/ (model, trainer, session, hf)
    textbook/        the readable loops, yielding the models' own steps
    processors/      the fourth (post-processing, truncation and padding)
    decoders/        back from tokens to text
    pipeline         Tokenizer: the stages wired together
    implementations/ whole tokenisers (bert, openai_public, rules, bpe, unigram, training)
    formats/         tokenizer files, read into and written from whole tokenisers
    top              pretrained (tc.load), trainers, metrics, checker, budget, chat (templates),
                     diff, diff_stress, tokenizations (the space of token sequences),
                     fingerprints, locks, drift_doctor, runtime_parity, grading (tc.grade),
                     incremental (re-encoding what an edit touched),
                     the package itself

The web layer (`app/`) has no import circle either, no router imports another, and the core
never imports the web layer.

The graph is read from the source (`ast`), counting imports inside functions as well as at the
top, and any string that names a core module (what `importlib.import_module` would load); so an
import circle cannot hide inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]
ROOT = TOP / "tokenizers_core"

LAYERS = [
    (
        "base",
        {
            "encoding",
            "steps",
            "normalized",
            "byte_level",
            "hf_regex",
            "user_regex",
            "corpora",
            "added_tokens",
            "byte_api",
            "pretokenized",
            "pipeline_steps",
            "errors",
            "deprecation",
            "hf_config",
            "special_switch",
            "version",
            "notebook",
        },
    ),
    ("normalizers", {"normalizers"}),
    ("pre_tokenizers", {"pre_tokenizers"}),
    ("models", {"models"}),
    ("textbook", {"textbook"}),
    ("processors", {"processors"}),
    ("decoders", {"decoders"}),
    ("pipeline", {"pipeline"}),
    ("implementations", {"implementations"}),
    ("formats", {"formats"}),
    (
        "top",
        {
            "pretrained",
            "metrics",
            "checker",
            "budget",
            "chat",
            "diff",
            "diff_stress",
            "audit",
            "trainers",
            "tokenizations",
            "fingerprints",
            "locks",
            "drift_doctor",
            "runtime_parity",
            "grading",
            "incremental",
            "",
        },
    ),
]


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules(ROOT)
APP_MODULES = _modules(TOP / "app")


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base) + ("." + node.module if node.module else "")


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The module of `modules` that `name` is, or is inside (None for any other)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def edges(modules: dict[str, Path]) -> dict[str, dict[str, str]]:
    """module -> {imported module of `modules`: "top" | "function" | "string"}."""
    graph: dict[str, dict[str, str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        out: dict[str, str] = {}
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = _resolve(module, path.name == "__init__.py", node)
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
                where = "top" if id(node) in top else "function"
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
                where = "top" if id(node) in top else "function"
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in modules
            ):
                targets, where = [node.value], "string"
            for target in targets:
                known = _known(target, modules)
                if known and known != module:
                    out.setdefault(known, where)
        graph[module] = out
    return graph


GRAPH = edges(MODULES)
APP_GRAPH = edges(APP_MODULES)


def layer_of(module: str) -> int:
    head = module.split(".")[1] if "." in module else ""
    for i, (_name, heads) in enumerate(LAYERS):
        if head in heads:
            return i
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS and the picture")


def cycles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read():
    assert len(MODULES) > 50
    assert GRAPH["tokenizers_core.pipeline"]["tokenizers_core.processors.stage"] == "top"
    assert "tokenizers_core.models.bpe.model" in GRAPH["tokenizers_core.implementations.bpe"]


def test_cycles_are_found():
    assert cycles({"a": {"b": "top"}, "b": {"c": "function"}, "c": {"a": "string"}}) == [
        ["a", "b", "c"]
    ]
    assert cycles({"a": {"b": "top"}, "b": {}}) == []


def test_no_import_circle():
    assert cycles(GRAPH) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    """A module imports its own stage package and layers below; so models never import the
    pipeline, the stages never import whole tokenisers, and nothing below formats/ reads files."""
    own = layer_of(module)
    for target in GRAPH[module]:
        shared = own in (0, len(LAYERS) - 1) and layer_of(target) == own  # base, top: flat
        assert layer_of(target) < own or _stage(target) == _stage(module) or shared, (
            f"{module} ({LAYERS[own][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        )


def _stage(module: str) -> str:
    """The stage package a module is in (`tokenizers_core.models` for models.bpe.trainer)."""
    return ".".join(module.split(".")[:2])


@pytest.mark.heavy
def test_imports_sit_at_the_top():
    """An import inside a function hides a dependency (it was how the old circle held): the
    few left are there to keep `import tokenizers_core` light, and each says so on its line
    (`# lazy: ...`); the circle test above counts them too."""
    unmarked = []
    for module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if (
                isinstance(node, (ast.Import, ast.ImportFrom))
                and id(node) not in top
                and "# lazy:" not in lines[node.lineno - 1]
            ):
                unmarked.append(f"{module}:{node.lineno}")
    assert unmarked == []
    lazy = [m for m, out in GRAPH.items() for w in out.values() if w == "function"]
    assert len(lazy) <= 8, "function-level imports are meant to be rare"


def test_the_web_layer_has_no_import_circle():
    assert cycles(APP_GRAPH) == []


def test_no_router_imports_another():
    """Routers share through app/views and app/services, never through each other."""
    routers = [m for m in APP_MODULES if m.startswith("app.routers.")]
    shared = sorted(
        f"{m} -> {t}"
        for m in routers
        for t in APP_GRAPH[m]
        if t.startswith("app.routers.") and t != m
    )
    assert shared == []


@pytest.mark.heavy
def test_the_core_never_imports_the_web_layer():
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        # chat templates are Jinja programs (transformers' format, not HTML): chat/ may run them;
        # a notebook's HTML (`_repr_html_`, no server) comes from autoescaped templates
        web = (
            ("app.", "fastapi")
            if module.startswith(("tokenizers_core.chat", "tokenizers_core.notebook"))
            else ("app.", "fastapi", "jinja2")
        )
        assert not any(n == "app" or n.startswith(web) for n in names), module
