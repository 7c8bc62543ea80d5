"""The layering of docs/architecture.md, enforced for every module of gibberish/.

The layer table lives on that page, and only there: this test reads it. Every import
counts: at the top of a module, inside a function or a class, under ``TYPE_CHECKING``,
relative ones, and a module named in a string (``Lazy("gibberish.ui.x")``, a command
table) — a lazy import is still a dependency, and counts for cycles too. Each module
belongs to the row of ``LAYERS`` with the longest matching prefix; it may import its own
row and rows ranked lower, never a row ranked higher or a different row of the same
rank, and never what its row forbids. A failure names the importing file and line, the import, and the rule, so a
branch that adds an upward import learns which one to move.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "gibberish"


@dataclass(frozen=True)
class Layer:
    prefix: str
    rank: int
    job: str
    forbids: frozenset[str] = frozenset()
    """Lower rows (or outside modules) this row must not import either."""


ARCHITECTURE = REPO_ROOT / "docs" / "architecture.md"
"""The one home of the layer table: its rows under "## The layers"."""


def _code_names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def read_layers(text: str) -> tuple[Layer, ...]:
    """The rows of the layer table in ``text`` (docs/architecture.md), in order."""
    section = text.split("\n## The layers\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`gibberish"):
            continue
        (prefix,) = _code_names(cells[0])
        rows.append(Layer(prefix, int(cells[1]), cells[2], frozenset(_code_names(cells[3]))))
    return tuple(rows)


LAYERS: tuple[Layer, ...] = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))


def test_the_layer_table_is_read_from_the_architecture_page() -> None:
    """The page's table is what is enforced: a row there is a row here, in its order."""
    assert len(LAYERS) > 20
    assert LAYERS[0] == Layer("gibberish.__main__", 100, "`python -m gibberish`")
    trust = next(r for r in LAYERS if r.prefix == "gibberish.trust")
    assert trust.rank == 30 and trust.forbids == {"gibberish.runner"}
    assert [r.rank for r in LAYERS] == sorted((r.rank for r in LAYERS), reverse=True)
    changed = ARCHITECTURE.read_text(encoding="utf-8").replace(
        "| `gibberish.trust` | 30 |", "| `gibberish.trust` | 95 |"
    )
    assert next(r for r in read_layers(changed) if r.prefix == "gibberish.trust").rank == 95


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {
    _module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts
}


@dataclass(frozen=True)
class Import:
    importer: str
    target: str
    line: int
    typing_only: bool = False
    """Under ``if TYPE_CHECKING:``: a dependency (it counts for the layers), never run."""

    def where(self) -> str:
        return f"{MODULES[self.importer].relative_to(REPO_ROOT)}:{self.line}"


def _base(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    parts = package.split(".")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _targets(module: str, node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = _base(module, node)
        return [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
            for alias in node.names
        ]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MODULES:
        return [node.value]  # a module loaded by name
    return []


def _typing_only_nodes(tree: ast.AST) -> set[int]:
    """Ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            ids.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return ids


def imports_of(module: str) -> list[Import]:
    """Every import of ``module``, wherever it is written."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    typing_only = _typing_only_nodes(tree)
    return [
        Import(module, target, getattr(node, "lineno", 0), id(node) in typing_only)
        for node in ast.walk(tree)
        for target in _targets(module, node)
    ]


def layer_of(module: str) -> Layer | None:
    rows = [r for r in LAYERS if module == r.prefix or module.startswith(r.prefix + ".")]
    return max(rows, key=lambda r: len(r.prefix), default=None)


def _is_ancestor(package: str, module: str) -> bool:
    return module.startswith(package + ".")


def broken_rule(imp: Import) -> str | None:
    """Which rule ``imp`` breaks, as a sentence; None when it points down."""
    own = layer_of(imp.importer)
    assert own is not None
    top = imp.target.split(".")[0]
    if top in own.forbids or any(
        imp.target == f or imp.target.startswith(f + ".") for f in own.forbids
    ):
        return f"{own.prefix} ({own.job}) must not import {imp.target}"
    if top != "gibberish" or _is_ancestor(imp.target, imp.importer):
        return None
    other = layer_of(imp.target)
    if other is None or other is own:
        return None
    if other.rank < own.rank:
        return None
    relation = "a peer of the same rank" if other.rank == own.rank else "a layer above it"
    return (
        f"{own.prefix} (rank {own.rank}: {own.job}) imports {other.prefix} "
        f"(rank {other.rank}: {other.job}), {relation}"
    )


def test_every_module_has_a_row() -> None:
    missing = [m for m in MODULES if layer_of(m) is None]
    assert missing == [], f"add a row to the layer table of docs/architecture.md for: {missing}"


def test_every_package_has_its_own_row() -> None:
    """A new package (or top-level module) gets a row saying where it sits, rather than
    silently inheriting the package root's rank 0."""
    tops = {".".join(m.split(".")[:2]) for m in MODULES if m != "gibberish"}
    prefixes = {r.prefix for r in LAYERS}
    assert sorted(tops - prefixes) == []


def test_imports_point_down() -> None:
    offenders = sorted(
        {
            f"{imp.where()}: `{imp.target}` — {rule}"
            for module in MODULES
            for imp in imports_of(module)
            if (rule := broken_rule(imp)) is not None
        }
    )
    assert offenders == [], (
        "imports that break the layers of docs/architecture.md (move the code down, pass it in, or "
        "move the import up to a caller):\n" + "\n".join(offenders)
    )


def _graph() -> dict[str, set[str]]:
    """Module -> the gibberish modules it imports, wherever the import is written: under
    ``TYPE_CHECKING`` too (a type-only import is still a dependency a reader follows, and
    a loop of them is two modules that know each other). Left out: an import of one's own
    parent package (Python has always loaded the parent first, so it closes no loop)."""
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        graph[module] = {
            imp.target
            for imp in imports_of(module)
            if imp.target in MODULES
            and imp.target != module
            and not _is_ancestor(imp.target, module)
        }
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_type_only_imports_count_for_cycles() -> None:
    """``lifecycle`` names the tray's parts only under ``TYPE_CHECKING``: still an edge."""
    assert any(
        imp.typing_only and imp.target == "gibberish.ui.reloading"
        for imp in imports_of("gibberish.ui.lifecycle")
    )
    assert "gibberish.ui.reloading" in _graph()["gibberish.ui.lifecycle"]


def test_no_import_cycles() -> None:
    graph = _graph()
    found = cycles(graph)
    described = []
    for component in found:
        members = set(component)
        edges = [
            f"  {imp.where()}: {imp.importer} imports {imp.target}"
            for m in component
            for imp in imports_of(m)
            if imp.target in members and imp.target != m
        ]
        described.append(" <-> ".join(component) + "\n" + "\n".join(edges))
    assert found == [], "import cycles (break one edge of each):\n" + "\n".join(described)


@pytest.mark.parametrize(
    ("importer", "target", "breaks"),
    [
        ("gibberish.engine.core", "gibberish.ui.menu.model", True),
        ("gibberish.skills.library", "subprocess", True),
        ("gibberish.trust.policy", "gibberish.runner", True),
        ("gibberish.runner.handle", "gibberish.skills.model", True),
        ("gibberish.install.fetch", "gibberish.voice", True),
        ("gibberish.install.fetch", "gibberish.export.sync", True),
        ("gibberish.export.web.service", "gibberish.mcp.server", True),
        ("gibberish.mcp.server", "gibberish.export.agents", False),
        ("gibberish.export.sync_offer", "gibberish.install.transaction", False),
        ("gibberish.ui.menu.model", "gibberish.engine.core", False),
        ("gibberish.skills.cache", "gibberish.skills", False),
    ],
)
def test_the_rules_themselves(importer: str, target: str, breaks: bool) -> None:
    assert (broken_rule(Import(importer, target, 1)) is not None) is breaks
