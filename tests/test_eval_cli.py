"""`openlandlord eval` and `openlandlord league` end to end on the real referees: the JSON
keys scripts rely on, the ledger line, worker-count independence, and bad input -> exit 2."""
import json

import pytest

from openlandlord.eval import arena, dealsets, ledger
from openlandlord.cli import main

DESIGN_KEYS = {"game", "agent", "opponent", "deals", "games", "win_rate", "win_rate_ci95",
               "mean_score", "mean_score_ci95", "per_role", "git_sha"}


@pytest.fixture
def ledger_file(tmp_path, monkeypatch):
    path = tmp_path / "ledger.jsonl"
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(path))
    return path


@pytest.mark.parametrize("game,roles", [("doudizhu", {"landlord", "landlord_down", "landlord_up"}),
                                        ("shengji", {"declarers", "attackers"})])
def test_eval_json_keys_table_and_ledger(game, roles, tmp_path, ledger_file, capsys):
    out = tmp_path / "result.json"
    deals = 6 if game == "doudizhu" else 2
    assert main(["eval", "--game", game, "--agent", "random", "--opponent", "random",
                 "--deals", str(deals), "--seed", "3", "--workers", "1", "--json", str(out),
                 "--report", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.md").exists()
    result = json.loads(out.read_text())
    assert DESIGN_KEYS <= set(result)
    assert result["deals"] == deals and result["games"] == deals * (3 if game == "doudizhu" else 2)
    assert set(result["per_role"]) == roles
    assert "win rate" in capsys.readouterr().out
    entry, = ledger.read()
    assert set(ledger.LEDGER_KEYS) <= set(entry)
    assert entry["kind"] == "eval" and entry["agents"] == ["random", "random"]
    assert entry["result"]["mean_score"] == result["mean_score"]
    assert entry["seeds"] == {"seed": 3} and entry["counts"]["games"] == result["games"]


def _without_timings(result):
    return {k: v for k, v in result.items() if k not in ("timing", "seconds", "workers")}


class CountingBar:
    """Stands in for tqdm: adds up the progress the arena reports."""
    def __init__(self, total, **options):
        self.total, self.n = total, 0

    def update(self, n):
        self.n += n

    def close(self):
        pass


@pytest.mark.parametrize("game,opponent", [("doudizhu", "random"), ("shengji", "rule")])
def test_worker_count_does_not_change_results(game, opponent, monkeypatch):
    bars = []
    monkeypatch.setattr(arena, "tqdm", lambda **kw: bars.append(CountingBar(**kw)) or bars[-1])
    deal_set = dealsets.adhoc(game, 8, seed=11)
    one, _ = arena.evaluate(game, "random", opponent, deal_set, seed=2, workers=1)
    two, _ = arena.evaluate(game, "random", opponent, deal_set, seed=2, workers=3)
    assert _without_timings(one) == _without_timings(two)
    assert one["timing"]["agent"]["decisions"] == two["timing"]["agent"]["decisions"]
    # Every game shows on the progress bar, from the worker processes too.
    assert [(bar.total, bar.n) for bar in bars] == [(one["games"], one["games"])] * 2


def test_league_ladder_and_ledger(tmp_path, ledger_file):
    out = tmp_path / "league.json"
    assert main(["league", "--game", "doudizhu", "--agents", "random", "random:seed=4",
                 "--deals", "4", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert sorted(row["agent"] for row in result["ladder"]) == ["random", "random:seed=4"]
    assert len(result["pairs"]) == 2
    assert sum(row["elo"] for row in result["ladder"]) == pytest.approx(0.0, abs=1e-6)
    assert ledger.read()[0]["kind"] == "league"


@pytest.mark.parametrize("argv,words", [
    (["eval", "--agent", "random", "--opponent", "random", "--deals", "0"], "--deals"),
    (["eval", "--agent", "random", "--opponent", "random", "--deals", "-3"], "--deals"),
    (["eval", "--agent", "random", "--opponent", "random", "--deal-set", "nosuch"], "deal set"),
    (["eval", "--game", "shengji", "--agent", "random", "--opponent", "random",
      "--deal-set", "doudizhu-dev-300"], "deal set"),
    (["eval", "--agent", "nosuchagent", "--opponent", "random", "--deals", "5"], "nosuchagent"),
    (["eval", "--agent", "random", "--opponent", "random", "--deals", "5", "--workers", "0"], "--workers"),
    (["eval", "--agent", "random", "--opponent", "random", "--deal-set", "doudizhu-dev-300",
      "--seed", "-1"], "--seed"),
    (["eval", "--agent", "rule:superb", "--opponent", "random", "--deals", "5",
      "--workers", "2"], "superb"),
    (["league", "--agents", "random", "--deals", "5"], "two agents"),
    (["league", "--agents", "random", "random", "--deals", "5"], "twice"),
])
def test_bad_input_exits_2_with_one_line(argv, words, capsys, ledger_file):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert not ledger_file.exists()


def test_shengji_match_mode_from_a_deal_set_file(tmp_path, ledger_file):
    """A deal set with mode "match" plays whole campaigns, teams swapped, and reports the
    match win rate; a deal set can also be named by its path."""
    path = tmp_path / "one-match.json"
    path.write_text(json.dumps({"name": "one-match", "game": "shengji", "purpose": "dev",
                                "options": {"rules": "tractor", "mode": "match"},
                                "seeds": [dealsets.EVAL_SEEDS.start + 4_000_000]}))
    out = tmp_path / "match.json"
    assert main(["eval", "--game", "shengji", "--agent", "random", "--opponent", "random",
                 "--deal-set", str(path), "--workers", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["mode"] == "match" and result["games"] == 2 and list(result["per_role"]) == ["match"]
    assert result["win_rate"] in (0.0, 0.5, 1.0)
    assert result["seat_games"] == {"0": 1, "1": 1, "2": 1, "3": 1}
