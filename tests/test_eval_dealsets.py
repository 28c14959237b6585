"""Evaluation deal sets (eval.dealsets): committed files, reserved seeds, ad-hoc sets."""
import json
import os

import pytest

from openlandlord.eval import dealsets
from openlandlord.errors import UserError


def test_the_promised_sets_are_committed():
    assert {"doudizhu-dev-300", "doudizhu-test-1000", "shengji-dev-200",
            "shengji-test-500"} <= set(dealsets.committed_names())


@pytest.mark.parametrize("name", sorted(dealsets.COMMITTED))
def test_committed_sets_exist_and_match_their_recipe(name):
    deal_set = dealsets.load(name)
    number, game, purpose, deals, options = dealsets.COMMITTED[name]
    assert (deal_set.game, deal_set.purpose, len(deal_set.seeds)) == (game, purpose, deals)
    assert json.load(open(os.path.join(dealsets.DATA_DIR, f"{name}.json"))) == dealsets.build_committed(name)


def test_all_eval_seeds_are_reserved_and_sets_disjoint():
    seen = set()
    for name in dealsets.COMMITTED:
        seeds = set(dealsets.load(name).seeds)
        assert all(s in dealsets.EVAL_SEEDS for s in seeds)
        assert not seeds & seen
        seen |= seeds
    adhoc = dealsets.adhoc("doudizhu", 500, seed=9).seeds
    assert all(s in dealsets.EVAL_SEEDS for s in adhoc) and not set(adhoc) & seen


def test_adhoc_sets_are_reproducible_and_prefix_stable():
    a = dealsets.adhoc("shengji", 50, seed=4)
    assert a == dealsets.adhoc("shengji", 50, seed=4)
    assert dealsets.adhoc("shengji", 80, seed=4).seeds[:50] == a.seeds
    assert dealsets.adhoc("shengji", 50, seed=5).seeds != a.seeds


@pytest.mark.parametrize("call", [lambda: dealsets.load("no-such-set"),
                                  lambda: dealsets.load("shengji-dev-200", "doudizhu"),
                                  lambda: dealsets.adhoc("doudizhu", 0, 1),
                                  lambda: dealsets.adhoc("doudizhu", 5, -1)])
def test_bad_deal_sets_are_user_errors(call):
    with pytest.raises(UserError):
        call()
