"""Agent specs of the command line: everything ``agents.load`` reads, plus a Python ``module:callable``.

``uno-env eval`` and ``uno-env benchmark`` build agents through ``load_agent`` (in the parent process
and in every worker process of a tournament), so an agent written outside this project can be played
without exporting it: ``mypkg.bots:make_agent`` imports ``mypkg.bots`` and calls
``make_agent(game, seed)``, which returns an agent (``act(observation, action_mask) -> int``, or a
search agent's ``reads_state`` + ``act_state(state)``).

The built-in forms come first, so ``pretrained:classic`` and ``ismcts:iterations=5`` (which also
have a colon) still go to ``agents.load``, as does a spec naming an existing file.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import re
import traceback

import agents
from agents import AgentSpecError

CALLABLE_SPEC = re.compile(r"^(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$")
"""``package.module:name`` or ``module:name`` (``name`` may be dotted: ``module:Class.factory``)."""

CALLABLE_FORM = "module:callable (a Python callable(game, seed) that returns an agent, e.g. mypkg.bots:make_agent)"
"""How the extra spec form is named in error messages."""

SPEC_FORMS = ("random, greedy, heuristic, ismcts[:key=value,...], level:<easy|medium|hard|expert> (opponents by "
              "strength), pretrained (the best shipped policy for the "
              "table), pretrained:<name>, a policy file (path/to/policy, e.g. runs/<name>/policy), or "
              "module:callable (a Python callable(game, seed) returning an agent)")
"""Every form of agent spec, for help texts (eval, play, benchmark and exploit take them all; serve, fewer)."""

AGENT_SPECS_ALLOWED = ("random, greedy, heuristic, ismcts[:key=value,...], level:<easy|medium|hard|expert>, "
                       "pretrained:<name>, a path to an exported "
                       f"policy, or {CALLABLE_FORM}")
"""What an agent spec may be, as the error for a ``module:callable`` whose module is missing says it."""

_LOADER_PREFIXES = ("ismcts:", "pretrained:", "level:")


def is_callable_spec(spec: str) -> bool:
    """Whether ``spec`` is a ``module:callable`` spec rather than one ``agents.load`` reads."""
    if not isinstance(spec, str) or spec in (*agents.BUILTIN, "ismcts", "pretrained") or spec.startswith(_LOADER_PREFIXES):
        return False
    if any(os.path.exists(spec + ext) for ext in ("", ".json", ".npz")):  # a policy file that happens to match
        return False
    return CALLABLE_SPEC.match(spec) is not None


def load_agent(spec: str, game=None, seed: int | None = None):
    """The agent of ``spec``: a ``module:callable`` called as ``callable(game, seed)``, else ``agents.load``."""
    if not is_callable_spec(spec):
        try:
            return agents.load(spec, game, seed=seed)
        except AgentSpecError as exc:
            if str(exc).startswith("unknown agent spec"):  # name the extra form too
                raise AgentSpecError(f"{exc}; or {CALLABLE_FORM}") from None
            raise
    factory = resolve_callable(spec)
    agent = factory(game, seed)
    if not (callable(getattr(agent, "act", None)) or callable(getattr(agent, "act_state", None))):
        raise AgentSpecError(f"agent spec {spec!r}: the callable returned {type(agent).__name__}, which has no "
                             "act(observation, action_mask) method")
    return agent


def resolve_callable(spec: str, what: str = "agent spec", form: str = CALLABLE_FORM,
                     allowed: str = AGENT_SPECS_ALLOWED, path_hint: str = ""):
    """The callable a ``module:callable`` spec names; AgentSpecError (one line) if it cannot be had.

    ``what`` names the spec in messages (``agent spec``, ``algo``), ``form`` and ``allowed`` say what it may be,
    ``path_hint`` ends the advice on the Python path. A module that is missing, that fails to import something
    itself, or that has a syntax error is one line each, naming the file and line where the import failed.
    """
    match = CALLABLE_SPEC.match(spec)
    if match is None:
        raise AgentSpecError(f"{what} {spec!r} is not of the form {form}")
    module_name, name = match["module"], match["name"]
    head = f"{what} {spec!r}: cannot import module {module_name!r}"
    try:
        target = importlib.import_module(module_name)
    except SyntaxError as exc:  # (IndentationError too) in the module or in one it imports
        raise AgentSpecError(f"{head}: a syntax error in {exc.filename}, line {exc.lineno}: "
                             f"{_first_line(exc.msg)}") from None
    except ImportError as exc:
        missing = isinstance(exc, ModuleNotFoundError) and exc.name is not None and \
            (module_name == exc.name or module_name.startswith(exc.name + "."))
        if missing:
            raise AgentSpecError(f"{head}: no such module on the Python path (put the folder holding "
                                 f"{module_name.split('.')[0]}.py, or its package, on PYTHONPATH, e.g. PYTHONPATH=. "
                                 f"for one in the current directory{path_hint}); allowed: {allowed}") from None
        raise AgentSpecError(f"{head}: {_first_line(str(exc))} ({_failed_at(exc)})") from None
    for part in name.split("."):
        if not hasattr(target, part):
            raise AgentSpecError(f"{what} {spec!r}: module {module_name!r} has no {name!r}")
        target = getattr(target, part)
    if not callable(target):
        raise AgentSpecError(f"{what} {spec!r}: {module_name}.{name} is not callable")
    return target


def _first_line(text: str) -> str:
    """The first line of an error's message, cut to 300 characters."""
    lines = str(text).strip().splitlines()
    line = lines[0] if lines else "no message"
    return line if len(line) <= 300 else line[:300] + "..."


def _failed_at(exc: BaseException) -> str:
    """``<file>, line <n>``: the deepest frame of ``exc`` outside Python's import machinery (where it was raised)."""
    where = "unknown place"
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if not frame.f_code.co_filename.startswith("<frozen "):
            where = f"{frame.f_code.co_filename}, line {line}"
    return where


def policy_digest(spec: str | None) -> str | None:
    """The sha256 of a policy file's two files, for ``pretrained:<name>`` or a path (None for other agents): what
    ``uno-env exploit --resume`` checks its target against, and a distillation's ``labelling.json`` records."""
    from agents.policy_file import strip_extension

    if spec is None:
        return None
    if spec.startswith("pretrained:"):
        try:
            base = agents.pretrained_path(spec.split(":", 1)[1])
        except agents.AgentSpecError:
            return None
    else:
        base = strip_extension(spec)
        if not os.path.isfile(base + ".json"):
            return None
    digest = hashlib.sha256()
    for ext in (".json", ".npz"):
        with open(base + ext, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()
