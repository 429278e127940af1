"""The architecture's one import direction: ``uno_env`` <- ``agents`` <- ``train``, and no import cycles."""
from __future__ import annotations

import ast
import os
import pathlib

import pytest
from paths import ROOT  # tests/paths.py

LAYERS = ("uno_env", "agents", "train")  # each may import only the ones before it


def _modules() -> dict[str, str]:
    """Dotted module name -> file, for every module of the three packages."""
    found = {}
    for package in LAYERS:
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                    found[dotted.removesuffix(".__init__")] = path
    return found


def _run_at_import(node: ast.AST):
    """The statements that run when the module is imported: all but function bodies (``if``/``try`` blocks too)."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield child
            yield from _run_at_import(child)


def _imports(module: str, path: str, modules: dict[str, str], top_level_only: bool) -> set[str]:
    """The project modules ``module`` imports (at its top level only, or anywhere in it)."""
    tree = ast.parse(pathlib.Path(path).read_text(encoding="utf-8"))
    nodes = list(_run_at_import(tree)) if top_level_only else list(ast.walk(tree))
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    targets = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:  # `from pkg import mod` imports the module pkg.mod, else pkg itself
                targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {t for t in targets if t in modules and t != module}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


@pytest.fixture(scope="module")
def modules() -> dict[str, str]:
    return _modules()


def test_the_packages_import_one_way(modules):
    upward = [f"{m} imports {t}" for m, path in modules.items() for t in _imports(m, path, modules, False)
              if LAYERS.index(t.split(".")[0]) > LAYERS.index(m.split(".")[0])]
    assert upward == []


def test_no_module_level_import_cycles(modules):
    graph = {m: _imports(m, path, modules, True) for m, path in modules.items()}
    assert len(graph) > 50 and any(graph.values())  # the scan sees the project's imports
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_test_module_imports_another():
    """Helpers shared by tests live in helper modules beside them (tests/*.py), never in a test module."""
    offenders = []
    for path in pathlib.Path(ROOT, "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{path.relative_to(ROOT)} imports {n}" for n in names if n.split(".")[0].startswith("test_")]
    assert not offenders, offenders
