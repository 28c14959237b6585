"""`openlandlord bench referee --game doudizhu`: one short run writes the contract keys."""
import json

from openlandlord.cli import main


def test_bench_referee_writes_ours_peers_ratios(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", "referee", "--game", "doudizhu", "--seconds", "0.05", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert {"ours", "peers", "ratios", "git_sha", "machine"} <= set(result)
    assert result["ours"]["native_rollouts_per_s"] > 0 and result["ours"]["legal_moves_calls_per_s"] > 0
    for name in ("pyspiel", "douzero"):
        assert name in result["peers"]
    if "python_games_per_s" in result["peers"]["pyspiel"]:
        assert result["ratios"]["python_games_vs_pyspiel"] > 0
    assert "legal-move calls/s" in capsys.readouterr().out
