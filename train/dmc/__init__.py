"""The built-in Deep Monte-Carlo (``algo: dmc``), as in DouZero: Q(s, a) regressed on game results, played by actors."""
