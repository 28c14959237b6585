"""docs/examples/shengji_gap.py: the split player asks the teacher exactly where its kind says
(`all` plays the teacher's games, `none` the student's, seed for seed) and a real split
plays games of its own."""
import pathlib
import sys

import pytest

from eval import dealsets
from eval.arena import evaluate
from openlandlord import agents

STUDENT = str(pathlib.Path(__file__).parent.parent / "data" / "models" / "shengji")


@pytest.fixture(scope="module")
def gap(load_example):
    yield load_example("shengji_gap", register=True)
    sys.modules.pop("shengji_gap", None)
    agents._FACTORIES.pop("split", None)     # play() registers it; no other test should see it


def test_split_routes_decisions_by_kind(gap):
    deals = dealsets.adhoc("shengji", 4, 11, {"rules": "tractor", "trump_rank": "any"})
    keys = ("mean_points", "mean_score", "win_rate")
    def figures(result):
        return tuple(result[k] for k in keys)
    teacher, _ = evaluate("shengji", "random", "rule:expert", deals, workers=1, progress=False)
    student, _ = evaluate("shengji", f"student:{STUDENT}", "rule:expert", deals, workers=1, progress=False)
    assert figures(gap.play("all", deals, STUDENT, "random")) == figures(teacher)
    assert figures(gap.play("none", deals, STUDENT, "random")) == figures(student)
    lead = figures(gap.play("lead", deals, STUDENT, "random"))
    assert lead != figures(teacher) and lead != figures(student)
