"""RLlib's PPO over the multi-agent env, on a Ray cluster (``uno-env rllib``)."""
