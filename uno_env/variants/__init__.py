"""The variants: importing this package registers every preset in ``registry.VARIANTS``.

Each variant module registers a ``VariantDef`` under its preset name (``registry.register``). A
variant contributes its deck manifest, its option schema, its effect handlers and its starter
rule; the turn machine (``uno_env.turn``) is shared. A new variant module is imported below, and
every environment picks it up through ``VARIANTS``.
"""
from __future__ import annotations

from .registry import VARIANTS, VariantDef, get_variant, register
from . import classic  # noqa: F401  (registers classic, alphabet, xiangqi)
from . import flex  # noqa: F401
from . import flip  # noqa: F401
from . import attack  # noqa: F401

__all__ = ["VARIANTS", "VariantDef", "get_variant", "register"]
