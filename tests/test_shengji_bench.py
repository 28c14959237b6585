"""`openlandlord bench referee --game shengji` (openlandlord.games.shengji.bench)."""
import json
from types import SimpleNamespace

from openlandlord.games.shengji import bench


def test_bench_writes_the_report(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert bench.run(SimpleNamespace(json=str(path), seconds=0.05, game="shengji")) == 0
    report = json.loads(path.read_text())
    assert set(report) >= {"ours", "peers", "ratios", "git_sha"}
    assert report["peers"] == {}
    for key in ("rounds_per_s", "classic_native_rounds_per_s", "worlds_per_s", "python_rounds_per_s",
                "classic_python_rounds_per_s", "legal_plays_calls_per_s"):
        assert report["ours"][key] > 0
    assert report["ratios"]["rounds_per_s_vs_target"] == report["ours"]["rounds_per_s"] / 20_000
    assert "rounds_per_s" in capsys.readouterr().out
