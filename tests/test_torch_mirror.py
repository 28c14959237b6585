"""The torch mirror loads the MLX checkpoint directly and computes the same numbers."""
import json

import mlx.core as mx
import numpy as np
import pytest
import torch

from openlandlord.export.torch_mirror import load_torch_student
from openlandlord.errors import UserError
from openlandlord.model import LandlordFormerLite, ModelConfig, save_checkpoint
from openlandlord.model.synthetic import random_batch


def checkpoint(tmp_path, cfg, seed=0):
    mx.random.seed(seed)
    model = LandlordFormerLite(cfg)
    # Adapters start as exact no-ops (up = 0); give them weight so the mirror must match them.
    if cfg.use_adapters:
        for adapter in (model.state_adapter, model.action_adapter):
            adapter.up = mx.random.normal(adapter.up.shape) * 0.2
    save_checkpoint(str(tmp_path), model, cfg)
    return model


def max_difference(model, mirror, batch):
    ours = model({k: mx.array(v) for k, v in batch.items()})
    with torch.no_grad():
        theirs = mirror({k: torch.from_numpy(v) for k, v in batch.items()})
    assert set(ours) == set(theirs)
    return max(float(np.abs(np.array(ours[k]) - theirs[k].numpy()).max()) for k in ours)


SHAPES = [(1, 1, 1), (1, 40, 3), (3, 7, 64), (5, 24, 130), (16, 33, 9)]


@pytest.mark.parametrize("game", ["doudizhu", "shengji"])
def test_mirror_matches_mlx_on_many_shapes(tmp_path, game):
    cfg = ModelConfig.for_game(game)
    model = checkpoint(tmp_path, cfg)
    mirror = load_torch_student(str(tmp_path))
    rng = np.random.default_rng(0)
    for batch_size, tokens, actions in SHAPES:
        batch = random_batch(cfg, batch_size, tokens, actions, rng)
        assert max_difference(model, mirror, batch) <= 1e-5, (batch_size, tokens, actions)


@pytest.mark.parametrize("switches", [dict(belief_mode="off"), dict(belief_mode="full"),
                                      dict(use_adapters=False), dict(use_deep_sets=False)],
                         ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
def test_mirror_matches_mlx_under_ablations(tmp_path, switches):
    cfg = ModelConfig.for_game("doudizhu", **switches)
    model = checkpoint(tmp_path, cfg, seed=1)
    mirror = load_torch_student(str(tmp_path))
    batch = random_batch(cfg, 4, 20, 30, np.random.default_rng(1))
    assert max_difference(model, mirror, batch) <= 1e-5


def test_mirror_carries_the_checkpoint_metadata(tmp_path):
    checkpoint(tmp_path, ModelConfig.for_game("doudizhu"))
    mirror = load_torch_student(str(tmp_path))
    assert mirror.meta["game"] == "doudizhu" and mirror.config.belief_slots == 15
    assert sum(p.numel() for p in mirror.parameters()) == mirror.meta["num_parameters"]


def test_mirror_rejects_a_mismatched_checkpoint(tmp_path):
    checkpoint(tmp_path, ModelConfig.for_game("doudizhu"))
    meta = json.loads((tmp_path / "config.json").read_text())
    meta["config"]["ff"] = 96
    (tmp_path / "config.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match="ff.up.weight has shape"):
        load_torch_student(str(tmp_path))
    (tmp_path / "weights.safetensors").write_bytes(b"not a safetensors file")
    meta["config"]["ff"] = 128
    (tmp_path / "config.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match="cannot read"):
        load_torch_student(str(tmp_path))


def test_mirror_matches_mlx_on_played_doudizhu_states(tmp_path):
    from openlandlord import features
    from openlandlord.model.synthetic import played_samples

    cfg, samples = played_samples(deals=1, seed=5)
    model = checkpoint(tmp_path, cfg, seed=2)
    mirror = load_torch_student(str(tmp_path))
    for start in (0, len(samples) // 2):  # bidding and early play; late play
        batch = features.collate(samples[start:start + 24])
        assert max_difference(model, mirror, batch) <= 1e-5
        # Real states too: the expectations add up to the unseen counts and fit the hands.
        expect = np.array(model({k: mx.array(v) for k, v in batch.items()})["belief_expect"])
        assert np.abs(expect.sum(axis=-1) - batch["unseen"]).max() <= 1e-5
        assert (expect <= batch["capacity"][:, None, :] + 1e-5).all()
