"""Search distillation: the native PPO's optional first phase (``teacher:`` in an ``algo: ppo`` config).

A policy network trained by PPO alone learns from one noisy bit per game (who won). A search agent
(``ismcts``) already plays stronger than the PPO agents, and at every decision it searched it says
how much it liked each legal action (its root visit counts). Distillation turns that into
supervised data, the first step of expert iteration:

1. **label**: ``teacher_games`` games, game *i* at table size ``player_counts[i % len]`` dealt from
   ``seed + i``, the teacher in seat ``i % n`` and the other seats drawn from the config's
   ``opponents`` (rule-based agents; ``self`` is skipped: there is no learner yet). Each decision the
   teacher searched is one example: the teacher seat's observation and mask, the visit
   distribution (the policy target) and the seat's result at the end of the game (the value
   target). Forced decisions teach nothing and are left out; calling UNO and catching are kept
   with a one-hot target. Games run in chunks of ``CHUNK_GAMES`` on one worker process per core,
   each chunk saved to ``<run>/teacher/`` as it finishes, so an interrupted labelling resumes and
   the dataset does not depend on the number of workers. ``labelling.json`` there records the
   settings the labels depend on; chunks labelled under other settings are refused, never reused.
   Game *i* does not depend on ``teacher_games``, so raising it keeps every chunk already labelled
   and labels only the new games (a last, partial chunk is named by its game count, so it is
   labelled again in full, and its partial file removed).
2. **fit**: the actor by cross-entropy to the visit distributions (illegal actions masked as in
   PPO), the critic by squared error to the results, ``teacher_epochs`` passes with Adam, 5% of the
   games held out (``teacher.csv``: the held-out losses, and how often the network's top action is
   the teacher's); the actor and the critic each keep the weights of their best held-out epoch.

PPO then starts from the fitted network. ``native_ppo.py`` calls ``run`` and exports the fitted
policy to ``<run>/distilled/policy`` so it can be evaluated on its own.
"""
from __future__ import annotations

import copy
import csv
import glob
import json
import multiprocessing as mp
import os

import numpy as np

import agents
from agents import choose_action
from uno_env import Game
from uno_env.observation import ObservationEncoder

from . import atomic
from .config import TrainConfig
from .progress import Progress

#: Games per labelled chunk (one file under ``<run>/teacher/``; the unit of work of a worker).
CHUNK_GAMES = 20
#: The file in a labelling folder that records what its chunks were labelled under.
IDENTITY = "labelling.json"
#: Share of the labelled games held out of the fit to report how well it generalises.
HELD_OUT = 0.05


def label_chunk(cfg_dict: dict, chunk: int) -> dict[str, np.ndarray]:
    """Play the games of one chunk and return its examples (obs, mask, target, result, game)."""
    cfg = TrainConfig.from_dict(cfg_dict)
    baselines = [(spec, w) for spec, w in cfg.opponents.items() if spec != "self" and w > 0]
    weights = np.array([w for _, w in baselines], dtype=float)
    weights /= weights.sum()
    games = {n: Game(cfg.variant, n, **cfg.rule_options) for n in cfg.player_counts}
    encoders = {n: ObservationEncoder(g) for n, g in games.items()}
    teachers = {n: agents.load(cfg.teacher, g, seed=0) for n, g in games.items()}
    rows: dict[str, list] = {"obs": [], "mask": [], "target": [], "result": [], "game": []}
    for i in range(chunk * CHUNK_GAMES, min((chunk + 1) * CHUNK_GAMES, cfg.teacher_games)):
        n = cfg.player_counts[i % len(cfg.player_counts)]
        game, enc, teacher = games[n], encoders[n], teachers[n]
        rng = np.random.default_rng([cfg.seed, i])
        teacher.seed(int(rng.integers(2**31)))
        me = i % n
        seats = [None if q == me else agents.load(baselines[rng.choice(len(baselines), p=weights)][0], game,
                                                  seed=int(rng.integers(2**31)))
                 for q in range(n)]
        state = game.new_state(cfg.seed + i)
        mine = []
        while not state.is_over:
            if state.current_seat != me:
                game.step(state, choose_action(seats[state.current_seat], game, state, enc))
                continue
            legal = game.legal_actions(state)
            target = np.zeros(game.num_actions, dtype=np.float32)
            action = teacher.unsearched_action(state, legal)
            if action is None:
                visits = teacher.root_visits(state)
                for a, v in visits.items():
                    target[a] = v
                target /= target.sum()
                action = max(legal, key=lambda a: (visits.get(a, 0), -a))  # the teacher's own move
            elif len(legal) > 1:
                target[action] = 1.0
            if target.any():
                mine.append((enc.encode(state, me), game.legal_action_mask(state), target))
            game.step(state, action)
        result = state.returns[me] if state.winner is not None else cfg.truncation_reward
        for obs, mask, target in mine:
            rows["obs"].append(obs)
            rows["mask"].append(mask)
            rows["target"].append(target)
            rows["result"].append(result)
            rows["game"].append(i)
    size, num_actions = enc.size, game.num_actions  # the same at every table size
    return {"obs": np.asarray(rows["obs"], dtype=np.float32).reshape(-1, size),
            "mask": np.asarray(rows["mask"], dtype=np.int8).reshape(-1, num_actions),
            "target": np.asarray(rows["target"], dtype=np.float32).reshape(-1, num_actions),
            "result": np.asarray(rows["result"], dtype=np.float32),
            "game": np.asarray(rows["game"], dtype=np.int64)}


def _label_job(args) -> tuple[int, dict]:
    cfg_dict, chunk = args
    return chunk, label_chunk(cfg_dict, chunk)


def labelling_identity(cfg: TrainConfig) -> dict:
    """The config fields the labels depend on (a folder of chunks is reused only under the same ones).

    ``teacher_games`` is not one of them: game *i* is the same whatever the total, so a labelling grows.
    """
    return {"variant": cfg.variant, "rule_options": cfg.rule_options, "player_counts": cfg.player_counts,
            "seed": cfg.seed, "teacher": cfg.teacher,
            "opponents": {k: w for k, w in cfg.opponents.items() if k != "self"},
            "truncation_reward": cfg.truncation_reward, "chunk_games": CHUNK_GAMES}


def _chunk_path(folder: str, k: int, games: int) -> str:
    """Chunk ``k``'s file; a partial chunk (fewer games) is named by its game count, so a larger total relabels it."""
    return os.path.join(folder, f"chunk_{k:05d}.npz" if games == CHUNK_GAMES else f"chunk_{k:05d}_{games}games.npz")


def _check_folder(cfg: TrainConfig, folder: str) -> None:
    """Refuse chunks labelled under other settings; record the settings of a new labelling."""
    identity = json.loads(json.dumps(labelling_identity(cfg)))  # as it reads back from the file
    record = os.path.join(folder, IDENTITY)
    if os.path.exists(record):
        with open(record, encoding="utf-8") as fh:
            saved = json.load(fh)
        changed = [k for k in identity if saved.get(k) != identity[k]]
        if changed:
            k = changed[0]
            raise ValueError(f"{folder} holds labels of another labelling: {k} changed ({saved.get(k)!r} -> "
                             f"{identity[k]!r}) since it was labelled; remove the folder to label again")
        if "teacher_games" in saved:  # recorded before labellings could grow: its partial chunk had the full name
            k, partial = divmod(saved["teacher_games"], CHUNK_GAMES)
            if partial and os.path.exists(_chunk_path(folder, k, CHUNK_GAMES)):
                os.replace(_chunk_path(folder, k, CHUNK_GAMES), _chunk_path(folder, k, partial))
            atomic.write_json(record, identity)
    elif glob.glob(os.path.join(folder, "chunk_*.npz")):
        raise ValueError(f"{folder} holds chunks without {IDENTITY}, so what they were labelled under is unknown; "
                         "remove the folder to label again")
    else:
        atomic.write_json(record, identity)


def label(cfg: TrainConfig, folder: str, workers: int, progress: bool = True, stream=None) -> dict[str, np.ndarray]:
    """Every chunk's examples, labelling the chunks not yet saved in ``folder`` (one process per worker)."""
    os.makedirs(folder, exist_ok=True)
    _check_folder(cfg, folder)
    chunks = -(-cfg.teacher_games // CHUNK_GAMES)

    def games(k: int) -> int:
        return min(CHUNK_GAMES, cfg.teacher_games - k * CHUNK_GAMES)

    def path(k: int) -> str:
        return _chunk_path(folder, k, games(k))

    todo = [k for k in range(chunks) if not os.path.exists(path(k))]
    bar = Progress("teacher", cfg.teacher_games, "games", "games/s",
                   initial=cfg.teacher_games - sum(games(k) for k in todo), enabled=progress, stream=stream)
    try:
        if todo:
            jobs = [(cfg.to_dict(), k) for k in todo]
            if workers <= 1:
                results = map(_label_job, jobs)
                pool = None
            else:  # a clean interpreter per worker: no copied torch threads or open files
                pool = mp.get_context("spawn").Pool(min(workers, len(todo)))
                results = pool.imap_unordered(_label_job, jobs)
            try:
                for k, data in results:
                    with atomic.atomic_open(path(k), "wb", encoding=None) as fh:
                        np.savez_compressed(fh, **data)
                    if games(k) == CHUNK_GAMES:  # a partial labelling of this chunk is superseded
                        for stale in glob.glob(os.path.join(folder, f"chunk_{k:05d}_*games.npz")):
                            os.remove(stale)
                    bar.update(games(k))
            finally:
                if pool is not None:
                    pool.terminate()
    finally:
        bar.close()
    parts = []
    for k in range(chunks):
        with np.load(path(k), allow_pickle=False) as f:
            parts.append({key: f[key] for key in f.files})
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def fit(net, data: dict[str, np.ndarray], cfg: TrainConfig, rng: np.random.Generator, log_path: str) -> dict:
    """Train the actor on the visit distributions and the critic on the results; returns the held-out figures."""
    import torch

    held = np.isin(data["game"], np.unique(data["game"])[::int(round(1 / HELD_OUT))])
    tensors = {key: torch.from_numpy(data[key]) for key in ("obs", "mask", "target", "result")}
    train_rows, held_rows = np.flatnonzero(~held), np.flatnonzero(held)
    optimiser = torch.optim.Adam(net.parameters(), lr=cfg.teacher_learning_rate, eps=1e-5)

    def losses(rows: np.ndarray):
        idx = torch.from_numpy(rows)
        logits, value = net(tensors["obs"][idx], tensors["mask"][idx])
        logp = torch.log_softmax(logits, -1)
        target = tensors["target"][idx]
        policy_loss = -(target * logp.clamp(min=-1e8)).sum(-1).mean()
        value_loss = 0.5 * ((value - tensors["result"][idx]) ** 2).mean()
        agree = (logits.argmax(-1) == target.argmax(-1)).float().mean()
        return policy_loss, value_loss, agree

    # the actor and the critic are separate networks: each keeps its weights of the epoch with its
    # lowest held-out loss (measured: the critic overfits the noisy results within a few epochs)
    best = {"actor": (np.inf, None), "critic": (np.inf, None)}
    report = {}
    with open(log_path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "examples", "held_out", "policy_loss", "value_loss", "top_action_agreement"])
        for epoch in range(1, cfg.teacher_epochs + 1):
            order = train_rows.copy()
            rng.shuffle(order)
            for lo in range(0, len(order), cfg.batch_size):
                policy_loss, value_loss, _ = losses(order[lo:lo + cfg.batch_size])
                optimiser.zero_grad()
                (policy_loss + 0.5 * value_loss).backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimiser.step()
            with torch.no_grad():
                policy_loss, value_loss, agree = losses(held_rows) if len(held_rows) else losses(train_rows)
            for part, loss in (("actor", policy_loss.item()), ("critic", value_loss.item())):
                if loss < best[part][0]:
                    best[part] = (loss, copy.deepcopy(getattr(net, part).state_dict()))
            report = {"epoch": epoch, "examples": len(train_rows), "held_out": len(held_rows),
                      "policy_loss": policy_loss.item(), "value_loss": value_loss.item(),
                      "top_action_agreement": agree.item()}
            w.writerow([report[k] for k in ("epoch", "examples", "held_out")]
                       + [f"{report[k]:.5f}" for k in ("policy_loss", "value_loss", "top_action_agreement")])
            fh.flush()
    for part, (loss, weights) in best.items():
        getattr(net, part).load_state_dict(weights)
        report[f"best_{part}_loss"] = loss
    return report
