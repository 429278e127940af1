"""``uno-env eval``: seat-rotated tournaments with win rates, points and OpenSkill ratings.

Schedule: every combination of ``players`` agents out of the field (with fewer agents than seats,
every shift of the repeating pattern 0,1,..,0,1..) is played in every ordering around the table
(up to 5 seats; beyond, every rotation in both directions), and the whole cycle repeats until
``games`` is reached (rounded up to a full cycle): every agent gets the same number of games in
every seat, and as often sits before as after each other agent. Game ``i`` is seeded from
``seed + i`` and its agents from ``(seed, i, seat)``, so results are identical for any worker count.

Outputs in ``--out``: ``results.json`` (everything, including every rating), ``results.md`` (a table
to read) and ``ratings.png`` (ratings with error bars); ``--record DIR`` keeps every game as JSON lines.

Long tournaments: each finished game's result is appended to ``<out>/games-played.jsonl`` as it
finishes (a header line naming the tournament, then one line per game). ``--resume`` reads it back,
checks it belongs to the same tournament (rules, agents and their policy files, seed, games,
recording), plays only the missing games and gives exactly the results of an uninterrupted run.
"""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import shlex
import signal
from multiprocessing import get_context, parent_process

import numpy as np

import agents
from uno_env import Game, RuleSet
from uno_env.observation import ObservationEncoder
from uno_env.records import Recorder
from uno_env.turn import hand_points

from .. import atomic
from ..arg_types import non_negative_float, positive_int
from ..errors import UsageError
from ..progress import DEFAULT_INTERVAL, Progress
from ..rule_args import add_rule_arguments, rules_from_args
from .stats import play_game, wilson_interval

STREAM_FILE = "games-played.jsonl"
STREAM_FORMAT = "uno-env-tournament-stream"
STREAM_VERSION = 1
EXIT_INTERRUPTED = 130


class TournamentError(UsageError):
    """A tournament that cannot be run or resumed as asked (a game count, a stream of another tournament)."""


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
    if parent_process() is not None:  # a pool worker: Ctrl-C is the parent's to handle (it stops the pool)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    game = Game(RuleSet.from_dict(rules))
    # policy files are read once per process; each game gets fresh agents with its own seeds
    files = {spec: agents.load(spec, game) for spec in specs if spec not in agents.BUILTIN}
    _WORKER.update(game=game, encoder=ObservationEncoder(game), specs=specs, files=files)


def _agent(spec: str, seed: int):
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


def check_games(games: int) -> None:
    """Refuse a game count below one."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TournamentError(f"--games must be a whole number of games, 1 or more; got {games!r}")


def run_tournament(rules: RuleSet, specs: list[str], games: int, seed: int = 0, workers: int = 2,
                   record_dir: str | None = None, progress: bool = True, out_dir: str | None = None,
                   resume: bool = False, progress_interval: float = DEFAULT_INTERVAL) -> dict:
    """Play the schedule and compute every statistic.

    With ``out_dir`` every finished game is appended to ``<out_dir>/games-played.jsonl``; with
    ``resume`` too, the games already there are kept and only the missing ones are played.
    """
    check_games(games)
    game = Game(rules)
    # fail fast, in the parent, on a bad spec or a policy that does not fit
    loaded = {spec: agents.load(spec, game) for spec in dict.fromkeys(specs)}
    seatings = schedule(len(specs), rules.num_players, games)
    record = record_dir is not None
    jobs = [(i, seed, tuple(s), record) for i, s in enumerate(seatings)]
    kept: dict[int, dict] = {}
    with contextlib.ExitStack() as stack:
        sink = None
        if out_dir:
            header = {"type": "tournament", "format": STREAM_FORMAT, "version": STREAM_VERSION,
                      "rules": rules.to_dict(), "agents": list(specs), "policies": _fingerprints(loaded),
                      "seed": seed, "games": len(seatings), "record": record}
            kept, sink = _open_stream(os.path.join(out_dir, STREAM_FILE), header, seatings, resume)
            stack.enter_context(sink)
        todo = [job for job in jobs if job[0] not in kept]
        results = list(kept.values()) + _run_jobs(rules, specs, todo, workers, progress, sink,
                                                  total=len(jobs), progress_interval=progress_interval)
    results.sort(key=lambda r: r["index"])
    if record_dir:
        with atomic.atomic_open(os.path.join(record_dir, "games.jsonl")) as fh:
            for r in results:
                for obj in r.pop("record"):
                    fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    for r in results:
        r.pop("record", None)
    return summarise(rules, specs, results)


def _fingerprints(loaded: dict) -> dict[str, str]:
    """SHA-256 of each policy agent's weights and metadata: a retrained file is another tournament."""
    out = {}
    for spec, agent in loaded.items():
        policy = getattr(agent, "policy", None)
        if policy is None:
            continue
        h = hashlib.sha256(json.dumps(policy.metadata, sort_keys=True, default=str).encode())
        for w in policy.weights:
            h.update(str(w.shape).encode())
            h.update(np.ascontiguousarray(w, dtype=np.float32).tobytes())
        out[spec] = h.hexdigest()
    return out


def _read_stream(path: str) -> tuple[dict | None, list[dict]]:
    """The header and the game lines of a stream; a torn last line (no newline: killed mid-write) is dropped."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    lines.pop()  # "" after the last newline, or a torn last line
    objs = []
    for n, line in enumerate(lines, 1):
        try:
            objs.append(json.loads(line))
        except ValueError:
            raise TournamentError(f"{path}: line {n} is damaged; delete the file to start over") from None
    header = objs[0] if objs and isinstance(objs[0], dict) and objs[0].get("format") == STREAM_FORMAT else None
    return header, objs[1:] if header else []


def _differences(old: dict, new: dict) -> list[str]:
    what = {"rules": "rules (--variant, --players, --option)", "agents": "agents", "policies": "policy files",
            "seed": "seed", "games": "number of games (after rounding up to whole seat rotations)",
            "record": "recording (--record)", "version": "stream version"}
    out = []
    for key, label in what.items():
        if old.get(key) != new.get(key):
            if key in ("rules", "policies"):
                out.append(f"{label} differ" + (" (a policy file changed since)" if key == "policies" else ""))
            else:
                out.append(f"{label}: {old.get(key)!r} then, {new.get(key)!r} now")
    return out


def _open_stream(path: str, header: dict, seatings: list, resume: bool):
    """Games kept from an earlier run (``resume``) and the stream, rewritten with them, open for appending."""
    kept: dict[int, dict] = {}
    if os.path.exists(path):
        try:
            old, games = _read_stream(path)
        except TournamentError:
            if resume:
                raise
            old, games = None, []  # not resuming: a damaged file is simply replaced
        if resume:
            if old is None:
                raise TournamentError(f"--resume: {path} is not a tournament's games-played file")
            diffs = _differences(old, header)
            if diffs:
                raise TournamentError(f"--resume: {path} belongs to another tournament ({'; '.join(diffs)}); run "
                                      f"the same command as before, or choose another --out to start a new one")
            for g in games:
                i = g.get("index") if isinstance(g, dict) else None
                if not isinstance(i, int) or not 0 <= i < len(seatings) or g.get("seating") != list(seatings[i]):
                    raise TournamentError(f"--resume: {path} holds a game that is not in this schedule ({g!r:.80}); "
                                          f"delete the file to start over")
                kept[i] = g
        elif old is not None and 0 < len(games) < old.get("games", 0):
            raise TournamentError(f"{path} holds {len(games):,} of {old['games']:,} games of an unfinished "
                                  f"tournament: add --resume to continue it, or delete the file (or choose "
                                  f"another --out) to start over")
    elif resume:
        print(f"eval: nothing to resume in {os.path.dirname(path) or '.'}; playing every game", flush=True)
    if kept:
        print(f"eval: resuming: {len(kept):,} of {len(seatings):,} games already played", flush=True)
    # rewrite what is kept (dropping a torn line), then append each game as it finishes
    with atomic.atomic_open(path) as fh:
        for obj in [header] + [kept[i] for i in sorted(kept)]:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return kept, open(path, "a", encoding="utf-8")


def _run_jobs(rules: RuleSet, specs: list[str], jobs: list, workers: int, progress: bool, sink=None,
              total: int | None = None, progress_interval: float = DEFAULT_INTERVAL) -> list[dict]:
    total = len(jobs) if total is None else total
    bar = Progress("eval", total, "games", initial=total - len(jobs), enabled=progress, interval=progress_interval)
    results = []
    with contextlib.ExitStack() as stack:
        stack.callback(bar.close)
        if not jobs:
            return results
        if workers <= 1:
            _init_worker(rules.to_dict(), specs)
            played = map(_play, jobs)
        else:
            pool = stack.enter_context(get_context("forkserver").Pool(workers, _init_worker,
                                                                      (rules.to_dict(), specs)))
            played = pool.imap(_play, jobs, chunksize=8)
        for r in played:
            if sink is not None:  # one line per game, flushed: a killed run keeps every finished game
                sink.write(json.dumps(r, ensure_ascii=False) + "\n")
                sink.flush()
            results.append(r)
            bar.update(1)
    return results


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
        base = agents.display_name(s)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def write_outputs(summary: dict, out_dir: str) -> list[str]:
    """results.json, results.md and ratings.png in ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, f) for f in ("results.json", "results.md", "ratings.png")]
    atomic.write_json(paths[0], summary, indent=2)
    atomic.write_text(paths[1], markdown(summary))
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
    with atomic.atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=100)
    plt.close(fig)


def add_parser(sub) -> None:
    """Register the ``eval`` sub-command."""
    p = sub.add_parser("eval", help="seat-rotated tournament with win rates and ratings",
                       description="Seat-rotated tournament with win rates, points and OpenSkill ratings. Every "
                                   f"finished game is kept in <out>/{STREAM_FILE}; --resume continues a tournament "
                                   "that was interrupted.")
    add_rule_arguments(p, players=2, players_help="seats at the table")
    p.add_argument("--agents", nargs="+", required=True, help="agent specs, two or more (random, greedy, heuristic, "
                   "pretrained:<name>, path/to/policy, e.g. runs/<name>/policy)")
    p.add_argument("--games", type=int, default=1000, help="games to play, 1 or more; rounded up to whole seat "
                   "rotations (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="game i is dealt from seed + i (default: %(default)s)")
    p.add_argument("--workers", type=positive_int, default=2, help="processes; results do not depend on it "
                   "(default: %(default)s)")
    p.add_argument("--out", default="eval-results", help="directory for results.json, results.md, ratings.png and "
                   f"{STREAM_FILE} (default: %(default)s)")
    p.add_argument("--resume", action="store_true", help=f"continue the tournament whose {STREAM_FILE} is in "
                   "--out: play only the games it is missing (same command otherwise)")
    p.add_argument("--record", help="directory to keep every game as JSON lines")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    p.add_argument("--progress-interval", type=non_negative_float, default=DEFAULT_INTERVAL, metavar="SECONDS",
                   help="seconds between progress lines when the output is not a terminal (default: %(default)s)")
    p.set_defaults(run=run)


def resume_command(args) -> str:
    """The ``uno-env eval`` command that continues this tournament."""
    cmd = ["uno-env", "eval", "--variant", args.variant, "--players", str(args.players), "--agents", *args.agents,
           "--games", str(args.games), "--seed", str(args.seed), "--workers", str(args.workers), "--out", args.out]
    if args.record:
        cmd += ["--record", args.record]
    for option in args.option:
        cmd += ["--option", option]
    return shlex.join(cmd + ["--resume"])


def run(args) -> int:
    """CLI entry (status 130 after Ctrl-C, with the command that resumes)."""
    if len(args.agents) < 2:
        raise UsageError("give at least two agents")
    check_games(args.games)
    rules = rules_from_args(args)
    scheduled = len(schedule(len(args.agents), rules.num_players, args.games))
    if scheduled != args.games:
        print(f"eval: --games {args.games:,} rounded up to {scheduled:,} so every seat rotation is played equally",
              flush=True)
    try:
        summary = run_tournament(rules, args.agents, args.games, args.seed, args.workers, args.record,
                                 progress=not args.no_progress, out_dir=args.out, resume=args.resume,
                                 progress_interval=getattr(args, "progress_interval", DEFAULT_INTERVAL))
    except KeyboardInterrupt:
        path = os.path.join(args.out, STREAM_FILE)
        played = 0
        with contextlib.suppress(OSError, TournamentError):
            played = len(_read_stream(path)[1])
        print(f"\neval: interrupted; {played:,} of {scheduled:,} games kept in {path}", flush=True)
        print(f"eval: resume with: {resume_command(args)}", flush=True)
        return EXIT_INTERRUPTED
    paths = write_outputs(summary, args.out)
    print(markdown(summary))
    print("wrote " + ", ".join(paths + [os.path.join(args.out, STREAM_FILE)]))
    return 0
