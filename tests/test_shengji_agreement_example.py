"""docs/examples/shengji_agreement.py: the recorded teacher agrees with itself, an agent that
is the reference (a deterministic one) gives up nothing, and regrets are never negative."""
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
