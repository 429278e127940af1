"""Exported policies: an MLP's weights in ``<name>.npz`` plus ``<name>.json`` metadata, run with numpy.

No training framework is needed to load or run one, and nothing is unpickled: the metadata is JSON
and the weights are read member by member from the ``.npz`` (a zip of ``.npy`` arrays) without
``numpy.load``. The forward pass is the MaskablePPO actor: ``tanh`` hidden layers, then logits;
illegal actions are masked out and the deterministic action is the arg-max.

Metadata keys: ``format`` ("uno-env-policy"), ``format_version``, ``variant``, ``num_players``,
``table_sizes`` (every player count it was trained at; optional, default ``[num_players]``), ``rule_options``, ``observation_layout_version``, ``observation_size``, ``action_layout_version``,
``num_actions``, ``activation``, ``layers`` (sizes), ``training_steps``, ``evaluation``, ``config``.
Loading checks them against the game the policy will play and refuses a mismatch.

A policy file may come from anyone, so reading one is bounded before anything is inflated: the
``.json`` is at most ``MAX_METADATA_BYTES``; its ``layers`` at most ``MAX_LAYERS`` sizes of at most
``MAX_LAYER_SIZE``, ``MAX_WEIGHT_ELEMENTS`` numbers in all, and they must agree with its
``observation_size`` and ``num_actions``; the ``.npz`` must hold exactly ``p0.npy``, ``p1.npy``, ...
(stored or deflated, not encrypted), each a plain float or integer array whose ``.npy`` header
gives the shape ``layers`` needs, and then exactly the bytes of that shape are read. Anything else
is a one-line ``PolicyFileError`` naming the file.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.lib import format as npy_format

from uno_env import Game
from uno_env.actions import ACTION_LAYOUT_VERSION
from uno_env.errors import short_repr
from uno_env.observation import OBSERVATION_LAYOUT_VERSION, ObservationEncoder

#: Observation layouts a policy file may have been exported for (1 is a prefix of 2, see observation.py).
READABLE_LAYOUT_VERSIONS = (1, OBSERVATION_LAYOUT_VERSION)

FORMAT = "uno-env-policy"
FORMAT_VERSION = 1
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}

#: Largest ``<name>.json`` read, in bytes (the shipped ones are about 2 KB).
MAX_METADATA_BYTES = 1 << 20
#: Most sizes in ``layers``: the input, the hidden layers and the output (so at most 15 weight layers).
MAX_LAYERS = 16
#: Largest size of one layer, input and output included (the shipped observations are 357 to 1,402 wide).
MAX_LAYER_SIZE = 65_536
#: Most weights and biases of one policy, all layers together: 2**24 = 16,777,216, 64 MiB as float32
#: (a shipped policy holds about 250,000). Checked from the metadata and every array's ``.npy``
#: header before any array data is inflated, so a small compressed file cannot expand past it.
MAX_WEIGHT_ELEMENTS = 1 << 24
#: Most players a policy's ``num_players`` and each of its ``table_sizes`` may name, and most table sizes.
MAX_TABLE_SIZE = 100
#: Largest ``.npy`` header read (numpy's own limit; the headers numpy writes are 128 bytes).
MAX_NPY_HEADER_BYTES = 10_000
#: Largest zip central directory read (a policy's few members take about 50 bytes each).
MAX_DIRECTORY_BYTES = 1 << 16
#: Most members a policy's ``.npz`` may hold: a weight and a bias array per layer.
MAX_MEMBERS = 2 * (MAX_LAYERS - 1)


class PolicyFileError(ValueError):
    """A policy file that cannot be read, or does not fit the game it is used in."""


@dataclass
class PolicyFile:
    """Weights and metadata of an exported policy."""

    weights: list[np.ndarray]   # W0, b0, W1, b1, ..., W_out, b_out (W: in x out)
    metadata: dict[str, Any] = field(default_factory=dict)

    def save(self, path: str) -> tuple[str, str]:
        """Write ``<path>.npz`` and ``<path>.json`` (``path`` without extension); returns both paths."""
        base = strip_extension(path)
        os.makedirs(os.path.dirname(base) or ".", exist_ok=True)
        np.savez(base + ".npz", **{f"p{i}": w.astype(np.float32) for i, w in enumerate(self.weights)})
        with open(base + ".json", "w", encoding="utf-8") as fh:
            json.dump(self.metadata, fh, indent=2, sort_keys=True)
        return base + ".npz", base + ".json"

    @classmethod
    def read(cls, path: str) -> "PolicyFile":
        """Read a policy file pair without checking it against any game; PolicyFileError (one line) if it cannot be.

        Every size is checked before the data it bounds is read (see the module's docstring for the limits).
        """
        base = strip_extension(path)
        meta = _read_metadata(base + ".json")
        layers = _check_metadata(meta, base + ".json")
        weights = _read_weights(base + ".npz", layers, lambda: _check_declared_sizes(meta, layers, base + ".json"))
        return cls(weights, meta)

    def check_game(self, game: Game, strict_rules: bool = True) -> None:
        """Raise PolicyFileError if this policy was not made for ``game``'s observations and actions."""
        m = self.metadata
        problems = []
        if m.get("variant") != game.rules.variant:
            problems.append(f"variant {short_repr(m.get('variant'))} (the game is {game.rules.variant!r})")
        version = m.get("observation_layout_version")
        readable = _is_int(version, 1, OBSERVATION_LAYOUT_VERSION) and version in READABLE_LAYOUT_VERSIONS
        if not readable:
            problems.append(f"observation layout version {short_repr(version)} (this package reads "
                            f"{', '.join(map(str, READABLE_LAYOUT_VERSIONS))})")
        if m.get("action_layout_version") != ACTION_LAYOUT_VERSION:
            problems.append(f"action layout version {short_repr(m.get('action_layout_version'))} "
                            f"(this package writes {ACTION_LAYOUT_VERSION})")
        encoder = ObservationEncoder(game)
        size = encoder.size_of(version) if readable else encoder.size
        if m.get("observation_size") != size:
            problems.append(f"observation size {short_repr(m.get('observation_size'))} (the game's is {size})")
        if m.get("num_actions") != game.num_actions:
            problems.append(f"{short_repr(m.get('num_actions'))} actions (the game has {game.num_actions})")
        layers = m.get("layers")
        layers = layers if isinstance(layers, list) and layers else [None]
        if layers[0] != size or layers[-1] != game.num_actions:
            problems.append(f"network input/output sizes {short_repr(layers[0])}/{short_repr(layers[-1])} (the game "
                            f"needs {size}/{game.num_actions})")
        # what strict_rules=False relaxes; suggested only when nothing else is wrong, since it cannot fix the rest
        relaxable = []
        if strict_rules:
            _check_players(m, "the policy's metadata: ")
            sizes = m.get("table_sizes") or [m.get("num_players")]
            if game.num_players not in sizes:
                relaxable.append(f"{'/'.join(map(str, sizes))} players (the game has {game.num_players})")
            if m.get("rule_options", {}) != _jsonable(game.rules.changed_options()):
                relaxable.append(f"rule options {short_repr(m.get('rule_options'))} (the game's are "
                                 f"{game.rules.changed_options()!r})")
        if problems or relaxable:
            # the command line always plays a policy at its own table; only the Python API can relax that
            hint = "" if problems else (" (a policy plays the player count and rule options it was trained for; "
                                        "from Python, agents.load(..., strict_rules=False) lets it play others "
                                        "of its variant)")
            raise PolicyFileError("policy does not fit this game: " + "; ".join(problems + relaxable) + hint)


class PolicyAgent:
    """Plays an exported policy: arg-max (or sampled) masked logits of the MLP."""

    name = "policy"

    def __init__(self, policy: PolicyFile, deterministic: bool = True, seed: int | None = None):
        self.policy = policy
        self.deterministic = deterministic
        self.activation = ACTIVATIONS[policy.metadata.get("activation", "tanh")]
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the sampling generator."""
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation (or a batch)."""
        h = np.asarray(observation, dtype=np.float32)
        w = self.policy.weights
        if self.policy.metadata.get("observation_layout_version") == 1:
            h = h[..., :w[0].shape[0]]  # a layout-1 policy reads the prefix of today's observation
        last = len(w) // 2 - 1
        for i in range(last):
            h = self.activation(h @ w[2 * i] + w[2 * i + 1])
        return h @ w[2 * last] + w[2 * last + 1]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action among the legal ones."""
        z = self.logits(observation).astype(np.float64)
        z[np.asarray(action_mask) == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.rng.choice(len(p), p=p))


def load_policy(path: str, game: Game, strict_rules: bool = True, deterministic: bool = True,
                seed: int | None = None) -> PolicyAgent:
    """Read an exported policy, check it against ``game`` and return an agent playing it."""
    policy = PolicyFile.read(path)
    policy.check_game(game, strict_rules=strict_rules)
    return PolicyAgent(policy, deterministic=deterministic, seed=seed)


def _read_metadata(path: str) -> dict:
    """The JSON object of a policy's metadata file, or PolicyFileError saying what is wrong with it."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_METADATA_BYTES + 1)
    except FileNotFoundError:
        raise PolicyFileError(f"no policy metadata at {path} (a policy is <name>.npz + <name>.json)") from None
    except OSError as exc:
        raise PolicyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_METADATA_BYTES:
        raise PolicyFileError(f"{path} is larger than {MAX_METADATA_BYTES:,} bytes: not the metadata of a policy "
                              "file (a few KB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PolicyFileError(f"{path} is not a text (JSON) file") from None
    if not text.strip():
        raise PolicyFileError(f"{path} is empty (an interrupted export?); export the policy again")
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PolicyFileError(f"{path} is not valid JSON: {exc}") from None
    except RecursionError:
        raise PolicyFileError(f"{path} is not usable JSON: nested too deeply") from None
    except ValueError:  # an int past Python's limit on digits
        raise PolicyFileError(f"{path} is not usable JSON: a number with too many digits") from None
    if not isinstance(meta, dict):
        raise PolicyFileError(f"{path} holds a JSON {type(meta).__name__}, not the object of an {FORMAT} file")
    return meta


def _is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _check_metadata(meta: dict, path: str) -> list[int]:
    """The network's ``layers`` once the metadata's format, sizes and activation are sane; else PolicyFileError."""
    if meta.get("format") != FORMAT:
        raise PolicyFileError(f"{path} is not an {FORMAT} file (format = {short_repr(meta.get('format'))})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise PolicyFileError(f"{path} has format_version {short_repr(meta.get('format_version'))}; "
                              f"this version reads {FORMAT_VERSION}")
    layers = meta.get("layers")
    if not (isinstance(layers, list) and 2 <= len(layers) <= MAX_LAYERS
            and all(_is_int(n, 1, MAX_LAYER_SIZE) for n in layers)):
        raise PolicyFileError(f"{path}: layers {short_repr(layers)} must be a list of 2 to {MAX_LAYERS} whole "
                              f"numbers, each 1 to {MAX_LAYER_SIZE:,} (the network's input, hidden and output sizes)")
    total = sum(a * b + b for a, b in zip(layers, layers[1:]))
    if total > MAX_WEIGHT_ELEMENTS:
        raise PolicyFileError(f"{path}: layers {layers} make {total:,} weights and biases; a policy file holds at "
                              f"most {MAX_WEIGHT_ELEMENTS:,}")
    for key in ("observation_size", "num_actions"):
        if not _is_int(meta.get(key), 1, MAX_LAYER_SIZE):
            raise PolicyFileError(f"{path}: {key} {short_repr(meta.get(key))} must be a whole number, 1 to "
                                  f"{MAX_LAYER_SIZE:,}")
    activation = meta.get("activation")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise PolicyFileError(f"{path}: activation {short_repr(activation)}; allowed: {', '.join(ACTIVATIONS)}")
    _check_players(meta, f"{path}: ")
    return layers


def _check_players(meta: dict, where: str) -> None:
    """Refuse a ``num_players`` or ``table_sizes`` that names no sane player count."""
    players = meta.get("num_players")
    if players is not None and not _is_int(players, 1, MAX_TABLE_SIZE):
        raise PolicyFileError(f"{where}num_players {short_repr(players)} must be a player count, 1 to {MAX_TABLE_SIZE}")
    sizes = meta.get("table_sizes")
    if sizes is not None and not (isinstance(sizes, list) and len(sizes) <= MAX_TABLE_SIZE
                                  and all(_is_int(n, 1, MAX_TABLE_SIZE) for n in sizes)):
        raise PolicyFileError(f"{where}table_sizes {short_repr(sizes)} must be a list of player counts, each 1 to "
                              f"{MAX_TABLE_SIZE}")


def _check_declared_sizes(meta: dict, layers: list[int], path: str) -> None:
    """Refuse a network whose input and output sizes are not the observation size and action count declared."""
    if layers[0] != meta["observation_size"] or layers[-1] != meta["num_actions"]:
        raise PolicyFileError(f"{path}: network input/output sizes {layers[0]}/{layers[-1]} do not match the "
                              f"observation size {meta['observation_size']} and {meta['num_actions']} actions it "
                              "declares")


#: The members of a policy's ``.npz``: ``p0.npy``, ``p1.npy``, ... (as ``numpy.savez`` names them).
_MEMBER_NAME = re.compile(r"p(0|[1-9][0-9]?)\.npy")
#: Errors of zipfile, zlib and numpy's header parser that mean a damaged or hand-made archive.
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError, NotImplementedError,
                   struct.error, KeyError, OverflowError)


def _read_weights(path: str, layers: list[int], check_before_data) -> list[np.ndarray]:
    """The weight arrays ``p0, p1, ...`` of a policy's ``.npz``, or PolicyFileError saying what is wrong.

    The zip directory, each member's name, compression and ``.npy`` header (dtype, shape) are checked
    against ``layers`` first, then ``check_before_data()`` runs; only then is array data read, and
    exactly as many bytes as the shapes need. ``numpy.load`` is not used: it would inflate an array
    of whatever shape a header claims.
    """
    shapes: list[tuple[int, ...]] = []
    for a, b in zip(layers, layers[1:]):
        shapes += [(a, b), (b,)]
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise PolicyFileError(f"no policy weights at {path}") from None
    except OSError as exc:
        raise PolicyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        with fh, contextlib.ExitStack() as streams:
            head = fh.read(4)
            if not head:
                raise PolicyFileError(f"{path} is empty (an interrupted export?); export the policy again")
            # checked here: numpy would call any non-zip file pickled data and suggest allow_pickle
            if head != b"PK\x03\x04":
                raise PolicyFileError(f"{path} is not a readable weight file: not an .npz (zip) archive")
            _check_zip_directory(fh, path)
            archive = streams.enter_context(zipfile.ZipFile(fh))
            members = _check_members(archive, path, layers, shapes, streams)
            check_before_data()
            return [_read_array(path, *member) for member in members]
    except PolicyFileError:
        raise
    except _ARCHIVE_ERRORS as exc:
        reason = str(exc)[:200] or type(exc).__name__
        raise PolicyFileError(f"{path} is not a readable weight file (truncated or damaged?): {reason}") from None


def _check_zip_directory(fh, path: str) -> None:
    """Refuse a zip whose end record promises more members, or a larger directory, than a policy's (or zip64),
    before ``zipfile`` reads that directory into memory. Finds the end record as ``zipfile`` does."""
    size = fh.seek(0, os.SEEK_END)
    record, at = b"", -1
    if size >= 22:
        fh.seek(size - 22)
        record, at = fh.read(22), size - 22
    if not (record[:4] == b"PK\x05\x06" and record[-2:] == b"\0\0"):  # else a comment follows the record
        start = max(0, size - 22 - 0xFFFF)
        fh.seek(start)
        tail = fh.read()
        found = tail.rfind(b"PK\x05\x06")
        record, at = tail[found:found + 22], start + found
        if found < 0 or len(record) < 22:
            raise PolicyFileError(f"{path} is not a readable weight file (truncated or damaged?): no zip directory "
                                  "at its end")
    entries, directory = struct.unpack_from("<HL", record, 10)
    if at >= 20:
        fh.seek(at - 20)
        if fh.read(4) == b"PK\x06\x07":
            raise PolicyFileError(f"{path} is not a readable weight file: a zip64 archive (a policy's is a small zip)")
    if entries > MAX_MEMBERS or directory > MAX_DIRECTORY_BYTES:
        raise PolicyFileError(f"{path} is not a readable weight file: {entries:,} members in a {directory:,}-byte "
                              f"directory; a policy's .npz holds at most {MAX_MEMBERS} (p0.npy, p1.npy, ...)")
    fh.seek(0)


def _check_members(archive: zipfile.ZipFile, path: str, layers: list[int], shapes: list[tuple[int, ...]],
                   streams: contextlib.ExitStack) -> list[tuple]:
    """Every member checked against ``layers`` from its ``.npy`` header, in order ``p0, p1, ...``: (name, open
    stream, shape, fortran order, dtype, bytes of data), the arguments of ``_read_array``. No array data is read."""
    infos: dict[int, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        match = _MEMBER_NAME.fullmatch(info.filename)
        if match is None or int(match.group(1)) >= MAX_MEMBERS:
            raise PolicyFileError(f"{path} is not a readable weight file: unexpected member "
                                  f"{short_repr(info.filename)}; a policy's .npz holds p0.npy, p1.npy, ... only")
        if int(match.group(1)) in infos:
            raise PolicyFileError(f"{path} is not a readable weight file: it holds {info.filename} more than once")
        infos[int(match.group(1))] = info
    headers = {k: _read_npy_header(archive, infos[k], path, streams) for k in sorted(infos)}
    if sorted(infos) != list(range(len(shapes))):
        held = ", ".join(infos[k].filename for k in sorted(infos)) or "none"
        raise PolicyFileError(f"{path} is not a readable weight file: {len(infos)} weight arrays do not fit layers "
                              f"{layers}: they need p0.npy to p{len(shapes) - 1}.npy; the file holds {held}")
    members = []
    for k, expected in enumerate(shapes):
        stream, shape, fortran, dtype, header_size = headers[k]
        if shape != expected:
            raise PolicyFileError(f"{path}: p{k}.npy has shape {short_repr(shape)}; layers {layers} need {expected} "
                                  f"(the {'weights' if k % 2 == 0 else 'biases'} of layer {k // 2})")
        nbytes = int(np.prod(expected)) * dtype.itemsize
        held = infos[k].file_size - header_size
        if held != nbytes:
            raise PolicyFileError(f"{path} is not a readable weight file: p{k}.npy holds {held:,} bytes of array "
                                  f"data; its shape {expected} of {dtype} needs {nbytes:,} (truncated or padded?)")
        members.append((infos[k].filename, stream, expected, fortran, dtype, nbytes))
    return members


def _read_npy_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str,
                     streams: contextlib.ExitStack) -> tuple:
    """(open stream, shape, fortran order, dtype, header size) of one member: only its ``.npy`` header is read."""
    bad = f"{path} is not a readable weight file: {info.filename}"
    if info.flag_bits & 0x1:
        raise PolicyFileError(f"{bad} is encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise PolicyFileError(f"{bad} uses compression method {info.compress_type}; numpy writes stored or "
                              "deflated members only")
    stream = streams.enter_context(archive.open(info))
    version = npy_format.read_magic(stream)
    if version not in ((1, 0), (2, 0)):
        raise PolicyFileError(f"{bad} is a version {version[0]}.{version[1]} .npy; policy files use 1.0 or 2.0")
    length_bytes = _read_exactly(stream, 2 if version == (1, 0) else 4, bad)
    (length,) = struct.unpack("<H" if version == (1, 0) else "<I", length_bytes)
    if length > MAX_NPY_HEADER_BYTES:  # numpy would read it all before applying its own limit
        raise PolicyFileError(f"{bad} has a {length:,}-byte .npy header; at most {MAX_NPY_HEADER_BYTES:,}")
    header = _read_exactly(stream, length, bad)
    parse = npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
    shape, fortran, dtype = parse(io.BytesIO(length_bytes + header))
    if dtype.kind not in "fiu" or dtype.fields is not None or dtype.subdtype is not None or dtype.itemsize > 8:
        raise PolicyFileError(f"{bad} is not a numeric array (dtype {short_repr(str(dtype))}); a policy's "
                              "weights are float or integer arrays")
    return stream, tuple(shape), bool(fortran), dtype, 8 + len(length_bytes) + length


def _read_exactly(stream, n: int, bad: str) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise PolicyFileError(f"{bad} ends early (truncated or damaged?)")
    return data


def _read_array(path: str, name: str, stream, shape: tuple[int, ...], fortran: bool, dtype: np.dtype,
                nbytes: int) -> np.ndarray:
    """The array of a checked member: exactly ``nbytes`` are read (a damaged member fails zipfile's CRC check)."""
    data = _read_exactly(stream, nbytes, f"{path} is not a readable weight file: {name}")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy(order="K")


def strip_extension(path: str) -> str:
    """A policy file's base path: ``path`` without a trailing ``.npz`` or ``.json``."""
    for ext in (".npz", ".json"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _jsonable(options: dict) -> dict:
    return json.loads(json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}))
