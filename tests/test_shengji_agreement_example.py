"""docs/examples/shengji_agreement.py: the recorded teacher agrees with itself, an agent that
is the reference (a deterministic one) gives up nothing, and regrets are never negative."""
import json

import pytest

from openlandlord.cli import main


@pytest.fixture(scope="module")
def agreement(load_example):
    return load_example("shengji_agreement")


def test_agreement_measures_against_the_reference(agreement, tmp_path):
    data = tmp_path / "data"
    assert main(["generate", "--game", "shengji", "--teacher", "pimc:objective=points,worlds=4", "--deals", "6",
                 "--out", str(data), "--workers", "1", "--seed", "5"]) == 0
    got = agreement.measure(str(data), 40, "rule:expert", ["rule:expert", "random"])
    assert 0 < got["decisions"] <= 40
    a = got["agents"]
    assert a["recorded teacher"]["agree_teacher"] == 1.0
    assert a["rule:expert"]["regret"] == 0.0 and a["rule:expert"]["agree_reference"] == 1.0
    assert all(v["regret"] >= 0.0 and v["regret_ci95"][0] <= v["regret"] <= v["regret_ci95"][1] for v in a.values())
    assert a["random"]["regret"] > 0.0
    # Paired by decision against the first agent: the reference itself gives up nothing, so
    # random's paired difference is its own regret, with a CI around it.
    (name, (diff, (lo, hi))), = agreement.paired(got).items()
    assert name == "random" and diff == pytest.approx(a["random"]["regret"]) and lo <= diff <= hi


def test_paired_reads_a_saved_result_again(agreement, tmp_path, capsys):
    saved = {"agents": {"recorded teacher": {}, "a": {}, "b": {}},
             "per_decision": {"recorded teacher": [0.0, 0.0], "a": [1.0, 3.0], "b": [0.0, 1.0]}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(saved))
    assert agreement.main(["--paired", str(path)]) == 0
    assert "b minus a, paired by decision: regret -1.50 [-2.00, -1.00]" in capsys.readouterr().out
    assert agreement.main(["--paired"]) == 2
