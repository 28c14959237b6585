"""The `classic` PIMC teacher's declarations (`search_declaration` in
games/shengji/_pimc_classic.pyx): each world deals the cards the seat has not seen, each
candidate (pass, declare alone, declare the pair) is rolled out over the rest of the deal,
the burial and the play; its native rule declaration and burial are the expert rule bot's."""
import dataclasses

import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.errors import UserError
from openlandlord.games import spec
from openlandlord.games.shengji import _pimc_classic as native
from openlandlord.games.shengji import pimc
from openlandlord.games.shengji.rule import ShengjiRuleBot
from openlandlord.games.shengji.rules import CARD_IDS, RANKS, SUITS, counts

SHENGJI = spec("shengji")


def _declare_positions(deals, seed=3_000_000_000):
    """(observation, legal) at every declaration choice of classic deals of any trump rank,
    the even deals declared by rule:expert, the odd ones passed throughout (so pairs are
    offered with nothing declared), and the bury observations met on the way."""
    bot = ShengjiRuleBot("expert")
    out, burials = [], []
    for d in range(deals):
        state = SHENGJI.new_deal(seed + d, rules="classic", dealer=d % 4, trump_rank="any")
        while state.phase == "declare":
            legal = state.legal_moves()
            obs = state.observation(state.current_seat)
            if len(legal) > 1:
                out.append((obs, legal))
            state.play(legal[int(np.argmax(bot.scores(obs, legal)))] if d % 2 == 0 else ())
        burials.append(state.observation(state.current_seat))
    return out, burials


POSITIONS, BURIALS = _declare_positions(24)


def _scores(obs, legal, which=None, skip=0, worlds=8, seed=5, rollout="rule"):
    decision = pimc.decision(obs, legal, "points")
    which = list(range(len(legal))) if which is None else which
    return np.array(decision.search(which, skip, worlds, rollout, seed))


def test_the_search_is_deterministic_for_a_seed_and_independent_of_the_other_candidates():
    obs, legal = next((o, l) for o, l in POSITIONS if len(l) == 3)
    a = _scores(obs, legal)
    assert (a == _scores(obs, legal)).all()
    for k in range(3):
        assert _scores(obs, legal, which=[k])[0] == a[k]
    assert _scores(obs, legal, which=[2, 0]).tolist() == [a[2], a[0]]


def test_worlds_continue_from_skip():
    obs, legal = POSITIONS[1]
    first = _scores(obs, legal, skip=0, worlds=16)
    second = _scores(obs, legal, skip=16, worlds=16)
    assert np.allclose((first + second) / 2, _scores(obs, legal, worlds=32))


@pytest.mark.parametrize("rollout", ["rule", "random"])
def test_every_declaration_position_scores_finite(rollout):
    assert len(POSITIONS) > 80
    kinds = set()
    for obs, legal in POSITIONS:
        s = _scores(obs, legal, worlds=2, rollout=rollout)
        assert len(s) == len(legal) and np.isfinite(s).all()
        assert (np.abs(s) <= 4).all()           # levels and point margins / 80, bounded
        kinds.add((len(legal), bool(obs.declaration)))
    assert (3, False) in kinds and (2, True) in kinds  # pairs offered, overrides offered


def test_bad_input_is_a_clear_error():
    obs, legal = next((o, l) for o, l in POSITIONS if not o.declaration)
    rank = obs.trump_rank
    plain = next(c for c in obs.hand if c[0] != rank and c not in ("SJ", "BJ"))
    with pytest.raises(UserError, match="not a declaration open"):
        pimc.decision(obs, legal + [(plain,)], "points").search([len(legal)], 0, 2, "rule", 1)
    missing = dataclasses.replace(obs, hand=obs.hand[1:])
    with pytest.raises(UserError, match="inconsistent"):
        pimc.decision(missing, legal, "points").search([0], 0, 2, "rule", 1)
    other_seat = dataclasses.replace(obs, seat=(obs.seat + 1) % 4)
    with pytest.raises(UserError, match="goes to seat"):
        pimc.decision(other_seat, legal, "points").search([0], 0, 2, "rule", 1)
    decision = pimc.decision(obs, legal, "points")
    with pytest.raises(ValueError, match="rollout"):
        native.search_declaration(decision.rank, decision.hand, obs.seat, obs.dealer,
                                  decision.dealt, 0, -1, decision.unseen, decision.known,
                                  decision.plays, 0, 2, "greedy", 1)


def test_the_native_rule_declaration_and_burial_are_the_rule_bots():
    bot = ShengjiRuleBot("expert")
    for obs, legal in POSITIONS:
        d = pimc.decision(obs, legal, "levels")
        card = CARD_IDS[legal[1][0]]
        copies = len(legal[int(np.argmax(bot.scores(obs, legal)))])
        assert native.rule_declaration_choice(d.rank, d.hand, card, d.declared) == copies
    for obs in BURIALS:
        assert obs.phase == "bury"
        bury = bot.choose_play(obs)
        native_bury = native.rule_burial_of(RANKS.index(obs.trump_rank),
                                            -1 if obs.trump_suit == "N" else SUITS.index(obs.trump_suit),
                                            counts(list(obs.hand)).astype(np.uint8))
        assert np.frombuffer(native_bury, np.uint8).tolist() == counts(list(bury)).tolist()


def test_declaring_a_long_strong_suit_beats_passing_on_constructed_hands():
    # Seat 0 deals and has just received its 11th card, the second 2H (trump rank 2), holding
    # hearts AH AH KH QH JH and four more hearts or jokers: declaring the pair makes its side's
    # long suit trump; passing leaves the trump to the others or the kitty.
    #   seat 0: 2H 2H AH AH KH QH JH + 4 of {TH TH 9H 9H 8H SJ BJ}, random per trial
    rng = np.random.default_rng(1)
    wins = 0
    for trial in range(20):
        extra = list(rng.choice(["TH", "TH", "9H", "9H", "8H", "SJ", "BJ"], 4, replace=False))
        hand = counts(["2H", "2H", "AH", "AH", "KH", "QH", "JH"] + extra).astype(np.uint8)
        unseen = (2 - hand).astype(np.uint8)
        known = [np.zeros(54, np.uint8)] * 3
        pair = np.zeros(54, np.uint8)
        pair[CARD_IDS["2H"]] = 2
        passed, declared = native.search_declaration(0, hand, 0, 0, 41, 0, -1, unseen, known,
                                                     [np.zeros(54, np.uint8), pair], 0, 16,
                                                     "rule", trial, "points")
        wins += declared > passed
    assert wins >= 15
