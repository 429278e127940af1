"""Which errors are the user's input, and how the command line says them in one line."""
from __future__ import annotations

import yaml

from agents import AgentSpecError, PolicyFileError
from agents.search import SearchOptionError
from uno_env.errors import RuleError, SpecError
from uno_env.records import RecordError
from uno_env.safe_yaml import YamlFileError

from train.config import ConfigError

# The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: Exit status of bad input (the status argparse uses for a bad flag).
EXIT_ERROR = 2


class UsageError(ValueError):
    """Command-line input that cannot be used (a malformed value, an index out of range, ...)."""


# The errors a user's input causes; the CLI prints them as one line. Everything else is a bug.
# (IllegalActionError / ActionParseError are left out on purpose: from an agent they mean a bug.)
DOMAIN_ERRORS: tuple[type[BaseException], ...] = (
    RuleError, SpecError, RecordError, ConfigError, AgentSpecError, SearchOptionError, PolicyFileError,
    UsageError, OSError, yaml.YAMLError, YamlFileError)


#: Characters of an error message the command line prints at most (a safety net: messages repeat only
#: short prefixes of what the user gave, see ``uno_env.errors.short_repr``).
MAX_MESSAGE_CHARS = 4000


def error_message(exc: BaseException) -> str:
    """The message of a domain error, one line of at most ``MAX_MESSAGE_CHARS`` characters."""
    message = _message(exc)
    return message if len(message) <= MAX_MESSAGE_CHARS else message[:MAX_MESSAGE_CHARS] + "..."


def _message(exc: BaseException) -> str:
    """YAML errors with file, line and column; OS errors with the file."""
    if isinstance(exc, YamlFileError):  # already names the file, the line and what is allowed
        return str(exc)
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        problem = ", ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        return f"{mark.name}: invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"
    if isinstance(exc, yaml.YAMLError):
        return f"invalid YAML: {exc}"
    if isinstance(exc, OSError) and exc.filename is not None:
        reason = exc.strerror or str(exc)
        return f"{reason[:1].lower()}{reason[1:]}: {exc.filename}"
    return str(exc) or type(exc).__name__


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (cut to 300 characters), or its type's name if it has none."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "..."
