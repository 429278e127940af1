"""The architecture's one import direction: ``uno_env`` <- ``agents`` <- ``train``, inside ``train`` by room, no cycles."""
from __future__ import annotations

import ast
import os
import pathlib

import pytest
from paths import ROOT  # tests/paths.py

LAYERS = ("uno_env", "agents", "train")  # each may import only the ones before it

# Inside ``train``, the rooms in import order: each may import its own modules and those of the rooms
# listed before it, never one after it nor a sibling on its own line (one algorithm never imports another).
# ``shared`` is every module at the top of ``train/`` (config, errors, export, progress, ...).
TRAIN_ROOMS = (
    ("shared",),
    ("collect",),                   # the collector and encoders every trainer shares
    ("evaluation",),                # tournaments and statistics: no Ray, no trainer
    ("scaleout",),                  # Ray: sessions, remote collectors, remote tournament games
    ("ppo", "sb3", "dqn", "dmc"),   # one sub-package per learning algorithm
    ("nfsp",),                      # NFSP: a DQN best response (train.dqn) and an average policy
    ("rllib",),                     # RLlib's PPO over the native PPO's network (the same exported policy)
    ("benchmark",),                 # the suite, the protocol, throughput benches: they run the trainers
    ("app",),                       # the command line, training command, web server, terminal play, replay
)


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


def _room(module: str) -> str:
    """The room of a ``train`` module: its sub-package, or ``shared`` for a module at the top of ``train/``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and _is_package(parts[1])) else "shared"


def _is_package(name: str) -> bool:
    return os.path.isfile(os.path.join(ROOT, "train", name, "__init__.py"))


def _rank(room: str) -> int:
    return next(i for i, line in enumerate(TRAIN_ROOMS) if room in line)


def test_every_train_module_is_in_a_declared_room(modules):
    rooms = {_room(m) for m in modules if m.startswith("train.")}
    assert rooms - {r for line in TRAIN_ROOMS for r in line} == set()
    assert {"shared", "ppo", "app", "evaluation"} <= rooms  # the scan sees the rooms


def test_the_rooms_of_train_import_one_way(modules):
    """A room imports only itself and the rooms before it: the generic tournament never imports Ray, no trainer the CLI."""
    wrong = []
    for m, path in modules.items():
        if not m.startswith("train."):
            continue
        for t in _imports(m, path, modules, False):
            if t.startswith("train.") and _room(t) != _room(m) and _rank(_room(t)) >= _rank(_room(m)):
                wrong.append(f"{m} ({_room(m)}) imports {t} ({_room(t)})")
    assert wrong == []


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
