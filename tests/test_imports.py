"""The import graph of advisor/ and bot/: no cycle, and words only at the edge.

Every ``import`` and ``from ... import`` in every module counts, at module level and inside
functions alike (a lazy import still makes the two modules depend on each other); only blocks
under ``if TYPE_CHECKING:`` are left out (they never run). ``from pkg import name`` depends on
``pkg.name`` when that is a module of ours, else on the package ``pkg`` (its ``__init__``).
A package's ``__init__`` importing its own submodules, and those importing siblings through the
package, is the usual re-export; the test looks at module files, so a submodule that imports its
own package's ``__init__`` while that ``__init__`` imports it back is a cycle like any other.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("advisor", "bot")
# The ranking and everything it computes from: numbers and codes only (issue #15). None of
# these may reach advisor.i18n or advisor.report (the words), however indirectly.
BELOW_THE_WORDS = ("advisor.recommend", "advisor.answer_model", "advisor.fit", "advisor.memory", "advisor.cost",
                   "advisor.throughput", "advisor.spec", "advisor.catalog")
WORDS = ("advisor.i18n", "advisor.report")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(tree: ast.AST, name: str, is_package: bool, modules: dict[str, Path]) -> set[str]:
    found: set[str] = set()

    def target(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def visit(node: ast.AST) -> None:
        if _type_checking(node):
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(target(alias.name))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else target(base))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(None)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = _imports(tree, name, path.name == "__init__.py", modules)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle (as a path that ends where it starts), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        for nxt in graph.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_import_graph_has_no_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle_and_the_graph_sees_lazy_imports():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    graph = import_graph()
    assert "advisor.steptime.text" in graph["advisor.report"]  # imported inside render_text
    assert "advisor.recommend" in graph["advisor.answer"]


def test_nothing_below_the_words_imports_them():
    graph = import_graph()
    for module in BELOW_THE_WORDS:
        assert module in graph, module
        leaks = sorted(m for m in reachable(graph, module) | {module}
                       if any(m == w or m.startswith(w + ".") for w in WORDS))
        assert leaks == [], f"{module} reaches {leaks}"


def test_advisor_never_imports_bot():
    graph = import_graph()
    assert not [(m, d) for m, deps in graph.items() if m.startswith("advisor") for d in deps if d.startswith("bot")]
