"""Expert iteration at native speed: the search labels, a policy learns, the search uses the policy as prior.

For each table (``classic-2p`` ... ``attack-4p``), ``ROUNDS`` rounds:

1. **label**: ``GAMES`` games of the round's teacher against ``OPPONENTS`` (``train/ppo/distill.py``'s
   ``label``: the teacher's searched decisions, its root visit shares as the policy target, the seat's
   result as the value target). Round 1's teacher is ``ismcts:iterations=ITERATIONS``; round *r* > 1
   searches with round *r - 1*'s policy as its prior (``prior=<policy>``). The search runs in the compiled
   core (``ismcts:engine=auto``), which is what makes the labels cheap: about 15 games a second a core
   at 1,000 iterations in Classic.
2. **learn**: a fresh network (``HIDDEN``) fitted to every round's labels so far (``distill.fit``: the
   actor to the visit shares, the critic to the results, 5% of the games held out), exported as a
   policy file under ``runs/expert-iteration/<table>/round-<r>/policy``.
3. **measure**: on the validation deals (``--seed 700000``, which no shipped agent was chosen on by this
   tool and no labelled game uses), the policy against ``heuristic`` and head to head against the shipped
   policy of the table (at four players, one new seat against three shipped ones: parity 25%), both
   seat-rotated by ``uno-env eval``.

Two variations measure what limits the copies, each against the plain run's rounds on the same deals:
``run-dagger`` is round 2 with its games played by round 1's copy while the same teacher labels every
decision (DAgger: the labels cover the positions the copy reaches), and ``run-scale`` is round 1 with more
labelled games (``EI_SCALE_GAMES``, a comma-separated list of totals). ``run-ppo RUN ROUND`` trains a round's
copy on by PPO, the shipped specialist's recipe after its own distillation (``configs/train/<table>.yaml``).

Each table's rounds are written to ``docs/results/expert-iteration.json`` as they finish (a rerun skips
the rounds already there and reuses labelled chunks). Which candidate replaces a shipped specialist is
decided afterwards (head to head on the validation deals with the whole interval above parity, then
``compare``: the benchmark suite's task of the table, and a confirmation on fresh deals), never by this script.

Usage::

    python docs/results/tools/expert_iteration.py run classic-2p flip-4p ...   # one process, in order
    python docs/results/tools/expert_iteration.py run-from-shipped flip-2p      # one network, from the shipped one
    python docs/results/tools/expert_iteration.py run-dagger classic-2p         # round 2 played by round 1's copy
    EI_SCALE_GAMES=8000,16000 python docs/results/tools/expert_iteration.py run-scale classic-2p  # round 1, more games
    EI_SCALE_GAMES=32000 EI_HIDDEN=512,512,512 EI_ROUND2_GAMES=8000 ... run-scale classic-2p   # then a guided round 2
    python docs/results/tools/expert_iteration.py run-ppo classic-2p+32000games 1  # that copy, then PPO
    python docs/results/tools/expert_iteration.py compare classic-2p+32000games+ppo 1  # the suite, fresh deals
    python docs/results/tools/expert_iteration.py table [FILE]                  # the Markdown table (of FILE)
    python docs/results/tools/expert_iteration.py ship classic-4p 2             # round 2 becomes pretrained:classic-4p
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zlib

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, ROOT)

OUT = os.path.join(ROOT, "docs", "results", "expert-iteration.json")
RUNS = os.path.join(ROOT, "runs", "expert-iteration")
TABLES = [f"{v}-{n}p" for n in (2, 4) for v in ("classic", "alphabet", "xiangqi", "flex", "flip", "attack")]
ROUNDS = 2
GAMES = int(os.environ.get("EI_GAMES", 4000))  # labelled games per round
ITERATIONS = 1000       # the teacher's search iterations per decision
HIDDEN = [256, 256]
EPOCHS = 15
OPPONENTS = {"heuristic": 0.9, "greedy": 0.1}
LABEL_SEED = 2_000_000  # round r deals games from LABEL_SEED * r + i: far from every evaluation's deals
WARM_EPOCHS = 4             # from the shipped policy: a few quieter passes, so it moves toward the teacher from
WARM_LEARNING_RATE = 0.0003  # where it is rather than starting over
LABEL_WORKERS = 1  # labelling processes (EI_WORKERS; the labels do not depend on it)


def env_counts(name: str, default: str, low: int, high: int) -> list[int]:
    """A comma-separated list of whole numbers from the environment, each in [low, high]; an error naming it."""
    text = os.environ.get(name, default)
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        values = []
    if not values or not all(low <= v <= high for v in values):
        sys.exit(f"{name}={text!r}: give whole numbers from {low:,} to {high:,}, separated by commas")
    return values
VALIDATION_SEED = 700000
VALIDATION_GAMES = 2000


def key(table: str, warm: bool) -> str:
    """The name a run is filed under: the table, with ``+shipped`` when it starts from the shipped policy."""
    return f"{table}+shipped" if warm else table


def teacher_spec(table: str, r: int, warm: bool) -> str:
    spec = f"ismcts:iterations={ITERATIONS}"
    if r == 1:
        return f"{spec},prior=pretrained:{table}" if warm else spec
    return f"{spec},prior={policy_path(key(table, warm), r - 1)}"


def policy_path(name: str, r: int) -> str:
    return os.path.relpath(os.path.join(RUNS, name, f"round-{r}", "policy"), ROOT)


def config(table: str, r: int, warm: bool = False, net_arch: list[int] | None = None, **extra):
    from train.config import TrainConfig

    variant, n = table.rsplit("-", 1)
    return TrainConfig.from_dict({
        "algo": "ppo", "variant": variant, "num_players": int(n[:-1]), "seed": LABEL_SEED * r,
        "total_timesteps": 1, "net_arch": net_arch or HIDDEN, "opponents": OPPONENTS,
        "teacher": teacher_spec(table, r, warm), "teacher_games": GAMES,
        "teacher_epochs": WARM_EPOCHS if warm else EPOCHS,
        "teacher_learning_rate": WARM_LEARNING_RATE if warm else 0.001, "batch_size": 1024,
        "out_dir": "runs", "run_name": table, **extra})


def evaluate(table: str, agents: list[str], games: int, seed: int) -> dict:
    """``uno-env eval`` (seat-rotated) of ``agents``; the first agent's wins, games and 95% interval."""
    variant, n = table.rsplit("-", 1)
    out = os.path.join(RUNS, table, "eval", f"{zlib.crc32(repr((agents, games, seed)).encode()):08x}")
    cmd = [os.path.join(os.path.dirname(sys.executable), "uno-env"), "eval", "--variant", variant,
           "--players", n[:-1], "--agents", *agents, "--games", str(games), "--seed", str(seed), "--out", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        first = json.load(fh)["agents"][0]
    return {"wins": first["wins"], "games": first["games"], "win_rate": round(first["win_rate"], 4),
            "ci95": [round(x, 4) for x in first["win_rate_ci95"]]}


MAX_RESULTS_BYTES = 4 * 2**20  # a results file is about 40 KB; anything far larger is not one


def load_results(path: str | None = None) -> dict:
    """The rounds of each run in ``path`` (``OUT`` by default; {} where there is none yet), read bounded: a file that
    is too large or not this tool's shape is an error naming it."""
    path = path or OUT
    if not os.path.exists(path):
        return {}
    if os.path.getsize(path) > MAX_RESULTS_BYTES:
        sys.exit(f"{path}: {os.path.getsize(path):,} bytes; a results file of this tool is at most "
                 f"{MAX_RESULTS_BYTES:,}")
    with open(path, encoding="utf-8") as fh:
        try:
            results = json.load(fh)
        except ValueError as e:
            sys.exit(f"{path}: not JSON ({e})")
    if not (isinstance(results, dict) and all(isinstance(v, list) and all(isinstance(x, dict) for x in v)
                                              for v in results.values())):
        sys.exit(f"{path}: not a results file of this tool (an object of runs, each a list of rounds)")
    return results


def save_round(table: str, record: dict) -> None:
    results = load_results()  # read again: another process may have written its table meanwhile
    rounds = results.setdefault(table, [])
    rounds[:] = [x for x in rounds if x["round"] != record["round"]] + [record]
    rounds.sort(key=lambda x: x["round"])
    tmp = OUT + f".{os.getpid()}.tmp"
    order = {name: (TABLES.index(name.split("+")[0]), name) for name in results}
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(dict(sorted(results.items(), key=lambda kv: order[kv[0]])), fh, indent=1)
        fh.write("\n")
    os.replace(tmp, OUT)


def measure(name: str, table: str, r: int, net, cfg, game) -> dict:
    """Export round ``r``'s fitted network of run ``name`` and measure it on the validation deals: against
    ``heuristic``, the shipped specialist against ``heuristic`` (the same deals' reference), and head to head."""
    from train import atomic
    from train.export import policy_file_from_linears

    policy = policy_file_from_linears(net.exported_actor(), game, 0, None, cfg.to_dict(), table_sizes=[cfg.num_players])
    atomic.save_policy(policy, os.path.join(ROOT, policy_path(name, r)))
    return validation_figures(table, policy_path(name, r))


def validation_figures(table: str, mine: str) -> dict:
    """The policy ``mine`` on the validation deals: against ``heuristic``, the shipped specialist against
    ``heuristic`` (the same deals' reference), and the two head to head."""
    n, shipped = int(table.rsplit("-", 1)[1][:-1]), f"pretrained:{table}"
    return {"vs_heuristic": evaluate(table, [mine] + ["heuristic"] * (n - 1), VALIDATION_GAMES, VALIDATION_SEED),
            "shipped_vs_heuristic": evaluate(table, [shipped] + ["heuristic"] * (n - 1), VALIDATION_GAMES,
                                             VALIDATION_SEED),
            "vs_shipped": evaluate(table, [mine] + [shipped] * (n - 1), VALIDATION_GAMES, VALIDATION_SEED)}


def fit_fresh(name: str, r: int, data: dict, cfg, game, hidden: list[int] = HIDDEN) -> tuple:
    """A fresh network fitted to ``data`` (``distill.fit``); the network, the fit's report and its seconds."""
    import torch

    from train.ppo import distill
    from train.ppo.network import build_network
    from uno_env.observation import ObservationEncoder

    torch.manual_seed(cfg.seed)
    net = build_network(ObservationEncoder(game).size, game.num_actions, hidden)
    os.makedirs(os.path.join(RUNS, name, f"round-{r}"), exist_ok=True)
    began = time.perf_counter()
    fit = distill.fit(net, data, cfg, np.random.default_rng([cfg.seed, 1]),
                      os.path.join(RUNS, name, f"round-{r}", "fit.csv"))
    return net, fit, time.perf_counter() - began


def run_table(table: str, warm: bool = False) -> None:
    """Every round of one table: fresh networks, or (``warm``) one network that starts as the shipped policy and
    keeps learning round after round, the first round's search guided by the shipped policy."""
    import torch

    from agents.policy_file import PolicyFile
    from agents.loader import pretrained_path
    from train.ppo import distill
    from train.ppo.checkpoint import load_actor
    from train.ppo.network import build_network
    from uno_env import Game
    from uno_env.observation import ObservationEncoder

    torch.set_num_threads(1)
    name = key(table, warm)
    done = {x["round"] for x in load_results().get(name, [])}
    shipped = f"pretrained:{table}"
    start = PolicyFile.read(pretrained_path(table)) if warm else None
    hidden = list(start.metadata["layers"])[1:-1] if warm else HIDDEN
    data: list[dict] = []
    net = None
    for r in range(1, ROUNDS + 1):
        cfg = config(table, r, warm, hidden)
        game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
        began = time.perf_counter()
        labels = distill.label(cfg, os.path.join(RUNS, name, f"round-{r}", "teacher"), LABEL_WORKERS, progress=False)
        labelled = time.perf_counter() - began
        labels["game"] = labels["game"] + r * 10**7  # distinct games across rounds (the held-out split is by game)
        data.append(labels)
        if r in done and os.path.exists(policy_path(name, r) + ".npz"):
            if warm:  # the next round goes on from this round's network
                net = build_network(ObservationEncoder(game).size, game.num_actions, hidden)
                load_actor(net, PolicyFile.read(policy_path(name, r)), name, cfg, game)
            continue
        merged = {k: np.concatenate([d[k] for d in data]) for k in data[0]}
        torch.manual_seed(cfg.seed)
        if net is None or not warm:
            net = build_network(ObservationEncoder(game).size, game.num_actions, hidden)
            if warm:
                load_actor(net, start, shipped, cfg, game)
        began = time.perf_counter()
        fit = distill.fit(net, merged, cfg, np.random.default_rng([cfg.seed, 1]),
                          os.path.join(RUNS, name, f"round-{r}", "fit.csv"))
        fitted = time.perf_counter() - began
        record = {
            "round": r, "start": shipped if warm else "fresh", "teacher": cfg.teacher, "labelled_games": GAMES,
            "examples": int(len(labels["obs"])), "fitted_on": int(len(merged["obs"])),
            "label_seconds": round(labelled, 1), "fit_seconds": round(fitted, 1),
            "held_out_top_action_agreement": round(fit["top_action_agreement"], 4),
            **measure(name, table, r, net, cfg, game)}
        save_round(name, record)
        print(name, json.dumps(record), flush=True)


def plain_round_games(table: str, what: str) -> int:
    """Games a round of the plain run of ``table`` labelled (``EI_GAMES`` when it ran); an error if it has none."""
    rounds = {x["round"]: x for x in load_results().get(table, [])}
    if 1 not in rounds or not os.path.exists(os.path.join(ROOT, policy_path(table, 1)) + ".npz"):
        sys.exit(f"{what} {table}: round 1 of the plain run is missing (in {os.path.relpath(OUT, ROOT)} or "
                 f"{policy_path(table, 1)}); run `expert_iteration.py run {table}` first")
    games = rounds[1].get("labelled_games")
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= 10_000_000:
        sys.exit(f"{what} {table}: round 1 of {table} in {os.path.relpath(OUT, ROOT)} has labelled_games "
                 f"{games!r}, not a count of games (1 to 10,000,000)")
    return games


def label_fit_measure(name: str, table: str, r: int, cfg, folder: str, earlier: tuple | None = None,
                      label_key: str = "label_seconds", **extra) -> None:
    """One round of a variation: label ``cfg``'s games into ``folder``, fit a fresh network (``cfg.net_arch``) to
    them (and to the ``earlier`` round's labels, a ``(config, folder)`` pair, if given), measure it, file it."""
    from train.ppo import distill
    from uno_env import Game

    game = Game(cfg.variant, cfg.num_players, **cfg.rule_options)
    began = time.perf_counter()
    labels = distill.label(cfg, folder, LABEL_WORKERS, progress=False)
    labelled = time.perf_counter() - began
    merged = labels
    if earlier is not None:
        before = distill.label(*earlier, 1, progress=False)
        before["game"] = before["game"] + 10**7  # distinct games across rounds (the held-out split is by game)
        labels["game"] = labels["game"] + r * 10**7
        merged = {k: np.concatenate([before[k], labels[k]]) for k in before}
    net, fit, fitted = fit_fresh(name, r, merged, cfg, game, cfg.net_arch)
    record = {"round": r, "start": "fresh", "teacher": cfg.teacher, **extra, "labelled_games": cfg.teacher_games,
              "examples": int(len(labels["obs"])), "fitted_on": int(len(merged["obs"])),
              label_key: round(labelled, 1), "fit_seconds": round(fitted, 1),
              "held_out_top_action_agreement": round(fit["top_action_agreement"], 4),
              **measure(name, table, r, net, cfg, game)}
    save_round(name, record)
    print(name, json.dumps(record), flush=True)


def run_dagger(table: str) -> None:
    """Round 2 the DAgger way: the games are played by round 1's copy (``teacher_behaviour``) while the same
    teacher as the plain round 2 (guided by that copy) labels every decision, on the same deals; the fit
    takes round 1's labels and these. Round 1 is the plain run's (``run TABLE`` first), so the two
    round-2 copies differ only in who moved in the labelled games."""
    import torch

    torch.set_num_threads(1)
    name, r = f"{table}+dagger", 2
    games = plain_round_games(table, "run-dagger")
    if any(x["round"] == r for x in load_results().get(name, [])):
        return
    first = policy_path(table, 1)
    label_fit_measure(name, table, r, config(table, r, teacher_behaviour=first, teacher_games=games),
                      os.path.join(RUNS, name, f"round-{r}", "teacher"),
                      earlier=(config(table, 1, teacher_games=games), os.path.join(RUNS, table, "round-1", "teacher")),
                      moved_by=first)


def scale_names(table: str, games: int, hidden: list[int]) -> tuple[str, str]:
    """The run a ``run-scale`` labelling of ``games`` games is filed under, and the run its ``hidden`` fit is."""
    labelling = f"{table}+{games}games"
    return labelling, labelling if hidden == HIDDEN else f"{labelling}+{'x'.join(map(str, hidden))}"


def run_scale(table: str, games: int, hidden: list[int] = HIDDEN) -> None:
    """Round 1 with more labelled games: the same teacher and deals (game *i* of a labelling does not depend on
    the total), a fresh network fitted to ``games`` games; filed as ``<table>+<games>games``. The chunks of
    the largest smaller labelling (the plain run's round 1, or an earlier ``run-scale``) are linked in rather
    than labelled again. Other ``hidden`` layers (``EI_HIDDEN``) fit the same labels, filed as
    ``<table>+<games>games+<widths>``."""
    import shutil

    import torch

    from train.ppo import distill

    torch.set_num_threads(1)
    plain_round_games(table, "run-scale")
    labelling, name = scale_names(table, games, hidden)
    if any(x["round"] == 1 for x in load_results().get(name, [])):
        return

    def teacher_folder(run: str) -> str:
        return os.path.join(RUNS, run, "round-1", "teacher")

    folder = teacher_folder(labelling)
    sizes = [int(m.group(1)) for d in os.listdir(RUNS) if (m := re.fullmatch(re.escape(table) + r"\+(\d+)games", d))
             and os.path.isdir(teacher_folder(d))]
    smaller = max((g for g in sizes if g < games), default=None)
    source = teacher_folder(f"{table}+{smaller}games" if smaller else table)
    os.makedirs(folder, exist_ok=True)
    for f in sorted(os.listdir(source)):  # whole chunks and the record; a partial chunk is labelled again
        if (f == distill.IDENTITY or (f.startswith("chunk_") and not f.endswith("games.npz"))) \
                and not os.path.exists(os.path.join(folder, f)):  # links what an interrupted run did not
            try:
                os.link(os.path.join(source, f), os.path.join(folder, f))
            except OSError:
                shutil.copy(os.path.join(source, f), os.path.join(folder, f))
    label_fit_measure(name, table, 1, config(table, 1, net_arch=hidden, teacher_games=games), folder,
                      label_key="label_seconds_new_games", hidden=hidden)


def run_scale_round2(table: str, games: int, hidden: list[int], round2_games: int) -> None:
    """Round 2 after a ``run-scale`` round 1: ``round2_games`` games on round 2's deals, labelled by the teacher
    guided by that round's copy (``prior=``), and a fresh network of the same ``hidden`` layers fitted to both
    rounds' labels; filed as round 2 of the same run."""
    import torch

    torch.set_num_threads(1)
    labelling, name = scale_names(table, games, hidden)
    done = {x["round"] for x in load_results().get(name, [])}
    if 2 in done:
        return
    if 1 not in done or not os.path.exists(os.path.join(ROOT, policy_path(name, 1)) + ".npz"):
        sys.exit(f"run-scale {table}: round 2 of {name} needs its round 1 (its record and {policy_path(name, 1)}); "
                 "run it without EI_ROUND2_GAMES first")
    cfg = config(table, 2, net_arch=hidden, teacher_games=round2_games,
                 teacher=f"ismcts:iterations={ITERATIONS},prior={policy_path(name, 1)}")
    earlier = (config(table, 1, net_arch=hidden, teacher_games=games),
               os.path.join(RUNS, labelling, "round-1", "teacher"))
    label_fit_measure(name, table, 2, cfg, os.path.join(RUNS, name, "round-2", "teacher"), earlier, hidden=hidden)


DEFAULT_PPO_SEED = 71
PPO_SEED = DEFAULT_PPO_SEED  # EI_PPO_SEED: another seed's run is filed as <run>+ppo-seed<N>
PPO_WARMUP = 500_000  # decisions in which only the critic learns: a policy file carries no critic


def ppo_name(name: str) -> str:
    """The run a ``run-ppo`` of run ``name`` is filed under (and trained in)."""
    return f"{name}+ppo" if PPO_SEED == DEFAULT_PPO_SEED else f"{name}+ppo-seed{PPO_SEED}"


def ppo_config(name: str, r: int) -> dict:
    """The table's shipped PPO recipe (``configs/train/<table>.yaml`` without its teacher) started from round ``r``'s
    copy of run ``name``: its weights become the actor, the critic learns alone for ``PPO_WARMUP`` decisions."""
    from agents.policy_file import PolicyFile
    from uno_env.safe_yaml import load_file

    table = name.split("+")[0]
    recipe = load_file(os.path.join(ROOT, "configs", "train", f"{table}.yaml"), "a training config")
    layers = PolicyFile.read(os.path.join(ROOT, policy_path(name, r))).metadata["layers"]
    return {**{k: v for k, v in recipe.items() if not k.startswith("teacher")},
            "seed": PPO_SEED, "init_from": policy_path(name, r), "critic_warmup_steps": PPO_WARMUP,
            "net_arch": list(layers[1:-1]), "torch_threads": 1, "segment_every": 2_000_000, "overlap_update": False,
            "out_dir": os.path.relpath(os.path.join(RUNS, ppo_name(name)), ROOT), "run_name": f"round-{r}"}


def run_ppo(name: str, r: int) -> None:
    """Round ``r``'s copy of run ``name``, trained on by PPO as the shipped specialist was after its distillation
    (``ppo_config``); measured like a round and filed as round ``r`` of ``ppo_name(name)``. An interrupted
    training resumes from its last segment."""
    import yaml

    from train.config import TrainConfig

    if any(x["round"] == r for x in load_results().get(ppo_name(name), [])):
        return
    source = [x for x in load_results().get(name, []) if x["round"] == r]
    if not source or not os.path.exists(os.path.join(ROOT, policy_path(name, r)) + ".npz"):
        sys.exit(f"run-ppo {name} {r}: no round {r} of {name} (its record and {policy_path(name, r)}); run it first")
    settings = ppo_config(name, r)
    cfg = TrainConfig.from_dict(settings)  # checked before anything is written
    run = os.path.join(ROOT, settings["out_dir"], settings["run_name"])
    config_path = run + ".yaml"
    os.makedirs(os.path.dirname(run), exist_ok=True)
    with open(config_path, "w", encoding="utf-8") as fh:
        yaml.safe_dump(settings, fh, sort_keys=False)
    uno_env = os.path.join(os.path.dirname(sys.executable), "uno-env")
    if not os.path.exists(os.path.join(run, "policy.npz")):
        resume = ["--resume", run] if os.path.isdir(os.path.join(run, "checkpoints")) else []
        subprocess.run([uno_env, "train", "--config", config_path, *resume], check=True, cwd=ROOT)
    with open(os.path.join(run, "progress.csv"), encoding="utf-8") as fh:  # the run's own clock, resumed or not
        lines = fh.read(64 * 2**20).strip().splitlines()
    seconds = float(dict(zip(lines[0].split(","), lines[-1].split(",")))["seconds"])
    save_round(ppo_name(name), {
        "round": r, "ppo_from": policy_path(name, r), "ppo_seed": PPO_SEED, "ppo_decisions": cfg.total_timesteps,
        "ppo_seconds": round(seconds, 1), "fitted_on": source[0]["fitted_on"],
        "held_out_top_action_agreement": source[0]["held_out_top_action_agreement"],
        **validation_figures(name.split("+")[0], policy_path(ppo_name(name), r))})  # the run exports its policy there


HELD_OUT_SEED, HELD_OUT_GAMES = 900_000, 10_000  # the deals every shipped agent's figure is measured on, once
FRESH_SEED = 3_000_000  # deals no labelling (2,000,000 r + i), evaluation or choice of this tool used before
FRESH_GAMES = 10_000


def compare(name: str, r: int) -> None:
    """The replacement rule's second test for round ``r`` of run ``name``, and a confirmation: the table's task of
    the benchmark suite (its games and deals) played by the round's policy and by the shipped specialist, and
    ``FRESH_GAMES`` head-to-head games on fresh deals (``FRESH_SEED``). Added to the round's record; run only
    for a round that passed the first test (head to head on the validation deals, the interval above parity)."""
    from train.benchmark.suite import UNO_SUITE_V1

    rounds = [x for x in load_results().get(name, []) if x["round"] == r]
    if not rounds:
        sys.exit(f"compare {name} {r}: no round {r} of {name} in {os.path.relpath(OUT, ROOT)}")
    record, table = rounds[0], name.split("+")[0]
    n, shipped, mine = int(table.rsplit("-", 1)[1][:-1]), f"pretrained:{table}", policy_path(name, r)
    tasks = [t for t in UNO_SUITE_V1.tasks if t.task_id == table]
    if tasks:
        task = tasks[0]
        record["suite"] = {"task": f"{UNO_SUITE_V1.name}/{task.task_id}",
                           "round": evaluate(table, task.lineup(mine), task.games, task.seed),
                           "shipped": evaluate(table, task.lineup(shipped), task.games, task.seed)}
    record["fresh_vs_shipped"] = {"seed": FRESH_SEED, **evaluate(table, [mine] + [shipped] * (n - 1), FRESH_GAMES,
                                                                 FRESH_SEED)}
    save_round(name, record)
    print(json.dumps({k: record[k] for k in ("vs_shipped", "suite", "fresh_vs_shipped") if k in record}, indent=1))


def ship(name: str, r: int) -> None:
    """Copy round ``r``'s policy of run ``name`` (``<table>`` or ``<table>+shipped``) to ``agents/pretrained/<table>``,
    its config naming the table (the name ``pretrained`` looks the specialist up by; the rest of the config, as the
    policy file records it, must then be ``configs/train/<table>.yaml``); its figure against ``heuristic`` on the
    held-out deals is measured and added to the round's record."""
    from agents.policy_file import PolicyFile
    from train import atomic

    table = name.split("+")[0]
    rounds = [x for x in load_results().get(name, []) if x["round"] == r]
    if not rounds:
        sys.exit(f"ship {name} {r}: no round {r} of {name} in {os.path.relpath(OUT, ROOT)}")
    n = int(table.rsplit("-", 1)[1][:-1])
    rounds[0]["held_out_vs_heuristic"] = {"seed": HELD_OUT_SEED, **evaluate(
        table, [policy_path(name, r)] + ["heuristic"] * (n - 1), HELD_OUT_GAMES, HELD_OUT_SEED)}
    save_round(name, rounds[0])
    policy = PolicyFile.read(os.path.join(ROOT, policy_path(name, r)))
    policy.metadata["config"]["run_name"] = table
    atomic.save_policy(policy, os.path.join(ROOT, "agents", "pretrained", table))


def table(path: str = OUT) -> None:
    if not os.path.isfile(path):
        sys.exit(f"table: no results file {path!r}; give a JSON file written by this tool, such as "
                 f"{os.path.relpath(OUT, ROOT)} (the default)")
    def cell(x: dict) -> str:
        lo, hi = x["ci95"]
        return f"{100 * x['win_rate']:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}%)"

    print("| table | round | labelled decisions (all rounds) | agrees with the teacher | vs `heuristic` | shipped vs "
          "`heuristic` | head to head vs shipped |")
    print("|---|---|---|---|---|---|---|")
    for name, rounds in load_results(path).items():
        for x in rounds:
            try:
                row = (f"| {name} | {x['round']} | {x['fitted_on']:,} | "
                       f"{100 * x['held_out_top_action_agreement']:.0f}% | {cell(x['vs_heuristic'])} | "
                       f"{cell(x['shipped_vs_heuristic'])} | {cell(x['vs_shipped'])} |")
            except (KeyError, TypeError, ValueError) as e:
                sys.exit(f"{path}: round {x.get('round', '?')} of {name!r} is not a round of this tool ({e!r})")
            print(row)


if __name__ == "__main__":
    if len(sys.argv) in (2, 3) and sys.argv[1] == "table":
        table(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "ship" and sys.argv[2].split("+")[0] in TABLES:
        ship(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "run-ppo" and sys.argv[2].split("+")[0] in TABLES \
            and sys.argv[3] in ("1", "2"):
        PPO_SEED = env_counts("EI_PPO_SEED", str(PPO_SEED), 0, 2**31 - 1)[0]
        run_ppo(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare" and sys.argv[2].split("+")[0] in TABLES \
            and sys.argv[3] in ("1", "2"):
        compare(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) >= 3 and sys.argv[1] in ("run", "run-from-shipped", "run-dagger", "run-scale"):
        LABEL_WORKERS = env_counts("EI_WORKERS", "1", 1, 64)[0]
        SCALE_GAMES = sorted(set(env_counts("EI_SCALE_GAMES", "16000", 1, 10_000_000)))  # smaller first
        SCALE_HIDDEN = env_counts("EI_HIDDEN", ",".join(map(str, HIDDEN)), 1, 4096)
        ROUND2_GAMES = env_counts("EI_ROUND2_GAMES", "0", 0, 10_000_000)[0]  # then a round 2 of this many (0: none)
        for name in sys.argv[2:]:
            if name not in TABLES:
                sys.exit(f"unknown table {name!r}; tables: {', '.join(TABLES)}")
            if sys.argv[1] == "run-dagger":
                run_dagger(name)
            elif sys.argv[1] == "run-scale":
                for games in SCALE_GAMES:  # smaller first: each links the chunks of the one before
                    run_scale(name, games, SCALE_HIDDEN)
                    if ROUND2_GAMES:
                        run_scale_round2(name, games, SCALE_HIDDEN, ROUND2_GAMES)
            else:
                run_table(name, warm=sys.argv[1] == "run-from-shipped")
    else:
        sys.exit(__doc__)
