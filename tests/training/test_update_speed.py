"""The PPO update kept near its matrix products (``train/ppo/network.py``) learns what it learned before.

One gather per epoch cuts the minibatches the per-minibatch indexing did; the fused Adam, the entropy
through ``softmax`` and the views give the same weights as the update before them, up to float
rounding; the options (bf16 autocast, torch.compile) run; ``uno-env bench train`` counts the FLOPs of
each matrix product once. No timing is asserted.
"""
from __future__ import annotations

import types

import numpy as np
import pytest
import torch

from train.config import TrainConfig
from train.ppo import network
from train.ppo.network import build_network, make_optimiser, ppo_update

OBS, ACTIONS, HANDS = 24, 7, 5


def _arrays(n: int, seed: int = 0, extra: int = 0) -> tuple:
    """A batch as ``batch_arrays`` gives it: 0/1 rows (with ``extra`` floats after them), masks, random targets."""
    rng = np.random.default_rng(seed)
    obs = (rng.random((n, OBS + extra)) < 0.3).astype(np.float32)
    mask = (rng.random((n, ACTIONS)) < 0.4).astype(np.int8)
    mask[:, 0] = 1
    action = (rng.random(mask.shape) * mask).argmax(1)
    logp = -np.log(mask.sum(1)).astype(np.float32)
    return (obs, mask, action, logp, rng.standard_normal(n, dtype=np.float32),
            rng.standard_normal(n, dtype=np.float32))


def _cfg(**changes) -> TrainConfig:
    return TrainConfig.from_dict({"algo": "ppo", "n_epochs": 3, "batch_size": 48, "hand_prediction_coef": 0.5,
                                  **changes})


def _update_before(net, optimiser, arrays, cfg, rng, train_actor=True):
    """The update as it was: every tensor indexed per minibatch, the entropy through ``exp``."""
    b_obs, b_mask, b_act, b_logp, b_adv, b_ret = (torch.from_numpy(a) for a in arrays)
    order = np.arange(len(b_act))
    for _ in range(cfg.n_epochs):
        rng.shuffle(order)
        for lo in range(0, len(order), cfg.batch_size):
            mb = torch.from_numpy(order[lo:lo + cfg.batch_size])
            logits, value, hands = net.predict(b_obs[mb], b_mask[mb])
            logp_all = torch.log_softmax(logits, -1)
            ratio = torch.exp(logp_all.gather(1, b_act[mb][:, None]).squeeze(-1) - b_logp[mb])
            adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std(unbiased=False) + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)).mean()
            v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
            entropy = -(logp_all.exp() * logp_all.clamp(min=-1e8)).sum(-1).mean()
            loss = pg_loss + 0.5 * v_loss - cfg.ent_coef * entropy if train_actor else 0.5 * v_loss
            if hands is not None and train_actor:
                held = b_obs[mb][:, net.obs_size:net.obs_size + net.hands_size]
                loss = loss + cfg.hand_prediction_coef * ((hands - held) ** 2).sum(-1).mean()
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimiser.step()


def _twin_networks(hands: bool) -> tuple:
    sizes = {"privileged_size": HANDS, "hands_size": HANDS} if hands else {}
    torch.manual_seed(3)
    net = build_network(OBS, ACTIONS, [16, 16], **sizes)
    twin = build_network(OBS, ACTIONS, [16, 16], **sizes)
    twin.load_state_dict(net.state_dict())
    return net, twin


def test_one_gather_per_epoch_cuts_the_minibatches_the_indexing_did():
    arrays = _arrays(100)
    batch = tuple(torch.from_numpy(a) for a in arrays)
    order = np.random.default_rng(1).permutation(100)
    minibatches = list(network.epoch_minibatches(batch, order, 32))
    assert [len(mb.action) for mb in minibatches] == [32, 32, 32, 4]  # the last one short, as before
    for k, mb in enumerate(minibatches):
        rows = torch.from_numpy(order[32 * k:32 * (k + 1)])
        for got, tensor in zip(mb, batch):
            assert torch.equal(got, tensor[rows])


@pytest.mark.parametrize("hands, train_actor", [(False, True), (True, True), (True, False)])
def test_the_update_learns_what_the_update_before_it_learned(hands, train_actor):
    net, twin = _twin_networks(hands)
    arrays, cfg = _arrays(150, extra=HANDS if hands else 0), _cfg()
    optimiser = make_optimiser(net, cfg.learning_rate)
    plain = torch.optim.Adam(twin.parameters(), lr=cfg.learning_rate, eps=1e-5)  # as the trainer made it before
    rng, rng_before = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(3):
        ppo_update(net, optimiser, arrays, cfg, rng, train_actor=train_actor)
        _update_before(twin, plain, arrays, cfg, rng_before, train_actor=train_actor)
    assert rng.integers(2**62) == rng_before.integers(2**62)  # the minibatch order drew the same numbers
    for (name, got), want in zip(net.state_dict().items(), twin.state_dict().values()):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    if not train_actor:  # the actor held: no gradient reached it, so Adam keeps no state for it either
        assert all(not optimiser.state[p] for p in net.actor.parameters())


def test_vf_coef_weighs_the_value_loss_and_zero_leaves_the_value_head_out():
    net, _ = _twin_networks(False)
    mb = network.Minibatch(*(torch.from_numpy(a) for a in _arrays(64)))
    cfg = _cfg(vf_coef=0.0)
    loss, pg_loss, v_loss, _, entropy = network.ppo_losses(net, mb, cfg, True)
    torch.testing.assert_close(loss, pg_loss - cfg.ent_coef * entropy)
    with torch.no_grad():  # another value head: its loss changes, the loss minimised does not
        for p in net.critic.parameters():
            p.add_(0.5)
    again = network.ppo_losses(net, mb, cfg, True)
    assert not torch.allclose(again[2], v_loss)
    torch.testing.assert_close(again[0], loss)
    critic_only, _, v_loss, _, _ = network.ppo_losses(net, mb, _cfg(vf_coef=3.0), False)  # the actor held
    torch.testing.assert_close(critic_only, 3.0 * v_loss)
    cfg = _cfg()
    default, pg_loss, v_loss, _, entropy = network.ppo_losses(net, mb, cfg, True)  # 0.5: as it always was
    assert cfg.vf_coef == 0.5
    torch.testing.assert_close(default, pg_loss + 0.5 * v_loss - cfg.ent_coef * entropy)


def test_ppo_max_grad_norm_is_the_norm_every_step_clips_to(monkeypatch):
    seen = []
    clip = torch.nn.utils.clip_grad_norm_

    def recording(parameters, max_norm, *args, **kwargs):
        parameters = list(parameters)
        total = clip(parameters, max_norm, *args, **kwargs)
        clipped = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in parameters]))
        seen.append((max_norm, float(total), float(clipped)))
        return total

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", recording)
    net, _ = _twin_networks(False)
    ppo_update(net, make_optimiser(net, 3e-4), _arrays(100), _cfg(n_epochs=2, batch_size=50, ppo_max_grad_norm=0.01),
               np.random.default_rng(0))
    assert [m for m, _, _ in seen] == [0.01] * 4  # 2 epochs of 2 minibatches
    assert all(total > 0.01 and clipped == pytest.approx(0.01, rel=1e-3) for _, total, clipped in seen)


def test_the_optimiser_keeps_its_fused_kernel_when_it_loads_a_plain_adams_state():
    net, twin = _twin_networks(False)
    plain = torch.optim.Adam(twin.parameters(), lr=3e-4, eps=1e-5)
    ppo_update(twin, plain, _arrays(60), _cfg(), np.random.default_rng(0))
    optimiser = make_optimiser(net, 3e-4)
    optimiser.load_state_dict(plain.state_dict())
    assert all(group["fused"] and group["eps"] == 1e-5 for group in optimiser.param_groups)
    assert optimiser.state_dict()["state"].keys() == plain.state_dict()["state"].keys()


def test_the_laps_name_every_part_of_every_minibatch_in_order():
    net, _ = _twin_networks(False)
    seen = []
    losses, entropy = ppo_update(net, make_optimiser(net, 3e-4), _arrays(100), _cfg(n_epochs=2, batch_size=40),
                                 np.random.default_rng(0), laps=seen.append)
    assert seen == list(network.UPDATE_PARTS) * (2 * 3)  # 2 epochs of 3 minibatches (40, 40, 20)
    assert np.isfinite(losses[:2]).all() and losses[2] is None and np.isfinite(entropy)


def test_the_entropy_through_softmax_is_the_entropy_through_exp():
    logits = torch.randn(64, ACTIONS).masked_fill(torch.from_numpy(_arrays(64)[1]) == 0, -1e9)
    logp_all = torch.log_softmax(logits, -1)
    through_exp = -(logp_all.exp() * logp_all.clamp(min=-1e8)).sum(-1)
    through_softmax = -(torch.softmax(logits, -1) * logp_all.clamp(min=-1e8)).sum(-1)
    torch.testing.assert_close(through_softmax, through_exp, rtol=1e-6, atol=1e-6)


def test_bfloat16_autocast_trains():
    net, twin = _twin_networks(True)
    arrays = _arrays(100, extra=HANDS)
    losses, entropy = ppo_update(net, make_optimiser(net, 3e-4), arrays, _cfg(update_bfloat16=True),
                                 np.random.default_rng(0))
    assert np.isfinite([*losses, entropy]).all()
    assert not torch.equal(net.actor[0].weight, twin.actor[0].weight)  # it learned something
    assert net.actor[0].weight.dtype == torch.float32  # the weights stay float32


@pytest.mark.slow  # compiling takes about a minute
def test_the_compiled_loss_is_the_eager_loss():
    net, _ = _twin_networks(True)
    batch = tuple(torch.from_numpy(a) for a in _arrays(64, extra=HANDS))
    mb = network.Minibatch(*batch)
    cfg = _cfg(update_compile=True)
    eager = network.ppo_losses(net, mb, cfg, True)
    compiled = network.compiled_losses()(net, mb, cfg, True)
    for got, want in zip(compiled, eager):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_the_bench_counts_each_matrix_product_once():
    from train.benchmark import learning

    net = build_network(405, 65, [128, 128])  # classic 2p
    weights = (405 * 128 + 128 * 128 + 128 * 65) + (405 * 128 + 128 * 128 + 128 * 1)
    first_layers = 2 * 405 * 128  # read the observation: no input gradient
    assert learning.flops_per_sample(net) == 6 * weights - 2 * first_layers == 662_016


def test_the_bench_update_row_times_every_option_and_part(capsys):
    from train.benchmark import learning

    bench = learning.UpdateBench("classic", 2, [16], minibatch=64, size=256,
                                 options={"fp32": {}, "bf16 autocast": {"update_bfloat16": True},
                                          "broken": {}})
    bench.runs["broken"] = (*bench.runs["broken"][:2], types.SimpleNamespace(), bench.runs["broken"][3])
    bench.warm_up()
    bench.round()
    row = bench.row()
    assert set(row["first_update"]) == {"fp32", "bf16 autocast"} and "AttributeError" in row["failed"]["broken"]
    assert {"matmuls", "fp32", "bf16 autocast", *network.UPDATE_PARTS} == set(row["median"])
    assert row["rounds"] == 1 and row["batch"] == 256 and row["flops"] == learning.flops_per_sample(
        bench.runs["fp32"][0])
    learning.print_update(row, reference_rate=1000.0)
    out = capsys.readouterr().out
    assert "its matrix products alone" in out and f"{row['flops']:,} FLOPs" in out
    assert "fp32:" in out and "4 epochs allow at most" in out and "its parts: gather" in out
    assert "broken: not measured (AttributeError" in out
