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
   with a one-hot target. With ``teacher_behaviour`` another agent (a student policy) makes the
   seat's moves while the teacher still searches and labels each decision (DAgger, Ross, Gordon and
   Bagnell 2011): the labels then cover the positions the student reaches, not only the teacher's.
   Games run in chunks of ``CHUNK_GAMES`` on one worker process per core, each chunk saved to
   ``<run>/teacher/`` as it finishes, so an interrupted labelling resumes and the dataset does not
   depend on the number of workers. ``labelling.json`` there records the
   settings the labels depend on; chunks labelled under other settings are refused, never reused.
   Game *i* does not depend on ``teacher_games``, so raising it keeps every chunk already labelled
   and labels only the new games (a last, partial chunk is named by its game count, so it is
   labelled again in full, and its partial file removed).
2. **fit**: the actor by cross-entropy to the visit distributions (illegal actions masked as in
   PPO), the critic by squared error to the results, ``teacher_epochs`` passes with Adam, 5% of the
   games held out (``teacher.csv``: the held-out losses, and how often the network's top action is
   the teacher's); the actor and the critic each keep the weights of their best held-out epoch.

PPO then starts from the fitted network. The trainer's ``Distillation`` add-on (``train/ppo/addons.py``)
calls ``label`` and ``fit`` and exports the fitted policy to ``<run>/distilled/policy`` so it can be
evaluated on its own.
"""
from __future__ import annotations

import copy
import csv
import glob
import io
import json
import multiprocessing as mp
import os
import struct
import zipfile
import zlib

import numpy as np
from numpy.lib import format as npy_format

import agents
from agents import choose_action
from uno_env import Game
from uno_env.errors import short_repr
from uno_env.observation import ObservationEncoder

from train import atomic
from train.agent_specs import load_agent, policy_digest
from train.config import ConfigError, TrainConfig
from train.json_input import read_json_object
from train.progress import Progress

#: Games per labelled chunk (one file under ``<run>/teacher/``; the unit of work of a worker).
CHUNK_GAMES = 20
#: The file in a labelling folder that records what its chunks were labelled under.
IDENTITY = "labelling.json"
#: Share of the labelled games held out of the fit to report how well it generalises.
HELD_OUT = 0.05
#: The arrays of a chunk file (``<name>.npy`` members of its ``.npz``) and their dtypes.
CHUNK_ARRAYS = {"obs": np.float32, "mask": np.int8, "target": np.float32, "result": np.float32, "game": np.int64}
#: Bytes of a ``.npy`` header a chunk member may have (numpy writes about 128).
MAX_NPY_HEADER_BYTES = 4096


def label_chunk(cfg_dict: dict, chunk: int) -> dict[str, np.ndarray]:
    """Play the games of one chunk and return its examples (obs, mask, target, result, game)."""
    cfg = TrainConfig.from_dict(cfg_dict)
    baselines = [(spec, w) for spec, w in cfg.opponents.items() if spec != "self" and w > 0]
    weights = np.array([w for _, w in baselines], dtype=float)
    weights /= weights.sum()
    games = {n: Game(cfg.variant, n, **cfg.rule_options) for n in cfg.player_counts}
    encoders = {n: ObservationEncoder(g) for n, g in games.items()}
    teachers = {n: agents.load(cfg.teacher, g, seed=0) for n, g in games.items()}
    movers = {n: load_agent(cfg.teacher_behaviour, g, seed=0) for n, g in games.items()} \
        if cfg.teacher_behaviour else None  # DAgger: another agent moves, the teacher labels its positions
    rows: dict[str, list] = {"obs": [], "mask": [], "target": [], "result": [], "game": []}
    for i in range(chunk * CHUNK_GAMES, min((chunk + 1) * CHUNK_GAMES, cfg.teacher_games)):
        n = cfg.player_counts[i % len(cfg.player_counts)]
        game, enc, teacher = games[n], encoders[n], teachers[n]
        rng = np.random.default_rng([cfg.seed, i])
        teacher.seed(int(rng.integers(2**31)))
        me = i % n
        seats = [None if q == me else load_agent(baselines[rng.choice(len(baselines), p=weights)][0], game,
                                                 seed=int(rng.integers(2**31)))  # any league spec
                 for q in range(n)]
        mover = None
        if movers:
            mover_seed = int(rng.integers(2**31))  # drawn after the seats', so a plain labelling keeps its games
            mover = movers[n]
            if callable(getattr(mover, "seed", None)):
                mover.seed(mover_seed)
            else:  # an agent that cannot be reseeded is built for the game, as the other seats are
                mover = load_agent(cfg.teacher_behaviour, game, seed=mover_seed)
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
            if mover is not None:
                action = choose_action(mover, game, state, enc)
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
    identity = {"variant": cfg.variant, "rule_options": cfg.rule_options, "player_counts": cfg.player_counts,
                "seed": cfg.seed, "teacher": cfg.teacher,
                "opponents": {k: w for k, w in cfg.opponents.items() if k != "self"},
                "truncation_reward": cfg.truncation_reward, "chunk_games": CHUNK_GAMES}
    teacher_files = _teacher_policy_digests(cfg)
    if teacher_files:  # a prior refitted under the same path is another teacher
        identity["teacher_sha256"] = teacher_files
    if cfg.teacher_behaviour:  # absent when the teacher moves, so the records of earlier labellings still match
        identity["teacher_behaviour"] = cfg.teacher_behaviour
        digest = policy_digest(cfg.teacher_behaviour)
        if digest:  # a policy file refitted under the same path is another mover
            identity["teacher_behaviour_sha256"] = digest
    return identity


def _teacher_policy_digests(cfg: TrainConfig) -> dict[str, str]:
    """The SHA-256 of each policy file the teacher's search loads (``prior=``, and ``opponent_policy=`` with
    ``opponents=policy``), by option; a bare ``pretrained`` names one policy per table size (``prior@2p``)."""
    from agents.loader import pretrained_for
    from agents.search import parse_options

    options = parse_options(cfg.teacher.partition(":")[2])
    named = {"prior": options["prior"]}
    if options["opponents"] == "policy":
        named["opponent_policy"] = options["opponent_policy"]
    digests = {}
    for option, spec in named.items():
        if spec == "none":
            continue
        if spec != "pretrained":
            digests[option] = policy_digest(spec)
            continue
        for n in cfg.player_counts:  # the table's own shipped policy
            digests[f"{option}@{n}p"] = policy_digest("pretrained:" + pretrained_for(Game(cfg.variant, n,
                                                                                             **cfg.rule_options)))
    return {option: digest for option, digest in digests.items() if digest}


def _chunk_path(folder: str, k: int, games: int) -> str:
    """Chunk ``k``'s file; a partial chunk (fewer games) is named by its game count, so a larger total relabels it."""
    return os.path.join(folder, f"chunk_{k:05d}.npz" if games == CHUNK_GAMES else f"chunk_{k:05d}_{games}games.npz")


def _check_folder(cfg: TrainConfig, folder: str) -> None:
    """Refuse chunks labelled under other settings; record the settings of a new labelling."""
    identity = json.loads(json.dumps(labelling_identity(cfg)))  # as it reads back from the file
    record = os.path.join(folder, IDENTITY)
    if os.path.exists(record):
        saved = read_json_object(record, "the record of a labelling", ConfigError)
        keys = [*identity, *(k for k in saved if k not in identity and k != "teacher_games")]
        # recorded before the prior's file was: trusted as labelled with today's file, which is recorded from now on
        unrecorded = "teacher_sha256" in identity and "teacher_sha256" not in saved
        changed = [k for k in keys if saved.get(k) != identity.get(k) and not (k == "teacher_sha256" and unrecorded)]
        if changed:
            k = changed[0]
            raise ConfigError(f"{folder} holds labels of another labelling: {k} changed ({short_repr(saved.get(k))} "
                              f"-> {short_repr(identity.get(k))}) since it was labelled; remove the folder to label "
                              "again")
        old_total = saved.get("teacher_games")
        if old_total is not None and (isinstance(old_total, bool) or not isinstance(old_total, int) or old_total < 0):
            raise ConfigError(f"{record}: teacher_games {short_repr(old_total)} is not a count of games; remove the "
                              "folder to label again")
        if "teacher_games" in saved:  # recorded before labellings could grow: its partial chunk had the full name
            k, partial = divmod(saved["teacher_games"], CHUNK_GAMES)
            if partial and os.path.exists(_chunk_path(folder, k, CHUNK_GAMES)):
                os.replace(_chunk_path(folder, k, CHUNK_GAMES), _chunk_path(folder, k, partial))
            atomic.write_json(record, identity)
        elif unrecorded:
            atomic.write_json(record, {**saved, "teacher_sha256": identity["teacher_sha256"]})
    elif glob.glob(os.path.join(folder, "chunk_*.npz")):
        raise ConfigError(f"{folder} holds chunks without {IDENTITY}, so what they were labelled under is unknown; "
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
    size, num_actions, max_steps = _example_shape(cfg)
    parts = [read_chunk(path(k), range(k * CHUNK_GAMES, k * CHUNK_GAMES + games(k)), size, num_actions,
                        games(k) * max_steps) for k in range(chunks)]
    return {key: np.concatenate([p[key] for p in parts]) for key in CHUNK_ARRAYS}


def _example_shape(cfg: TrainConfig) -> tuple[int, int, int]:
    """(observation size, action count, most decisions a game has) of the config's games (every table size)."""
    tables = [Game(cfg.variant, n, **cfg.rule_options) for n in cfg.player_counts]
    return ObservationEncoder(tables[0]).size, tables[0].num_actions, max(g.max_steps for g in tables)


def read_chunk(path: str, game_ids: range, size: int, num_actions: int, max_rows: int) -> dict[str, np.ndarray]:
    """The arrays of one labelled chunk, or ConfigError naming what is wrong with the file.

    Read without ``numpy.load`` (which would inflate whatever shape a member's header claims): the zip
    holds exactly the ``CHUNK_ARRAYS`` members, each header gives the expected dtype and shape with at
    most ``max_rows`` examples (the chunk's games times the step cap), and only then is each member's
    data read, exactly as many bytes as its shape needs; the values are then checked (finite, masks of
    0 and 1, game ids of this chunk).
    """
    def bad(reason: str) -> ConfigError:
        return ConfigError(f"{path} is not a labelled chunk of this run ({reason}); delete it to label its games "
                           "again")

    try:
        with open(path, "rb") as fh:
            _check_zip_end(fh, bad)
            with zipfile.ZipFile(fh) as archive:
                infos = {info.filename: info for info in archive.infolist()}
                if sorted(infos) != sorted(f"{key}.npy" for key in CHUNK_ARRAYS):
                    raise bad(f"it holds {short_repr(sorted(infos))}, not {', '.join(CHUNK_ARRAYS)}")
                rows, arrays = None, {}
                for key, dtype in CHUNK_ARRAYS.items():
                    info = infos[f"{key}.npy"]
                    if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                        raise bad(f"{key}.npy is encrypted or not deflated")
                    with archive.open(info) as stream:
                        shape, fortran, found, header = _npy_header(stream, bad, key)
                        width = {"obs": (size,), "mask": (num_actions,), "target": (num_actions,)}.get(key, ())
                        rows = shape[0] if rows is None and len(shape) == 1 + len(width) else rows
                        if found.newbyteorder("=") != np.dtype(dtype) or fortran or shape != (rows, *width):
                            raise bad(f"{key}.npy is {found} of shape {short_repr(shape)}; expected "
                                      f"{np.dtype(dtype)} of shape {(rows if rows is not None else 'n', *width)}")
                        if rows > max_rows:
                            raise bad(f"{rows:,} examples; {len(game_ids)} games have at most {max_rows:,}")
                        nbytes = rows * int(np.prod(width, dtype=np.int64)) * found.itemsize
                        if info.file_size != header + nbytes:
                            raise bad(f"{key}.npy holds {info.file_size - header:,} bytes of data; its shape needs "
                                      f"{nbytes:,}")
                        data = stream.read(nbytes)
                        if len(data) != nbytes:
                            raise bad(f"{key}.npy ends early")
                    arrays[key] = np.frombuffer(data, dtype=found).astype(dtype).reshape((rows, *width))
    except ConfigError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, struct.error, KeyError, OverflowError) as exc:
        raise bad(f"damaged: {str(exc)[:200] or type(exc).__name__}") from None
    for key in ("obs", "target", "result"):
        if not np.isfinite(arrays[key]).all():
            raise bad(f"{key} holds a value that is not finite")
    if not np.isin(arrays["mask"], (0, 1)).all() or (arrays["target"] < 0).any():
        raise bad("a mask that is not 0/1, or a negative policy target")
    if rows and not (game_ids.start <= arrays["game"].min() and arrays["game"].max() < game_ids.stop):
        raise bad(f"game ids outside this chunk's games {game_ids.start}..{game_ids.stop - 1}")
    return arrays


def _check_zip_end(fh, bad) -> None:
    """Refuse a zip that is not the small archive numpy writes (five members, no comment, no zip64) before
    ``zipfile`` reads its directory."""
    end = fh.seek(0, os.SEEK_END)
    if end < 22:
        raise bad("too short to be an .npz archive")
    fh.seek(end - 22)
    record = fh.read(22)
    if record[:4] != b"PK\x05\x06":
        raise bad("no zip directory at its end")
    entries, directory = struct.unpack_from("<HL", record, 10)
    if entries != len(CHUNK_ARRAYS) or directory > 64 * len(CHUNK_ARRAYS) + 1024:
        raise bad(f"{entries:,} members in a {directory:,}-byte directory; a chunk holds {len(CHUNK_ARRAYS)}")
    fh.seek(0)


def _npy_header(stream, bad, key: str) -> tuple[tuple, bool, np.dtype, int]:
    """(shape, fortran order, dtype, header bytes) of a ``.npy`` member; reads only its header."""
    version = npy_format.read_magic(stream)
    if version not in ((1, 0), (2, 0)):
        raise bad(f"{key}.npy is a version {version} .npy")
    length_bytes = stream.read(2 if version == (1, 0) else 4)
    (length,) = struct.unpack("<H" if version == (1, 0) else "<I", length_bytes)
    if length > MAX_NPY_HEADER_BYTES:
        raise bad(f"{key}.npy has a {length:,}-byte header; at most {MAX_NPY_HEADER_BYTES:,}")
    header = stream.read(length)
    if len(header) != length:
        raise bad(f"{key}.npy ends early")
    parse = npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
    shape, fortran, dtype = parse(io.BytesIO(length_bytes + header))
    if dtype.kind not in "fiu" or dtype.fields is not None or dtype.subdtype is not None:
        raise bad(f"{key}.npy is not a numeric array")
    return tuple(shape), bool(fortran), dtype, 6 + 2 + len(length_bytes) + length


def fit(net, data: dict[str, np.ndarray], cfg: TrainConfig, rng: np.random.Generator, log_path: str) -> dict:
    """Train the actor on the visit distributions and the critic on the results; returns the held-out figures.

    The loss weighs the value part by ``cfg.vf_coef`` and the gradient is clipped to ``cfg.ppo_max_grad_norm``,
    as in the PPO that follows.
    """
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
        value_loss = 0.5 * ((value - tensors["result"][idx]) ** 2).mean()  # as the PPO's (network.ppo_losses)
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
                (policy_loss + cfg.vf_coef * value_loss).backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.ppo_max_grad_norm)
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
