"""`pimc:leaf=student:DIR,depth=D` (Dou Dizhu): the leaves are the worlds `search` plays,
cut D moves after the candidate, and every leaf's features are the featurizer's own arrays
of that position replayed on the referee."""
import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.errors import UserError
from openlandlord.features import featurize
from openlandlord.games.doudizhu import ACTIONS, Game
from openlandlord.games.doudizhu import _pimc as native
from openlandlord.games.doudizhu import pimc as adapter

STUDENT = "data/models/doudizhu"
RANKS = "3456789TJQKA2BR"


def _positions(seed, bidding="none", count=6):
    """Decisions with several legal moves along one seeded random game."""
    rng = np.random.default_rng(seed)
    g = Game.new(seed, bidding=bidding)
    out = []
    while not g.done and len(out) < count:
        legal = g.legal_moves()
        if g.phase == "play" and len(legal) > 1 and rng.random() < 0.5:
            out.append((g.clone(), g.observation(g.current_seat), legal))
        g.play(legal[int(rng.integers(len(legal)))])
    return out


def _args(d, obs, skip, worlds, seed):
    return (d.hand, obs.seat, obs.landlord, obs.cards_left, d.plays, d.to_beat, d.to_beat_seat,
            d.bombs, d.rockets, d.base, d.factor, d.unseen, d.lord_keeps, d.moves, skip, worlds,
            "rule", seed)


def _cards(packed):
    return "".join(RANKS[r] * ((packed >> 4 * r) & 0xF) for r in range(15))


def _world_game(obs, hidden, bidding, real):
    """The referee in one sampled world: the dealt hands are each seat's cards now plus what
    it played (the landlord's less the kitty), then the real game's public moves."""
    hands = []
    for s in range(3):
        now = obs.hand if s == obs.seat else _cards(hidden[s])
        cards = sorted(now + obs.played[s], key=RANKS.index)
        if s == obs.landlord:
            for ch in obs.kitty:
                cards.remove(ch)
        hands.append("".join(cards))
    if bidding != "none":   # the real bidding (bids, robs, doubles) on the world's cards
        g = Game.from_hands(hands, obs.kitty, bidding=bidding)
        for seat, word in obs.bids:
            g.play(word)
    else:
        g = Game.from_hands(hands, obs.kitty, landlord=obs.landlord)
    for seat, move in obs.plays:
        g.play(move)
    return g


@pytest.mark.parametrize("seed,bidding", [(1, "none"), (2, "none"), (3, "call-rob"), (4, "points")])
@pytest.mark.parametrize("depth", [0, 3])
def test_leaf_features_are_the_featurizers_arrays_of_the_replayed_world(seed, bidding, depth):
    checked = 0
    for real, obs, legal in _positions(seed, bidding):
        d = adapter.Decision(obs, legal)
        worlds = 3
        out = native.leaf_inputs(obs, *_args(d, obs, 1, worlds, seed), depth)
        hidden = native.sample_worlds(d.unseen, d.lord_keeps, obs.seat, obs.landlord,
                                      obs.cards_left, 1 + worlds, seed)[1:]
        for w in range(worlds):
            for k, move in enumerate(d.moves):
                leaf = out["leaf"][w, k]
                g = _world_game(obs, hidden[w], bidding, real)
                path = out["path"][leaf] if leaf >= 0 else None
                if leaf < 0:
                    continue
                for a in path[path >= 0]:
                    g.play(ACTIONS[a])
                assert (path >= 0).sum() == depth + 1 and path[0] == move
                mine = featurize(g.observation(g.current_seat), g.legal_moves())
                lo, hi = out["token_offsets"][leaf], out["token_offsets"][leaf + 1]
                np.testing.assert_array_equal(out["state_tokens"][lo:hi], mine["state_tokens"])
                assert out["role"][leaf] == mine["role"]
                np.testing.assert_array_equal(out["unseen"][leaf], mine["unseen"])
                np.testing.assert_array_equal(out["capacity"][leaf], mine["capacity"])
                # The share of the leaf seat's payoff: exact at the end of this world's game.
                s = g.current_seat
                while not g.done:
                    g.play(g.legal_moves()[0])
                pay = g.payoffs()
                assert pay[s] * out["share"][leaf] == pytest.approx(pay[obs.seat])
                checked += 1
    assert checked > 0


def test_leaf_past_the_end_is_search_bit_for_bit():
    for real, obs, legal in _positions(7):
        d = adapter.Decision(obs, legal)
        out = native.leaf_inputs(obs, *_args(d, obs, 2, 5, 9), native.MAX_DEPTH)
        assert (out["leaf"] < 0).all() and len(out["role"]) == 0
        assert out["payoff"].mean(axis=0).tolist() == native.search(*_args(d, obs, 2, 5, 9))


def test_leaf_agent_scores_are_seeded_and_use_the_value_head():
    real, obs, legal = _positions(11)[0]
    spec = f"pimc:worlds=8,leaf=student:{STUDENT},depth=1"
    a, b = make(spec, 3).scores(obs, legal), make(spec, 3).scores(obs, legal)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, make("pimc:worlds=8", 3).scores(obs, legal))


@pytest.mark.parametrize("spec,match", [
    ("pimc:leaf=rule", "leaf=student:DIR"),
    (f"pimc:leaf=student:{STUDENT},solve=8", "not both"),
    (f"pimc:leaf=student:{STUDENT},depth=999", "depth"),
    ("pimc:leaf=student:/nonexistent", "nonexistent"),
])
def test_leaf_bad_specs(spec, match):
    with pytest.raises(UserError, match=match):
        make(spec, 0)


def test_leaf_refuses_a_shengji_decision():
    from openlandlord.games import spec
    g = spec("shengji").new_game(1)
    agent = make(f"pimc:worlds=2,leaf=student:{STUDENT}", 0)
    obs, legal = g.observation(g.current_seat), g.legal_moves()
    with pytest.raises(UserError, match="Dou Dizhu"):
        agent.scores(obs, legal)


def test_value_check_reports_each_head():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from distill.valuecheck import value_check
    out = value_check([STUDENT], STUDENT, deals=2, seed=5, rollouts=4)
    head = out["heads"][STUDENT]
    assert out["decisions"] > 20 and -1 <= head["corr"] <= 1 and head["mse"] >= 0
    assert 0 < out["rollouts"]["decisions"] < out["decisions"]
    policy = head["policy"]
    assert 0 < policy["decisions"] < out["decisions"]
    assert 0 < policy["top_prob"] <= 1 and policy["gap_points_median"] >= 0
    assert policy["agree_with_mover"] == 1.0     # the head is the mover's own


def test_value_check_policy_figures_by_hand():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from distill.valuecheck import _policy
    out = _policy([[0.0, 1.0, 0.5], [2.0, 0.0]], [1, 1], 0.2)
    assert out["decisions"] == 2
    assert abs(out["gap_points_median"] - 0.2 * (0.5 + 2.0) / 2) < 1e-12   # gaps 0.1 and 0.4
    assert out["agree_with_mover"] == 0.5 and out["small_gap_share"] == 0.0
    p1 = 1 / (1 + np.exp(-1.0) + np.exp(-0.5))
    assert abs(out["top_prob"] - (p1 + 1 / (1 + np.exp(-2.0))) / 2) < 1e-12
