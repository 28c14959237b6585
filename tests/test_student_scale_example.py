"""docs/examples/student_scale.py: its figures on a small dataset, checked against what they
mean: a student whose every legal logit is shifted by a constant (its score head's output
bias) keeps its argmax in float64 but shows the larger scale and float32 step."""
import mlx.core as mx
import numpy as np
import pytest

from openlandlord.model import LandlordFormerLite, ModelConfig, save_checkpoint


def test_scale_figures(shengji_random_data, tmp_path, load_example):
    scale = load_example("student_scale")
    mx.random.seed(3)
    config = ModelConfig.for_features("shengji", d_model=16, heads=2, ff=32, layers=1, adapter_rank=2)
    model = LandlordFormerLite(config)
    mx.eval(model.parameters())
    save_checkpoint(str(tmp_path / "plain"), model, config)
    model.score_out.bias = model.score_out.bias + 3.0e5
    mx.eval(model.parameters())
    save_checkpoint(str(tmp_path / "shifted"), model, config)
    plain, shifted = scale.measure(shengji_random_data, [str(tmp_path / "plain"), str(tmp_path / "shifted")],
                                   decisions=60)
    assert plain["decisions"] == shifted["decisions"] > 10
    assert plain["median_abs_logit"] < 100 < 2.9e5 < shifted["median_abs_logit"]
    assert shifted["ulp"] == np.spacing(np.float32(shifted["median_abs_logit"])) >= 0.015
    assert plain["argmax_f64_differs"] <= 0.05
    assert shifted["top_tied"] > plain["top_tied"]
    for row in (plain, shifted):
        on, off, mixed = row["score_units_on"], row["score_units_off"], row["score_units_mixed"]
        assert on + off + mixed == pytest.approx(1.0)
        assert row["native_differs"] is None or 0.0 <= row["native_differs"] <= 1.0
    # the score head's hidden units do not see the output bias
    assert (plain["score_units_on"], plain["score_units_mixed"]) == (shifted["score_units_on"], shifted["score_units_mixed"])
