"""Hostile and damaged policy files (``agents/policy_file/``): refused in one line, within bounded memory and time.

The bombs run in a memory-capped subprocess (``run_bounded``): a reader that inflates them fails the
test with a MemoryError, a kill or the timeout instead of exhausting the machine.
"""
from __future__ import annotations

import io
import json
import os
import struct
import zipfile
import zlib

import numpy as np
import pytest

import agents
from agents import policy_file
from agents.policy_file import (MAX_LAYER_SIZE, MAX_LAYERS, MAX_METADATA_BYTES, MAX_WEIGHT_ELEMENTS, PolicyFile,
                                PolicyFileError)
from uno_env import Game
from paths import DATA, ROOT  # tests/paths.py

CLASSIC_LAYERS = [405, 128, 128, 65]  # the shipped classic policies' network


def _meta(layers, **change) -> dict:
    meta = {"format": "uno-env-policy", "format_version": 1, "variant": "classic", "num_players": 2,
            "table_sizes": [2], "rule_options": {}, "observation_layout_version": 2, "observation_size": layers[0],
            "action_layout_version": 1, "num_actions": layers[-1], "activation": "tanh", "layers": list(layers),
            "training_steps": 0, "evaluation": {}, "config": {}}
    return {**meta, **change}


def _weights(layers, dtype=np.float32) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(len(layers) - 1):
        out += [rng.normal(size=(layers[i], layers[i + 1])).astype(dtype), rng.normal(size=layers[i + 1]).astype(dtype)]
    return out


def _tiny(tmp_path, name="p", layers=(4, 3, 2), **change) -> str:
    """A small, valid policy file pair; its base path."""
    base = str(tmp_path / name)
    PolicyFile(_weights(layers), _meta(layers, **change)).save(base)
    return base


def _npy_header(shape, descr="<f4", fortran=False) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": fortran, "shape": tuple(shape)})
    return buf.getvalue()


def _deflate_zeros(prefix: bytes, zeros: int) -> bytes:
    """A raw deflate stream of ``prefix`` then ``zeros`` zero bytes, built in a moment however large: one
    compressed, fully flushed 64 MiB block of zeros repeated (each is independent of what came before)."""
    def block(data: bytes) -> bytes:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush(zlib.Z_FULL_FLUSH)

    chunk = 64 << 20
    whole, rest = divmod(zeros, chunk)
    return block(prefix) + block(bytes(chunk)) * whole + block(bytes(rest)) + b"\x03\x00"  # (an empty final block)


def _raw_zip(path, members) -> None:
    """Write a zip by hand: ``members`` are (name, data as stored, uncompressed size, crc, method, flags)."""
    out, directory = bytearray(), bytearray()
    for name, data, size, crc, method, flags in members:
        name_bytes = name.encode()
        offset = len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, flags, method, 0, 0x21, crc, len(data), size,
                           len(name_bytes), 0) + name_bytes + data
        directory += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, flags, method, 0, 0x21, crc, len(data), size,
                                 len(name_bytes), 0, 0, 0, 0, 0, offset) + name_bytes
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), len(out), 0)
    with open(path, "wb") as fh:
        fh.write(bytes(out + directory + end))


def _stored(name, array) -> tuple:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=True)
    data = buf.getvalue()
    return name, data, len(data), zlib.crc32(data), zipfile.ZIP_STORED, 0


def _write_json(base, meta) -> None:
    with open(base + ".json", "w", encoding="utf-8") as fh:
        json.dump(meta, fh)


_REFUSE = """
from agents.policy_file import PolicyFile, PolicyFileError
try:
    PolicyFile.read({base!r})
except PolicyFileError as exc:
    print("REFUSED:", exc)
"""


def _refused_bounded(run_bounded, base, extra_mb=150) -> str:
    out = run_bounded(_REFUSE.format(base=base), preload=("agents.policy_file",), extra_mb=extra_mb, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("REFUSED: ") and out.stdout.count("\n") == 1, out.stdout
    assert len(out.stdout) < 500, out.stdout
    return out.stdout


# --------------------------------------------------------------------------- compressed bombs


def test_a_compressed_bomb_is_refused_before_it_is_inflated(tmp_path, run_bounded):
    """The issue's file: 4 MB on disk, a first layer of 405 x 2,500,000 zeros (4 GB) behind honest metadata."""
    base = str(tmp_path / "bomb")
    shape = (405, 2_500_000)
    header = _npy_header(shape)
    size = len(header) + 4 * shape[0] * shape[1]
    stream = _deflate_zeros(header, 4 * shape[0] * shape[1])
    assert len(stream) < 5 << 20 and size < 2**32
    rest = [_stored(f"p{i}.npy", w) for i, w in enumerate(_weights(CLASSIC_LAYERS)) if i]
    _raw_zip(base + ".npz", [("p0.npy", stream, size, 0, zipfile.ZIP_DEFLATED, 0)] + rest)
    _write_json(base, _meta(CLASSIC_LAYERS))
    message = _refused_bounded(run_bounded, base)
    assert "p0.npy" in message and "(405, 2500000)" in message and "(405, 128)" in message


def test_metadata_declaring_the_bombs_sizes_is_refused(tmp_path, run_bounded):
    base = str(tmp_path / "wide")
    shape = (405, 2_500_000)
    header = _npy_header(shape)
    stream = _deflate_zeros(header, 4 * shape[0] * shape[1])
    _raw_zip(base + ".npz", [("p0.npy", stream, len(header) + 4 * shape[0] * shape[1], 0, zipfile.ZIP_DEFLATED, 0)])
    _write_json(base, _meta([405, 2_500_000, 65]))
    message = _refused_bounded(run_bounded, base)
    assert "layers" in message and f"{MAX_LAYER_SIZE:,}" in message
    # every layer within the width limit, but too many weights in all
    _write_json(base, _meta([405, 60_000, 60_000, 65]))
    message = _refused_bounded(run_bounded, base)
    assert f"{MAX_WEIGHT_ELEMENTS:,}" in message


def test_a_member_whose_zip_entry_lies_about_its_size_is_not_inflated(tmp_path, run_bounded):
    """The header's shape is right, but the entry goes on for 4 GB of zeros after the array's bytes."""
    base = str(tmp_path / "long")
    header = _npy_header((4, 3))
    stream = _deflate_zeros(header, 4_000_000_000)
    members = [("p0.npy", stream, len(header) + 4_000_000_000, 0, zipfile.ZIP_DEFLATED, 0)]
    members += [_stored(f"p{i}.npy", w) for i, w in enumerate(_weights((4, 3, 2))) if i]
    _raw_zip(base + ".npz", members)
    _write_json(base, _meta([4, 3, 2]))
    assert "p0.npy holds" in _refused_bounded(run_bounded, base)


def test_a_huge_npy_header_is_not_read(tmp_path, run_bounded):
    """A version 2.0 header may claim 4 GB of header text; numpy's reader would read it all before its limit."""
    base = str(tmp_path / "header")
    magic = b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0)
    stream = _deflate_zeros(magic, 0xFFFFFFF0 - len(magic) + 8)
    _raw_zip(base + ".npz", [("p0.npy", stream, 0xFFFFFFF8, 0, zipfile.ZIP_DEFLATED, 0)])
    _write_json(base, _meta([4, 3, 2]))
    assert "header" in _refused_bounded(run_bounded, base)


def test_a_zip_with_a_huge_directory_is_refused_unread(tmp_path, run_bounded):
    """A million directory entries: refused from the end record, before zipfile builds an entry for each."""
    base = str(tmp_path / "many")
    one = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0) + b"x.json"
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0x21, 0, 0, 0, 6, 0) + b"x.json"
    count = 1_000_000
    with open(base + ".npz", "wb") as fh:
        fh.write(local)
        fh.write(one * count)
        fh.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(one) * count, len(local), 0))
    _write_json(base, _meta([4, 3, 2]))
    assert "members" in _refused_bounded(run_bounded, base)


# --------------------------------------------------------------------------- damaged and unexpected archives


def test_every_truncation_of_a_weight_file_is_a_policy_file_error(tmp_path):
    base = _tiny(tmp_path)
    whole = open(base + ".npz", "rb").read()
    for cut in range(len(whole)):
        with open(base + ".npz", "wb") as fh:
            fh.write(whole[:cut])
        with pytest.raises(PolicyFileError, match="p.npz"):
            PolicyFile.read(base)
    with open(base + ".npz", "wb") as fh:
        fh.write(whole)
    assert len(PolicyFile.read(base).weights) == 4


def test_garbage_and_flipped_bytes_are_policy_file_errors(tmp_path):
    base = _tiny(tmp_path)
    whole = open(base + ".npz", "rb").read()
    rng = np.random.default_rng(1)
    for garbage in (b"", b"\0" * 100, b"PK\x03\x04" + bytes(rng.integers(0, 256, 5000, dtype=np.uint8)),
                    b"\x93NUMPY\x01\x00" + b"x" * 100, b"\x80\x04\x95" + b"pickle" * 10):
        with open(base + ".npz", "wb") as fh:
            fh.write(garbage)
        with pytest.raises(PolicyFileError, match="p.npz"):
            PolicyFile.read(base)
    for _ in range(300):  # one byte changed anywhere: refused in one line, or (in padding, say) read
        damaged = bytearray(whole)
        damaged[int(rng.integers(len(whole)))] ^= 1 << int(rng.integers(8))
        with open(base + ".npz", "wb") as fh:
            fh.write(bytes(damaged))
        try:
            policy = PolicyFile.read(base)
        except PolicyFileError:
            continue
        assert [w.shape for w in policy.weights] == [(4, 3), (3,), (3, 2), (2,)]


@pytest.mark.parametrize("change, words", [
    ({"p1.npy": None}, "3 weight arrays do not fit layers .* holds p0.npy, p2.npy, p3.npy"),
    ({"extra.npy": np.zeros(3, np.float32)}, "unexpected member 'extra.npy'"),
    ({"../p9.npy": np.zeros(3, np.float32)}, "unexpected member '../p9.npy'"),
    ({"p4.npy": np.zeros(3, np.float32)}, "5 weight arrays do not fit layers"),
    ({"p0.npy": np.array([{"x": 1}], dtype=object)}, "p0.npy is not a numeric array"),
    ({"p0.npy": np.zeros((4, 3), dtype=[("a", "<f4")])}, "p0.npy is not a numeric array"),
    ({"p0.npy": np.zeros((4, 3), dtype=np.complex64)}, "p0.npy is not a numeric array"),
    ({"p0.npy": np.zeros((4, 3), dtype="U3")}, "p0.npy is not a numeric array"),
    ({"p0.npy": np.zeros((3, 4), dtype=np.float32)}, r"p0.npy has shape \(3, 4\)"),
    ({"p1.npy": np.zeros((3, 1), dtype=np.float32)}, r"p1.npy has shape \(3, 1\)"),
])
def test_unexpected_members_dtypes_and_shapes_are_refused(tmp_path, change, words):
    base = _tiny(tmp_path)
    arrays = {f"p{i}.npy": w for i, w in enumerate(_weights((4, 3, 2)))}
    arrays.update(change)
    _raw_zip(base + ".npz", [_stored(name, a) for name, a in arrays.items() if a is not None])
    with pytest.raises(PolicyFileError, match=words):
        PolicyFile.read(base)


def test_repeated_encrypted_and_other_compression_members_are_refused(tmp_path):
    base = _tiny(tmp_path)
    members = [_stored(f"p{i}.npy", w) for i, w in enumerate(_weights((4, 3, 2)))]
    _raw_zip(base + ".npz", members[:3] + [members[2]])
    with pytest.raises(PolicyFileError, match="p2.npy more than once"):
        PolicyFile.read(base)
    name, data, size, crc, method, flags = members[0]
    _raw_zip(base + ".npz", [(name, data, size, crc, method, 1)] + members[1:])
    with pytest.raises(PolicyFileError, match="encrypted"):
        PolicyFile.read(base)
    _raw_zip(base + ".npz", [(name, data, size, crc, zipfile.ZIP_BZIP2, 0)] + members[1:])
    with pytest.raises(PolicyFileError, match="compression method 12"):
        PolicyFile.read(base)
    _raw_zip(base + ".npz", [(name, data + b"\0" * 8, size + 8, zlib.crc32(data + b"\0" * 8), method, 0)] + members[1:])
    with pytest.raises(PolicyFileError, match="p0.npy holds 56 bytes"):
        PolicyFile.read(base)
    _raw_zip(base + ".npz", [(name, data, size, crc ^ 1, method, 0)] + members[1:])
    with pytest.raises(PolicyFileError, match="CRC"):
        PolicyFile.read(base)
    with open(base + ".npz", "wb") as fh:  # a zip64 end record: never written for a policy's few small arrays
        fh.write(b"PK\x03\x04" + bytes(100) + b"PK\x06\x07" + bytes(16) + b"PK\x05\x06" + bytes(18))
    with pytest.raises(PolicyFileError, match="zip64"):
        PolicyFile.read(base)


def test_what_numpy_writes_is_read_exactly(tmp_path):
    """Compressed or not, Fortran order, another byte order, an npy 2.0 header, float64 or integer weights."""
    layers = (4, 3, 2)
    weights = _weights(layers, np.float64)
    base = str(tmp_path / "p")
    _write_json(base, _meta(list(layers)))
    np.savez_compressed(base + ".npz", **{f"p{i}": w for i, w in enumerate(weights)})
    assert all(np.array_equal(a, b) for a, b in zip(PolicyFile.read(base).weights, weights))
    odd = [np.asfortranarray(weights[0]), weights[1].astype(">f8"), weights[2].astype(np.int16), weights[3]]
    members = [_stored(f"p{i}.npy", w) for i, w in enumerate(odd)]
    buf = io.BytesIO()
    np.lib.format.write_array(buf, odd[3], version=(2, 0))
    members[3] = ("p3.npy", buf.getvalue(), len(buf.getvalue()), zlib.crc32(buf.getvalue()), zipfile.ZIP_STORED, 0)
    _raw_zip(base + ".npz", members)
    read = PolicyFile.read(base).weights
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(read, odd))
    assert read[0].flags.f_contiguous and all(w.flags.writeable for w in read)


# --------------------------------------------------------------------------- metadata


@pytest.mark.parametrize("text, words", [
    ("", "is empty"), ("   \n", "is empty"), ("[1, 2]", "holds a JSON list"), ('"x"', "holds a JSON str"),
    ("null", "holds a JSON NoneType"), ("7", "holds a JSON int"), ("{", "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"), ('{"layers": [' + "9" * 5000 + "]}", "too many digits"),
])
def test_metadata_that_is_not_an_object_is_a_policy_file_error(tmp_path, text, words):
    base = _tiny(tmp_path)
    with open(base + ".json", "w", encoding="utf-8") as fh:
        fh.write(text)
    with pytest.raises(PolicyFileError, match=words):
        PolicyFile.read(base)


def test_metadata_size_is_bounded_before_it_is_read(tmp_path):
    base = _tiny(tmp_path)
    meta = _meta([4, 3, 2], config={"padding": "x" * MAX_METADATA_BYTES})
    _write_json(base, meta)
    with pytest.raises(PolicyFileError, match=f"larger than {MAX_METADATA_BYTES:,} bytes"):
        PolicyFile.read(base)
    with open(base + ".json", "wb") as fh:
        fh.write(b"\xff\xfe{}")
    with pytest.raises(PolicyFileError, match="not a text"):
        PolicyFile.read(base)
    os.remove(base + ".json")
    os.mkdir(base + ".json")
    with pytest.raises(PolicyFileError, match="cannot read"):
        PolicyFile.read(base)


@pytest.mark.parametrize("change, words", [
    ({"layers": [4]}, "layers .* must be a list of 2 to"),
    ({"layers": "4, 3, 2"}, "layers .* must be a list"),
    ({"layers": [4, 3.0, 2]}, "whole numbers"),
    ({"layers": [4, True, 2]}, "whole numbers"),
    ({"layers": [4, -3, 2]}, "whole numbers"),
    ({"layers": [4, 0, 2]}, "whole numbers"),
    ({"layers": [4] + [3] * MAX_LAYERS + [2]}, f"2 to {MAX_LAYERS}"),
    ({"layers": [4, 10 ** 30, 2]}, f"each 1 to {MAX_LAYER_SIZE:,}"),
    ({"layers": [4, 10 ** 4000, 2]}, r"layers \[4, 1000+\.\.\.0+, 2\] must be"),
    ({"observation_size": 10 ** 4000}, "observation_size"),
    ({"num_actions": "2"}, "num_actions"),
    ({"num_actions": 7}, "network input/output sizes 4/2 .* 7 actions"),
    ({"activation": "x" * 100_000}, "activation 'xxxx"),
    ({"format": "y" * 100_000}, "format = 'yyyy"),
    ({"format_version": 10 ** 4000}, "format_version <an int of"),
    ({"table_sizes": 2}, "table_sizes"),
    ({"table_sizes": [2] * 1000}, "table_sizes"),
    ({"table_sizes": [10 ** 30]}, "table_sizes"),
    ({"num_players": 10 ** 30}, "num_players"),
])
def test_absurd_metadata_is_refused_in_one_short_line(tmp_path, change, words):
    base = _tiny(tmp_path)
    _write_json(base, {**_meta([4, 3, 2]), **change})
    with pytest.raises(PolicyFileError, match=words) as info:
        PolicyFile.read(base)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400 and base + ".json" in message


def test_the_game_check_echoes_a_policy_file_made_in_memory_briefly():
    game = Game("classic", num_players=2)
    policy = PolicyFile(_weights([405, 2, 65]), _meta([405, 2, 65], variant="v" * 100_000,
                                                      rule_options={"x": "y" * 100_000}, num_actions=10 ** 5000))
    with pytest.raises(PolicyFileError) as info:
        policy.check_game(game)
    assert len(str(info.value)) < 600


# --------------------------------------------------------------------------- every shipped policy still loads


@pytest.mark.parametrize("name", agents.pretrained_names())
def test_every_shipped_policy_loads(name):
    with open(os.path.join(agents.PRETRAINED_DIR, name + ".json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    game = Game(meta["variant"], num_players=(meta.get("table_sizes") or [meta["num_players"]])[0])
    bot = agents.load(f"pretrained:{name}", game)
    assert [w.shape for w in bot.policy.weights][::2] == list(zip(meta["layers"], meta["layers"][1:]))
    s = game.new_state(seed=0)
    from uno_env.observation import ObservationEncoder

    assert bot.act(ObservationEncoder(game).encode(s, s.current_seat), game.legal_action_mask(s)) in \
        game.legal_actions(s)


def test_the_earlier_sb3_test_policy_still_loads():
    data = os.path.join(DATA, "sb3-attack-2p")
    policy = PolicyFile.read(data)
    assert policy.metadata["observation_layout_version"] == 1 and len(policy.weights) == 6
    policy.check_game(Game("attack", num_players=2))


def test_limits_leave_room_for_the_shipped_networks():
    assert policy_file.MAX_LAYER_SIZE >= 16 * 1402 and policy_file.MAX_LAYERS >= 8
    assert policy_file.MAX_WEIGHT_ELEMENTS >= 50 * (1402 * 128 + 128 * 128 + 128 * 203)


def test_the_limits_are_the_documented_ones():
    text = open(os.path.join(ROOT, "docs", "training.md"), encoding="utf-8").read()
    assert MAX_METADATA_BYTES == 1 << 20 and "at most 1 MiB" in text
    for number in (MAX_LAYERS, f"{MAX_LAYER_SIZE:,}", f"{MAX_WEIGHT_ELEMENTS:,}"):
        assert f" {number} " in text.replace("\n", " "), number


# --------------------------------------------------------------------------- the other inputs of the same kind
# (command-line numbers, scenario specs and the JSON files benchmark runs and distillation read back)


@pytest.mark.parametrize("text, words", [
    ("0", "must be 1 or more; got 0"), ("-3", "must be 1 or more"), ("10**30", "expected a whole number"),
    ("1" * 5000, "at most 1,000,000,000; got a number of 5,000 digits"), ("-" + "9" * 5000, "1 or more; got a number"),
    ("1000000001", "at most 1,000,000,000"), ("nan", "expected a whole number"), ("x" * 100_000, "expected a whole"),
])
def test_whole_number_options_are_bounded(text, words):
    import argparse

    from train.arg_types import positive_int

    with pytest.raises(argparse.ArgumentTypeError, match=words) as info:
        positive_int(text)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("text, words", [
    ("nan", "expected a number"), ("inf", "at most 1,000,000,000"), ("1e400", "at most"), ("-inf", "0 or more"),
    ("-1", "0 or more"), ("1" * 5000, "expected a number"), ("y" * 100_000, "expected a number"),
])
def test_float_options_are_finite_and_bounded(text, words):
    import argparse

    from train.arg_types import non_negative_float, positive_float

    for parse in (non_negative_float, positive_float):
        with pytest.raises(argparse.ArgumentTypeError, match=words) as info:
            parse(text)
        assert len(str(info.value)) < 200
    assert non_negative_float("0") == 0 and positive_float("2.5") == 2.5 and positive_float("1e9") == 1e9


@pytest.mark.parametrize("spec, words", [
    ({"seed": -1}, "seed = -1 must be an int from 0"), ({"seed": 2**128}, "seed = "),
    ({"seed": 10**5000}, "seed = <an int of"), ({"hand" + "x" * 100_000: 1}, "unknown spec key 'handxxx"),
    ({"phase": ["x" * 100_000]}, "phase = "), ({"hands": [10**5000, 5]}, "asks for <an int of"),
    ({"hands": [-10**5000, 5]}, "must be a non-negative count"), ({"hands": ["x" * 100_000, 5]}, r"hands\[0\] = "),
    ({"hands": [["R" * 100_000], 5]}, r"hands\[0\]\[0\]: card 'RRR"), ({"discard": [[[["R7"]]]]}, r"discard\[0\]"),
    ({"hands": [[{"a": "x" * 100_000}], 5]}, "card"), ({"colour": "B" * 100_000}, "colour = 'BBB"),
    ({"colour": [1] * 100_000}, "colour = "), ({"current": 10**5000}, "current = <an int of"),
    ({"direction": 1.0}, "direction = 1.0"), ({"start": "y" * 100_000}, "start = 'yyy"),
    ({"scores": [10**30, 0]}, "scores = "), ({"unplaced": "z" * 100_000}, "unplaced = 'zzz"),
    ({"variant": "v" * 100_000}, "spec variant 'vvv"), ({"players": 10**5000}, "players = <an int of"),
    ({"options": ["o"] * 100_000}, "options = "), ({"draw_pile": "d" * 100_000}, "draw_pile must be a list"),
])
def test_scenario_specs_with_huge_values_are_refused_briefly(spec, words):
    from uno_env.errors import SpecError

    game = Game("classic", num_players=2)
    with pytest.raises(SpecError, match=words) as info:
        game.state_from_spec(spec)
    assert len(str(info.value)) < 400 and "\n" not in str(info.value)


def test_a_spec_seed_within_the_limit_still_deals():
    game = Game("classic", num_players=2)
    a, b = game.state_from_spec({"seed": 2**128 - 1}), game.state_from_spec({"seed": 2**128 - 1})
    assert game.to_spec(a) == game.to_spec(b)
    assert game.to_spec(game.state_from_spec({"scores": [10**9, -10**9]}))["scores"] == [10**9, -10**9]


def _results(tmp_path, content) -> str:
    path = tmp_path / "results.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("content, words", [
    ("[1]", "a JSON list, not an object"), ("{", "invalid JSON"), ("[" * 100_000, "invalid JSON|nested too deeply"),
    ('{"x": ' + "9" * 5000 + "}", "too many digits"), ({"format": "x" * 100_000}, "written by uno-env benchmark"),
    ({"format": "uno-env-benchmark-results"}, "lacks 'suite'"),
    ({"format": "uno-env-benchmark-results", "suite": "s", "agent": "a", "official": True, "aggregate": None,
      "tasks": [{"id": "t", "win_rate": "x" * 100_000}]}, r"tasks\[0\].win_rate must be a number, not 'xxx"),
    ({"format": "uno-env-benchmark-results", "suite": "s" * 100_000, "agent": "a", "official": True,
      "aggregate": None, "tasks": []}, "suite must be a string of at most 1,000"),
    ({"format": "uno-env-benchmark-results", "suite": "s", "agent": "a", "official": True, "tasks": [],
      "aggregate": {"iqm": 1, "iqm_ci95": [1]}}, r"aggregate.iqm_ci95 must be a list of 2 items"),
    ({"format": "uno-env-budget-results", "suite": "s", "official": True, "config_file": "c", "algo": "ppo",
      "tasks": ["t"], "seeds": [0], "budgets": [1], "runs": [], "points": [{"target": 1}]}, r"points\[0\] lacks 'kind'"),
])
def test_damaged_benchmark_results_are_one_line_usage_errors(tmp_path, content, words):
    from train.benchmark.leaderboard import read_results
    from train.errors import UsageError

    with pytest.raises(UsageError, match=words) as info:
        read_results(_results(tmp_path, content))
    assert len(str(info.value)) < 500 and "\n" not in str(info.value)


def test_benchmark_json_is_bounded_before_it_is_read(tmp_path, monkeypatch):
    from train import json_input
    from train.benchmark.leaderboard import read_results
    from train.errors import UsageError

    monkeypatch.setattr(json_input.read_json_object, "__defaults__", (None, 1000))
    with pytest.raises(UsageError, match="larger than 1,000 bytes"):
        read_results(_results(tmp_path, {"format": "uno-env-benchmark-results", "pad": "x" * 2000}))


def test_a_damaged_labelling_record_is_a_config_error(tmp_path):
    from train.ppo import distill
    from train.config import ConfigError, TrainConfig

    cfg = TrainConfig.from_dict({"algo": "ppo", "variant": "classic", "teacher": "ismcts:iterations=2",
                                 "teacher_games": 1})
    for content, words in (("[]", "a JSON list"), ('{"variant": "' + "v" * 100_000 + '"}', "variant changed"),
                           ("{" * 10, "invalid JSON")):
        (tmp_path / distill.IDENTITY).write_text(content, encoding="utf-8")
        with pytest.raises(ConfigError, match=words) as info:
            distill._check_folder(cfg, str(tmp_path))
        assert len(str(info.value)) < 600
    identity = json.loads(json.dumps(distill.labelling_identity(cfg)))
    (tmp_path / distill.IDENTITY).write_text(json.dumps({**identity, "teacher_games": "many"}), encoding="utf-8")
    with pytest.raises(ConfigError, match="teacher_games 'many' is not a count"):
        distill._check_folder(cfg, str(tmp_path))


def test_damaged_budget_run_files_are_one_line_usage_errors(tmp_path):
    from types import SimpleNamespace

    from train.benchmark import budget
    from train.errors import UsageError

    run = tmp_path / "runs" / "seed0"
    (run / "scores").mkdir(parents=True)
    plan = SimpleNamespace(out_dir=str(tmp_path), run_dir=lambda seed: str(run), targets=lambda: [10, 20],
                           tasks=[SimpleNamespace(task_id="classic-2p")], identity=lambda: {"format": "p", "a": 1})
    (tmp_path / "protocol.json").write_text(json.dumps({"format": "p", **{"k" * 1000 + str(i): i for i in range(50)}}))
    with pytest.raises(UsageError, match=r"\(a, k{40}\.\.\., .* and 43 more differ\)") as info:
        budget.prepare_out(plan)
    assert len(str(info.value)) < 700
    record = {"seed": 0, "points": {"10": 12}, "planned_decisions": 20, "trained_decisions": 24, "seconds": 1.0,
              "samples_per_second": 2.0}
    for content, words in ((["x"], "a JSON list"), ({**record, "points": {"10": "x" * 100_000}},
                                                    r"points\['10'\] must be a whole number, not 'xxx"),
                           (record, "no policy saved at point 20")):
        (run / budget.TRAINING_RECORD).write_text(json.dumps(content))
        with pytest.raises(UsageError, match=words):
            budget.train_seed(plan, 0, progress=False)
    score = {"seed": 0, "target": 10, "kind": "curve", "decisions": 12, "score": 0.5, "score_ci95": None,
             "tasks": {"other": {"games": 2, "wins": 1, "win_rate": 0.5, "normalised_score": 0.1}}}
    path = run / "scores" / "decisions_000000000010.json"
    for content, words in (({**score, "score_ci95": [1, 2, 3]}, "score_ci95 must be a list of 2 items"),
                           (score, "no task 'classic-2p'")):
        path.write_text(json.dumps(content))
        with pytest.raises(UsageError, match=words):
            budget.score_point(plan, 0, 10, 12, progress=False)
