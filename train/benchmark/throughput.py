"""Games and decisions per second, side by side with RLCard's UNO in one run (``uno-env bench``; its command line
is ``train/app/bench_command.py``).

Two figures per row, because they answer different questions:

- **games/s** compares like with like: a whole game of UNO played to its end by the same kind of
  policy. This is the figure to quote against another engine.
- **decisions/s** is the step rate an RL learner sees. This engine asks more decisions per game
  than RLCard (a wild's colour is its own step, a drawn playable card asks play-or-keep, a Wild Draw
  Four asks challenge-or-accept), so per decision it looks better than per game.

The default policy is **matched** to RLCard's random agent: a uniformly random play among the legal
plays, a draw only when nothing is playable (RLCard cannot draw while holding a playable card), a
drawn playable card is played (RLCard plays it for you; likewise the first card offered wherever
``pass`` could decline one: a jump-in, a further multi-play card, Flip's Optimus placement), a Wild
Draw Four is accepted (RLCard has no challenge), anything else uniformly random. ``--policy uniform`` picks uniformly among all legal
ids instead; since a voluntary draw is always legal here, those games balloon to over a thousand
decisions and flatter the per-decision rate.

Contenders are measured interleaved: each round runs every contender for an equal slice of time,
so a busy machine slows all of them alike. ``uno-env bench engine`` compares the engine facade on
the Python engine and on the compiled core (a Python policy choosing each decision), the same games
played whole inside the core, and RLCard's bare ``UnoGame`` loop; ``uno-env bench env`` compares ``uno_env.env`` (and
``raw_env``) with PettingZoo's RLCard UNO wrapper under the same three standard wrappers, and
reports the Gymnasium single-agent env, then ``VectorGames`` on the Python engine and on the compiled
core (``backend="native"``, where it covers the rules), samples/s with uniformly random legal actions
chosen in numpy from the mask. RLCard is optional: ``pip install 'uno-env[rlcard]'``.
``uno-env bench encode`` times the observation encoder and legal-action mask of ``VectorGames``:
the reference (``ObservationEncoder`` and ``legal_action_mask``, row by row) against the batched
writers it uses (``BatchEncoder`` and ``legal_action_masks``), on the same states in the same run.
``uno-env bench parts`` splits a native PPO learning sample's CPU time into its parts (engine, encode,
mask, opponents, forward and sampling, bookkeeping, update) in one training run (``train/benchmark/parts.py``).
"""
from __future__ import annotations

import time

import numpy as np

from uno_env import Game

from train.benchmark.contenders import (UniformPicker, aec_contender, chooser, core_games_contender, engine_contender,
                                        gym_contender, interleaved, rlcard_chooser, rlcard_contender,
                                        rlcard_pettingzoo_uno, stock_wrapped)

#: Games ``split`` records at most (it plays about 600 per ``--seconds``, keeping every game's actions).
MAX_SPLIT_GAMES = 30_000
#: Steps of the whole batch per ``encode`` round.
ENCODE_STEPS = 100
#: Games in the batch of ``env``'s ``VectorGames`` rows.
VECTOR_GAMES = 128


def time_split(variant: str, players: int, games: int, policy: str = "matched", seed: int = 0,
               repeats: int = 3) -> list[tuple[str, float]]:
    """Where a game's time goes: cumulative µs per game of dealing, stepping, legal actions and the policy.

    The games are played once to record their actions, then replayed adding one part at a time (best
    of ``repeats``): ``new_state`` alone; plus ``step`` with the recorded actions (the engine computes
    the legal actions it checks against); plus ``legal_actions`` as a policy asks for them; plus the
    policy's choice (the whole bench loop).
    """
    game = Game(variant, num_players=players)
    choose = chooser(game, policy, UniformPicker(seed))
    new_state, step, legal_actions = game.new_state, game.step, game.legal_actions
    recorded = []
    for i in range(games):
        state, actions = new_state(seed + i), []
        while not state.is_over:
            actions.append(choose(legal_actions(state)))
            step(state, actions[-1])
        recorded.append(actions)

    def deal():
        for i in range(games):
            new_state(seed + i)

    def deal_step():
        for i, actions in enumerate(recorded):
            state = new_state(seed + i)
            for a in actions:
                step(state, a)

    def deal_step_legal():
        for i, actions in enumerate(recorded):
            state = new_state(seed + i)
            for a in actions:
                legal_actions(state)
                step(state, a)

    def whole_loop():
        for i in range(games):
            state = new_state(seed + i)
            while not state.is_over:
                step(state, choose(legal_actions(state)))

    rows = []
    for label, fn in (("new_state (shuffle, deal, starter)", deal), ("+ step", deal_step),
                      ("+ legal_actions", deal_step_legal), ("+ policy choice (bench loop)", whole_loop)):
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
        rows.append((label, best / games * 1e6))
    decisions = sum(map(len, recorded)) / games
    return rows + [("decisions per game", decisions)]


def uniform_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal id per row of ``mask``, chosen in numpy (a few array operations for the batch)."""
    picks = (rng.random(len(mask)) * mask.sum(axis=1)).astype(np.int64)
    return (np.cumsum(mask, axis=1) <= picks[:, None]).sum(axis=1)


def vector_speed(variant: str, players: int, games: int = VECTOR_GAMES, seconds: float = 5.0, rounds: int = 10,
                 seed: int = 0) -> tuple[list[dict], str]:
    """Samples/s of ``VectorGames`` on each backend that serves the rules, interleaved in ``rounds`` slices.

    Each row has ``samples`` (games x steps), ``seconds`` (the whole loop: choosing the actions from the mask
    in numpy, the same way for both, and ``step``), ``step_seconds`` (``step`` alone), and ``agent_samples``
    and ``agent_seconds``: the whole loop with the ``random`` agent's ``act_batch`` choosing instead (the
    compiled core's, where it is built, for either backend). Also returns why there is no native row ('' when
    there is one).
    """
    from agents.base import RandomAgent
    from uno_env.errors import RuleError
    from uno_env.vector import VectorGames

    batches, why = {"python": VectorGames(games, variant, players, backend="python")}, ""
    try:
        batches["native"] = VectorGames(games, variant, players, backend="native")
    except RuleError as exc:
        why = str(exc)
    rows = {}
    for backend, vec in batches.items():
        vec.reset(seed=seed)
        rows[backend] = {"name": f"VectorGames {backend} {variant} {players}p", "rng": np.random.default_rng(seed),
                         "agent": RandomAgent(seed), "samples": 0, "seconds": 0.0, "step_seconds": 0.0,
                         "agent_samples": 0, "agent_seconds": 0.0}
    clock = time.perf_counter
    for _ in range(rounds):
        for backend, vec in batches.items():
            row, mask = rows[backend], vec.mask
            start = clock()
            deadline = start + seconds / rounds / 2
            while True:
                actions = uniform_legal(mask, row["rng"])
                before = clock()
                mask = vec.step(actions)[2]
                now = clock()
                row["step_seconds"] += now - before
                row["samples"] += games
                if now >= deadline:
                    break
            row["seconds"] += now - start
            start, act, obs = clock(), row["agent"].act_batch, vec.obs
            deadline = start + seconds / rounds / 2
            while True:
                mask = vec.step(act(obs, mask))[2]
                row["agent_samples"] += games
                now = clock()
                if now >= deadline:
                    break
            row["agent_seconds"] += now - start
    return [{k: v for k, v in row.items() if k not in ("rng", "agent")} for row in rows.values()], why


def encoder_speed(variant: str, players: int, games: int = 64, rounds: int = 5, steps: int = ENCODE_STEPS,
                  seed: int = 0) -> dict:
    """CPU µs per sample of the reference and the batched observation encoder and mask, on the same states.

    ``games`` games of ``VectorGames`` play uniformly random legal actions. After every step both
    writers encode every game's deciding seat and write its mask (the reference row by row, then
    the batched one, or the other way round on odd steps). The legal ids, which both masks read
    and ``step`` needs anyway, are computed once per step by the engine's own code and timed apart
    (``legal ids``). ``time.process_time``, summed over a round of ``steps`` steps; the result
    holds every round's figure under ``(writer, part)``, and ``legal ids`` under ``("both", "legal ids")``.
    """
    from uno_env.vector import VectorGames

    vec = VectorGames(games, variant, num_players=players, backend="python")
    _, _, mask = vec.reset(seed=seed)
    game, reference, batch = vec.game, vec.encoder, vec.batch_encoder
    # the same games on the compiled core (equal step for step), written by its C++ encoder row by row
    twin = VectorGames(games, variant, num_players=players, backend="native") \
        if Game(variant, num_players=players).backend == "native" else None
    if twin is not None:
        twin.reset(seed=seed)
    obs, masks = np.zeros_like(vec.obs), np.zeros_like(vec.mask)
    rng = np.random.default_rng(seed)
    clock = time.process_time

    def reference_rows(states):
        start = clock()
        for i, s in enumerate(states):
            reference.encode_into(s, s.current_seat, obs[i])
        middle = clock()
        for i, s in enumerate(states):
            game.legal_action_mask(s, out=masks[i])
        return middle - start, clock() - middle

    def batched_rows(states):
        start = clock()
        batch.encode(states, [s.current_seat for s in states], obs)
        middle = clock()
        game.legal_action_masks(states, masks)
        return middle - start, clock() - middle

    def core_rows(states):
        start = clock()
        for i, s in enumerate(twin.states):
            twin.encoder.encode_into(s, s.current_seat, obs[i])
        middle = clock()
        for i, s in enumerate(twin.states):
            twin.game.legal_action_mask(s, out=masks[i])
        return middle - start, clock() - middle

    writers = [("reference", reference_rows), ("batched", batched_rows)] + ([("core", core_rows)] if twin else [])
    figures = {(who, part): [] for who, _ in writers for part in ("encoder", "mask write")}
    figures["both", "legal ids"] = []
    for _ in range(rounds):
        spent = dict.fromkeys(figures, 0.0)
        for step in range(steps):
            for s in vec.states:
                s.legal = None  # as after a step: VectorGames.step has cached the ids it wrote into its mask
            start = clock()
            for s in vec.states:
                game.legal_actions(s)  # computed and cached in the state, as the step that follows needs them
            spent["both", "legal ids"] += clock() - start
            for who, writer in (writers if step % 2 else writers[::-1]):  # neither always runs on a cold cache
                encoder_s, mask_s = writer(vec.states)
                spent[who, "encoder"] += encoder_s
                spent[who, "mask write"] += mask_s
            actions = uniform_legal(mask, rng)
            vec.step(actions)
            if twin is not None:
                twin.step(actions)
        for key in figures:
            figures[key].append(spent[key] / (steps * games) * 1e6)
    return figures


def print_encoder_speed(variant: str, players: int, games: int, rounds: int) -> None:
    figures = encoder_speed(variant, players, games, rounds)
    median = {key: float(np.median(values)) for key, values in figures.items()}
    core = ("core", "encoder") in median
    for who in ("reference", "batched"):
        median[who, "legal ids"] = median["both", "legal ids"]
    if core:
        median["core", "legal ids"] = 0.0  # the core computes them inside its step
    print(f"{variant} {players}p, {games} games, uniformly random legal actions; CPU µs per sample, median of "
          f"{rounds} rounds of {ENCODE_STEPS} steps, reference and batched interleaved on the same states"
          + (", core on the same games (its C++ encoder, one call per row)" if core else ""))
    print(f"  {'part':<36}{'reference':>11}{'batched':>11}{'faster':>9}" + (f"{'core':>11}{'faster':>9}" if core else ""))
    parts = {"encoder": ("encoder",), "mask write": ("mask write",),
             "legal ids (the engine's, both)": ("legal ids",), "encoder + mask write": ("encoder", "mask write"),
             "encoder + mask with legal ids": ("encoder", "mask write", "legal ids")}
    for label, keys in parts.items():
        ref = sum(median["reference", k] for k in keys)
        new = sum(median["batched", k] for k in keys)
        line = f"  {label:<36}{ref:>11.2f}{new:>11.2f}{ref / new:>8.2f}x"
        if core:
            c = sum(median["core", k] for k in keys)
            line += f"{c:>11.2f}{ref / c:>8.2f}x" if c else f"{'in step':>11}"
        print(line)


def print_engines(variant: str, player_counts: list[int], policy: str, seconds: float) -> None:
    """``bench engine``'s table: per player count, the Python engine, the core through the same facade, the core
    playing whole games, and RLCard's bare game, interleaved."""
    _print_header(policy, seconds)
    for players in player_counts:
        python, native, inside, theirs = interleaved([
            engine_contender(variant, players, policy, backend="python"),
            engine_contender(variant, players, policy) if _core_covers(variant, players) else None,
            core_games_contender(variant, players, policy), rlcard_contender(players)], seconds)
        _print_pair(python, theirs, "rlcard")
        for row in (native, inside):
            if row:
                _print_pair(row, theirs, "", show_theirs=False)
                print(f"{'':<40}{row['games_per_s'] / python['games_per_s']:.1f}x the Python engine per game")


def print_environments(variant: str, player_counts: list[int], policy: str, seconds: float) -> None:
    """``bench env``'s table: the AEC env wrapped and raw beside PettingZoo's RLCard UNO (2 players), on the Python
    engine and under PettingZoo's stock wrappers, then the Gymnasium env and ``VectorGames`` per player count."""
    import uno_env

    _print_header(policy, seconds)
    make = rlcard_pettingzoo_uno()
    game = Game(variant, num_players=2)
    contenders = []
    for wrapped in (True, False):  # all four interleaved: the wrapped/raw ratios compare like with like
        label = "" if wrapped else " raw"
        factory = uno_env.env if wrapped else uno_env.raw_env
        contenders.append(aec_contender(lambda f=factory: f(variant=variant, num_players=2),
                                        f"uno_env AEC{label} {variant} 2p",
                                        chooser(game, policy, UniformPicker(0))))
        contenders.append(aec_contender(lambda w=wrapped: make(w), f"pettingzoo rlcard uno{label} 2p",
                                        rlcard_chooser(UniformPicker(0))) if make else None)
    # the same wrapped env on the Python engine: what the core saves an AEC user
    contenders.append(aec_contender(lambda: uno_env.env(variant=variant, num_players=2, backend="python"),
                                    f"uno_env AEC {variant} 2p, python engine",
                                    chooser(game, policy, UniformPicker(0))))
    # this env under PettingZoo's three stacked wrappers, for what uno_env.env's single layer saves
    contenders.append(aec_contender(lambda: stock_wrapped(uno_env.raw_env(variant=variant, num_players=2)),
                                    f"uno_env raw + stock wrappers {variant} 2p",
                                    chooser(game, policy, UniformPicker(0))))
    ours, theirs, ours_raw, theirs_raw, python, stock = interleaved(contenders, seconds)
    _print_pair(python, theirs, "pettingzoo rlcard uno")
    _print_pair(ours, theirs, "", show_theirs=False)
    print(f"{'':<40}{ours['games_per_s'] / python['games_per_s']:.1f}x the Python engine per game")
    _print_pair(ours_raw, theirs_raw, "pettingzoo rlcard uno raw")
    _print_pair(stock, None, "")
    print(f"{'wrapped/raw time per game':<40}uno_env {ours_raw['games_per_s'] / ours['games_per_s']:.2f}x"
          + (f", pettingzoo rlcard uno {theirs_raw['games_per_s'] / theirs['games_per_s']:.2f}x"
             if theirs else ""))
    for players in player_counts:
        _print_pair(interleaved([gym_contender(variant, players, policy)], seconds)[0], None, "")
    for players in player_counts:
        print_vector_speed(variant, players, seconds)


def _print_header(policy: str, seconds: float) -> None:
    print(f"policy: {policy}; contenders interleaved, {seconds:g} s each")
    print(f"{'what':<40}{'games':>8}{'games/s':>10}{'decisions':>11}{'dec/s':>10}{'dec/game':>10}"
          f"{'games/s ratio':>15}{'dec/s ratio':>13}")


def _core_covers(variant: str, players: int) -> bool:
    return Game(variant, num_players=players).backend == "native"


def print_vector_speed(variant: str, players: int, seconds: float) -> None:
    rows, why = vector_speed(variant, players, seconds=seconds)
    print(f"VectorGames, {VECTOR_GAMES} games, uniformly random legal actions; interleaved, {seconds:g} s each; "
          f"samples/s of the whole loop choosing in numpy, of step alone, and of the whole loop with the "
          f"random agent's act_batch choosing")
    for row in rows:
        loop, step = row["samples"] / row["seconds"], row["samples"] / row["step_seconds"]
        agent = row["agent_samples"] / row["agent_seconds"]
        ratio = f"{loop / (rows[0]['samples'] / rows[0]['seconds']):.2f}x" if row is not rows[0] else ""
        print(f"  {row['name']:<38}{loop:>12,.0f} loop{step:>12,.0f} step{agent:>12,.0f} act_batch loop{ratio:>9}")
    if why:
        print(f"  VectorGames native: not measured ({why})")


def print_split(variant: str, players: int, games: int, policy: str) -> None:
    rows = time_split(variant, players, games, policy)
    decisions = rows.pop()[1]
    total = rows[-1][1]
    print(f"{variant} {players}p, {games} games of {decisions:.1f} decisions ({policy} policy); time per game:")
    previous = 0.0
    for label, micros in rows:
        part = micros - previous
        print(f"  {label:<36}{micros:9.1f} µs  (this part {part:7.1f} µs, {part / total:6.1%}; "
              f"{part / decisions:5.2f} µs per decision)")
        previous = micros


def _print_pair(ours: dict, theirs: dict | None, other: str, show_theirs: bool = True) -> None:
    ratios = (f"{ours['games_per_s'] / theirs['games_per_s']:.2f}x", f"{ours['rate'] / theirs['rate']:.2f}x") \
        if theirs else ("", "")
    for row, (rg, rd) in ((ours, ratios), (theirs if show_theirs else None, ("", ""))):
        if row:
            print(f"{row['name']:<40}{row['games']:>8}{row['games_per_s']:>10,.0f}{row['decisions']:>11}"
                  f"{row['rate']:>10,.0f}{row['decisions_per_game']:>10.1f}{rg:>15}{rd:>13}")
    if theirs is None and other:
        print(f"{other:<40}  not installed (pip install 'uno-env[rlcard]') - no comparison")
