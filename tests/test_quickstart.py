"""`openlandlord quickstart`: the stages it chains, resuming, and its summary table."""
import json
from types import SimpleNamespace

import pytest

from openlandlord import quickstart
from openlandlord.errors import UserError


def _fake_stages(monkeypatch, calls):
    def stage(name, args, done, log, env):
        calls.append((name, args))
        log.append({"stage": name, "command": " ".join(args), "seconds": 0.0,
                    "skipped": done is not None and done.exists()})
    monkeypatch.setattr(quickstart, "_stage", stage)


def test_stages_in_order_with_the_documented_commands(monkeypatch, tmp_path):
    calls = []
    _fake_stages(monkeypatch, calls)
    assert quickstart.run(SimpleNamespace(game="doudizhu", out=str(tmp_path))) == 0
    assert [c[0] for c in calls] == ["generate", "train", "export", "bench latency",
                                     "eval vs rule", "eval vs rlcard"]
    assert calls[0][1][:2] == ["generate", "--game"] and "--teacher" in calls[0][1]
    assert f"student:{tmp_path / 'model'}" in calls[4][1]
    assert (tmp_path / "REPORT.md").exists()
    assert json.loads((tmp_path / "stages.json").read_text())["game"] == "doudizhu"


def test_an_interrupted_training_resumes(monkeypatch, tmp_path):
    (tmp_path / "model" / "epoch-0001").mkdir(parents=True)
    (tmp_path / "model" / "last").symlink_to("epoch-0001")
    (tmp_path / "stages.json").write_text('{"game": "shengji", "stages": []}')  # the first run's mark
    calls = []
    _fake_stages(monkeypatch, calls)
    quickstart.run(SimpleNamespace(game="shengji", out=str(tmp_path)))
    train = dict(calls)["train"]
    assert "--resume" in train
    assert [c[0] for c in calls][-1] == "eval vs rule:expert"


def test_a_failed_stage_is_one_clear_error(tmp_path):
    with pytest.raises(UserError, match="stage 'broken' failed"):
        quickstart._stage("broken", ["eval", "--game", "doudizhu"], None, [], {})


def test_summary_reads_the_stage_files(tmp_path):
    (tmp_path / "latency.json").write_text(json.dumps(
        {"backends": {"a": {"p50_ms": 0.4, "p95_ms": 0.6}, "b": {"p50_ms": 2.0, "p95_ms": 3.0}}}))
    (tmp_path / "eval-rule.json").write_text(json.dumps(
        {"win_rate": 0.5, "mean_score": 0.25, "mean_score_ci95": [0.1, 0.4], "deals": 30}))
    rows = dict(quickstart.summary_rows("doudizhu", tmp_path))
    assert rows["latency"].startswith("a: P50 0.400 ms")
    assert "+0.250 [+0.100, +0.400] over 30 deals" in rows["vs rule"]
