"""Benchmarks: ``uno-env bench`` (throughput.py: games and decisions per second beside RLCard's UNO)."""
