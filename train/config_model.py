"""The typed config loader every training config shares: fields declared with their type and bounds.

A config is a dataclass whose fields are ``setting``\\ s: a default, the type its annotation declares and its
``Bounds``. One loader reads them all (``ConfigModel.from_dict`` / ``from_yaml``): a YAML key is a field, an
unknown key (with a did-you-mean), a wrong type or a value out of its bounds is a ``ConfigError`` naming the
key, the value given and what is allowed. What ties fields together is checked by small named methods,
listed in each class's ``CHECKS`` (a base's first). The settings themselves are in ``train.config``.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import math
import typing
from dataclasses import dataclass, field
from typing import Any

from uno_env.errors import did_you_mean, short_repr
from uno_env.safe_yaml import load_file


class ConfigError(ValueError):
    """A training config with an unknown key or a value of the wrong type."""


@dataclass(frozen=True)
class Bounds:
    """What a setting allows beyond its type (a list's entries obey ``low``, ``above`` and ``high``)."""

    low: float | None = None
    """Least value allowed."""
    above: float | None = None
    """The value must be greater than this (a bound it may not reach)."""
    high: float | None = None
    """Greatest value allowed."""
    most: int | None = None
    """A size limit: more would exhaust the machine rather than be wrong (``is more than this trainer takes``)."""
    length: tuple[int, int] | None = None
    """Least and greatest number of entries of a list."""
    note: str = ""
    """Said after what is allowed, e.g. what 0 means."""
    exclusive: bool | str = False
    """Refused away from its default under another ``algo`` than its part's ``ALGO``; a string says why."""


NO_BOUNDS = Bounds()


def setting(default: Any, **bounds: Any) -> Any:
    """A config field: its default (a list or dict is copied for each config) and its ``Bounds``."""
    return _field(default, Bounds(**bounds))


def setting_like(part: type, name: str, default: Any) -> Any:
    """The field ``name`` of config class ``part`` with another default (the same bounds)."""
    return _field(default, _fields(part)[name].metadata["bounds"])


def _field(default: Any, bounds: Bounds) -> Any:
    """A dataclass field holding ``bounds`` in its metadata."""
    if isinstance(default, (list, dict)):
        return field(default_factory=functools.partial(copy.deepcopy, default), metadata={"bounds": bounds})
    return field(default=default, metadata={"bounds": bounds})


class ConfigModel:
    """The loader and validator every config dataclass shares: keys, types and bounds, then its ``CHECKS``."""

    LABEL = "training config"  # how messages name this kind of config

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """Validated config from a mapping; unknown keys, wrong types and values out of bounds are errors."""
        if not isinstance(data, dict):
            raise ConfigError(f"expected a mapping of {cls.LABEL} keys to values, got {type(data).__name__}")
        fields = _fields(cls)
        unknown = sorted(set(data) - set(fields), key=str)
        if unknown:
            named = ", ".join(f"{short_repr(k)}{did_you_mean(k, fields) if isinstance(k, str) else ''}"
                              for k in unknown[:5]) + (f" and {len(unknown) - 5:,} more" if len(unknown) > 5 else "")
            raise ConfigError(f"unknown {cls.LABEL} key{'s' if len(unknown) > 1 else ''} {named}; "
                              f"allowed: {', '.join(fields)}")
        hints = _hints(cls)
        cfg = cls(**{key: _coerce(cls.LABEL, key, value, hints[key]) for key, value in data.items()})
        cfg.validate()
        return cfg

    @classmethod
    def from_yaml(cls, path: str) -> Any:
        """Config from a YAML file; errors in its content name the file.

        The file is read by ``uno_env.safe_yaml.load_file``: at most 1 MB of UTF-8, no anchors or
        aliases, not empty (``YamlFileError`` naming the file and line).
        """
        from uno_env.errors import RuleError

        data = load_file(path, f"a mapping of config keys to values (the fields of {cls.__name__})")
        try:
            return cls.from_dict(data)
        except (ConfigError, RuleError) as exc:
            raise type(exc)(f"{path}: {exc}") from None

    def validate(self) -> None:
        """Every field's type and bounds, then the checks between fields (each class's ``CHECKS``, a base's first)."""
        hints = _hints(type(self))
        for f in dataclasses.fields(self):
            value = _coerce(self.LABEL, f.name, getattr(self, f.name), hints[f.name])
            problem = _bounds_problem(value, f.metadata.get("bounds", NO_BOUNDS), hints[f.name] is float)
            if problem:
                raise ConfigError(f"{self.LABEL} {f.name!r}{problem}")
        for name in self.checks():
            getattr(self, name)()

    @classmethod
    def checks(cls) -> list[str]:
        """The names of the methods checking fields together, in order."""
        return [name for klass in reversed(cls.__mro__) for name in vars(klass).get("CHECKS", ())]

    def to_dict(self) -> dict:
        """Plain mapping (what is saved beside a run)."""
        return dataclasses.asdict(self)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The declared type of each field of a config class."""
    return typing.get_type_hints(cls)


def _fields(cls: type) -> dict[str, dataclasses.Field]:
    """The fields of a config class by name, in order."""
    return {f.name: f for f in dataclasses.fields(cls)}


def _coerce(label: str, key: str, value: Any, hint: Any) -> Any:
    """``value`` as the declared type (a float from an int or from YAML's ``3e-4`` string), or ConfigError."""
    if hint is float:
        if isinstance(value, str):  # YAML 1.1 reads 3e-4 as a string
            try:
                value = float(value)
            except ValueError:
                pass
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                value = float(value)
            except OverflowError:  # an int too large for a float
                raise ConfigError(f"{label} {key!r} = {short_repr(value)} is too large") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{label} {key!r} = {value} must be a finite number")
    if not _matches(value, hint):
        raise ConfigError(f"{label} {key!r} = {short_repr(value)} must be {_type_name(hint)}")
    return value


def _matches(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the declared type (a bool is no int; a list's or dict's entries are checked too)."""
    origin, args = typing.get_origin(hint) or hint, typing.get_args(hint)
    if origin is bool:
        return isinstance(value, bool)
    if origin is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is float:  # an int is a number too (inside a list or dict, where it is kept as given)
        return (isinstance(value, float) and math.isfinite(value)
                or isinstance(value, int) and not isinstance(value, bool) and value.bit_length() <= 64)
    if origin is list:
        return isinstance(value, list) and (not args or all(_matches(x, args[0]) for x in value))
    if origin is dict:
        return isinstance(value, dict) and (not args or all(_matches(k, args[0]) and _matches(v, args[1])
                                                            for k, v in value.items()))
    return isinstance(value, origin)


def _type_name(hint: Any) -> str:
    """A declared type as messages say it: ``int``, ``a list of int``, ``a mapping of str to float``."""
    origin, args = typing.get_origin(hint) or hint, typing.get_args(hint)
    if origin is list and args:
        return f"a list of {_type_name(args[0])}"
    if origin is dict and args:
        return f"a mapping of {_type_name(args[0])} to {_type_name(args[1])}"
    return origin.__name__


def _within(value: float, b: Bounds) -> bool:
    """Whether a number lies within ``b`` (its size limit ``most`` aside)."""
    return ((b.low is None or value >= b.low) and (b.above is None or value > b.above)
            and (b.high is None or value <= b.high))


def _bounds_problem(value: Any, b: Bounds, is_float: bool) -> str | None:
    """What is wrong with a value of the declared type, as the end of a message after its key (None: nothing)."""
    note = f" ({b.note})" if b.note else ""
    if isinstance(value, list):
        least, most = b.length or (0, None)
        if least <= len(value) and (most is None or len(value) <= most) and all(_within(x, b) for x in value):
            return None
        count = f"at most {most}" if not least else f"{least} to {most}"
        entries = f" in {b.low:,}..{b.high:,}" if b.low is not None and b.high is not None else ""
        return f" = {short_repr(value)} must be a list of {count} whole numbers{entries}{note}"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    if b.most is not None and value > b.most:
        return f" = {short_repr(value)} is more than this trainer takes; allowed: at most {b.most:,}"
    if _within(value, b):
        return None
    if b.low == 1 and b.high is None and not is_float:  # a count: the form its messages have always had
        return f" must be >= 1, got {short_repr(value)}{note}"
    return f" = {short_repr(value)} must be {_allowed(b, is_float)}{note}"


def _allowed(b: Bounds, is_float: bool) -> str:
    """The values a number may take, e.g. ``in 0..64``, ``in (0, 1]``, ``>= 0`` or ``a number >= 0``."""
    show = "{:g}".format if is_float else "{:,}".format
    least = b.above if b.above is not None else b.low
    if least is None:
        return f"{'a number ' if is_float else ''}<= {show(b.high)}"
    if b.high is None:
        return f"{'a number ' if is_float else ''}{'>' if b.above is not None else '>='} {show(least)}"
    if not is_float and b.above is None:
        return f"in {show(least)}..{show(b.high)}"
    return f"in {'(' if b.above is not None else '['}{show(least)}, {show(b.high)}]"


def declaring_part(cls: type, name: str) -> type:
    """The class among ``cls`` and its bases that declares the field ``name``."""
    return next(k for k in reversed(cls.__mro__) if name in getattr(k, "__dataclass_fields__", {}))


def default_value(f: dataclasses.Field) -> Any:
    """A field's default value (a fresh one for a list or dict)."""
    return f.default_factory() if f.default is dataclasses.MISSING else f.default
