"""Benchmark your own algorithm: a small policy-gradient learner as a trainer plug-in (docs/plug-ins.md).

``algo: pg_plugin:train`` in a training config (with ``examples/`` on ``PYTHONPATH``) runs it in
``uno-env train`` and in the sample-budget protocol, ``uno-env benchmark --train``.
REINFORCE with a linear softmax policy over the run's batched games (``run.games``, ``VectorGames`` that
count the learner's decisions): the learner holds seat 0 of every game,
opponents are drawn from the league per game (``self`` plays the current policy).
"""
import numpy as np
import torch

from agents.policy_file import policy_file_from_weights


def train(run):
    """Learn for ``run.budget`` learner decisions; report after every pass of the loop; return the policy."""
    s = {"games": 64, "lr": 0.03, "batch": 512, **run.settings}  # the config's settings: mapping (defaults here)
    torch.manual_seed(run.seed)  # everything random comes from the run's seed: the same seed, the same policy
    rng = run.generator()
    # the run's games count the learner's decisions (seat 0 of each) against the budget as they are stepped
    games = run.games(s["games"], learner_seats=0)
    layer = torch.nn.Linear(games.observation_size, games.num_actions)
    optimiser = torch.optim.Adam(layer.parameters(), lr=s["lr"])
    specs, weights = list(run.league), np.array(list(run.league.values()), dtype=float)
    pool = {k: None if k == "self" else run.opponent(k, games.game, run.seed) for k in specs}
    opponent = [pool[k] for k in rng.choice(specs, size=games.num_games, p=weights / weights.sum())]
    export = lambda: policy_file_from_weights(  # noqa: E731 (the hook calls it only when a point is due)
        [layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()], games.game, decisions)
    seat, obs, mask = games.reset(seed=run.seed)
    decisions, episode, finished = 0, [[] for _ in range(games.num_games)], []
    while decisions < run.budget:
        with torch.no_grad():
            logits = layer(torch.from_numpy(obs)).masked_fill(torch.from_numpy(mask == 0), -1e9)
            actions = torch.distributions.Categorical(logits=logits).sample().numpy()
        for i in range(games.num_games):
            if seat[i] == 0:  # the learner's decisions: kept to learn from, counted against the budget
                episode[i].append((obs[i].copy(), mask[i].copy(), actions[i]))
            elif opponent[i] is not None:  # (None: "self", the current policy plays that seat too)
                actions[i] = (opponent[i].act_state(games.states[i]) if getattr(opponent[i], "reads_state", False)
                              else opponent[i].act(obs[i], mask[i]))  # search agents (ismcts) read the game state
        decisions += int((seat == 0).sum())
        seat, obs, mask, rewards, terminated, truncated = games.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            result = float(rewards[i, 0]) if terminated[i] else -1.0  # a game cut at the step cap is lost
            finished += [(o, m, a, result) for o, m, a in episode[i]]
            episode[i] = []
            opponent[i] = pool[rng.choice(specs, p=weights / weights.sum())]
        if len(finished) >= s["batch"]:  # one REINFORCE step per batch of finished decisions
            o, m, a, g = (torch.from_numpy(np.array(x)) for x in zip(*finished))
            logits = layer(o).masked_fill(m == 0, -1e9)
            advantage = g.float() - g.float().mean()  # the batch's mean result as the baseline
            loss = -(torch.distributions.Categorical(logits=logits).log_prob(a) * advantage).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            finished = []
        # after every pass, updated or not: the first report at a point is then the policy a run with that
        # budget ends with (its loop stops right here)
        run.report(decisions, export)
    run.report(decisions, export)
    return export()
