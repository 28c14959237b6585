"""`openlandlord export --out FILE.onnx`: one self-describing graph with dynamic batch, state
length and legal count, equal to the torch mirror, chunked or not; the format chosen by the
suffix, anything else one line and exit 2."""
import argparse
import json

import numpy as np
import onnx
import pytest
import torch

from openlandlord import cli
from openlandlord.agents.onnx_agent import no_others, others_of, read_meta, run_session, session
from openlandlord.export import latency
from openlandlord.export import onnx as onnx_export
from openlandlord.export import run as export_run
from openlandlord.export.torch_mirror import load_torch_student
from openlandlord.model import LandlordFormerLite, ModelConfig, save_checkpoint
from openlandlord.model.synthetic import random_batch


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("onnx")
    checkpoint = latency.default_checkpoint("doudizhu", str(tmp / "student"))
    return checkpoint, onnx_export.export(checkpoint, str(tmp / "student.onnx"))


@pytest.fixture
def export_command():
    return lambda *args: cli.main(["export", *args])


def test_the_file_carries_its_checkpoint_config(exported):
    checkpoint, path = exported
    with open(f"{checkpoint}/config.json") as f:
        want = json.load(f)
    assert read_meta(path) == want
    props = {p.key: p.value for p in onnx.load(path).metadata_props}
    assert props["game"] == "doudizhu" and props["architecture"] == "LandlordFormer-Lite"
    assert props["num_parameters"] == str(want["num_parameters"]) and "exporter_git_sha" in props


def test_axes_are_dynamic(exported):
    inputs = {i.name: i.shape for i in session(exported[1]).get_inputs()}
    assert inputs["state_tokens"][:2] == ["batch", "tokens"]
    assert inputs["actions"][:2] == ["batch", "legal"] and inputs["others_max"][0] == "batch"


@pytest.mark.parametrize("tokens, actions, rows", [(34, 1, 1), (12, 9, 3), (34, 131, 2)])
def test_equals_the_torch_mirror_at_any_shape(exported, tokens, actions, rows):
    checkpoint, path = exported
    mirror = load_torch_student(checkpoint)
    batch = random_batch(mirror.config, rows, tokens, actions, np.random.default_rng(actions), padded=False)
    with torch.no_grad():
        want = mirror({k: torch.from_numpy(v) for k, v in batch.items()})
    got = run_session(session(path), {**batch, **no_others(rows, mirror.config.d_model)})
    for key in ("logits", "value", "belief_expect"):
        np.testing.assert_allclose(got[key], want[key].numpy(), atol=1e-5, err_msg=key)


def test_chunks_with_the_others_pool_equal_the_whole_list(exported):
    checkpoint, path = exported
    mirror, sess = load_torch_student(checkpoint), session(path)
    batch = random_batch(mirror.config, 1, 20, 50, np.random.default_rng(3), padded=False)
    whole = run_session(sess, {**batch, **no_others(1, mirror.config.d_model)})["logits"][0]
    cuts = [(0, 16), (16, 32), (32, 48), (48, 50)]
    part = lambda a, b: {**batch, "actions": batch["actions"][:, a:b], "action_mask": batch["action_mask"][:, a:b]}
    pools = [run_session(sess, {**part(a, b), **no_others(1, mirror.config.d_model)}) for a, b in cuts]
    others = others_of(*(np.concatenate([p[k] for p in pools]) for k in ("pool_sum", "pool_count", "pool_max")))
    chunked = np.concatenate([run_session(sess, {**part(a, b), **{k: v[i:i + 1] for k, v in others.items()}})
                              ["logits"][0] for i, (a, b) in enumerate(cuts)])
    np.testing.assert_allclose(chunked, whole, atol=1e-5)
    assert np.abs(pools[0]["logits"][0] - whole[:16]).max() > 1e-3   # the pool matters


@pytest.mark.parametrize("switches", [dict(belief_mode="off"), dict(use_deep_sets=False, use_adapters=False)],
                         ids=["belief_off", "no_deep_sets_no_adapters"])
def test_ablated_students_export(tmp_path, switches):
    # The exporter drops inputs the graph never reads; the checks feed only those it has.
    import mlx.core as mx

    cfg = ModelConfig.for_features("doudizhu", d_model=16, ff=32, heads=2, layers=1, **switches)
    mx.random.seed(0)
    save_checkpoint(str(tmp_path / "ckpt"), LandlordFormerLite(cfg), cfg)
    path = onnx_export.export(str(tmp_path / "ckpt"), str(tmp_path / "s.onnx"))
    check = onnx_export.verify(path, str(tmp_path / "ckpt"))
    assert check["one_call"] < 1e-5 and check["chunked"] < 1e-5


def test_export_command_prints_the_difference(exported, tmp_path, capsys, export_command):
    out = tmp_path / "cli.onnx"
    assert export_command("--checkpoint", exported[0], "--out", str(out)) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith(f"wrote {out}: doudizhu student")
    assert "max |logit difference|" in lines[1]
    one_call, chunked = (float(x) for x in lines[1].split(": ")[1].replace(" in one call", "")
                         .split(" chunked")[0].split(", "))
    assert one_call < 1e-5 and chunked < 1e-5
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("out, message", [("student.pt", "the suffix chooses the format"),
                                          ("student", "the suffix chooses the format")])
def test_other_suffixes_exit_2_with_one_line(exported, tmp_path, capsys, export_command, out, message):
    assert export_command("--checkpoint", exported[0], "--out", str(tmp_path / out)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / out).exists()


def test_missing_checkpoint_is_one_line(tmp_path, capsys, export_command):
    assert export_command("--checkpoint", str(tmp_path / "none"), "--out", str(tmp_path / "s.onnx")) == 2
    assert "does not exist" in capsys.readouterr().err


def test_mlpackage_still_goes_to_core_ml(monkeypatch):
    from openlandlord.export import coreml

    monkeypatch.setattr(coreml, "run", lambda args: 7)
    assert export_run(argparse.Namespace(out="x.mlpackage", checkpoint="c", precision="fp16")) == 7
