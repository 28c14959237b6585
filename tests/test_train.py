"""Training: a tiny run learns and writes the checkpoint, metrics and curves it promises; an
interrupted run resumed equals an uninterrupted one; bad configs are one clear error (exit 2);
two processes under mlx.launch follow the same trajectory as one."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

from openlandlord import blas
from openlandlord.distill import checkpoints, config, dataset, metrics
from openlandlord.distill.batches import epoch_batches, legal_counts, load_split, rank_batches
from openlandlord.distill import train as tr
from openlandlord.errors import UserError
from openlandlord.cli import main

ROOT = Path(__file__).resolve().parent.parent
TINY = ["batch_size=32", "lr=0.005", "warmup_steps=5", "log_every=2", "eval_batch_size=64",
        "model.d_model=16", "model.ff=32", "model.layers=1", "model.heads=2", "model.adapter_rank=2"]


def tiny_config(**overrides):
    cfg = config.load_config(None, TINY, epochs=2)
    return config.config_from_dict({**cfg.to_dict(), **overrides})


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "data"
    assert main(["generate", "--game", "doudizhu", "--teacher", "random", "--deals", "10",
                 "--out", str(out), "--workers", "1", "--seed", "3"]) == 0
    return str(out)


@pytest.fixture(scope="module")
def run(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "run"
    args = ["train", "--data", data, "--out", str(out), "--epochs", "2"]
    for item in TINY:
        args += ["--set", item]
    assert main(args) == 0
    return out


def rows(run, kind):
    return [r for r in map(json.loads, (run / "metrics.jsonl").read_text().splitlines()) if r["kind"] == kind]


def test_two_epochs_learn_and_log(run):
    epochs = rows(run, "epoch")
    steps = rows(run, "step")
    assert [r["epoch"] for r in epochs] == [1, 2]
    assert epochs[1]["train_loss"] < epochs[0]["train_loss"]
    assert steps[-1]["loss"] < steps[0]["loss"]
    for key in ("val_top1", "val_regret", "val_kl", "val_value_mse", "val_belief_nll", "val_belief_ece"):
        assert np.isfinite(epochs[-1][key]), key
    assert 0.0 <= epochs[-1]["val_top1"] <= 1.0
    assert epochs[-1]["val_regret"] >= 0.0
    assert epochs[-1]["val_kl"] >= 0.0
    assert [r["step"] for r in steps] == sorted(r["step"] for r in steps)


def test_checkpoint_files_and_keys(run):
    for directory in (run, run / "last"):
        meta = json.loads((directory / "config.json").read_text())
        for key in ("architecture", "feature_version", "num_parameters", "game", "git_sha",
                    "dataset_manifest_sha256", "config", "training"):
            assert key in meta, key
        assert meta["game"] == "doudizhu" and meta["game_options"] == [{"bidding": "none"}]
        assert meta["config"]["d_model"] == 16
        assert (directory / "weights.safetensors").is_file()
    assert os.readlink(run / "last") == "epoch-0002"
    assert not (run / "epoch-0001").exists()          # only the latest epoch is kept
    assert (run / "last" / "optimizer.safetensors").is_file()
    state = json.loads((run / "last" / "trainer.json").read_text())
    assert state["epoch"] == 2 and state["step"] == rows(run, "epoch")[-1]["step"]
    data_meta = json.loads((run / "config.json").read_text())
    assert data_meta["dataset_manifest_sha256"] == dataset.open(data_meta["dataset"]).manifest_sha256


def test_curves_png(run):
    pytest.importorskip("matplotlib")
    assert (run / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def weights(directory):
    return mx.load(str(Path(directory) / "weights.safetensors"))


def test_resume_equals_uninterrupted(data, tmp_path):
    cfg = tiny_config()
    tr.train(data, str(tmp_path / "straight"), cfg, progress=False)
    tr.train(data, str(tmp_path / "resumed"), cfg, stop_after=1, progress=False)
    assert json.loads((tmp_path / "resumed" / "last" / "trainer.json").read_text())["epoch"] == 1
    assert not (tmp_path / "resumed" / "weights.safetensors").exists()   # not finished yet
    tr.train(data, str(tmp_path / "resumed"), cfg, resume=True, progress=False)
    a, b = weights(tmp_path / "straight"), weights(tmp_path / "resumed")
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_allclose(np.array(a[k]), np.array(b[k]), rtol=0, atol=1e-6, err_msg=k)
    straight = rows(tmp_path / "straight", "epoch")
    resumed = rows(tmp_path / "resumed", "epoch")
    assert [r["epoch"] for r in resumed] == [1, 2]
    assert resumed[-1]["val_kl"] == pytest.approx(straight[-1]["val_kl"], abs=1e-6)


def test_ablation_configs_load_and_build(data):
    from openlandlord.model import LandlordFormerLite
    names = sorted(p.name for p in config.CONFIG_DIR.glob("*.json"))
    assert "default.json" in names and len(names) >= 8
    built = {}
    for name in names:
        cfg = config.load_config(str(config.CONFIG_DIR / name))
        mcfg = config.model_config(cfg, "doudizhu")
        LandlordFormerLite(mcfg)
        built[name] = mcfg
    assert built["ablation_belief_off.json"].belief_mode == "off"
    assert built["ablation_no_stop_grad.json"].belief_stop_grad is False
    assert built["ablation_no_adapters.json"].use_adapters is False
    assert built["ablation_no_deep_sets.json"].use_deep_sets is False
    assert built["ablation_value_winloss.json"].value_target == "winloss"
    assert built["ablation_belief_full.json"].belief_mode == "full"
    assert config.load_config("ablation_no_adapters").model == {"use_adapters": False}     # by name


# ablation_belief_off.json as every config file was written before model fields moved
# into "model": they stay readable, to the same student.
FLAT_BELIEF_OFF = {
    "description": "Ablation: No belief head.", "epochs": 10, "batch_size": 256, "lr": 0.001,
    "min_lr": 1e-05, "warmup_steps": 200, "weight_decay": 0.01, "grad_clip": 1.0, "seed": 0,
    "shuffle": True, "compile": False, "action_bucket": 1, "group_by_length": 16, "eval_batch_size": 512,
    "log_every": 50, "policy_weight": 1.0, "value_weight": 0.5, "belief_weight": 0.0, "belief_mode": "off",
    "belief_stop_grad": True, "use_adapters": True, "use_deep_sets": True, "value_target": "score",
    "value_scale": None, "model": {}}


def test_flat_model_fields_read_as_before_regression(tmp_path):
    # Issue 15: TrainConfig no longer repeats ModelConfig's fields; configs and --set that
    # name them at the top level still build the same student.
    path = tmp_path / "flat.json"
    path.write_text(json.dumps(FLAT_BELIEF_OFF))
    flat, nested = config.load_config(str(path)), config.load_config("ablation_belief_off")
    assert flat.model == {"policy_weight": 1.0, "value_weight": 0.5, "belief_weight": 0.0, "belief_mode": "off",
                          "belief_stop_grad": True, "use_adapters": True, "use_deep_sets": True,
                          "value_target": "score"}
    for game in ("doudizhu", "shengji"):
        assert config.model_config(flat, game) == config.model_config(nested, game)
    a = config.load_config(None, ["d_model=32", "belief_mode=off", "lr=0.002"])
    b = config.load_config(None, ["model.d_model=32", "model.belief_mode=off", "lr=0.002"])
    assert a == b and a.model == {"d_model": 32, "belief_mode": "off"} and a.lr == 0.002
    # A later --set wins over the file, whichever way either names the field.
    assert config.load_config(str(path), ["model.belief_mode=full"]).model["belief_mode"] == "full"
    assert config.load_config("ablation_belief_off", ["belief_mode=full"]).model["belief_mode"] == "full"
    with pytest.raises(UserError, match="state_feat_dim"):
        config.model_config(config.load_config(None, ["model.state_feat_dim=3"]), "doudizhu")


def test_resume_reads_a_run_written_with_flat_model_fields_regression(tmp_path):
    # A run begun before issue 15 saved its training config flat; it still resumes, and a
    # changed model field is still refused by name.
    last = tmp_path / "epoch-0001"
    last.mkdir()
    (tmp_path / "last").symlink_to("epoch-0001")
    training = {k: v for k, v in FLAT_BELIEF_OFF.items() if k != "description"}
    (last / "trainer.json").write_text(json.dumps({"epoch": 1, "step": 3, "training": training,
                                                    "dataset_manifest_sha256": "abc"}))
    cfg = config.load_config("ablation_belief_off", epochs=12)
    directory, state = checkpoints.load_resume(tmp_path, cfg, "doudizhu", "data", "abc")
    assert directory == last.resolve() and state["epoch"] == 1
    with pytest.raises(UserError, match="differs from the run's in belief_mode"):
        checkpoints.load_resume(tmp_path, config.load_config("ablation_belief_full"), "doudizhu", "data", "abc")


def test_an_ablation_trains(data, tmp_path):
    cfg = tiny_config(belief_mode="off", belief_weight=0.0, use_deep_sets=False, epochs=1)
    summary = tr.train(data, str(tmp_path / "ablation"), cfg, progress=False)
    assert "val_belief_nll" not in summary and np.isfinite(summary["val_kl"])


def test_training_log_prints_parameter_count_regression(data, tmp_path, capsys):
    # Issue 6: the training log and metrics.jsonl state the exact parameter count (they did not).
    cfg = tiny_config(belief_mode="off", belief_weight=0.0)
    run_dir = tmp_path / "counted"
    tr.train(data, str(run_dir), cfg, stop_after=1, progress=False)
    tr.train(data, str(run_dir), cfg, resume=True, progress=False)
    count = json.loads((run_dir / "config.json").read_text())["num_parameters"]
    assert capsys.readouterr().err.count(f"LandlordFormer-Lite, {count:,} parameters") == 2
    lines = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert lines[0] == {"kind": "model", "architecture": "LandlordFormer-Lite", "game": "doudizhu",
                        "num_parameters": count}
    assert [r["kind"] for r in lines].count("model") == 1   # kept, not repeated, on resume
    assert [r["epoch"] for r in lines if r["kind"] == "epoch"] == [1, 2]


@pytest.mark.parametrize("content, message", [
    ('{"epochs": 1, "learning_rate": 0.1}', "unknown key(s) learning_rate"),
    ('{"epochs": "many"}', "epochs must be int"),
    ('{"batch_size": 0}', "batch_size must be at least 1"),
    ('{"model": {"depth": 3}}', "unknown model field(s) depth"),
    ('{"belief_mode": "maybe"}', "belief_mode"),
    ('{"model": {"d_model": "wide"}}', "model.d_model must be a positive integer"),
    ('{"model": {"d_model": 30, "heads": 4}}', "not divisible by heads"),
    ("[1, 2]", "must be a JSON object"),
    ("{not json", "not valid JSON"),
])
def test_bad_config_exits_2(data, tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["train", "--data", data, "--out", str(tmp_path / "o"), "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "o" / "last").exists()


def test_bad_set_and_missing_config_exit_2(data, tmp_path, capsys):
    out = str(tmp_path / "o")
    assert main(["train", "--data", data, "--out", out, "--set", "nonsense"]) == 2
    assert "expected key=value" in capsys.readouterr().err
    assert main(["train", "--data", data, "--out", out, "--config", str(tmp_path / "nope.json")]) == 2
    assert "cannot read training config" in capsys.readouterr().err


def test_resume_refusals(data, run, tmp_path, capsys):
    assert main(["train", "--data", data, "--out", str(run), "--epochs", "1"]) == 2
    assert "already holds a training run" in capsys.readouterr().err
    assert main(["train", "--data", data, "--out", str(tmp_path / "empty"), "--resume"]) == 2
    assert "no checkpoint to resume" in capsys.readouterr().err
    copy = tmp_path / "copy"
    shutil.copytree(run, copy, symlinks=True)
    args = ["train", "--data", data, "--out", str(copy), "--resume", "--epochs", "3"]
    for item in TINY:
        args += ["--set", item]
    assert main(args + ["--set", "lr=0.1"]) == 2
    assert "differs from the run's in lr" in capsys.readouterr().err


def test_one_trainer_per_run_directory(data, tmp_path, capsys):
    from openlandlord import artefacts

    with artefacts.exclusive(tmp_path / "busy", "--out"):
        assert main(["train", "--data", data, "--out", str(tmp_path / "busy")]) == 2
        assert "is being written by PID" in capsys.readouterr().err


def test_rank_batches_partition_the_global_batches():
    cfg = tiny_config(batch_size=10)
    counts = np.random.default_rng(0).integers(2, 300, size=103)
    batches = epoch_batches(counts, cfg, 1)
    parts = [list(rank_batches(batches, r, 2)) for r in range(2)]
    for k, batch in enumerate(batches):
        union = {2 * i for i in parts[0][k][0]} | {2 * i + 1 for i in parts[1][k][0]}
        assert union == set(batch)
        assert parts[0][k][1] == parts[1][k][1] == len(batch)


def test_epoch_batches_cover_the_split_and_group_by_length():
    # Like real decisions: mostly a handful of legal moves, a few leads with hundreds.
    counts = 2 + (np.random.default_rng(1).exponential(6, size=1000) ** 1.6).astype(int)
    grouped = epoch_batches(counts, tiny_config(batch_size=32, group_by_length=8), 1)
    plain = epoch_batches(counts, tiny_config(batch_size=32, group_by_length=0), 1)
    for batches in (grouped, plain):
        assert sorted(np.concatenate(batches)) == list(range(1000))
        assert len(batches) == 32
    padded = lambda batches: sum(len(b) * counts[b].max() for b in batches)
    assert padded(grouped) < 0.5 * padded(plain)
    assert [list(b) for b in grouped] == [list(b) for b in epoch_batches(counts, tiny_config(
        batch_size=32, group_by_length=8), 1)]
    assert [list(b) for b in grouped] != [list(b) for b in epoch_batches(counts, tiny_config(
        batch_size=32, group_by_length=8), 2)]


def _launch_works():
    if shutil.which("mlx.launch") is None:
        return "mlx.launch is not installed"
    return None


@pytest.mark.skipif(_launch_works() is not None, reason=str(_launch_works()))
def test_two_processes_match_one(data, tmp_path):
    # Batches of 4: some have all their rows on one rank, so the other joins the gradient
    # sum with zeros (checked below).
    settings = TINY + ["batch_size=4", "epochs=1", "log_every=1"]
    cfg = config.load_config(None, settings)
    batches = epoch_batches(legal_counts(dataset.open(data), "train"), cfg, 1)
    idle = [k for k, b in enumerate(batches) if len(set(b % 2)) == 1]
    assert idle and idle[0] < 10
    sets = [a for item in settings for a in ("--set", item)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENLANDLORD_BLAS", None)
    env.pop(blas.REEXEC_GUARD, None)
    one = subprocess.run([sys.executable, "-m", "openlandlord.cli", "train", "--data", data,
                          "--out", str(tmp_path / "one")] + sets, env=env, capture_output=True, text=True,
                         timeout=120)
    assert one.returncode == 0, one.stderr[-2000:]
    two = subprocess.run(["mlx.launch", "-n", "2", "--backend", "ring", "--", sys.executable, "-m",
                          "openlandlord.cli", "train", "--data", data, "--out", str(tmp_path / "two")] + sets,
                         env=env, capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    if two.returncode != 0 and "ring" in two.stderr.lower() and "connect" in two.stderr.lower():
        pytest.skip(f"mlx.launch could not open its ring here: {two.stderr.strip()[-300:]}")
    assert two.returncode == 0, two.stderr[-2000:]
    # The same losses step by step, up to float summation order (each rank pads its own
    # part of a batch): tightly over the first steps, which include a step where one rank
    # had no rows. Later the 1e-7 differences grow (Adam turns noise in gradients that are
    # zero in exact arithmetic into steps of either sign), so weights are not compared.
    steps_one, steps_two = rows(tmp_path / "one", "step"), rows(tmp_path / "two", "step")
    assert [r["step"] for r in steps_one] == [r["step"] for r in steps_two] and len(steps_one) > 20
    for r1, r2 in zip(steps_one[:12], steps_two[:12]):
        assert r2["loss"] == pytest.approx(r1["loss"], rel=1e-5), r1["step"]
    for r1, r2 in zip(steps_one, steps_two):
        assert r2["loss"] == pytest.approx(r1["loss"], rel=1e-2), r1["step"]
    a, b = rows(tmp_path / "one", "epoch")[0], rows(tmp_path / "two", "epoch")[0]
    for key in ("train_loss", "val_kl", "val_value_mse", "val_belief_nll"):
        assert b[key] == pytest.approx(a[key], rel=2e-2, abs=1e-3), key
    assert json.loads((tmp_path / "two" / "config.json").read_text())["processes"] == 2
    # Started as commands, both runs preloaded OpenBLAS when this machine has it.
    loaded = "openblas" if sys.platform == "linux" and os.path.exists(blas.OPENBLAS) else "bundled"
    assert a["blas"] == b["blas"] == loaded


def test_bench_measures_samples_per_second(data, tmp_path):
    from openlandlord.distill import train_bench
    path = str(tmp_path / "samples.pickle")
    train_bench.featurize_once(data, path)
    row = train_bench.measure(path, 32, False, 16, seconds=0.2)
    assert row["samples_per_s"] > 0 and row["steps"] >= 2 and row["batch_size"] == 32
    assert row["mean_padded_actions"] >= 2 and row["mean_legal_actions"] >= 2


@pytest.mark.parametrize("args, message", [
    (["--batch-sizes", "64,x"], "expected integers"),
    (["--batch-sizes", "0"], "must be positive"),
    (["--seconds", "0"], "must be above zero"),  # the CLI's own check since its latest change
    (["--game", "shengji", "--bidding", "points"], "--bidding is not an option of shengji"),
])
def test_bench_bad_arguments_exit_2(capsys, args, message):
    assert main(["bench", "train"] + args) == 2
    assert message in capsys.readouterr().err


def test_target_temperature_rederives_the_policy_from_teacher_scores(data):
    """target_temperature re-softmaxes the stored teacher scores (0: one-hot on the teacher's
    choice); None keeps the dataset's own targets; a negative one is a config error."""
    from openlandlord import agents

    ds = dataset.open(data)
    recs = [r for r in ds.records("val") if len(r.legal) >= 2]
    kept = load_split(ds, "val")
    sharp = load_split(ds, "val", temperature=0.0)
    soft = load_split(ds, "val", temperature=0.5)
    assert len(kept) == len(sharp) == len(soft) == len(recs) > 0
    for r, k, h, s in zip(recs, kept, sharp, soft):
        np.testing.assert_allclose(k["target_policy"], r.teacher_policy)
        assert h["target_policy"][r.teacher_choice] == 1.0 and h["target_policy"].sum() == 1.0
        np.testing.assert_allclose(s["target_policy"], agents.softmax(r.teacher_scores, 0.5), rtol=1e-6)
    with pytest.raises(UserError, match="target_temperature"):
        tiny_config(target_temperature=-0.1)


def test_val_regret_is_the_teacher_score_given_up():
    """val_regret: the teacher's best score minus its score of the student's argmax."""
    class Fixed:
        """A stand-in model whose logits prefer slot 1 everywhere."""
        def __call__(self, inputs, centred=True):  # the student's call (metrics pass centred=False)
            b, a = inputs["action_mask"].shape
            logits = mx.broadcast_to(mx.array([0.0, 1.0] + [-1.0] * (a - 2)), (b, a))
            return {"logits": logits, "value": mx.zeros((b,))}

        def eval(self):
            pass

        def train(self):
            pass

    samples = []
    for scores in ([0.5, 0.2, 0.1], [0.0, 0.3]):
        n = len(scores)
        samples.append({"state_tokens": np.zeros((2, 4), np.float32), "actions": np.zeros((n, 3), np.float32),
                        "role": 0, "unseen": np.zeros(2, np.int32), "capacity": np.zeros(2, np.int32),
                        "void": np.zeros((2, 2), np.float32), "target_policy": np.full(n, 1 / n, np.float32),
                        "teacher_choice": int(np.argmax(scores)), "score": 0.0,
                        "teacher_scores": np.array(scores, np.float32),
                        "belief_target": np.zeros((2, 2), np.int32)})
    cfg = tiny_config()
    got = metrics.evaluate(Fixed(), samples, cfg, config.model_config(cfg, "doudizhu"), mx.distributed.init())
    assert got["val_top1"] == pytest.approx(0.5)
    assert got["val_regret"] == pytest.approx((0.3 + 0.0) / 2)
    # the mean legal logit: (0 + 1 - 1) / 3 and (0 + 1) / 2, padding left out
    assert got["val_logit_offset"] == pytest.approx(np.sqrt((0.0 + 0.25) / 2))


def test_value_target_doudizhu_is_the_signed_score(data):
    """Dou Dizhu's value head keeps regressing clip(signed payoff / 24, -1, 1), in the trainer
    and in the dataset's batches alike."""
    from openlandlord import features
    from openlandlord.model import ModelConfig

    ds = dataset.open(data)
    recs = [r for r in ds.records("train") if len(r.legal) >= 2]
    assert {r.score for r in recs} != {0.0}
    for r in recs:
        assert features.value_score(r.obs, r.score, r.result) == r.score == r.payoffs[r.seat]
    samples = load_split(ds, "train")
    assert [s["score"] for s in samples] == [r.score for r in recs]
    assert config.model_config(tiny_config(), "doudizhu").value_scale == 24.0
    assert ModelConfig.for_game("doudizhu").value_scale == features.value_scale("doudizhu") == 24.0
    batch = next(ds.batches("train", 10_000, shuffle=False))
    np.testing.assert_allclose(batch["value"], np.clip(batch["score"] / 24.0, -1, 1))


def test_value_target_shengji_is_the_team_points_margin(tmp_path):
    """On real recorded Shengji decisions the value head's target is the seat's team points
    margin around 80 (declarers: 80 - attacker points, attackers: attacker points - 80),
    scaled by 80, the same in the trainer and the dataset's batches."""
    from openlandlord import features
    from openlandlord.model import ModelConfig

    out = tmp_path / "sj"
    assert main(["generate", "--game", "shengji", "--teacher", "rule", "--deals", "3",
                 "--out", str(out), "--workers", "1", "--seed", "1"]) == 0
    ds = dataset.open(out)
    recs = [r for r in ds.records("train") if len(r.legal) >= 2]
    for r in recs:
        points = r.result["attacker_points"]
        want = 80 - points if r.role == "declarers" else points - 80
        assert features.value_score(r.obs, r.score, r.result) == want
        # The margin's sign agrees with who won (the attackers win at exactly 80).
        assert (want > 0 or (want == 0 and r.role == "attackers")) == (r.result["winner"] == r.role)
    assert {r.role for r in recs} == {"declarers", "attackers"}
    assert min(r.score for r in recs) < 0 < max(r.score for r in recs)
    samples = load_split(ds, "train")
    assert [s["score"] for s in samples] == [80 - r.result["attacker_points"] if r.role == "declarers"
                                             else r.result["attacker_points"] - 80 for r in recs]
    scale = config.model_config(tiny_config(), "shengji").value_scale
    assert scale == ModelConfig.for_game("shengji").value_scale == features.value_scale("shengji") == 80.0
    batch = next(ds.batches("train", 10_000, shuffle=False))
    want = [np.clip(s["score"] / 80.0, -1, 1) for s in samples]
    assert len(batch["value"]) == len(list(ds.records("train")))
    by_row = {(r.deal_id, r.step, r.factored): v for r, v in zip(ds.records("train"), batch["value"])}
    got = [by_row[(r.deal_id, r.step, r.factored)] for r in recs]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert batch["score"].max() <= 3    # `score` stays the recorded levels, unchanged


def test_resume_refuses_a_damaged_epoch_checkpoint_regression(data, tmp_path, capsys):
    # Regression: --resume loaded last/weights.safetensors without checking it against the
    # sha256 its config.json records, so a flipped bit trained on silently.
    cfg = tiny_config()
    out = tmp_path / "run"
    tr.train(data, str(out), cfg, stop_after=1, progress=False)
    weights_file = out / "last" / "weights.safetensors"
    blob = bytearray(weights_file.read_bytes())
    blob[-3] ^= 0x10
    weights_file.write_bytes(bytes(blob))
    with pytest.raises(UserError, match="sha256|weights"):
        tr.train(data, str(out), cfg, resume=True, progress=False)


def test_init_starts_from_a_student_and_refuses_another_shape(data, run, tmp_path):
    """`--set init=DIR` (fine-tuning): the run starts from that student's weights, and at a zero
    learning rate ends with them unchanged; a student of another shape is refused."""
    cfg = tiny_config(init=str(run), lr=0.0, min_lr=0.0, weight_decay=0.0, epochs=1)
    tr.train(data, str(tmp_path / "tuned"), cfg, progress=False)
    a, b = weights(run), weights(tmp_path / "tuned")
    for k in a:
        np.testing.assert_array_equal(np.array(a[k]), np.array(b[k]), err_msg=k)
    tuned = json.loads((tmp_path / "tuned" / "config.json").read_text())
    assert tuned["training"]["init"] == str(run)
    # The start by content too (a soup checks its parts share one start by it).
    assert tuned["init_weights_sha256"] == json.loads((run / "config.json").read_text())["weights_sha256"]
    fresh = tiny_config(lr=0.0, min_lr=0.0, weight_decay=0.0, epochs=1)
    tr.train(data, str(tmp_path / "fresh"), fresh, progress=False)
    assert any(not np.array_equal(np.array(a[k]), np.array(weights(tmp_path / "fresh")[k])) for k in a)
    wide = config.config_from_dict({**tiny_config(init=str(run)).to_dict(),
                                    "model": {**tiny_config().model, "d_model": 32}})
    with pytest.raises(UserError, match="d_model"):
        tr.train(data, str(tmp_path / "wide"), wide, progress=False)


def test_regret_term_is_the_teacher_score_the_policy_gives_up():
    """regret_weight adds sum_a pi(a) (max s - s_a) / T, averaged over the batch, to the loss;
    at 0 the loss and its parts are the plain ones."""
    from openlandlord.model import ModelConfig
    from openlandlord.model.losses import make_loss_fn, student_loss

    logits = mx.array([[0.0, 1.0, -1e9], [2.0, 0.0, 0.0]])
    mask = mx.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    regret = mx.array([[0.0, 3.0, 0.0], [1.0, 0.0, 2.0]])
    batch = {"action_mask": mask, "target_policy": mx.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
             "score": mx.zeros((2,)), "teacher_regret": regret}
    outputs = {"logits": logits, "value": mx.zeros((2,))}
    cfg = ModelConfig.for_game("doudizhu")
    plain, parts = student_loss(outputs, batch, cfg)
    assert set(parts) == {"policy", "value", "belief"}
    total, parts = student_loss(outputs, batch, cfg, regret_weight=2.0)
    p0 = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
    p1 = np.exp([2.0, 0.0, 0.0]) / np.exp([2.0, 0.0, 0.0]).sum()
    want = (p0[1] * 3.0 + (p1[0] * 1.0 + p1[2] * 2.0)) / 2
    assert float(parts["regret"]) == pytest.approx(want, rel=1e-5)
    assert float(total) == pytest.approx(float(plain) + 2.0 * want, rel=1e-5)
    assert make_loss_fn(0.0).part_names == ("policy", "value", "belief")
    assert make_loss_fn(0.5).part_names == ("policy", "value", "belief", "regret")
    with pytest.raises(UserError, match="regret_weight"):
        tiny_config(regret_weight=-1.0)


def test_regret_targets_are_the_teacher_scores_over_the_temperature(data):
    """collate(..., regret_temperature=T) adds teacher_regret: each move's (max score - score)
    / T, 0 on padding slots; without T a batch has no such key (a plain run never makes it)."""
    from openlandlord.distill.batches import collate

    samples = load_split(dataset.open(data), "train")[:3]
    samples = [dict(s) for s in samples]
    for s, scores in zip(samples, ([0.5, 0.1], [0.0, -0.4, 0.2], [1.0, 1.0])):
        n = len(s["target_policy"])
        s["teacher_scores"] = np.resize(np.array(scores, np.float32), n)
    batch = collate(samples, regret_temperature=0.2)
    assert "teacher_regret" not in collate(samples)
    for row, s in enumerate(samples):
        n = len(s["teacher_scores"])
        want = (s["teacher_scores"].max() - s["teacher_scores"]) / 0.2
        np.testing.assert_allclose(batch["teacher_regret"][row, :n], want, rtol=1e-6)
        assert not batch["teacher_regret"][row, n:].any()
        assert batch["teacher_regret"][row, :n].min() == 0.0


def test_a_run_with_regret_weight_logs_it(data, run, tmp_path):
    out = tmp_path / "regret"
    args = ["train", "--data", data, "--out", str(out), "--epochs", "1", "--set", "regret_weight=1.0"]
    for item in TINY:
        args += ["--set", item]
    assert main(args) == 0
    assert "train_regret" in rows(out, "epoch")[0]
    assert "train_regret" not in rows(run, "epoch")[0]


def test_max_hand_trains_on_the_endgame_only(data):
    """max_hand=K keeps the training decisions taken with at most K cards in hand, in split
    order, the batch counts alike; 0 keeps them all; a bad value is one clear error."""
    from openlandlord.distill.batches import used

    ds = dataset.open(data)
    recs = [r for r in ds.records("train") if len(r.legal) >= 2]
    every = load_split(ds, "train")
    assert len(every) == len(recs) == len(legal_counts(ds, "train"))
    k = 8
    kept = [r for r in recs if len(r.obs.hand) <= k]
    assert 0 < len(kept) < len(recs)
    end = load_split(ds, "train", max_hand=k)
    assert len(end) == len(kept)
    np.testing.assert_array_equal(legal_counts(ds, "train", k), [len(r.legal) for r in kept])
    for s, r in zip(end, kept):
        assert s["teacher_choice"] == r.teacher_choice
        np.testing.assert_array_equal(s["teacher_scores"], r.teacher_scores)
    assert all(used(r, k) == (len(r.obs.hand) <= k) for r in recs)
    for bad in (-1, 1.5, True):
        with pytest.raises(UserError, match="max_hand"):
            tiny_config(max_hand=bad)


def test_checkpoints_record_the_code_the_run_started_with_regression(data, tmp_path, monkeypatch):
    """A run records the git SHA of the tree it started with in every checkpoint, not the tree
    at the time of saving (regression: a commit or an edit made while a student trained was
    recorded as the code that trained it)."""
    from openlandlord import provenance
    calls = []

    def sha():
        calls.append(1)
        return "a" * 40 if len(calls) == 1 else "b" * 40 + "-dirty"
    monkeypatch.setattr(provenance, "git_sha", sha)
    out = tmp_path / "run"
    tr.train(data, str(out), tiny_config(epochs=2), progress=False)
    assert len(calls) >= 2            # the tree was read again after the start
    assert json.loads((out / "config.json").read_text())["git_sha"] == "a" * 40
    assert json.loads((out / "last" / "config.json").read_text())["git_sha"] == "a" * 40
    assert json.loads((out / "last" / "trainer.json").read_text())["git_sha"] == "a" * 40


def test_evaluate_chunks_decisions_of_like_length_regression(data, run, monkeypatch):
    """The val metrics pad each chunk to its longest legal list, so `evaluate` chunks the
    decisions by length (in split order one 254-move classic throw padded a whole chunk:
    soup's val metrics of 13,029 classic decisions took 48 s of forward passes, 17 s so);
    the metrics do not depend on the samples' order."""
    from openlandlord.model.checkpoint import load_checkpoint
    samples = load_split(dataset.open(data), "val")
    assert len({len(s["target_policy"]) for s in samples}) > 2
    model, mcfg, _ = load_checkpoint(str(run))
    cfg = tiny_config(eval_batch_size=4)
    widths = []
    real = metrics.collate
    monkeypatch.setattr(metrics, "collate", lambda chunk: widths.append(
        [len(s["target_policy"]) for s in chunk]) or real(chunk))
    want = metrics.evaluate(model, samples, cfg, mcfg, mx.distributed.init())
    assert sum(len(w) for w in widths) == len(samples)
    flat = [n for w in widths for n in w]
    assert flat == sorted(flat)
    got = metrics.evaluate(model, samples[::-1], cfg, mcfg, mx.distributed.init())
    for key in ("val_decisions", "val_kl", "val_value_mse", "val_belief_nll"):
        assert got[key] == pytest.approx(want[key], rel=1e-5)


def test_center_term_is_the_squared_mean_legal_logit():
    """logit_center_weight adds each decision's mean legal logit squared (padding left out),
    averaged over the batch; the softmax and so the other parts do not see a shift of every
    legal logit, this term does."""
    from openlandlord.model import ModelConfig
    from openlandlord.model.losses import make_loss_fn, student_loss

    mask = mx.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    batch = {"action_mask": mask, "target_policy": mx.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
             "score": mx.zeros((2,))}
    cfg = ModelConfig.for_game("doudizhu")
    logits = mx.array([[0.0, 1.0, -1e9], [2.0, 0.0, 1.0]])
    plain, _ = student_loss({"logits": logits, "value": mx.zeros((2,))}, batch, cfg)
    total, parts = student_loss({"logits": logits, "value": mx.zeros((2,))}, batch, cfg, center_weight=0.5)
    assert float(parts["center"]) == pytest.approx((0.5 ** 2 + 1.0 ** 2) / 2)
    assert float(total) == pytest.approx(float(plain) + 0.5 * 0.625)
    shifted = logits + mx.array([[1000.0], [-30.0]]) * mask
    total2, parts2 = student_loss({"logits": shifted, "value": mx.zeros((2,))}, batch, cfg, center_weight=0.5)
    assert float(parts2["policy"]) == pytest.approx(float(parts["policy"]), rel=1e-4)
    assert float(parts2["center"]) == pytest.approx((1000.5 ** 2 + 29.0 ** 2) / 2, rel=1e-5)
    assert make_loss_fn(0.0, 0.1).part_names == ("policy", "value", "belief", "center")
    assert make_loss_fn(0.5, 0.1).part_names == ("policy", "value", "belief", "regret", "center")
    with pytest.raises(UserError, match="logit_center_weight"):
        tiny_config(logit_center_weight=-1.0)


def test_a_run_with_logit_center_weight_logs_it_and_holds_the_scores_down(data, tmp_path):
    """A run with the centering term logs it, and its students' mean legal logit stays nearer
    zero than the same run's without it (same seed and data)."""
    from openlandlord.distill.batches import collate, to_mx
    from openlandlord.model.checkpoint import load_checkpoint
    means = {}
    for name, weight in (("plain", "0"), ("center", "1.0")):
        out = tmp_path / name
        args = ["train", "--data", data, "--out", str(out), "--epochs", "2", "--set", f"logit_center_weight={weight}"]
        for item in TINY:
            args += ["--set", item]
        assert main(args) == 0
        assert ("train_center" in rows(out, "epoch")[0]) == (name == "center")
        model, _, _ = load_checkpoint(str(out))
        batch = collate(load_split(dataset.open(data), "val"))
        logits = np.array(model(to_mx(batch))["logits"])
        mask = batch["action_mask"] > 0
        means[name] = np.mean([abs(row[m].mean()) for row, m in zip(logits, mask)])
    assert means["center"] < means["plain"]
