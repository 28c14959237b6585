"""`pimc:belief=student:DIR,belief_draws=K` (Shengji `tractor`): worlds weighted by a student's
belief head. The native draw keeps one of K uniform worlds in proportion to its weight; one
draw is the plain search; the head's slots map to the search's card ids."""
import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.errors import UserError
from openlandlord.games.shengji import Round
from openlandlord.games.shengji import _pimc as native
from openlandlord.games.shengji.features import slot_order
from openlandlord.games.shengji.pimc import Decision

STUDENT = "data/models/shengji"
BIG_JOKER = 53


def _position(seed, plays):
    """A tractor position after `plays` expert rule-bot plays, with several legal moves."""
    r = Round.new(seed, dealer=seed % 4)
    rule = make("rule:expert", 0)
    while True:
        legal = r.legal_moves(limit=None)
        if plays <= 0 and len(legal) > 1:
            return r, r.observation(r.current_seat), legal
        r.play(legal[int(np.argmax(rule.scores(r.observation(r.current_seat), legal)))])
        plays -= 1


def _open_deal():
    """81 unseen cards (one copy of card ids 0-26 is the searching seat's), 27 in each hand."""
    unseen = np.full(54, 2, np.uint8)
    unseen[:27] -= 1
    return unseen, [27, 27, 27], [0, 0, 0]


def test_without_a_belief_more_draws_change_nothing():
    unseen, sizes, voids = _open_deal()
    plain = native.sample_worlds(0, 0, unseen, sizes, voids, 300, 7)
    assert (native.sample_worlds(0, 0, unseen, sizes, voids, 300, 7, None, 16) == plain).all()
    assert (plain.sum(axis=2) == 27).all()
    assert (plain.sum(axis=(0, 1)) == 300 * unseen.astype(np.int64)).all()


def test_a_belief_moves_the_worlds_towards_it():
    unseen, sizes, voids = _open_deal()
    belief = np.zeros((3, 54))
    belief[0, BIG_JOKER] = np.log(50.0)     # the big jokers are 50 times likelier in hand 0
    plain = native.sample_worlds(0, 0, unseen, sizes, voids, 2000, 7)
    leaning = native.sample_worlds(0, 0, unseen, sizes, voids, 2000, 7, belief, 16)
    share = lambda worlds: worlds[:, 0, BIG_JOKER].sum() / worlds[:, :, BIG_JOKER].sum()
    assert 0.28 < share(plain) < 0.39
    assert share(leaning) > 0.8
    assert (leaning.sum(axis=2) == 27).all()          # every kept world still fits the sizes
    # an even belief is no belief: every world is kept in proportion to the same weight
    even = native.sample_worlds(0, 0, unseen, sizes, voids, 2000, 7, np.zeros((3, 54)), 16)
    assert 0.28 < share(even) < 0.39


def test_a_belief_never_breaks_the_known_voids():
    unseen, sizes, voids = _open_deal()
    belief = np.zeros((3, 54))
    belief[1, :13] = np.log(1000.0)      # hand 1 "should" hold spades, but it is void in them
    worlds = native.sample_worlds(1, 1, unseen, sizes, [0, 1, 0], 300, 3, belief, 16)
    plain_spades = [c for c in range(13) if c != 1]      # the spade 3 is a trump (rank 3)
    assert worlds[:, 1, plain_spades].sum() == 0
    assert (worlds.sum(axis=2) == 27).all()


def test_one_draw_is_the_plain_search():
    _, obs, legal = _position(5, 9)
    plain = make("pimc:objective=points,worlds=16", 3).scores(obs, legal)
    one = make(f"pimc:objective=points,worlds=16,belief=student:{STUDENT},belief_draws=1",
               3).scores(obs, legal)
    assert np.array_equal(plain, one)
    leaning = make(f"pimc:objective=points,worlds=16,belief=student:{STUDENT}", 3).scores(obs, legal)
    assert leaning.shape == plain.shape and not np.array_equal(plain, leaning)


class _FakeStudent:
    """A belief head answering slot r, hand h with (r + 1) * (h + 1) / 200."""

    def forward(self, sample):
        return {"belief_expect": np.fromfunction(lambda r, h: (r + 1) * (h + 1) / 200.0, (54, 3))}


def test_belief_weights_are_the_heads_counts_by_card_id():
    _, obs, legal = _position(8, 14)
    weights = Decision(obs, legal, "points").belief_weights(_FakeStudent())
    order = slot_order(obs)
    assert weights.shape == (3, 54) and weights.flags["C_CONTIGUOUS"]
    for slot in (0, 7, 30, 53):
        for hand in range(3):
            assert weights[hand, order[slot]] == pytest.approx(
                np.log(max((slot + 1) * (hand + 1) / 200.0, 1e-3)))


@pytest.mark.parametrize("spec,problem", [
    ("pimc:belief_draws=4", "belief_draws= goes with belief"),
    ("pimc:belief=data/models/shengji", "belief=student:DIR"),
    (f"pimc:belief=student:{STUDENT},belief_draws=0", "belief_draws"),
])
def test_bad_belief_options_are_user_errors(spec, problem):
    with pytest.raises(UserError, match=problem):
        make(spec, 0)


def test_belief_is_for_tractor_play_decisions_of_its_own_game():
    from openlandlord.games.doudizhu import Game
    g = Game.new(1)
    with pytest.raises(UserError, match="plays shengji, not doudizhu"):
        make(f"pimc:belief=student:{STUDENT}", 0).scores(g.observation(g.current_seat),
                                                         g.legal_moves())
    _, obs, legal = _position(2, 5)
    with pytest.raises(UserError, match="plays doudizhu, not shengji"):
        make("pimc:belief=student:data/models/doudizhu", 0).scores(obs, legal)
