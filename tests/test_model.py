"""The MLX student: size, belief conservation, order invariance, padding, ablations,
losses on hand-computed cases, and the checkpoint round trip."""
import json
import math
import os

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest
from mlx.utils import tree_flatten

from openlandlord.errors import UserError
from openlandlord.model import (LandlordFormerLite, ModelConfig, compositions, load_checkpoint,
                                loss_fn, merge_pools, num_parameters, save_checkpoint,
                                student_loss)
from openlandlord.model.losses import composition_index
from openlandlord.model.synthetic import random_batch

DDZ = ModelConfig.for_game("doudizhu")
SHENGJI = ModelConfig.for_game("shengji")


def build(cfg, seed=0):
    mx.random.seed(seed)
    model = LandlordFormerLite(cfg)
    # Adapters start as exact no-ops (up = 0); give them weight so the tests exercise them.
    if cfg.use_adapters:
        for adapter in (model.state_adapter, model.action_adapter):
            adapter.up = mx.random.normal(adapter.up.shape) * 0.2
    mx.eval(model.parameters())
    return model


def as_mx(batch):
    return {k: mx.array(v) for k, v in batch.items()}


def test_default_doudizhu_student_has_about_139k_parameters():
    n = num_parameters(LandlordFormerLite(DDZ))
    assert 125_000 <= n <= 155_000, n
    # Adapters: 2 sites x 4 roles (3 seats, bidding) x (64x8 down + 8x64 up).
    assert n - num_parameters(LandlordFormerLite(ModelConfig.for_game("doudizhu", use_adapters=False))) == 8192


def test_shengji_default_student_parameter_count_in_range_regression():
    # At ff=128 the Shengji student had 155,404 parameters, above the 125k-155k.
    n = num_parameters(LandlordFormerLite(ModelConfig.for_features("shengji")))
    assert 125_000 <= n <= 155_000, n
    assert ModelConfig.for_game("doudizhu").ff == 128   # Dou Dizhu's preset is unchanged


def test_doudizhu_preset_matches_the_featurizer():
    from openlandlord import features

    dims = features.dims("doudizhu")
    for key in ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots", "belief_holders",
                "belief_max_count"):
        assert getattr(DDZ, key) == dims[key], key
    assert DDZ.max_state_tokens == dims["max_tokens"]


def test_compositions_cover_every_split_once():
    comps = compositions(2, 4)
    assert len(comps) == 15 and len({tuple(c) for c in comps}) == 15
    assert len(compositions(3, 2)) == 10
    assert (compositions(3, 2).sum(axis=1) <= 2).all()


@pytest.mark.parametrize("cfg", [DDZ, SHENGJI], ids=["doudizhu", "shengji"])
def test_belief_expectations_conserve_unseen_and_respect_hands_and_voids(cfg):
    model = build(cfg)
    batch = random_batch(cfg, 16, 12, 5, np.random.default_rng(1))
    out = model(as_mx(batch))
    expect = np.array(out["belief_expect"])
    assert np.abs(expect.sum(axis=-1) - batch["unseen"]).max() <= 1e-5
    assert expect.min() >= -1e-5
    # No hand expected to hold more of a slot than it has cards, nor any card where void.
    assert (expect <= batch["capacity"][:, None, :] + 1e-5).all()
    void = batch["void"].transpose(0, 2, 1) > 0
    assert np.abs(expect[void]).max(initial=0.0) <= 1e-5
    # The true composition is always allowed, so its log-probability is finite.
    total, parts = student_loss(out, as_mx(batch), cfg)
    assert np.isfinite(float(parts["belief"])) and float(parts["belief"]) < 50


def test_belief_head_forced_by_cards_left():
    # Next opponent has 0 cards left: it holds none of anything, the other seat holds all.
    model = build(DDZ)
    batch = random_batch(DDZ, 1, 8, 3, np.random.default_rng(2))
    batch["unseen"][:] = 3
    batch["capacity"][:] = [[0, 45]]
    batch["void"][:] = 0.0
    out = model(as_mx(batch))
    np.testing.assert_allclose(np.array(out["belief_expect"])[0], [[0, 3]] * 15, atol=1e-6)
    # With one card left it holds at most one of each rank.
    batch["capacity"][:] = [[1, 45]]
    expect = np.array(model(as_mx(batch))["belief_expect"])[0]
    assert (expect[:, 0] <= 1 + 1e-6).all() and (expect[:, 0] > 0).all()


def test_allowed_compositions_doudizhu_count():
    head = build(DDZ).belief
    unseen = np.array([[u for u in range(5) for _ in range(3)]], dtype=np.int32)
    caps = [(0, 17), (2, 17), (17, 1)]
    for cap in caps:
        allowed = np.array(head.allowed(mx.array(unseen), mx.array([cap], dtype=mx.int32),
                                        mx.zeros((1, 2, 15))))[0]
        for r, u in enumerate(unseen[0]):
            expected = min(u, cap[0]) - max(0, u - cap[1]) + 1
            assert allowed[r].sum() == expected, (u, cap)


def test_scores_do_not_depend_on_the_order_of_the_legal_list():
    model = build(DDZ)
    rng = np.random.default_rng(3)
    batch = random_batch(DDZ, 1, 20, 12, rng, padded=False)
    base = np.array(model(as_mx(batch))["logits"])[0]
    for _ in range(3):
        perm = rng.permutation(12)
        shuffled = dict(batch, actions=batch["actions"][:, perm], action_mask=batch["action_mask"][:, perm],
                        target_policy=batch["target_policy"][:, perm])
        np.testing.assert_allclose(np.array(model(as_mx(shuffled))["logits"])[0], base[perm], atol=1e-5)


def test_padded_batch_equals_per_sample_results():
    model = build(DDZ)
    batch = random_batch(DDZ, 6, 24, 16, np.random.default_rng(4))
    out = model(as_mx(batch))
    for b in range(6):
        t, a = int(batch["state_mask"][b].sum()), int(batch["action_mask"][b].sum())
        alone = {k: v[b:b + 1] for k, v in batch.items()}
        alone.update(state_tokens=alone["state_tokens"][:, :t], state_mask=alone["state_mask"][:, :t],
                     actions=alone["actions"][:, :a], action_mask=alone["action_mask"][:, :a])
        single = model(as_mx(alone))
        np.testing.assert_allclose(np.array(single["logits"])[0], np.array(out["logits"])[b, :a], atol=1e-5)
        assert (np.array(out["logits"])[b, a:] == -1e4).all()
        for key in ("value", "belief_expect", "belief_logits"):
            np.testing.assert_allclose(np.array(single[key])[0], np.array(out[key])[b], atol=1e-5)


def test_chunked_pieces_equal_the_whole():
    model = build(DDZ)
    batch = as_mx(random_batch(DDZ, 2, 16, 20, np.random.default_rng(5)))
    whole = np.array(model(batch)["logits"])
    memory, memory_mask, _, _ = model.encode_state(batch["state_tokens"], batch["state_mask"], batch["role"],
                                                   batch["unseen"], batch["capacity"], batch["void"])
    chunks = [slice(0, 8), slice(8, 16), slice(16, 20)]
    embedded = [model.embed_actions(memory, memory_mask, batch["actions"][:, c], batch["role"]) for c in chunks]
    pooled = model.pool(embedded[0], batch["action_mask"][:, chunks[0]])
    for e, c in zip(embedded[1:], chunks[1:]):
        pooled = merge_pools(pooled, model.pool(e, batch["action_mask"][:, c]))
    parts = [np.array(model.score(e, pooled, batch["role"], batch["action_mask"][:, c])) for e, c in zip(embedded, chunks)]
    np.testing.assert_allclose(np.concatenate(parts, axis=1), whole, atol=1e-5)


ABLATIONS = [dict(belief_mode="off"), dict(belief_mode="full"), dict(belief_stop_grad=False),
             dict(value_target="winloss"), dict(value_scale=12.0), dict(use_adapters=False),
             dict(use_deep_sets=False), dict(use_adapters=False, use_deep_sets=False, belief_mode="off")]


@pytest.mark.parametrize("switches", ABLATIONS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
def test_every_ablation_trains(switches):
    cfg = ModelConfig.for_game("doudizhu", **switches)
    model = build(cfg)
    batch = as_mx(random_batch(cfg, 4, 10, 7, np.random.default_rng(6)))
    (total, parts), grads = nn.value_and_grad(model, loss_fn)(model, batch)
    assert np.isfinite(float(total))
    assert all(np.isfinite(np.array(g)).all() for _, g in tree_flatten(grads))
    assert ("belief_expect" in model(batch)) == (cfg.belief_mode != "off")


@pytest.mark.parametrize("stop_grad", [True, False])
def test_policy_reaches_belief_head_only_without_stop_gradient(stop_grad):
    cfg = ModelConfig.for_game("doudizhu", belief_stop_grad=stop_grad, value_weight=0.0, belief_weight=0.0)
    model = build(cfg)
    batch = as_mx(random_batch(cfg, 4, 10, 7, np.random.default_rng(7)))
    (_, _), grads = nn.value_and_grad(model, loss_fn)(model, batch)
    belief_grad = max(float(mx.abs(g).max()) for _, g in tree_flatten(grads["belief"]))
    assert (belief_grad == 0.0) == stop_grad


def test_losses_on_a_hand_computed_case():
    cfg = ModelConfig.for_game("doudizhu", policy_weight=1.0, value_weight=2.0, belief_weight=3.0)
    R, K = cfg.belief_slots, len(compositions(2, 4))
    belief_logits = np.full((1, R, K), -1e4, dtype=np.float32)
    belief_logits[0, 1:, 0] = 0.0                         # other slots: only (0, 0), probability 1
    belief_logits[0, 0, [4, 7]] = [0.0, math.log(3.0)]    # slot 0: (0, 4) w.p. 1/4, (1, 2) w.p. 3/4
    outputs = {"logits": mx.array([[0.0, math.log(2.0), -1e4]]), "value": mx.array([0.5]),
               "belief_logits": mx.array(belief_logits)}
    truth = np.zeros((1, R, 2), dtype=np.int32)
    truth[0, 0] = [1, 2]                                  # composition row 7
    batch = {"target_policy": mx.array([[0.5, 0.5, 0.0]]), "action_mask": mx.array([[1.0, 1.0, 0.0]]),
             "score": mx.array([48.0]), "belief_target": mx.array(truth)}
    total, parts = student_loss(outputs, batch, cfg)
    policy = math.log(3.0) - 0.5 * math.log(2.0)
    value = (0.5 - 1.0) ** 2                              # clip(48 / 24) = 1
    belief = -math.log(0.75) / R
    assert float(parts["policy"]) == pytest.approx(policy, abs=1e-5)
    assert float(parts["value"]) == pytest.approx(value, abs=1e-6)
    assert float(parts["belief"]) == pytest.approx(belief, abs=1e-5)
    assert float(total) == pytest.approx(policy + 2 * value + 3 * belief, abs=1e-5)
    # A sample without a belief target (belief_mask 0) is left out of the belief average.
    _, parts = student_loss({k: mx.concatenate([v, v]) for k, v in outputs.items()},
                            {**{k: mx.concatenate([v, v]) for k, v in batch.items()},
                             "belief_target": mx.array(np.concatenate([truth, truth + 1])),
                             "belief_mask": mx.array([1.0, 0.0])}, cfg)
    assert float(parts["belief"]) == pytest.approx(belief, abs=1e-5)
    winloss = ModelConfig.for_game("doudizhu", value_target="winloss")
    _, parts = student_loss(outputs, dict(batch, score=mx.array([2.0])), winloss)
    assert float(parts["value"]) == pytest.approx(0.25, abs=1e-6)


def test_composition_index_inverts_compositions():
    comps = compositions(2, 4)
    idx = np.array(composition_index(mx.array(comps[None]), DDZ))[0]
    assert (idx == np.arange(len(comps))).all()


def test_checkpoint_round_trip(tmp_path):
    model = build(DDZ, seed=3)
    batch = as_mx(random_batch(DDZ, 3, 9, 6, np.random.default_rng(8)))
    save_checkpoint(str(tmp_path), model, DDZ, {"dataset_manifest": "abc123"})
    loaded, cfg, meta = load_checkpoint(str(tmp_path))
    assert cfg == DDZ
    assert meta["num_parameters"] == num_parameters(model) and meta["game"] == "doudizhu"
    assert meta["dataset_manifest"] == "abc123" and meta["git_sha"]
    for key, value in model(batch).items():
        np.testing.assert_array_equal(np.array(loaded(batch)[key]), np.array(value))


def test_checkpoint_errors_name_the_problem(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        load_checkpoint(str(tmp_path / "nowhere"))
    model = build(DDZ)
    with pytest.raises(UserError, match="reserved"):
        save_checkpoint(str(tmp_path / "a"), model, DDZ, {"git_sha": "x"})
    save_checkpoint(str(tmp_path / "b"), model, DDZ)
    meta_path = tmp_path / "b" / "config.json"
    meta = json.loads(meta_path.read_text())
    meta["config"]["d_model"] = 32
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(UserError, match="shape"):
        load_checkpoint(str(tmp_path / "b"))
    meta["config"]["d_model"] = 64
    meta["config"]["use_adapters"] = False
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(UserError, match="unexpected .*adapter"):
        load_checkpoint(str(tmp_path / "b"))
    meta["config"]["colour"] = "red"
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(UserError, match="colour"):
        load_checkpoint(str(tmp_path / "b"))
    os.remove(tmp_path / "b" / "weights.safetensors")
    with pytest.raises(UserError, match="weights.safetensors"):
        load_checkpoint(str(tmp_path / "b"))


def test_bad_config_is_a_user_error():
    with pytest.raises(UserError, match="belief_mode"):
        ModelConfig.for_game("doudizhu", belief_mode="sometimes")
    with pytest.raises(UserError, match="divisible"):
        ModelConfig.for_game("doudizhu", heads=5)
    with pytest.raises(UserError, match="unknown game"):
        ModelConfig.for_game("chess")


@pytest.mark.parametrize("game", ["doudizhu", "shengji"])
def test_for_features_sizes_the_student_from_the_featurizer(game):
    """ModelConfig.for_features: the one place a ModelConfig is sized from features.dims;
    the preset gives the rest, overrides any field but the sizes."""
    from openlandlord import features

    dims = features.dims(game)
    cfg = ModelConfig.for_features(game, d_model=32, belief_mode="off")
    for key in ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots", "belief_holders",
                "belief_max_count"):
        assert getattr(cfg, key) == dims[key], key
    assert cfg.max_state_tokens == dims["max_tokens"] and cfg.feature_version == str(dims["feature_version"])
    assert (cfg.d_model, cfg.belief_mode, cfg.game) == (32, "off", game)
    assert cfg.ff == ModelConfig.for_game(game).ff and len(cfg.role_names) == cfg.num_roles
    with pytest.raises(UserError, match="action_feat_dim"):
        ModelConfig.for_features(game, action_feat_dim=7)
