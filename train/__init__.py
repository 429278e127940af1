"""Training, evaluation, human play and benchmarks over ``uno_env`` (the ``uno-env`` CLI)."""
