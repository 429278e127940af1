"""The Stable-Baselines3 path: MaskablePPO over the Gymnasium env, exporting the same policy files."""
