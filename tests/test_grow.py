"""A student grown into more encoder layers and a wider feed-forward (`model.grow`, `train
--set init=DIR --set model.layers=L --set model.ff=F`) computes the start's function."""
import json

import mlx.core as mx
import numpy as np
import pytest

from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.model import LandlordFormerLite, ModelConfig, load_checkpoint, native
from openlandlord.model.grow import grow
from openlandlord.model.synthetic import decision, random_batch

from test_native_forward import mlx_outputs


def outputs(model, cfg, rows=6):
    batch = random_batch(cfg, rows, cfg.max_state_tokens, 40, np.random.default_rng(0))
    return [mlx_outputs(model, decision(batch, row)) for row in range(rows)]


def started(game="doudizhu", **switches):
    """A small student with random weights everywhere (adapters' up-projections too)."""
    mx.random.seed(5)
    cfg = ModelConfig.for_features(game, d_model=16, heads=4, ff=24, layers=1, **switches)
    model = LandlordFormerLite(cfg)
    model.update({"state_adapter": {"up": mx.random.normal(model.state_adapter.up.shape) * 0.3},
                  "action_adapter": {"up": mx.random.normal(model.action_adapter.up.shape) * 0.3}})
    mx.eval(model.parameters())
    return cfg, model


@pytest.mark.parametrize("game", ["doudizhu", "shengji"])
@pytest.mark.parametrize("more", [dict(layers=3), dict(ff=40), dict(layers=2, ff=64)],
                         ids=["deeper", "wider", "both"])
def test_the_grown_model_computes_the_starts_function(game, more):
    cfg, start = started(game)
    big_cfg = ModelConfig.from_dict({**cfg.to_dict(), **more})
    mx.random.seed(9)
    big = LandlordFormerLite(big_cfg)
    before = outputs(big, big_cfg)
    grow(start, big)
    want, got = outputs(start, cfg), outputs(big, big_cfg)
    for w, g, b in zip(want, got, before):
        for key in w:
            np.testing.assert_allclose(g[key], w[key], rtol=1e-5, atol=1e-5, err_msg=key)
        assert not np.allclose(b["logits"], w["logits"], atol=1e-3)   # not by chance
    # the new parameters that read their input kept their random start (they can learn)
    layer = big.encoder_layers[-1]
    if "layers" in more:
        assert float(mx.abs(layer.attn.q_proj.weight).sum()) > 0
        assert float(mx.abs(layer.attn.out_proj.weight).sum()) == 0
    if "ff" in more:
        assert float(mx.abs(big.action_layer.ff.up.weight[cfg.ff:]).sum()) > 0


def test_growing_refuses_anything_but_more_layers_or_a_wider_feed_forward():
    cfg, start = started()
    for other in (dict(d_model=32, heads=4), dict(heads=2), dict(layers=2, ff=16)):
        big = LandlordFormerLite(ModelConfig.from_dict({**cfg.to_dict(), **other}))
        with pytest.raises(UserError, match="cannot grow"):
            grow(start, big)


def test_train_grows_its_init_and_records_it(tmp_path):
    """`train --set init=DIR` with more layers and a wider ff: the run starts from DIR's
    function (its first checkpoint after zero steps would be DIR's outputs; here the run's
    metadata says so, and the native forward pass reads the grown student)."""
    data = tmp_path / "data"
    assert main(["generate", "--game", "doudizhu", "--teacher", "rule", "--deals", "6",
                 "--out", str(data), "--workers", "1", "--seed", "3"]) == 0
    small = tmp_path / "small"
    tiny = ["--set", "model.d_model=16", "--set", "model.ff=24", "--set", "model.layers=1",
            "--set", "batch_size=16", "--set", "seed=1"]
    assert main(["train", "--data", str(data), "--out", str(small), "--epochs", "1", *tiny]) == 0
    grown = tmp_path / "grown"
    assert main(["train", "--data", str(data), "--out", str(grown), "--epochs", "1", *tiny,
                 "--set", f"init={small}", "--set", "model.layers=2", "--set", "model.ff=48",
                 "--set", "lr=0", "--set", "min_lr=0", "--set", "weight_decay=0"]) == 0
    meta = json.loads((grown / "config.json").read_text())
    assert meta["init_grown"] == {"ff": [24, 48], "layers": [1, 2]}
    assert meta["init_weights_sha256"] == json.loads((small / "config.json").read_text())["weights_sha256"]
    # lr 0: the grown student is its start's function
    a, cfg_a, _ = load_checkpoint(str(small))
    b, cfg_b, _ = load_checkpoint(str(grown))
    want, got = outputs(a, cfg_a), outputs(b, cfg_b)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g["logits"], w["logits"], rtol=1e-5, atol=1e-5)
    if native.available():
        batch = random_batch(cfg_b, 6, cfg_b.max_state_tokens, 40, np.random.default_rng(0))
        out = native.NativeStudent(str(grown)).forward(decision(batch, 0))
        np.testing.assert_allclose(out["logits"], want[0]["logits"], rtol=1e-5, atol=1e-4)
    shrunk = ["train", "--data", str(data), "--out", str(tmp_path / "shrunk"), "--epochs", "1",
              *tiny[:2], "--set", "model.ff=16", *tiny[4:], "--set", f"init={small}"]
    assert main(shrunk) == 2          # a smaller ff than the start's: refused in one line
