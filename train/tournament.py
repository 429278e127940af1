"""``uno-env eval``: seat-rotated tournaments with win rates, points and OpenSkill ratings.

Schedule: every combination of ``players`` agents out of the field (with fewer agents than seats,
every shift of the repeating pattern 0,1,..,0,1..) is played in every ordering around the table
(up to 5 seats; beyond, every rotation in both directions), and the whole cycle repeats until
``games`` is reached (rounded up to a full cycle): every agent gets the same number of games in
every seat, and as often sits before as after each other agent. Game ``i`` is seeded from
``seed + i`` and its agents from ``(seed, i, seat)``, so results are identical for any worker count.

Outputs in ``--out``: ``results.json`` (everything, including every rating), ``results.md`` (a table
to read) and ``ratings.png`` (ratings with error bars); ``--record DIR`` keeps every game as JSON lines.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
from multiprocessing import get_context

import numpy as np

from uno_env import Game, RuleSet
from uno_env.observation import ObservationEncoder
from uno_env.records import Recorder
from uno_env.turn import hand_points

from .evaluate import play_game, wilson_interval


def schedule(num_agents: int, players: int, games: int) -> list[tuple[int, ...]]:
    """Seatings (agent index per seat) for ``games`` games or more, balanced over agents, seats and order."""
    if num_agents >= players:
        tables = list(itertools.combinations(range(num_agents), players))
    else:  # fewer agents than seats: every shift of the repeating pattern, so all agents fill as many seats
        tables = [tuple((i + j) % num_agents for i in range(players)) for j in range(num_agents)]
    if players <= 5:
        # every ordering: each agent sits before and after each other agent equally often
        cycle = [p for t in tables for p in dict.fromkeys(itertools.permutations(t))]
    else:
        # rotations in both directions (all orderings would be too many): seats and neighbours on
        # either side are balanced, distant neighbours less so
        cycle = [u[r:] + u[:r] for t in tables for u in dict.fromkeys((t, t[::-1])) for r in range(players)]
    reps = max(1, math.ceil(games / len(cycle)))
    return cycle * reps


# -- worker side: one Game and encoder per process, agents built per game from their specs
_WORKER: dict = {}


def _init_worker(rules: dict, specs: list[str]) -> None:
    import agents

    game = Game(RuleSet.from_dict(rules))
    # policy files are read once per process; each game gets fresh agents with its own seeds
    files = {spec: agents.load(spec, game) for spec in specs if spec not in agents.BUILTIN}
    _WORKER.update(game=game, encoder=ObservationEncoder(game), specs=specs, files=files)


def _agent(spec: str, seed: int):
    import agents

    proto = _WORKER["files"].get(spec)
    if proto is None:
        return agents.load(spec, _WORKER["game"], seed=seed)
    return agents.PolicyAgent(proto.policy, proto.deterministic, seed)


def _play(job: tuple[int, int, tuple[int, ...], bool]) -> dict:
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


def run_tournament(rules: RuleSet, specs: list[str], games: int, seed: int = 0, workers: int = 2,
                   record_dir: str | None = None, progress: bool = True) -> dict:
    """Play the schedule and compute every statistic."""
    import agents

    game = Game(rules)
    for spec in dict.fromkeys(specs):  # fail fast, in the parent, on a bad spec or a policy that does not fit
        agents.load(spec, game)
    seatings = schedule(len(specs), rules.num_players, games)
    jobs = [(i, seed, tuple(s), record_dir is not None) for i, s in enumerate(seatings)]
    results = _run_jobs(rules, specs, jobs, workers, progress)
    if record_dir:
        os.makedirs(record_dir, exist_ok=True)
        with open(os.path.join(record_dir, "games.jsonl"), "w", encoding="utf-8") as fh:
            for r in results:
                for obj in r.pop("record"):
                    fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return summarise(rules, specs, results)


def _run_jobs(rules: RuleSet, specs: list[str], jobs: list, workers: int, progress: bool) -> list[dict]:
    bar = _progress(len(jobs), progress)
    results = []
    with contextlib.ExitStack() as stack:
        if workers <= 1:
            _init_worker(rules.to_dict(), specs)
            played = map(_play, jobs)
        else:
            pool = stack.enter_context(get_context("forkserver").Pool(workers, _init_worker,
                                                                      (rules.to_dict(), specs)))
            played = pool.imap(_play, jobs, chunksize=8)
        for r in played:
            results.append(r)
            bar.update(1)
    bar.close()
    return sorted(results, key=lambda r: r["index"])


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="games", unit="game", disable=not enabled)


def summarise(rules: RuleSet, specs: list[str], results: list[dict]) -> dict:
    """Per-agent win rates, points and ratings; a head-to-head matrix for two-player games."""
    from openskill.models import PlackettLuce

    names = _unique_names(specs)
    k = len(specs)
    games = np.zeros(k, int)
    wins = np.zeros(k, int)
    points = np.zeros(k)
    left = np.zeros(k)
    seat_games = np.zeros((k, rules.num_players), int)
    h2h = np.zeros((k, k), int)
    model = PlackettLuce()
    ratings = [model.rating(name=n) for n in names]
    for r in results:
        seating = r["seating"]
        for seat, a in enumerate(seating):
            games[a] += 1
            seat_games[a, seat] += 1
            points[a] += r["round_points"][seat]
            left[a] += r["hand_points"][seat]
            if r["winner"] == seat:
                wins[a] += 1
        if rules.num_players == 2 and r["winner"] is not None and seating[0] != seating[1]:
            h2h[seating[r["winner"]], seating[1 - r["winner"]]] += 1
        # rating: rank the distinct agents at the table by their best seat: the winner's agent first,
        # then by fewest card points left in hand (all tied when nobody won)
        present = list(dict.fromkeys(seating))
        if len(present) > 1:
            best = {a: min((r["winner"] != s, r["hand_points"][s]) for s, b in enumerate(seating) if b == a)
                    for a in present}
            order = sorted(present, key=lambda a: best[a])
            ranks = [1 if r["winner"] is None else order.index(a) + 1 for a in present]
            new = model.rate([[ratings[a]] for a in present], ranks=ranks)
            for a, team in zip(present, new):
                ratings[a] = team[0]
    agents_out = []
    for a in range(k):
        lo, hi = wilson_interval(int(wins[a]), int(games[a]))
        agents_out.append({
            "agent": names[a], "spec": specs[a], "games": int(games[a]), "wins": int(wins[a]),
            "win_rate": float(wins[a] / games[a]) if games[a] else 0.0, "win_rate_ci95": [lo, hi],
            "mean_points": float(points[a] / games[a]) if games[a] else 0.0,
            "mean_points_left": float(left[a] / games[a]) if games[a] else 0.0,
            "rating": {"system": "openskill-plackett-luce", "mu": ratings[a].mu, "sigma": ratings[a].sigma,
                       "ordinal": ratings[a].ordinal()},
            "games_per_seat": seat_games[a].tolist(),
        })
    out = {"rules": rules.to_dict(), "games": len(results), "agents": agents_out,
           "truncated_games": int(sum(r["truncated"] for r in results))}
    if rules.num_players == 2:
        out["head_to_head"] = {"agents": names, "wins": h2h.tolist()}
    return out


def _unique_names(specs: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    names = []
    for s in specs:
        base = os.path.basename(s) if os.sep in s else s
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def write_outputs(summary: dict, out_dir: str) -> list[str]:
    """results.json, results.md and ratings.png in ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, f) for f in ("results.json", "results.md", "ratings.png")]
    with open(paths[0], "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=2)
    with open(paths[1], "w", encoding="utf-8") as fh:
        fh.write(markdown(summary))
    _plot(summary, paths[2])
    return paths


def markdown(summary: dict) -> str:
    """The results as Markdown tables."""
    r = summary["rules"]
    lines = [f"# Tournament: {r['variant']}, {r['num_players']} players, {summary['games']} games", "",
             "| agent | games | win rate | 95% interval | mean points | rating (mu ± sigma) | ordinal |",
             "|---|---|---|---|---|---|---|"]
    for a in sorted(summary["agents"], key=lambda a: -a["rating"]["ordinal"]):
        lo, hi = a["win_rate_ci95"]
        lines.append(f"| {a['agent']} | {a['games']} | {a['win_rate']:.1%} | {lo:.1%} - {hi:.1%} | "
                     f"{a['mean_points']:.1f} | {a['rating']['mu']:.2f} ± {a['rating']['sigma']:.2f} | "
                     f"{a['rating']['ordinal']:.2f} |")
    if "head_to_head" in summary:
        names = summary["head_to_head"]["agents"]
        lines += ["", "Head to head (row's wins against column):", "",
                  "| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
        for name, row in zip(names, summary["head_to_head"]["wins"]):
            lines.append(f"| {name} | " + " | ".join(str(x) for x in row) + " |")
    if summary["truncated_games"]:
        lines += ["", f"{summary['truncated_games']} games were truncated at the step cap (no winner)."]
    return "\n".join(lines) + "\n"


def _plot(summary: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(summary["agents"], key=lambda a: a["rating"]["mu"])
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(rows) + 1.5))
    ax.errorbar([a["rating"]["mu"] for a in rows], range(len(rows)),
                xerr=[2 * a["rating"]["sigma"] for a in rows], fmt="o", capsize=4)
    ax.set_yticks(range(len(rows)), [a["agent"] for a in rows])
    ax.set_xlabel("OpenSkill rating mu (bars: ± 2 sigma)")
    r = summary["rules"]
    ax.set_title(f"{r['variant']}, {r['num_players']} players, {summary['games']} games")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def add_parser(sub) -> None:
    """Register the ``eval`` sub-command."""
    p = sub.add_parser("eval", help="seat-rotated tournament with win rates and ratings")
    p.add_argument("--variant", default="classic")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--agents", nargs="+", required=True, help="agent specs (random, greedy, heuristic, "
                   "pretrained:<name>, path/to/policy)")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2, help="processes (results do not depend on it)")
    p.add_argument("--out", default="eval-results")
    p.add_argument("--record", help="directory to keep every game as JSON lines")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="rule option (repeatable)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    """CLI entry."""
    from .demo import parse_options

    if len(args.agents) < 2:
        raise SystemExit("eval: give at least two agents")
    rules = RuleSet.create(args.variant, args.players, parse_options(args.option))
    summary = run_tournament(rules, args.agents, args.games, args.seed, args.workers, args.record,
                             progress=not args.no_progress)
    paths = write_outputs(summary, args.out)
    print(markdown(summary))
    print("wrote " + ", ".join(paths))
    return 0
