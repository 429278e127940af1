"""The native PPO: a learner over the shared collector (trainer, network and update, the update process, teacher distillation, checkpoints)."""
