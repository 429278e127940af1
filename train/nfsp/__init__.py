"""The built-in NFSP: a DQN best response and a supervised average policy, Neural Fictitious Self-Play (``algo: nfsp``)."""
