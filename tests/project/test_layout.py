"""The architecture's one import direction: ``uno_env`` <- ``agents`` <- ``train``, inside ``agents`` and ``train``
by room, no arrow back up into a package's ``__init__``, no cycles."""
from __future__ import annotations

import ast
import os
import pathlib
import re
import subprocess
import sys

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

# The one named exception to the rooms' order: the registry (``train/registry.py``, at the top of ``train/`` with the
# config it names the parts of) imports each built-in algorithm's entry module, ``train/<algo>/algorithm.py``, so a
# reader follows ``algo: dqn`` from the registry to its trainer. It stays harmless while an entry module imports
# nothing but modules at the top of ``train/`` (the contract's types) at its top level, its trainer only inside its
# function (``test_the_registry_reaches_the_algorithms_only_through_their_entry_modules``): no cycle, no torch.
ENTRY_MODULES = re.compile(r"train\.(\w+)\.algorithm")


def _allowed_exception(module: str, target: str) -> bool:
    """Whether ``module`` importing ``target`` is the registry importing an algorithm's entry module."""
    return module == "train.registry" and ENTRY_MODULES.fullmatch(target) is not None


# Inside ``agents``, the same by room: the package's ``__init__`` only gathers the public names and sits on top,
# under it the loader (``agents.load``: any agent from a spec), under that the agents, and under them their parts.
# A module below never imports one above: the search is handed its prior already loaded, never reaching the loader.
AGENT_ROOMS = (
    ("base", "view", "leaf_value", "policy_file",   # the protocol, the observation view, the leaf model, policy files,
     "levels"),                                      # the levels' named specs
    ("rule_based", "search"),                       # the agents built on them
    ("loader",),                                    # agents.load: builds every agent from its spec
    ("__init__",),                                  # the package's public names, re-exported
)

# An arrow back up: a module importing the ``__init__`` of a package it sits in (the package's front door, which
# gathers what is below it). None in ``agents`` nor in ``train``; one found is a failure, not an entry here.
KNOWN_ARROWS_BACK_UP: set[str] = set()


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


def _rank(room: str, rooms: tuple[tuple[str, ...], ...] = TRAIN_ROOMS) -> int:
    return next(i for i, line in enumerate(rooms) if room in line)


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
            if t.startswith("train.") and _room(t) != _room(m) and _rank(_room(t)) >= _rank(_room(m)) \
                    and not _allowed_exception(m, t):
                wrong.append(f"{m} ({_room(m)}) imports {t} ({_room(t)})")
    assert wrong == []


def test_the_registry_reaches_the_algorithms_only_through_their_entry_modules(modules):
    from train import registry

    later = {t for t in _imports("train.registry", modules["train.registry"], modules, False)
             if _room(t) != "shared"}
    # exactly one entry module per built-in, each the module of the record's entry function
    assert later == {f"train.{name}.algorithm" for name in registry.BUILTIN}
    assert all(a.entry.__module__ == f"train.{name}.algorithm" for name, a in registry.BUILTIN.items())
    for entry in later:  # at its top level an entry module imports the shared modules and the layers below only
        top = _imports(entry, modules[entry], modules, True)
        assert {t for t in top if t.startswith("train.") and _room(t) != "shared"} == set(), entry
    # importing the registry (`uno-env train --help` does) loads no algorithm's trainer and no torch
    heavy = ["torch", *(f"train.{name}.trainer" for name in registry.BUILTIN)]
    code = ("import contextlib, io, sys, train.registry\nfrom train.app.cli import main\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['train', '--help'])\n"
            f"print(sorted(m for m in sys.modules if m in {heavy}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_the_exception_is_only_the_registry_importing_entry_modules():
    assert _allowed_exception("train.registry", "train.dqn.algorithm")
    assert not _allowed_exception("train.registry", "train.dqn.trainer")
    assert not _allowed_exception("train.config", "train.dqn.algorithm")


def _agent_room(module: str) -> str:
    """The room of an ``agents`` module: its file's name, its sub-package's for one inside a sub-package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_agents_module_is_in_a_declared_room(modules):
    rooms = {_agent_room(m) for m in modules if m.split(".")[0] == "agents"}
    assert rooms == {r for line in AGENT_ROOMS for r in line}  # a new module is placed on purpose


def test_the_rooms_of_agents_import_one_way(modules):
    """A module of ``agents`` imports only its own room and those below it: nothing below the loader imports it."""
    wrong = []
    for m, path in modules.items():
        if m.split(".")[0] != "agents":
            continue
        for t in _imports(m, path, modules, False):
            if t.split(".")[0] == "agents" and _agent_room(t) != _agent_room(m) \
                    and _rank(_agent_room(t), AGENT_ROOMS) >= _rank(_agent_room(m), AGENT_ROOMS):
                wrong.append(f"{m} ({_agent_room(m)}) imports {t} ({_agent_room(t)})")
    assert wrong == []


def _arrows_back_up(graph: dict[str, set[str]], packages: set[str]) -> list[str]:
    """Each import of a package's ``__init__`` by a module inside that package, at any depth."""
    return sorted(f"{m} imports {t}" for m, targets in graph.items() for t in targets
                  if t in packages and m.startswith(t + "."))


def test_no_arrows_back_up_in_agents_and_train(modules):
    """No module imports the package it sits in (anywhere in it, a function's body too): the ``__init__`` is the
    package's front door for the modules outside it."""
    inside = {m: path for m, path in modules.items() if m.split(".")[0] in ("agents", "train")}
    graph = {m: _imports(m, path, modules, False) for m, path in inside.items()}
    packages = {m for m, path in inside.items() if path.endswith("__init__.py")}
    arrows = set(_arrows_back_up(graph, packages))
    assert arrows - KNOWN_ARROWS_BACK_UP == set()
    assert KNOWN_ARROWS_BACK_UP - arrows == set()  # a fixed one leaves the list


def test_the_arrow_finder_finds_an_arrow_back_up():
    graph = {"agents": {"agents.loader"}, "agents.loader": {"agents.search"}, "agents.search": {"agents"},
             "agents.policy_file.policy": {"agents.policy_file.limits"}, "train.x": {"agents"}}
    assert _arrows_back_up(graph, {"agents", "agents.policy_file"}) == ["agents.search imports agents"]
    graph["agents.policy_file.policy"].add("agents")
    assert _arrows_back_up(graph, {"agents", "agents.policy_file"})[0] == "agents.policy_file.policy imports agents"


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
