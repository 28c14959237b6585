"""Shengji `--trump-rank 2..A|any`: a single deal's trump rank, validated by the spec, left
out of every record at its default (so earlier artefacts keep their bytes), recorded
otherwise; evaluations slice their figures by trump rank."""
import json
from collections import Counter

import pytest

from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.games import spec

SHENGJI = spec("shengji")


def test_default_is_not_recorded_and_other_values_are():
    assert SHENGJI.deal_options({}) == SHENGJI.deal_options({"trump_rank": "2"}) == {"rules": "tractor"}
    assert SHENGJI.deal_options({"trump_rank": "any"}) == {"rules": "tractor", "trump_rank": "any"}
    with pytest.raises(UserError, match="--trump-rank '1' is not a shengji trump_rank"):
        SHENGJI.deal_options({"trump_rank": "1"})


@pytest.mark.parametrize("rules", ["tractor", "classic"])
def test_a_rank_sets_the_declarers_level_and_keeps_the_cards(rules):
    for rank, level in (("2", 2), ("7", 7), ("T", 10), ("A", 14)):
        deal = SHENGJI.new_deal(11, rules=rules, trump_rank=rank)
        assert deal.levels == (level, level) and deal.rules.trump_rank == rank
    # The same seed deals the same cards whatever the rank (the rank has its own stream).
    if rules == "tractor":
        assert SHENGJI.new_deal(11, trump_rank="A").hands() != () and \
            sorted(map(sorted, SHENGJI.new_deal(11, trump_rank="A").hands())) == \
            sorted(map(sorted, SHENGJI.new_deal(11).hands()))


def test_any_draws_every_rank_from_the_deal_seed():
    ranks = Counter(SHENGJI.new_deal(seed, trump_rank="any").rules.trump_rank for seed in range(650))
    assert set(ranks) == set("23456789TJQKA") and min(ranks.values()) > 25
    assert all(SHENGJI.new_deal(s, trump_rank="any").levels == SHENGJI.new_deal(s, trump_rank="any").levels
               for s in range(20))


def test_match_and_levels_refuse_a_trump_rank():
    with pytest.raises(UserError, match="a match starts at level 2"):
        SHENGJI.new_game(1, mode="match", trump_rank="5")
    with pytest.raises(UserError, match="not both"):
        SHENGJI.new_deal(1, levels=(3, 3), trump_rank="5")


def test_other_games_refuse_the_flag(capsys):
    assert main(["eval", "--game", "doudizhu", "--trump-rank", "5", "--agent", "random",
                 "--opponent", "random", "--deals", "1"]) == 2
    assert "--trump-rank is not an option of doudizhu" in capsys.readouterr().err


def test_generate_records_the_rank_and_eval_slices_by_it(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(tmp_path / "ledger.jsonl"))
    out = tmp_path / "data"
    assert main(["generate", "--game", "shengji", "--trump-rank", "any", "--teacher", "random",
                 "--deals", "2", "--workers", "1", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rules"] == {"rules": "tractor", "trump_rank": "any"}
    result = tmp_path / "r.json"
    assert main(["eval", "--game", "shengji", "--rules", "classic", "--trump-rank", "any", "--agent",
                 "random", "--opponent", "rule", "--deals", "8", "--json", str(result), "--report",
                 str(tmp_path / "rep"), "--workers", "1"]) == 0
    r = json.loads(result.read_text())
    assert r["deal_set"]["options"] == {"rules": "classic", "trump_rank": "any"}
    assert sum(e["games"] for e in r["per_trump"].values()) == r["games"] == 16
    assert all(" " in k for k in r["per_trump_role"])
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "## By trump and role" in report and (tmp_path / "rep" / "trump.png").exists()


def test_committed_all_rank_sets():
    from openlandlord.eval import dealsets
    for name, rules in (("shengji-allranks-dev-260", "tractor"), ("shengji-allranks-test-650", "tractor"),
                        ("shengji-classic-dev-260", "classic"), ("shengji-classic-test-650", "classic")):
        found = dealsets.load(name)
        assert found.options == {"rules": rules, "trump_rank": "any"}
        ranks = {SHENGJI.new_deal(s, rules=rules, trump_rank="any").rules.trump_rank for s in found.seeds}
        assert ranks == set("23456789TJQKA")
    assert dealsets.load("shengji-classic-match-test-100").options == {"rules": "classic", "mode": "match"}
