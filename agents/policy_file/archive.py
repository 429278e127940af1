"""The bounded reader of a policy's ``.npz``: a zip of ``.npy`` arrays, read member by member without ``numpy.load``.

Nothing is unpickled and every size is checked before the data it bounds is read: the zip's end
record (member count, directory size, no zip64) before ``zipfile`` reads the directory; each
member's name, compression and ``.npy`` header (a plain float or integer dtype, the shape the
network's ``layers`` need) before any array data; then exactly the bytes of that shape are read,
and every float must be finite (no NaN or infinity). Anything else is a one-line ``PolicyFileError``
naming the file.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Callable

import numpy as np
from numpy.lib import format as npy_format

from uno_env.errors import short_repr

from .limits import MAX_DIRECTORY_BYTES, MAX_MEMBERS, MAX_NPY_HEADER_BYTES, PolicyFileError

#: The members of a policy's ``.npz``: ``p0.npy``, ``p1.npy``, ... (as ``numpy.savez`` names them).
_MEMBER_NAME = re.compile(r"p(0|[1-9][0-9]?)\.npy")
#: Errors of zipfile, zlib and numpy's header parser that mean a damaged or hand-made archive.
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError, NotImplementedError,
                   struct.error, KeyError, OverflowError)


def layer_shapes(layers: list[int]) -> list[tuple[int, ...]]:
    """The arrays an MLP of sizes ``layers`` is stored as: ``(in, out)`` weights, then ``(out,)`` biases, per layer."""
    shapes: list[tuple[int, ...]] = []
    for a, b in zip(layers, layers[1:]):
        shapes += [(a, b), (b,)]
    return shapes


def read_weights(path: str, layers: list[int], check_before_data: Callable[[], None],
                 extra: tuple[tuple[tuple[int, ...], str], ...] = ()) -> list[np.ndarray]:
    """The weight arrays ``p0, p1, ...`` of a policy's ``.npz``, or PolicyFileError saying what is wrong.

    The zip directory, each member's name, compression and ``.npy`` header (dtype, shape) are checked
    against ``layers`` first, then ``check_before_data()`` runs; only then is array data read, and
    exactly as many bytes as the shapes need. ``numpy.load`` is not used: it would inflate an array
    of whatever shape a header claims. ``extra``: (shape, what it is) of the members stored after the
    weights (an action-value policy's feature table), checked the same way.
    """
    shapes = layer_shapes(layers) + [shape for shape, _ in extra]
    names = [f"the {'weights' if k % 2 == 0 else 'biases'} of layer {k // 2}" for k in range(len(shapes) - len(extra))]
    names += [what for _, what in extra]
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
            members = _check_members(archive, path, layers, shapes, names, streams)
            check_before_data()
            arrays = [_read_array(path, *member) for member in members]
    except PolicyFileError:
        raise
    except _ARCHIVE_ERRORS as exc:
        reason = str(exc)[:200] or type(exc).__name__
        raise PolicyFileError(f"{path} is not a readable weight file (truncated or damaged?): {reason}") from None
    for k, array in enumerate(arrays):
        _check_finite(path, f"p{k}.npy ({names[k]})", array)
    return arrays


def _check_finite(path: str, member: str, array: np.ndarray) -> None:
    """Refuse an array holding NaN or an infinity: such a network plays no policy (its arg-max is the first legal
    action whatever the game, and sampling from it fails at the first decision)."""
    if array.dtype.kind == "f":
        bad = array.size - int(np.count_nonzero(np.isfinite(array)))
        if bad:
            raise PolicyFileError(f"{path}: {member} holds {bad:,} NaN or infinite value{'s' if bad > 1 else ''}; "
                                  "a policy's weights are finite numbers (was it exported from a diverged run?)")


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
                   names: list[str], streams: contextlib.ExitStack) -> list[tuple]:
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
                                  f"({names[k]})")
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
    """Exactly ``n`` bytes of ``stream``, or PolicyFileError (``bad`` names the member) if it ends first."""
    data = stream.read(n)
    if len(data) != n:
        raise PolicyFileError(f"{bad} ends early (truncated or damaged?)")
    return data


def _read_array(path: str, name: str, stream, shape: tuple[int, ...], fortran: bool, dtype: np.dtype,
                nbytes: int) -> np.ndarray:
    """The array of a checked member: exactly ``nbytes`` are read (a damaged member fails zipfile's CRC check)."""
    data = _read_exactly(stream, nbytes, f"{path} is not a readable weight file: {name}")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy(order="K")
