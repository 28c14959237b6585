"""Core ML export: chunked scoring equals the unchunked model, and the converted package
has the documented functions, shapes and metadata and computes the torch mirror's numbers
under coremltools' own MIL evaluation (Core ML itself cannot predict on Linux)."""
import argparse

import mlx.core as mx
import numpy as np
import pytest
import torch

from openlandlord.export.coreml import convert, describe, evaluate_mil, function_signatures, load_program, run, verify
from openlandlord.export.torch_mirror import load_torch_student
from openlandlord.errors import UserError
from openlandlord.model import LandlordFormerLite, ModelConfig, save_checkpoint
from openlandlord.model.chunked import score_in_chunks
from openlandlord.model.synthetic import decision, random_batch

SLOTS, TOKENS = 8, 20


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    directory = tmp_path_factory.mktemp("student")
    cfg = ModelConfig.for_game("doudizhu", max_state_tokens=TOKENS, feature_version="test-1")
    mx.random.seed(0)
    model = LandlordFormerLite(cfg)
    # Adapters start as exact no-ops (up = 0); give them weight so the export must carry them.
    for adapter in (model.state_adapter, model.action_adapter):
        adapter.up = mx.random.normal(adapter.up.shape) * 0.2
    save_checkpoint(str(directory), model, cfg)
    return str(directory)


def unchunked(mirror, sample, centred=True):
    with torch.no_grad():
        out = mirror({k: torch.from_numpy(v) for k, v in sample.items()}, centred)
    return {k: v[0].numpy() for k, v in out.items()}


def torch_functions(mirror, slots, tokens):
    """`call` for score_in_chunks running the traced wrappers in torch, at fixed shapes."""
    signatures = function_signatures(mirror.config, slots, tokens)

    def call(name, inputs):
        wrapper, spec, outputs = signatures[name]
        for input_name, shape, _ in spec:
            assert inputs[input_name].shape == shape, (name, input_name)
        with torch.no_grad():
            result = wrapper(mirror)(*(torch.from_numpy(np.ascontiguousarray(inputs[n])) for n, _, _ in spec))
        result = result if isinstance(result, tuple) else (result,)
        return {n: r.numpy() for n, r in zip(outputs, result)}
    return call


def sample(cfg, tokens, actions, seed):
    return random_batch(cfg, 1, tokens, actions, np.random.default_rng(seed), padded=False)


@pytest.mark.parametrize("actions", [1, 7, 8, 9, 17, 50])
def test_chunked_scoring_equals_the_unchunked_model(checkpoint, actions):
    mirror = load_torch_student(checkpoint)
    state = sample(mirror.config, 13, actions, actions)
    got = score_in_chunks(torch_functions(mirror, SLOTS, TOKENS), decision(state), SLOTS, TOKENS)
    want = unchunked(mirror, state)
    assert got["logits"].shape == (actions,)
    np.testing.assert_allclose(got["logits"], want["logits"], atol=1e-5)
    np.testing.assert_allclose(got["value"], want["value"], atol=1e-5)
    np.testing.assert_allclose(got["belief_expect"], want["belief_expect"], atol=1e-5)


@pytest.mark.parametrize("switches", [dict(belief_mode="off"), dict(use_deep_sets=False, use_adapters=False)],
                         ids=["belief_off", "no_deep_sets_no_adapters"])
def test_chunked_scoring_under_ablations(tmp_path, switches):
    cfg = ModelConfig.for_game("doudizhu", **switches)
    mx.random.seed(0)
    save_checkpoint(str(tmp_path), LandlordFormerLite(cfg), cfg)
    mirror = load_torch_student(str(tmp_path))
    state = sample(cfg, 10, 21, 3)
    got = score_in_chunks(torch_functions(mirror, SLOTS, TOKENS), decision(state), SLOTS, TOKENS)
    np.testing.assert_allclose(got["logits"], unchunked(mirror, state)["logits"], atol=1e-5)
    assert ("belief_expect" in got) == (cfg.belief_mode != "off")


def test_played_state_with_many_legal_moves_is_scored_in_full(tmp_path):
    from openlandlord import features
    from openlandlord.model.synthetic import played_samples

    cfg, samples = played_samples(deals=3, seed=1)
    mx.random.seed(0)
    save_checkpoint(str(tmp_path), LandlordFormerLite(cfg), cfg)
    mirror = load_torch_student(str(tmp_path))
    widest = max(samples, key=lambda s: len(s["actions"]))
    assert len(widest["actions"]) > 2 * 16
    got = score_in_chunks(torch_functions(mirror, 16, cfg.max_state_tokens), widest, 16, cfg.max_state_tokens)
    np.testing.assert_allclose(got["logits"], unchunked(mirror, features.collate([widest]))["logits"], atol=1e-5)


def test_a_state_longer_than_the_export_is_refused_not_truncated(checkpoint):
    mirror = load_torch_student(checkpoint)
    with pytest.raises(UserError, match="21 tokens"):
        score_in_chunks(torch_functions(mirror, SLOTS, TOKENS), decision(sample(mirror.config, 21, 3, 0)),
                        SLOTS, TOKENS)


def test_bad_export_requests_are_user_errors(checkpoint, tmp_path):
    with pytest.raises(UserError, match="precision"):
        convert(checkpoint, str(tmp_path / "a.mlpackage"), precision="fp8")
    with pytest.raises(UserError, match=".mlpackage"):
        convert(checkpoint, str(tmp_path / "a.mlmodel"))
    with pytest.raises(UserError, match="does not exist"):
        convert(str(tmp_path / "missing"), str(tmp_path / "a.mlpackage"))


@pytest.mark.parametrize("precision, tolerance", [("fp32", 1e-5), ("fp16", 3e-3)])
def test_converted_package_spec_and_mil_evaluation(checkpoint, tmp_path, precision, tolerance):
    path = convert(checkpoint, str(tmp_path / "student.mlpackage"), precision=precision, slots=SLOTS)
    info = describe(path)
    assert info["program"] == "mlProgram" and info["default_function"] == "main"
    assert set(info["functions"]) == {"main", "encode", "embed_pool", "score"}
    main = info["functions"]["main"]
    assert main["inputs"] == {"state_tokens": ((1, TOKENS, 48), "float32"), "state_mask": ((1, TOKENS), "float32"),
                              "role": ((1,), "int32"), "unseen": ((1, 15), "int32"),
                              "capacity": ((1, 2), "int32"), "void": ((1, 2, 15), "float32"),
                              "actions": ((1, SLOTS, 103), "float32"), "action_mask": ((1, SLOTS), "float32")}
    assert main["outputs"] == ["logits", "value", "belief_expect"]
    assert info["functions"]["score"]["outputs"] == ["logits"]
    meta = info["metadata"]
    assert meta["game"] == "doudizhu" and meta["feature_version"] == "test-1"
    assert meta["slots"] == str(SLOTS) and meta["state_tokens"] == str(TOKENS)
    assert meta["precision"] == precision and meta["git_sha"]

    program = load_program(path)
    mirror = load_torch_student(checkpoint)
    for actions in (5, 19):  # one call of main; three chunks
        state = sample(mirror.config, 11, actions, actions)
        got = score_in_chunks(lambda name, inputs: evaluate_mil(program, name, inputs), decision(state),
                              SLOTS, TOKENS)
        want = unchunked(mirror, state)
        np.testing.assert_allclose(got["logits"], want["logits"], atol=tolerance)
        np.testing.assert_allclose(got["value"], want["value"], atol=tolerance)
        np.testing.assert_allclose(got["belief_expect"], want["belief_expect"], atol=10 * tolerance)
    assert max(verify(path, checkpoint).values()) <= 10 * tolerance


@pytest.mark.slow
def test_export_command_at_default_shapes(tmp_path, capsys):
    cfg = ModelConfig.for_game("doudizhu")
    save_checkpoint(str(tmp_path / "ckpt"), LandlordFormerLite(cfg), cfg)
    out = str(tmp_path / "student.mlpackage")
    run(argparse.Namespace(checkpoint=str(tmp_path / "ckpt"), out=out, precision="fp16"))
    printed = capsys.readouterr().out
    assert "64 action slots x 34 state tokens" in printed and "MIL evaluation vs the torch mirror" in printed
    assert describe(out)["functions"]["main"]["inputs"]["actions"] == ((1, 64, 103), "float32")


@pytest.mark.parametrize("switches", [dict(belief_mode="off"), dict(belief_mode="full"),
                                      dict(use_deep_sets=False), dict(use_adapters=False)],
                         ids=["belief_off", "belief_full", "no_deep_sets", "no_adapters"])
def test_export_without_belief_head_regression(tmp_path, switches):
    # Without a belief head encode's memory_mask was its state_mask input passed through,
    # which coremltools refused to name; every ablation must export and compute the mirror.
    cfg = ModelConfig.for_game("doudizhu", max_state_tokens=TOKENS, d_model=16, ff=32, heads=2,
                               layers=1, **switches)
    mx.random.seed(0)
    save_checkpoint(str(tmp_path / "ckpt"), LandlordFormerLite(cfg), cfg)
    path = convert(str(tmp_path / "ckpt"), str(tmp_path / "student.mlpackage"), precision="fp32", slots=SLOTS)
    encode = describe(path)["functions"]["encode"]
    assert encode["outputs"][:3] == ["memory", "memory_mask", "value"]
    assert max(verify(path, str(tmp_path / "ckpt")).values()) <= 1e-4


def test_export_bad_input_is_one_line_without_import_noise_regression(tmp_path):
    # A bad checkpoint was reported after ~9 lines of coremltools' import-time warnings.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "openlandlord.cli", "export", "--checkpoint",
                           str(tmp_path / "missing"), "--out", str(tmp_path / "x.mlpackage")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"openlandlord: error: checkpoint directory {tmp_path / 'missing'} does not exist"]
    probe = ("import logging, sys; logging.basicConfig(stream=sys.stdout);"
             "from openlandlord.export.coreml import import_coremltools; import_coremltools()")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert "Failed to load" not in done.stdout + done.stderr
    assert "has not been tested with coremltools" not in done.stdout + done.stderr


def test_export_prints_one_bar_and_a_summary_regression(checkpoint, tmp_path, capsys):
    # Regression: `openlandlord export` printed about 20 coremltools progress bars, "Tuple
    # detected at graph output" four times and an fp16 overflow warning; now they show with -v.
    out = str(tmp_path / "quiet.mlpackage")
    run(argparse.Namespace(checkpoint=checkpoint, out=out, precision="fp16", verbose=False))
    captured = capsys.readouterr()
    assert "Running MIL" not in captured.err and "Tuple detected" not in captured.err
    assert captured.err.count("converting to Core ML") >= 1
    assert "converter warnings hidden: -v shows them" in captured.out
    # (the same --out again: replacing it takes --force)
    run(argparse.Namespace(checkpoint=checkpoint, out=out, precision="fp16", verbose=True, force=True))
    captured = capsys.readouterr()
    assert "Running MIL" in captured.err and "hidden" not in captured.out


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
def test_fp16_export_of_drifted_scores_regression(tmp_path, precision):
    # The shipped classic student's scores have drifted (median |logit| about 195,000; its Deep
    # Sets term past fp16's 65,504): its fp16 package computed NaN for every logit while the
    # export printed a NaN difference and exited 0. A score common to every move of a decision,
    # put here in set_rho's bias, must leave the fp16 package the mirror's moves and their gaps.
    cfg = ModelConfig.for_game("doudizhu", max_state_tokens=TOKENS, d_model=16, ff=32, heads=2, layers=1)
    mx.random.seed(1)
    model = LandlordFormerLite(cfg)
    model.set_rho.bias = mx.full(model.set_rho.bias.shape, 1e5)
    model.score_out.weight = mx.abs(model.score_out.weight) + 0.5
    save_checkpoint(str(tmp_path / "ckpt"), model, cfg)
    path = convert(str(tmp_path / "ckpt"), str(tmp_path / "student.mlpackage"), precision=precision, slots=SLOTS)
    assert describe(path)["metadata"]["fp32_parts"] == ("Deep Sets pooling, score head" if precision == "fp16" else "all")
    program = load_program(path)
    mirror = load_torch_student(str(tmp_path / "ckpt"))
    for actions in (6, 19):  # one call of main; three chunks
        state = sample(mirror.config, 11, actions, actions)
        got = score_in_chunks(lambda name, inputs: evaluate_mil(program, name, inputs), decision(state),
                              SLOTS, TOKENS)["logits"]
        want = unchunked(mirror, state)["logits"]
        # the plain sum (the trainer's) is past fp16's range, as the drifted student's; the
        # centred logits the players and packages compute leave the common part out
        assert np.abs(unchunked(mirror, state, centred=False)["logits"]).min() > 65504
        assert np.isfinite(got).all()
        assert int(np.argmax(got)) == int(np.argmax(want))
        np.testing.assert_allclose(got - got.max(), want - want.max(), atol=0.05)


def test_export_refuses_a_package_that_computes_nan_regression(tmp_path):
    # `openlandlord export` wrote the classic student's NaN package, printed "max |difference|:
    # nan" and exited 0. A checkpoint that overflows fp16 in the transformer body is refused,
    # with the fix named, and the package already at --out stays as it was.
    cfg = ModelConfig.for_game("doudizhu", max_state_tokens=TOKENS, d_model=16, ff=32, heads=2, layers=1)
    mx.random.seed(2)
    model = LandlordFormerLite(cfg)
    model.state_in.weight = model.state_in.weight * 1e6
    save_checkpoint(str(tmp_path / "ckpt"), model, cfg)
    out = tmp_path / "student.mlpackage"
    out.mkdir()
    (out / "kept").write_text("the package before")
    with pytest.raises(UserError, match="non-finite.*--precision fp32"):
        convert(str(tmp_path / "ckpt"), str(out), precision="fp16", slots=SLOTS, force=True)
    assert (out / "kept").read_text() == "the package before"
    assert [p.name for p in tmp_path.iterdir() if p.name != "ckpt"] == ["student.mlpackage"]
    assert max(verify(convert(str(tmp_path / "ckpt"), str(out), precision="fp32", slots=SLOTS, force=True),
                      str(tmp_path / "ckpt")).values()) < float("inf")
