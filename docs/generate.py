"""Regenerate the generated parts of docs/: `python docs/generate.py` (tests check they are current)."""
from __future__ import annotations

import pathlib

from uno_env.observation import layout_markdown
from uno_env.rules import options_markdown

DOCS = pathlib.Path(__file__).parent


def generated() -> dict[str, str]:
    """File name -> expected content."""
    env_head = (DOCS / "environments.md.in").read_text(encoding="utf-8")
    return {"rule-options.md": options_markdown(), "environments.md": env_head + layout_markdown()}


if __name__ == "__main__":
    for name, text in generated().items():
        (DOCS / name).write_text(text, encoding="utf-8")
        print("wrote", DOCS / name)
