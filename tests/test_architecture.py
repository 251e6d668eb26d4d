"""The package's import structure: the web layer's layers (docs/architecture.md) and no import circle anywhere.

Both read the import graph (grimp, which import-linter uses) of this checkout's ``werewolf``, imports made only
for type checking included: a module that names another's types depends on it as much as one that calls it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest

import werewolf

ROOT = Path(__file__).resolve().parent.parent

# Circles that other branches of issue 28 are taking apart now; each is allowed as it stands (no module may
# join it). Empty this list as they land: a circle that is gone makes its entry a no-op, never a failure.
STILL_BEING_REMOVED: list[frozenset[str]] = []


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # The graph of this checkout, not of another install of the package on the path.
    assert Path(werewolf.__file__).resolve().parent == ROOT / "werewolf"
    return grimp.build_graph("werewolf", cache_dir=None)


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_of_werewolf_is_in_an_import_circle(graph: grimp.ImportGraph) -> None:
    new = [c for c in circles(graph) if not any(set(c) <= allowed for allowed in STILL_BEING_REMOVED)]
    described = []
    for component in new:
        inside = set(component)
        imports = [f"  {a} -> {b}" for a in component for b in sorted(graph.find_modules_directly_imported_by(a))
                   if b in inside]
        described.append(f"{', '.join(component)}:\n" + "\n".join(imports))
    assert not new, "import circle(s):\n" + "\n".join(described)


def test_the_circle_finder_finds_circles() -> None:
    g = grimp.ImportGraph()
    for m in ("p", "p.a", "p.b", "p.c", "p.d"):
        g.add_module(m)
    for a, b in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.d", "p.a")):
        g.add_import(importer=a, imported=b)
    assert circles(g) == [["p.a", "p.b", "p.c"]]


def test_the_web_layers_only_look_down() -> None:
    """import-linter's contracts in pyproject.toml: the layers of werewolf.web, no circle among its modules,
    and only a worker's entry point importing the web package itself. Its report is printed on failure."""
    from importlinter import configuration
    from importlinter.application.use_cases import lint_imports

    configuration.configure()  # as its command line does (not by calling it: it sets up logging for the process)
    assert Path(werewolf.__file__).resolve().parent == ROOT / "werewolf"
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), cache_dir=None, no_logo=True)
