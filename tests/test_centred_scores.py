"""The players' centred logits (`LandlordFormerLite.score`'s default, the native engine, the
torch mirror the exports trace): the trainer's plain logits less a constant common to the
decision's moves, so the same softmax and argmax, computed without the common part.

Regression: the shipped classic student's Deep Sets term drifted until its plain logits reached
about 2e5, where float32 steps by 0.016; its float32 argmax then left the float64 one in 5% of
its decisions and its two engines (native, MLX) chose apart in 4% (docs/training.md, "The scale
of the scores"). A student drifted the same way here (a large set_rho bias, through positive
score_out weights) keeps the float64 moves in every engine once centred."""
import mlx.core as mx
import numpy as np
import pytest
import torch

from openlandlord.model import LandlordFormerLite, ModelConfig, native, save_checkpoint
from openlandlord.model.synthetic import decision, random_batch


def drifted(seed: int, common: float) -> tuple[LandlordFormerLite, ModelConfig]:
    cfg = ModelConfig.for_game("doudizhu", d_model=16, ff=32, heads=2, layers=1)
    mx.random.seed(seed)
    model = LandlordFormerLite(cfg)
    model.set_rho.bias = mx.full(model.set_rho.bias.shape, common)
    model.score_out.weight = mx.abs(model.score_out.weight) + 0.5
    model.score_out.bias = mx.full(model.score_out.bias.shape, 3.0)
    mx.eval(model.parameters())
    model.eval()
    return model, cfg


def logits(model, batch, centred, dtype=mx.float32):
    if dtype != mx.float32:
        batch = {k: v.astype(dtype) if v.dtype == mx.float32 else v for k, v in batch.items()}
    return np.array(model(batch, centred=centred)["logits"]).astype(np.float64)


def test_centred_logits_are_the_plain_ones_less_a_constant_per_decision():
    model, cfg = drifted(0, 0.3)  # a small summary: both forms exact in float32
    batch = {k: mx.array(v) for k, v in random_batch(cfg, 6, 9, 13, np.random.default_rng(1)).items()}
    mask = np.array(batch["action_mask"]) > 0
    plain, centred = logits(model, batch, False), logits(model, batch, True)
    for b in range(plain.shape[0]):
        shift = plain[b, mask[b]] - centred[b, mask[b]]
        np.testing.assert_allclose(shift, shift.mean(), atol=2e-5)
    np.testing.assert_array_equal(centred[~mask], plain[~mask])  # padding stays -MASK_VALUE


def test_drifted_student_keeps_its_float64_moves_when_centred_regression(tmp_path):
    model, cfg = drifted(2, 1e5)
    wide, _ = drifted(2, 1e5)
    wide.set_dtype(mx.float64)
    drawn = random_batch(cfg, 64, 9, 24, np.random.default_rng(3))
    batch = {k: mx.array(v) for k, v in drawn.items()}
    mask = np.array(batch["action_mask"]) > 0
    plain, truth = logits(model, batch, False), logits(wide, batch, False, mx.float64)
    centred = logits(model, batch, True)
    assert np.median(np.abs(plain[mask])) > 1e5  # drifted as the shipped classic student
    assert np.median(np.abs(centred[mask])) < 100

    def moves(x):
        return [int(np.argmax(np.where(mask[b], x[b], -np.inf))) for b in range(x.shape[0])]

    assert moves(plain) != moves(truth)  # the plain float32 sum loses moves ...
    assert moves(centred) == moves(truth)  # ... the centred one keeps every one
    gaps = [(c - c.max()) - (t - t.max()) for c, t in
            ((centred[b, mask[b]], truth[b, mask[b]]) for b in range(centred.shape[0]))]
    assert max(np.abs(g).max() for g in gaps) < 1e-3

    # the torch mirror (what the exports trace) and the native engine compute the same
    from export.torch_mirror import load_torch_student
    save_checkpoint(str(tmp_path / "ckpt"), model, cfg)
    mirror = load_torch_student(str(tmp_path / "ckpt"))
    with torch.no_grad():
        theirs = mirror({k: torch.from_numpy(np.array(v)) for k, v in batch.items()})["logits"].numpy()
    np.testing.assert_allclose(theirs[mask], centred[mask], rtol=1e-5, atol=1e-3)
    if native.available():
        engine = native.NativeStudent(str(tmp_path / "ckpt"))
        outs = engine.forward_batch([decision(drawn, b) for b in range(64)])
        assert moves(np.stack([np.pad(o["logits"], (0, 24 - len(o["logits"])), constant_values=-1e9)
                               for o in outs])) == moves(truth)
        for b, out in enumerate(outs):
            np.testing.assert_allclose(out["logits"], centred[b, mask[b]], rtol=1e-5, atol=1e-3)


def test_training_on_centred_scores_fits_the_same_loss():
    # `--set centred_scores=true`: the loss on the players' centred scores equals the plain
    # one where float32 resolves both (the softmax ignores the common part), and stays finite
    # and resolved on a drifted student where the plain sum's policy term is rounded.
    from openlandlord.model.losses import loss_fn, make_loss_fn

    model, cfg = drifted(4, 0.3)
    batch = {k: mx.array(v) for k, v in random_batch(cfg, 8, 9, 13, np.random.default_rng(5)).items()}
    centred_fn = make_loss_fn(centred=True)
    plain, plain_parts = loss_fn(model, batch)
    total, parts = centred_fn(model, batch)
    assert centred_fn.part_names == loss_fn.part_names
    assert set(parts) == set(plain_parts)
    for name in parts:
        assert float(parts[name]) == pytest.approx(float(plain_parts[name]), rel=1e-4, abs=1e-5), name
    assert float(total) == pytest.approx(float(plain), rel=1e-4)
    model, cfg = drifted(4, 1e6)
    wide, _ = drifted(4, 1e6)
    wide.set_dtype(mx.float64)
    as64 = {k: v.astype(mx.float64) if v.dtype == mx.float32 else v for k, v in batch.items()}
    truth = float(loss_fn(wide, as64)[1]["policy"])  # the policy part in float64
    centred_error = abs(float(centred_fn(model, batch)[1]["policy"]) - truth)
    assert centred_error < 1e-3
    assert abs(float(loss_fn(model, batch)[1]["policy"]) - truth) > centred_error
