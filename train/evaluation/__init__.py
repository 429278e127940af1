"""Evaluating agents: seat-rotated tournaments with ratings (tournament.py) and head-to-head statistics (stats.py)."""
