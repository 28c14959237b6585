"""`openlandlord compare A.json B.json`: two evaluations of the same deals against the same
opponent, paired by deal (eval.compare)."""
import json
import re

import numpy as np
import pytest

from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.eval import compare, stats


def evaluate(tmp_path, name, agent, opponent="random", game="shengji", deals=4, seed=3, *extra):
    out = tmp_path / f"{name}.json"
    assert main(["eval", "--game", game, "--agent", agent, "--opponent", opponent,
                 "--deals", str(deals), "--seed", str(seed), "--workers", "1", "--no-records",
                 "--json", str(out), *extra]) == 0
    return out


@pytest.fixture
def ledger_file(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(tmp_path / "ledger.jsonl"))


def test_compare_is_the_paired_bootstrap_of_the_per_deal_differences(tmp_path, ledger_file, capsys):
    a = evaluate(tmp_path, "rule", "rule:expert")
    b = evaluate(tmp_path, "random", "random")
    out = tmp_path / "cmp.json"
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "rule:expert minus random, each against random" in table and "mean points" in table
    result = json.loads(out.read_text())
    ra, rb = json.loads(a.read_text()), json.loads(b.read_text())
    assert result["deals"] == 4 and set(result["figures"]) == {"win", "score", "points"}
    for key, f in result["figures"].items():
        x, y = np.array(ra["per_deal"][key]), np.array(rb["per_deal"][key])
        mean, ci = stats.paired_bootstrap(x, y, seed=list(result["figures"]).index(key))
        assert f["difference"] == pytest.approx(x.mean() - y.mean()) == pytest.approx(mean)
        assert f["difference_ci95"] == pytest.approx(ci)
        assert f["agent"] == pytest.approx(x.mean()) and f["baseline"] == pytest.approx(y.mean())
        assert f["deals_that_differ"] == int(np.count_nonzero(x != y))
    assert result["figures"]["points"]["agent"] == pytest.approx(ra["mean_points"])


def test_compare_pairs_the_roles_so_a_head_to_head_reads_against_the_opponent_with_itself(
        tmp_path, ledger_file, capsys):
    """A head to head's per-role figures are the roles' payoffs; `per_deal_role` keeps them by
    deal, and compare pairs two results role by role over the deals both played the role in:
    A against B beside B against B reads as A's gain in each role."""
    a = json.loads(evaluate(tmp_path, "ab", "rule", "random", "doudizhu", 6).read_text())
    b = json.loads(evaluate(tmp_path, "bb", "random", "random", "doudizhu", 6).read_text())
    for result in (a, b):
        roles = result["per_deal_role"]
        assert set(roles) == set(result["per_role"]) == {"landlord", "landlord_down", "landlord_up"}
        for role, entry in roles.items():
            assert entry["deal"] == list(range(6)) and set(entry) == {"deal", "win", "score"}
            assert np.mean(entry["score"]) == pytest.approx(result["per_role"][role]["mean_score"])
    result = compare.compare(a, b)
    for role, entry in result["roles"].items():
        x, y = np.array(a["per_deal_role"][role]["score"]), np.array(b["per_deal_role"][role]["score"])
        assert entry["deals"] == 6 and entry["score"]["difference"] == pytest.approx(x.mean() - y.mean())
    assert "mean score by role" in compare.format_table(result)
    same = compare.compare(a, a)
    assert all(e["score"]["difference"] == 0 for e in same["roles"].values())
    older = {k: v for k, v in a.items() if k != "per_deal_role"}      # results written before it
    assert "roles" not in compare.compare(older, b)
    # a role played on other deals only is left out, not paired by position
    shifted = json.loads(json.dumps(a))
    shifted["per_deal_role"]["landlord"]["deal"] = list(range(10, 16))
    assert "landlord" not in compare.compare(shifted, b)["roles"]


def test_an_evaluation_compared_with_itself_differs_by_nothing(tmp_path, ledger_file):
    a = json.loads(evaluate(tmp_path, "a", "rule").read_text())
    result = compare.compare(a, a)
    for f in result["figures"].values():
        assert f["difference"] == 0 and f["difference_ci95"] == [0, 0] and f["deals_that_differ"] == 0


def test_the_douzero_protocol_keeps_adp_per_deal_so_two_agents_compare_by_it(tmp_path, ledger_file):
    a = evaluate(tmp_path, "rule", "rule", "random", "doudizhu", 6, 3, "--protocol", "douzero")
    b = evaluate(tmp_path, "random", "random", "random", "doudizhu", 6, 3, "--protocol", "douzero")
    ra = json.loads(a.read_text())
    assert np.mean(ra["per_deal"]["douzero_points"]) == pytest.approx(ra["adp"])
    result = compare.compare(ra, json.loads(b.read_text()))
    assert result["figures"]["douzero_points"]["agent"] == pytest.approx(ra["adp"])


def test_a_mirror_evaluation_keeps_no_douzero_points(tmp_path, ledger_file):
    ra = json.loads(evaluate(tmp_path, "m", "rule", "random", "doudizhu", 3).read_text())
    assert set(ra["per_deal"]) == {"win", "score"}


@pytest.mark.parametrize("change,why", [
    ({"opponent": "rule"}, "differ in opponent"),
    ({"deal_set": {"name": "other"}}, "differ in deal_set ('adhoc-shengji-n4-s3' vs 'other')"),
    ({"game": "doudizhu"}, "differ in game"),
    ({"protocol": "douzero"}, "differ in protocol"),
])
def test_evaluations_of_other_deals_or_opponents_are_refused(tmp_path, ledger_file, change, why):
    a = json.loads(evaluate(tmp_path, "a", "rule").read_text())
    with pytest.raises(UserError, match=re.escape(why)):
        compare.compare(a, {**a, **change})


def test_bad_input_is_one_line_and_exit_2(tmp_path, ledger_file, capsys):
    a = evaluate(tmp_path, "a", "rule")
    other = evaluate(tmp_path, "b", "rule", "rule:easy")
    not_eval = tmp_path / "x.json"
    not_eval.write_text('{"win_rate": 1}')
    broken = tmp_path / "y.json"
    broken.write_text("{")
    existing = tmp_path / "done.json"
    existing.write_text("{}")
    capsys.readouterr()
    for args, words in [([str(a), str(tmp_path / "none.json")], "no such file"),
                        ([str(a), str(not_eval)], "no per_deal"),
                        ([str(a), str(broken)], "not a readable JSON file"),
                        ([str(a), str(other)], "differ in opponent"),
                        ([str(a), str(a), "--json", str(existing)], "--force")]:
        assert main(["compare", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err, err
    assert existing.read_text() == "{}"
    assert main(["compare", str(a), str(a), "--json", str(existing), "--force"]) == 0
    assert json.loads(existing.read_text())["deals"] == 4
