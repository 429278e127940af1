"""The one YAML reader of the project: plain data from a bounded file, with no anchors or aliases.

PyYAML's ``safe_load`` builds no objects, but it expands aliases: a few hundred bytes of nested
anchors (``a: &a [x, x], b: &b [*a, *a], ...``) stand for gigabytes once read. Every YAML file the
project reads (rule sets, training and RLlib configs, deck manifests, a run's saved ``config.yaml``)
goes through ``load_file``, which

- reads at most ``MAX_YAML_BYTES`` (1 MB) and refuses a larger file;
- decodes the bytes as UTF-8 (a byte-order mark is allowed) and refuses anything else;
- refuses anchors (``&name``) and aliases (``*name``), collections nested deeper than
  ``MAX_YAML_DEPTH`` and integers longer than ``MAX_YAML_INT_DIGITS`` characters;
- refuses an empty file (nothing but blanks and comments) unless asked not to.

Every refusal is a ``YamlFileError``, one line naming the file (and the line when known) and what is
allowed. It is a ``yaml.YAMLError`` (code catching those keeps working) and a ``UnoError``.
"""
from __future__ import annotations

import os
from typing import Any

import yaml

from .errors import UnoError

#: Bytes a YAML file may hold (1 MB); the project's own configs and manifests are a few KB.
MAX_YAML_BYTES = 1_000_000
#: Nesting of lists and mappings a YAML file may have (the project's files nest 3 or 4 deep).
MAX_YAML_DEPTH = 32
#: Characters an integer may be written with (a longer one is slow to read and no setting needs it).
MAX_YAML_INT_DIGITS = 40
#: Texts up to this size are parsed again by pure-Python PyYAML to describe an error in its words (it is
#: about ten times slower than libyaml, which reads larger texts and describes their errors itself).
_REPARSE_CHARS = 64 * 1024
#: Characters of PyYAML's own description of a problem that a message keeps.
_PROBLEM_CHARS = 160


class YamlFileError(yaml.YAMLError, UnoError):
    """A YAML file that cannot be read as plain data: too large, not UTF-8, invalid, empty, or with anchors."""


class _Refused(yaml.MarkedYAMLError):
    """Raised inside the loader; ``load_text`` turns it into a ``YamlFileError`` naming the file."""


def _refuse_anchor_or_alias(event) -> None:
    """Refuse an alias event, or any event carrying an anchor (both loaders check every node's event)."""
    if isinstance(event, yaml.AliasEvent):
        raise _Refused(None, None, f"an alias (*{_clip(event.anchor, 40)}) is not allowed; write the value "
                       "out in full", event.start_mark)
    if getattr(event, "anchor", None) is not None:
        raise _Refused(None, None, f"an anchor (&{_clip(event.anchor, 40)}) is not allowed; write each value "
                       "out in full", event.start_mark)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors, aliases, deep nesting and very long integers."""

    _depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        _refuse_anchor_or_alias(event)
        if self._depth >= MAX_YAML_DEPTH:
            raise _Refused(None, None, f"lists and mappings are nested more than {MAX_YAML_DEPTH} deep",
                           event.start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_int(self, node):
        if len(node.value) > MAX_YAML_INT_DIGITS:
            raise _Refused(None, None, f"an integer of {len(node.value):,} characters (at most "
                           f"{MAX_YAML_INT_DIGITS} are allowed)", node.start_mark)
        return yaml.constructor.SafeConstructor.construct_yaml_int(self, node)


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)

if getattr(yaml, "__with_libyaml__", False):
    class _FastLoader(yaml.CSafeLoader):
        """libyaml's safe loader (several times faster), run only on text ``_check_events`` passed."""

        construct_yaml_int = _BoundedLoader.construct_yaml_int

    _FastLoader.add_constructor("tag:yaml.org,2002:int", _FastLoader.construct_yaml_int)
else:  # PyYAML built without libyaml: the pure-Python loader checks as it composes
    _FastLoader = None


def _check_events(text: str) -> None:
    """Refuse anchors, aliases and deep nesting from libyaml's event stream, before anything is composed."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        _refuse_anchor_or_alias(event)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise _Refused(None, None, f"lists and mappings are nested more than {MAX_YAML_DEPTH} deep",
                               event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load_file(path, what: str = "", allow_empty: bool = False) -> Any:
    """The data of the YAML file ``path`` (a path, or an ``importlib.resources`` file with ``open``).

    ``what`` says what the file should hold (e.g. ``"a rule set: a mapping with keys variant,
    num_players, options"``); it ends the message of an empty file. A missing or unreadable file
    raises the ``OSError`` of ``open``; everything else wrong is a ``YamlFileError``.
    """
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else str(path)
    if isinstance(path, (str, os.PathLike)):
        fh = open(path, "rb")
    else:  # a Traversable of importlib.resources
        fh = path.open("rb")
    with fh:
        raw = fh.read(MAX_YAML_BYTES + 1)
    if len(raw) > MAX_YAML_BYTES:
        raise YamlFileError(f"{name} is larger than {MAX_YAML_BYTES:,} bytes, the most a YAML file may hold here")
    return load_bytes(raw, name, what, allow_empty)


def load_bytes(raw: bytes, source: str, what: str = "", allow_empty: bool = False) -> Any:
    """The data of YAML ``raw`` bytes read from ``source`` (named in errors); see ``load_file``."""
    if len(raw) > MAX_YAML_BYTES:
        raise YamlFileError(f"{source} is larger than {MAX_YAML_BYTES:,} bytes, the most a YAML file may hold here")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise YamlFileError(f"{source}: line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                            f"{exc.start:,}); a YAML file must be saved as UTF-8") from None
    return load_text(text, source, what, allow_empty)


def load_text(text: str, source: str, what: str = "", allow_empty: bool = False) -> Any:
    """The data of YAML ``text`` read from ``source`` (named in errors); see ``load_file``."""
    if len(text) > MAX_YAML_BYTES:
        raise YamlFileError(f"{source} is larger than {MAX_YAML_BYTES:,} characters, the most a YAML text may "
                            "hold here")
    loader = None
    try:
        if _FastLoader is not None:
            _check_events(text)
            loader = _FastLoader(text)
        else:
            loader = _BoundedLoader(text)
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        if _FastLoader is not None and not isinstance(exc, _Refused) and len(text) <= _REPARSE_CHARS:
            exc = _python_parse_error(text) or exc  # PyYAML's own words (libyaml's differ) for the same place
        raise YamlFileError(_marked_message(exc, source)) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise YamlFileError(f"{source}: line {line}: the character #x{exc.character:04x} is not allowed in YAML "
                            "(control characters must be written as escapes in a double-quoted string)") from None
    except yaml.YAMLError as exc:
        raise YamlFileError(f"{source}: invalid YAML: {_clip(' '.join(str(exc).split()), _PROBLEM_CHARS)}") from None
    except (ValueError, OverflowError, RecursionError) as exc:  # a value PyYAML's constructors cannot build
        raise YamlFileError(f"{source}: a value cannot be read ({type(exc).__name__}: "
                            f"{_clip(' '.join(str(exc).split()), _PROBLEM_CHARS)})") from None
    finally:
        if loader is not None:
            loader.dispose()
    if data is None and not allow_empty:
        expected = f"; expected {what}" if what else ""
        raise YamlFileError(f"{source} is empty (it holds no YAML value){expected}")
    return data


def _python_parse_error(text: str) -> yaml.MarkedYAMLError | None:
    """The error PyYAML's pure-Python parser finds in ``text`` (it stops there), or None."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:  # the pure-Python scanner slows down on deep nesting: libyaml's words
                    return None
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        return exc
    except (yaml.YAMLError, RecursionError):
        return None
    return None


def _marked_message(exc: yaml.MarkedYAMLError, source: str) -> str:
    mark = exc.problem_mark or exc.context_mark
    problem = ", ".join(_clip(" ".join(p.split()), _PROBLEM_CHARS) for p in (exc.context, exc.problem) if p)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    if isinstance(exc, _Refused):
        return f"{source}: line {mark.line + 1}: {problem}" if mark is not None else f"{source}: {problem}"
    return f"{source}: invalid YAML{where}: {problem or 'not YAML'}"


def _clip(text: str, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."
