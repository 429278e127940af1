"""Reading back the JSON files of benchmark runs (and of a distillation's labelling folder).

These files are written by this package, but they are read back from folders a user names (and may
have edited, copied or truncated). Each is read within ``MAX_JSON_BYTES``, must be a JSON object,
and is checked against the shape its reader uses (``check_shape``), so a damaged or hostile file is
one line naming it and its first wrong field: never a traceback, and never a message repeating a
large value.
"""
from __future__ import annotations

import json
from typing import Any

from uno_env.errors import short_repr

#: Largest JSON file read back (a budget run's results.json with 10 seeds x 20 points is about 200 KB).
MAX_JSON_BYTES = 16 << 20
#: Characters a string field may have (agent specs, paths, task ids, suite names).
MAX_TEXT_CHARS = 1_000


class _Nullable:
    def __init__(self, schema):
        self.schema = schema


def nullable(schema) -> _Nullable:
    """A ``check_shape`` schema: null, or ``schema``."""
    return _Nullable(schema)


def read_json_object(path: str, what: str, error: type[ValueError], schema: Any = None,
                     max_bytes: int = MAX_JSON_BYTES) -> dict:
    """The JSON object in ``path`` (``what`` it should be, for messages), checked against ``schema``; else ``error``.

    OSError (a missing or unreadable file) is left to the caller, as ``open`` raises it.
    """
    with open(path, "rb") as fh:
        raw = fh.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise error(f"{path}: larger than {max_bytes:,} bytes, so not {what}")
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise error(f"{path}: not {what} (not a UTF-8 text file)") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not {what} (invalid JSON: {exc})") from None
    except RecursionError:
        raise error(f"{path}: not {what} (JSON nested too deeply)") from None
    except ValueError:  # an int past Python's limit on digits
        raise error(f"{path}: not {what} (a number with too many digits)") from None
    if not isinstance(obj, dict):
        raise error(f"{path}: not {what} (a JSON {type(obj).__name__}, not an object)")
    if schema is not None:
        problem = check_shape(obj, schema)
        if problem:
            raise error(f"{path}: not {what} ({problem})")
    return obj


def check_shape(value: Any, schema: Any, where: str = "") -> str | None:
    """What is wrong with ``value`` against ``schema`` (its first wrong field), or None if it fits.

    A schema is ``str`` (at most ``MAX_TEXT_CHARS``), ``int``, ``float`` (any number), ``bool``,
    ``object`` (anything), ``[s]`` (a list of ``s``), ``[s1, s2]`` (exactly two items), ``{key: s}``
    (an object with at least those keys; the key ``"*"`` stands for every key), or ``nullable(s)``.
    """
    if isinstance(schema, _Nullable):
        return None if value is None else check_shape(value, schema.schema, where)
    name = where or "the file"
    if schema is object:
        return None
    if schema is bool:
        return None if isinstance(value, bool) else f"{name} must be true or false, not {short_repr(value)}"
    if schema is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"{name} must be a whole number, not {short_repr(value)}"
    if schema is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"{name} must be a number, not {short_repr(value)}"
    if schema is str:
        ok = isinstance(value, str) and len(value) <= MAX_TEXT_CHARS
        return None if ok else f"{name} must be a string of at most {MAX_TEXT_CHARS:,} characters, not {short_repr(value)}"
    if isinstance(schema, list):
        if not isinstance(value, list) or (len(schema) > 1 and len(value) != len(schema)):
            kind = f"a list of {len(schema)} items" if len(schema) > 1 else "a list"
            return f"{name} must be {kind}, not {short_repr(value)}"
        items = schema if len(schema) > 1 else schema * len(value)
        return next((p for i, (v, s) in enumerate(zip(value, items)) if (p := check_shape(v, s, f"{where}[{i}]"))),
                    None)
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return f"{name} must be an object, not {short_repr(value)}"
        for key, sub in schema.items():
            if key == "*":
                problem = next((p for k, v in value.items()
                                if (p := check_shape(v, sub, f"{where}[{short_repr(k, 40)}]"))), None)
            elif key not in value:
                problem = f"{name} lacks {key!r}"
            else:
                problem = check_shape(value[key], sub, f"{where}.{key}" if where else key)
            if problem:
                return problem
        return None
    raise TypeError(f"not a schema: {schema!r}")  # a bug in a caller, not bad input
