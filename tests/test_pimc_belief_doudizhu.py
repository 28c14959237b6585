"""`pimc:belief=student:DIR,belief_draws=K` in Dou Dizhu: worlds weighted by the student's
belief head over each rank's split between the two hidden seats (`Decision.belief_weights`,
`_pimc.deal_weighted`). One draw, or no belief, is the plain search bit for bit."""
import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.games.doudizhu import Game
from openlandlord.games.doudizhu import _pimc as native
from openlandlord.games.doudizhu.pimc import Decision

STUDENT = "data/models/doudizhu"
TWO = 12                       # rank index of the 2 ("3456789TJQKA2BR")


def _position(seed, plies):
    g = Game.new(seed)
    rule = make("rule", 0)
    for _ in range(plies):
        legal = g.legal_moves()
        g.play(legal[int(np.argmax(rule.scores(g.observation(g.current_seat), legal)))])
    return g


def _count(packed, r):
    return (packed >> 4 * r) & 15


def test_without_a_belief_or_with_one_draw_the_worlds_are_the_plain_ones():
    g = _position(3, 4)
    obs = g.observation(g.current_seat)
    d = Decision(obs, g.legal_moves())
    args = (d.unseen, d.lord_keeps, obs.seat, obs.landlord, obs.cards_left, 200, 7)
    plain = native.sample_worlds(*args)
    assert native.sample_worlds(*args, None, 16) == plain
    assert native.sample_worlds(*args, np.zeros((15, 25)), 1) == plain


def test_a_belief_moves_the_worlds_towards_it_and_keeps_them_legal():
    g = _position(4, 0)                     # the landlord's first move: 34 cards hidden
    obs = g.observation(g.current_seat)
    d = Decision(obs, g.legal_moves())
    n = _count(d.unseen, TWO)
    first = (obs.seat + 1) % 3
    assert n >= 2
    belief = np.zeros((15, 25))
    belief[TWO, n * 5 + 0] = np.log(50.0)   # every unseen 2 in the first hidden seat, 50x likelier
    args = (d.unseen, d.lord_keeps, obs.seat, obs.landlord, obs.cards_left, 1000, 9)
    plain = native.sample_worlds(*args)
    leaning = native.sample_worlds(*args, belief, 64)
    all_in_first = lambda worlds: np.mean([_count(w[first], TWO) == n for w in worlds])
    # uniform: about 0.04; kept in proportion to the weight, 64 draws: about 0.65 (0.70 at the limit)
    assert all_in_first(plain) < 0.1 and all_in_first(leaning) > 0.5
    for w in leaning:
        for s in range(3):
            if s != obs.seat:
                assert sum(_count(w[s], r) for r in range(15)) == obs.cards_left[s]


def test_belief_weights_are_the_heads_split_chances_over_the_uniform_prior():
    g = _position(5, 7)
    obs = g.observation(g.current_seat)
    d = Decision(obs, g.legal_moves())
    from openlandlord.agents.pimc import _student
    w = d.belief_weights(_student(STUDENT))
    assert w.shape == (15, 25)
    from math import comb
    from openlandlord.features import featurize
    unseen = featurize(obs, g.legal_moves())["unseen"]
    for r in range(15):
        n = int(unseen[r])
        ok = [(a, n - a) for a in range(n + 1)]
        chances = np.exp([w[r, a * 5 + b] + np.log(comb(n, a)) for a, b in ok])
        assert chances.sum() == pytest.approx(1.0, abs=1e-6)
        others = set(range(25)) - {a * 5 + b for a, b in ok}
        assert all(w[r, k] <= -1e8 for k in others)


def test_one_draw_is_the_plain_search_and_more_draws_differ():
    g = _position(6, 5)
    obs, legal = g.observation(g.current_seat), g.legal_moves()
    assert len(legal) > 2
    plain = make("pimc:worlds=16", 3).scores(obs, legal)
    one = make(f"pimc:worlds=16,belief=student:{STUDENT},belief_draws=1", 3).scores(obs, legal)
    assert np.array_equal(plain, one)
    leaning = make(f"pimc:worlds=16,belief=student:{STUDENT}", 3).scores(obs, legal)
    assert leaning.shape == plain.shape and not np.array_equal(plain, leaning)
