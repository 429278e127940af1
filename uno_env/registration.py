"""Gymnasium ids ``uno_env/<Variant>-v0`` for every preset in the variant registry.

Registering names only an entry point string, so neither the environment module nor anything
heavy is imported until ``gymnasium.make`` is called.
"""
from __future__ import annotations


def env_id(variant: str) -> str:
    """Registered Gymnasium id of a variant preset."""
    return f"uno_env/{variant.capitalize()}-v0"


def register_envs() -> list[str]:
    """Register every preset's id that is not registered yet; returns all ids."""
    from gymnasium.envs.registration import register, registry

    from .variants import VARIANTS

    ids = []
    for name in VARIANTS:
        ident = env_id(name)
        if ident not in registry:
            register(id=ident, entry_point="uno_env.gym_env:UnoEnv", kwargs={"variant": name})
        ids.append(ident)
    return ids
