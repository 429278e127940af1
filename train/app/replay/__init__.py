"""Replaying recorded games: ``uno-env replay`` (viewer.py) over the JSON-lines records of ``uno_env.records``."""
