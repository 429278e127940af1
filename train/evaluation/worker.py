"""One tournament game at a time, worker side: the code every way of playing a schedule shares.

A process (a local pool worker, a Ray task's worker, or the parent itself with one worker) calls
``init_worker`` once per tournament and then ``play_job`` per game. Game ``index`` is dealt from
``seed + index`` and its agents are seeded from ``(seed, index, seat)``, so a game's result does not
depend on which process plays it.
"""
from __future__ import annotations

import signal
from multiprocessing import parent_process

import agents
from uno_env import Game, RuleSet
from uno_env.observation import ObservationEncoder
from uno_env.records import Recorder
from uno_env.turn import hand_points

from train.agent_specs import load_agent
from train.evaluation.stats import play_game

# one Game and encoder per process, agents built per game from their specs
_WORKER: dict = {}


def init_worker(rules: dict, specs: list[str], files: dict | None = None) -> None:
    """Set this process up for a tournament: its rules, agent specs and the policy agents already loaded."""
    if parent_process() is not None:  # a pool worker: Ctrl-C is the parent's to handle (it stops the pool)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    game = Game(RuleSet.from_dict(rules))
    if files is None:  # policy files are read once per process; each game gets fresh agents with its own seeds
        loaded = {spec: load_agent(spec, game) for spec in specs if spec not in agents.BUILTIN}
        files = {spec: agent for spec, agent in loaded.items() if isinstance(agent, agents.PolicyAgent)}
    _WORKER.update(game=game, encoder=ObservationEncoder(game), specs=specs, files=files)


def _agent(spec: str, seed: int):
    proto = _WORKER["files"].get(spec)
    if proto is None:
        return load_agent(spec, _WORKER["game"], seed=seed)
    return agents.PolicyAgent(proto.policy, proto.deterministic, seed)


def play_job(job: tuple[int, int, tuple[int, ...], bool]) -> dict:
    """Play game ``index`` with the given seating; returns its result (and record lines)."""
    index, seed, seating, record = job
    game, enc, specs = _WORKER["game"], _WORKER["encoder"], _WORKER["specs"]
    policies = [_agent(specs[a], seed * 1_000_003 + index * 101 + seat) for seat, a in enumerate(seating)]
    rec = Recorder(game, seed + index, [specs[a] for a in seating]) if record else None
    state = play_game(game, policies, seed + index, enc, step=rec.step if rec else None)
    out = {"index": index, "seating": list(seating), "winner": state.winner, "round_points": list(state.round_points),
           "hand_points": [hand_points(game, state, q) for q in range(game.num_players)],
           "truncated": state.truncated}
    if rec:
        out["record"] = rec.finish(state).lines()
    return out
