"""docs/examples/coreml_agreement.py: a student whose Deep Sets term lies past fp16's range
(as the shipped classic student's does) exported at fp16 and fp32, played on a small dataset's
decisions under coremltools' MIL evaluation: every logit finite, the student's own moves."""
import mlx.core as mx

from openlandlord.export.coreml import convert
from openlandlord.model import LandlordFormerLite, ModelConfig, save_checkpoint


def test_agreement_of_a_drifted_student(shengji_random_data, tmp_path, load_example):
    agreement = load_example("coreml_agreement")
    mx.random.seed(5)
    config = ModelConfig.for_features("shengji", d_model=16, heads=2, ff=32, layers=1, adapter_rank=2)
    model = LandlordFormerLite(config)
    # A common score past fp16's range (the Deep Sets term at 1e4 through score_out's weights of
    # 5 and more), and moves that differ by more than float32 keeps of it.
    model.set_rho.bias = mx.full(model.set_rho.bias.shape, 1e4)
    model.score_out.weight = 10 * (mx.abs(model.score_out.weight) + 0.5)
    model.action_in.weight = 5 * model.action_in.weight
    mx.eval(model.parameters())
    save_checkpoint(str(tmp_path / "ckpt"), model, config)
    packages = [convert(str(tmp_path / "ckpt"), str(tmp_path / f"{p}.mlpackage"), precision=p, slots=16)
                for p in ("fp16", "fp32")]
    fp16, fp32 = agreement.measure(shengji_random_data, str(tmp_path / "ckpt"), packages, decisions=30)
    assert fp16["decisions"] == fp32["decisions"] == 30
    assert fp16["precision"] == "fp16" and fp16["fp32_parts"] == "Deep Sets pooling, score head"
    # the trainer's plain sum lies past fp16's largest number; the centred logits the players
    # and the packages compute leave out the part common to the moves
    assert fp16["plain_median_abs_logit"] == fp32["plain_median_abs_logit"] > 65504
    assert fp16["median_abs_logit"] == fp32["median_abs_logit"] < 1000
    assert fp16["finite"] == fp32["finite"] == 1.0
    for row in (fp16, fp32):
        assert row["agrees_f64"] >= 0.9 and row["agrees_mlx"] >= 0.9 and row["gap_error"] < 0.1
        assert row["agrees_native"] is None or row["agrees_native"] >= 0.9
