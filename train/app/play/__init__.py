"""Playing and watching games: ``uno-env play`` (terminal.py: you against agents) and ``uno-env demo`` (demo.py)."""
