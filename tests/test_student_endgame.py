"""`student:DIR,endgame=K`: the student hands the decisions it takes with K or fewer cards in
hand to its game's endgame search. With K past any hand it plays the search's games seed for
seed, with K = 0 the student's; a real K plays games of its own. Bad options are one clear
error. The `Routed` agent it is built on also carries `bid=rule`; a `choose_play` that
answers None has the play built card by card (loop.build_play, regression)."""
import pathlib

import numpy as np
import pytest

from eval import dealsets
from eval.arena import evaluate
from openlandlord import agents
from openlandlord.agents.loop import build_play
from openlandlord.errors import UserError
from openlandlord.games import spec as game_spec

STUDENT = str(pathlib.Path(__file__).parent.parent / "data" / "models" / "shengji")
DDZ = str(pathlib.Path(__file__).parent.parent / "data" / "models" / "doudizhu")
KEYS = ("mean_points", "mean_score", "win_rate")


def figures(agent, deals, game="shengji", keys=KEYS, opponent="rule:expert"):
    result, _ = evaluate(game, agent, opponent, deals, workers=1, progress=False)
    return tuple(result[k] for k in keys)


def test_endgame_routes_by_cards_in_hand():
    deals = dealsets.adhoc("shengji", 3, 11, {"rules": "tractor", "trump_rank": "any"})
    search = figures("pimc:objective=points,worlds=2", deals)
    student = figures(f"student:{STUDENT}", deals)
    assert figures(f"student:{STUDENT},endgame=200,endgame_worlds=2", deals) == search
    assert figures(f"student:{STUDENT},endgame=0", deals) == student
    mixed = figures(f"student:{STUDENT},endgame=8,endgame_worlds=2", deals)
    assert mixed not in (search, student)


def test_endgame_solve_hands_the_search_its_solver():
    deals = dealsets.adhoc("shengji", 2, 13, {"rules": "tractor", "trump_rank": "any"})
    search = figures("pimc:objective=points,worlds=2,solve=12", deals)
    assert search != figures("pimc:objective=points,worlds=2", deals)     # the solver shows
    agent = f"student:{STUDENT},endgame=200,endgame_worlds=2,endgame_solve=12"
    assert figures(agent, deals) == search
    assert agents.make(agent, 1).name.endswith(",endgame=200,endgame_worlds=2,endgame_solve=12")


def test_endgame_in_doudizhu():
    deals = dealsets.adhoc("doudizhu", 3, 5, {})
    keys = ("mean_score", "win_rate")
    search = figures("pimc:worlds=2", deals, "doudizhu", keys, "rule")
    assert figures(f"student:{DDZ},endgame=20,endgame_worlds=2", deals, "doudizhu", keys, "rule") == search


def test_endgame_agent_shape():
    agent = agents.make(f"student:{STUDENT},endgame=8", 1)
    assert agent.name.endswith(",endgame=8")
    assert not hasattr(agent, "scores_batch")      # built per game, like the search
    assert hasattr(agent, "choose_play")
    assert hasattr(agents.make(f"student:{STUDENT}", 1), "scores_batch")
    both = agents.make(f"student:{STUDENT},endgame=8,bid=rule", 1)
    assert both.name.endswith(",endgame=8,bid=rule")
    for bad, match in ((f"student:{STUDENT},endgame_worlds=4", "needs endgame"),
                       (f"student:{STUDENT},endgame_solve=12", "needs endgame"),
                       (f"student:{STUDENT},endgame=8,endgame_solve=0", "at least 1"),
                       (f"student:{STUDENT},endgame=-1", "at least 0"),
                       (f"student:{STUDENT},endgame=x", "not a valid int"),
                       (f"student:{STUDENT},endgame=8,endgame_worlds=0", "at least 1")):
        with pytest.raises(UserError, match=match):
            agents.make(bad, 1)


def test_build_play_with_a_choose_play_of_none_goes_card_by_card():
    """Regression: build_play returned a choose_play's None as the move; None means 'build it
    card by card', as `answer` already read it."""
    game = game_spec("shengji")

    class Nothing:
        name = "nothing"

        def scores(self, obs, legal):
            return np.zeros(len(legal))

        def choose_play(self, obs):
            return None

    class Plain:
        name = "plain"

        def scores(self, obs, legal):
            return np.zeros(len(legal))

    state = game.new_game(3, rules="tractor")
    assert build_play(Nothing(), state) == build_play(Plain(), state) is not None


def test_endgame_leaves_bidding_decisions_to_the_student():
    """A `classic` declaration comes with a few cards dealt: it is not the endgame."""
    agent = agents.make(f"student:{STUDENT.replace('shengji', 'shengji-classic')},endgame=25", 1)
    game = game_spec("shengji")
    state = game.new_game(4, rules="classic")
    seen = {"bidding": 0, "play": 0}
    from openlandlord.agents.loop import decisions, drive

    def choose(decision):
        if decision.legal is None:
            return None
        kind = "bidding" if game.bidding_phase(decision.obs) else "play"
        routed = agent.route(decision.obs, decision.legal)
        assert (routed is None) == (kind == "bidding" or len(decision.obs.hand) > 25)
        seen[kind] += 1
        return 0
    drive(decisions(state, game.legal_cap), choose)
    assert seen["bidding"] > 0 and seen["play"] > 0


def test_endgame_search_is_the_teacher_of_the_positions_ruleset(monkeypatch):
    """Regression: a Shengji `classic` position's endgame search was made from the `tractor`
    recipe's teacher (`game.ship_recipe`), whatever the ruleset; it is the recipe of the
    position's own rules (`ship_recipe_for`), one search per ruleset."""
    from openlandlord.export import latency

    spec = game_spec("shengji")
    monkeypatch.setattr(type(spec), "ship_classic_recipe",
                        dict(spec.ship_classic_recipe, teacher="pimc:objective=levels,worlds=3"))
    agent = agents.make(f"student:{STUDENT},endgame=200", 1)
    searched = {}
    for rules in ("classic", "tractor"):
        states = latency.decision_states("shengji", 1, 0, {"rules": rules, "trump_rank": "any"})
        for state in states:
            obs = state.observation(state.current_seat)
            if not spec.bidding_phase(obs):
                searched[rules] = agent.route(obs, state.legal_moves())
                break
    assert "objective=levels" in searched["classic"].name and "worlds=3" in searched["classic"].name
    assert searched["tractor"].name.startswith(spec.ship_recipe["teacher"])
    assert searched["classic"] is not searched["tractor"]
