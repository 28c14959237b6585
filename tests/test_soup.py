"""`openlandlord soup`: the soup's weights are the mean of its parts', it records its parts and
their shared start, and it refuses parts of other model configs, of other starts (by folder,
or by the recorded weights of the start), a single part and an existing --out."""
import json

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

from openlandlord.cli import main
from openlandlord.model import LandlordFormerLite, ModelConfig, load_checkpoint, save_checkpoint


def student(directory, seed, init="runs/start", init_sha="ab" * 32, game="shengji", **fields):
    mx.random.seed(seed)
    config = ModelConfig.for_features(game, **{"d_model": 16, "heads": 2, "ff": 32, "layers": 1,
                                                    "adapter_rank": 2, **fields})
    model = LandlordFormerLite(config)
    mx.eval(model.parameters())
    extra = {"training": {"init": init, "seed": seed}} if init else {}
    if init_sha:
        extra["init_weights_sha256"] = init_sha
    save_checkpoint(str(directory), model, config, extra)
    return dict(tree_flatten(model.parameters()))


def test_soup_is_the_mean_of_its_parts(tmp_path, capsys):
    a = student(tmp_path / "a", 1)
    b = student(tmp_path / "b", 2)
    c = student(tmp_path / "c", 3)
    assert main(["soup", "--out", str(tmp_path / "abc"), *(str(tmp_path / x) for x in "abc")]) == 0
    assert "soup of 3 students (fine-tuned from runs/start)" in capsys.readouterr().out
    model, _, meta = load_checkpoint(str(tmp_path / "abc"))
    got = dict(tree_flatten(model.parameters()))
    assert set(got) == set(a)
    assert any(not np.allclose(a[k], b[k]) for k in a)
    for k in a:
        want = (np.array(a[k]) + np.array(b[k]) + np.array(c[k])) / 3
        np.testing.assert_allclose(np.array(got[k]), want, rtol=1e-5, atol=1e-7)
    assert meta["soup_start"] == {"init": "runs/start", "weights_sha256": "ab" * 32}
    assert [p["student"] for p in meta["soup"]] == [str(tmp_path / x) for x in "abc"]
    for part in meta["soup"]:
        recorded = json.loads((tmp_path / part["student"][-1] / "config.json").read_text())
        assert part["weights_sha256"] == recorded["weights_sha256"]
        assert part["training"]["seed"] == recorded["training"]["seed"]
    assert meta["git_sha"]


@pytest.mark.parametrize("other, message", [
    (dict(ff=64), "model config differs"),
    (dict(init="runs/elsewhere", init_sha=None), "different starts"),
    (dict(init_sha="cd" * 32), "whose weights differ"),
    (dict(init=None, init_sha=None), "records no start"),
])
def test_soup_refuses_parts_it_cannot_average(tmp_path, capsys, other, message):
    student(tmp_path / "a", 1)
    student(tmp_path / "b", 2, **other)
    assert main(["soup", "--out", str(tmp_path / "ab"), str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "ab").exists()


def test_soup_matches_starts_by_content_across_folders(tmp_path):
    """The same start copied to another folder is the same start (its weights' SHA-256)."""
    student(tmp_path / "a", 1, init="runs/start")
    student(tmp_path / "b", 2, init="copies/start")
    assert main(["soup", "--out", str(tmp_path / "ab"), str(tmp_path / "a"), str(tmp_path / "b")]) == 0


def test_soup_reads_the_start_of_a_dmc_student(tmp_path):
    """`openlandlord dmc` records its start at the top level (`init`), not in a training record."""
    student(tmp_path / "a", 1)
    mx.random.seed(2)
    config = ModelConfig.for_features("shengji", d_model=16, heads=2, ff=32, layers=1, adapter_rank=2)
    model = LandlordFormerLite(config)
    mx.eval(model.parameters())
    save_checkpoint(str(tmp_path / "d"), model, config,
                    {"training": "dmc", "init": "runs/start", "init_weights_sha256": "ab" * 32})
    assert main(["soup", "--out", str(tmp_path / "ad"), str(tmp_path / "a"), str(tmp_path / "d")]) == 0


def test_soup_refuses_one_part_the_same_part_twice_and_an_existing_out(tmp_path, capsys):
    student(tmp_path / "a", 1)
    student(tmp_path / "b", 2)
    assert main(["soup", "--out", str(tmp_path / "s"), str(tmp_path / "a")]) == 2
    assert "two or more" in capsys.readouterr().err
    assert main(["soup", "--out", str(tmp_path / "s"), str(tmp_path / "a"), str(tmp_path / "a")]) == 2
    assert "named twice" in capsys.readouterr().err
    assert main(["soup", "--out", str(tmp_path / "s"), str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    before = (tmp_path / "s" / "config.json").read_text()
    assert main(["soup", "--out", str(tmp_path / "s"), str(tmp_path / "b"), str(tmp_path / "a")]) == 2
    assert "--force" in capsys.readouterr().err
    assert (tmp_path / "s" / "config.json").read_text() == before
    assert main(["soup", "--out", str(tmp_path / "s"), str(tmp_path / "b"), str(tmp_path / "a"), "--force"]) == 0


def test_soup_with_data_records_its_val_metrics_as_train_measures_them(tmp_path, capsys):
    """`soup --data DIR`: the soup's config.json holds the val metrics train would record for
    it (so a shipped soup's results.json has them), the dataset and its manifest's hash; a
    dataset of another game is one clear error and nothing is written."""
    from openlandlord.distill import dataset
    from openlandlord.distill.batches import load_split
    from openlandlord.distill.config import TrainConfig
    from openlandlord.distill.metrics import evaluate
    data = tmp_path / "data"
    assert main(["generate", "--game", "doudizhu", "--teacher", "random", "--deals", "12",
                 "--out", str(data), "--workers", "1", "--seed", "3"]) == 0
    student(tmp_path / "a", 1, game="doudizhu")
    student(tmp_path / "b", 2, game="doudizhu")
    capsys.readouterr()
    assert main(["soup", "--out", str(tmp_path / "ab"), str(tmp_path / "a"), str(tmp_path / "b"),
                 "--data", str(data)]) == 0
    assert "val (" in capsys.readouterr().out
    model, config, meta = load_checkpoint(str(tmp_path / "ab"))
    ds = dataset.open(str(data))
    assert meta["dataset"] == str(data) and meta["dataset_manifest_sha256"] == ds.manifest_sha256
    want = evaluate(model, load_split(ds, "val"), TrainConfig(), config, mx.distributed.init())
    assert meta["metrics"]["val_decisions"] == want["val_decisions"] > 0
    for key in ("val_top1", "val_regret", "val_kl", "val_value_mse"):
        assert meta["metrics"][key] == pytest.approx(want[key], rel=1e-4, abs=1e-6)
    student(tmp_path / "c", 1)
    student(tmp_path / "d", 2)
    assert main(["soup", "--out", str(tmp_path / "cd"), str(tmp_path / "c"), str(tmp_path / "d"),
                 "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert "holds doudizhu decisions" in err and err.count("\n") == 1
    assert not (tmp_path / "cd").exists()


def test_soup_runs_with_the_fast_blas_regression(tmp_path, monkeypatch):
    """`openlandlord soup` re-executes itself with the fast BLAS preloaded, as `train` does:
    on the bundled one its val metrics (--data, the ship's soup step) took 269 s for 13,029
    classic decisions, 28 s with it and the chunks by length."""
    from openlandlord import blas
    calls = []
    monkeypatch.setattr(blas, "reexec_with_openblas", calls.append)
    student(tmp_path / "a", 1)
    student(tmp_path / "b", 2)
    assert main(["soup", "--out", str(tmp_path / "ab"), str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert calls == ["soup"]
