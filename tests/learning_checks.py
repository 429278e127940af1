"""What the value learners' learning tests share (a helper module, not a test module): the games against
``random`` they are scored on, and the check that a sabotaged start learns from the game's own rewards."""
from __future__ import annotations

import agents
from agents.policy_file import PolicyAgent, PolicyFile
from train.evaluation.stats import head_to_head
from uno_env import Game
from uno_env.vector import VectorGames

#: The observer's "holds one card" and "holds two cards" flags, from the start of the history block (its own seat's
#: part comes first; the layout is tabled in uno_env/observation.py): what a sabotaged start keys its draws on.
LAST_CARDS_FLAGS = [9, 10]


def against_random(policy, games: int) -> dict:
    """``policy`` (a policy file or an agent) against ``random`` at classic two-player, on the same deals every time."""
    game = Game("classic", 2)
    agent = PolicyAgent(policy) if isinstance(policy, PolicyFile) else policy
    return head_to_head(game, lambda i: agent, lambda i: agents.load("random", game, seed=10_000 + i), games, seed=777)


def assert_learns_from_rewards(sabotaged, tmp_path, monkeypatch) -> None:
    """``sabotaged(run_dir)`` builds a trainer whose start never wins: it must learn to beat ``random`` from the
    game's rewards, and the same run with every reward negated (a loss pays +1) must not. The control is what
    shows the rewards taught it: fitting values to a constant (every reward 0) also undoes the sabotage, falling
    back to the untrained first-legal-action policy, which beats ``random`` on its own."""
    trainer = sabotaged(str(tmp_path / "real"))
    assert against_random(trainer.export(), 50)["win_rate"] < 0.3  # a learner that learns nothing stays here
    result = against_random(trainer.train(), 200)
    assert result["ci95"][0] > 0.5 and result["win_rate"] >= 0.6, result
    step = VectorGames.step

    def negated(self, actions):
        seat, obs, mask, rewards, terminated, truncated = step(self, actions)
        return seat, obs, mask, -rewards, terminated, truncated

    monkeypatch.setattr(VectorGames, "step", negated)
    control = against_random(sabotaged(str(tmp_path / "negated")).train(), 50)
    assert control["win_rate"] < 0.3, control
