"""Markdown + PNG reports (eval.report) from evaluation and league results."""
import pytest

from openlandlord.eval import report

pytest.importorskip("matplotlib")


def _entry(win, score):
    return {"games": 10, "win_rate": win, "win_rate_ci95": [win - 0.1, win + 0.1],
            "mean_score": score, "mean_score_ci95": [score - 0.5, score + 0.5]}


def test_eval_report_writes_page_and_plots(tmp_path):
    result = {"game": "doudizhu", "agent": "rule", "opponent": "random", "seed": 0,
              "deal_set": {"name": "adhoc"}, "deals": 10, "git_sha": "abc", **_entry(0.6, 0.4),
              "games": 30, "per_role": {"landlord": _entry(0.5, 0.2), "landlord_up": _entry(0.7, 0.6)},
              "tail": {"lost_with_bombs": 0.1}, "per_deal": {"score": [0.0, 1.0, -2.0, 3.0]},
              "timing": {"agent": {"decisions": 5, "ms_per_decision": 0.2},
                         "opponent": {"decisions": 0, "ms_per_decision": None}}}
    page = report.write_eval_report(result, str(tmp_path / "r"))
    text = open(page).read()
    assert "| landlord_up | 10 | 0.700 [0.600, 0.800] |" in text
    for png in ("scores.png", "roles.png"):
        data = (tmp_path / "r" / png).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 1000


def test_league_report_ranks_by_elo(tmp_path):
    result = {"game": "shengji", "deals": 20, "seed": 1, "git_sha": "abc", "anchor": None,
              "deal_set": {"name": "adhoc"},
              "ladder": [{"agent": "rule", "elo": 50.0, "elo_ci95": [10.0, 90.0]},
                         {"agent": "random", "elo": -50.0, "elo_ci95": [-90.0, -10.0]}],
              "pairs": [{"agent": "rule", "opponent": "random", **_entry(0.7, 1.0)}]}
    page = report.write_league_report(result, str(tmp_path))
    text = open(page).read()
    assert text.index("`rule`") < text.index("`random`")
    assert (tmp_path / "ladder.png").read_bytes().startswith(b"\x89PNG")
