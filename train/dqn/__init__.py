"""The built-in DQN: masked double DQN with a dueling head and n-step returns over batched games (``algo: dqn``)."""
