"""The featurizer's `classic` planes (games/shengji/features.py `_classic_planes`) on
hand-made positions: my buried kitty, the standing declaration, failed throws and their
penalty, the phase, a hidden kitty; all zero in `tractor`, whose arrays did not change."""
import dataclasses

import numpy as np

from openlandlord.games import spec
from openlandlord.games.shengji import features as F
from openlandlord.games.shengji.features import featurize, featurize_python, slot_order
from openlandlord.games.shengji.rules import CARD_IDS

SHENGJI = spec("shengji")


def _play_position(rules="classic"):
    state = SHENGJI.new_deal(17, rules=rules, dealer=1)
    while state.phase != "play":
        state.play(state.legal_moves(limit=None)[0] if state.phase != "bury"
                   else tuple(state.hands()[state.current_seat][:8]))
    return state


def _planes(obs, legal):
    arrays = featurize(obs, legal)
    python = featurize_python(obs, legal)
    assert all(np.array_equal(arrays[k], python[k]) for k in arrays)
    tokens = arrays["state_tokens"]
    slot = {card: tokens[i] for i, card in enumerate(np.array(slot_order(obs)))}
    return tokens, slot


def test_the_dealer_sees_its_kitty_and_the_others_a_hidden_one():
    state = _play_position()
    obs = state.observation(state.dealer)
    assert len(obs.kitty) == 8
    tokens, slot = _planes(obs, state.legal_moves(limit=None))
    ctx = tokens[F.NUM_SLOTS + F.NUM_SEATS]
    kitty_ids = [CARD_IDS[c] for c in obs.kitty]
    for card_id in set(kitty_ids):
        assert slot[card_id][F._V + F._S_KITTY] == kitty_ids.count(card_id) / 2
    assert sum(tokens[:F.NUM_SLOTS, F._V + F._S_KITTY]) == 4.0     # 8 cards / 2
    points = sum({"5": 5, "T": 10, "K": 10}.get(c[0], 0) for c in obs.kitty)
    assert np.isclose(ctx[F._V + F._CTX_CLASSIC + 3], points / 100)
    assert ctx[F._V + F._CTX_CLASSIC + 6] == 0                       # nothing hidden from me
    other = state.observation((state.dealer + 1) % 4)
    tokens, _ = _planes(other, [])
    assert tokens[:F.NUM_SLOTS, F._V + F._S_KITTY].sum() == 0
    assert tokens[F.NUM_SLOTS + F.NUM_SEATS, F._V + F._CTX_CLASSIC + 6] == 1


def test_a_declaration_shows_its_cards_until_played_and_who_made_it():
    state = _play_position()
    obs = state.observation(0)
    declarer = 3
    rank = obs.trump_rank
    cards = (f"{rank}S", f"{rank}S")
    made = dataclasses.replace(obs, declaration=(declarer, cards))
    tokens, slot = _planes(made, [])
    assert slot[CARD_IDS[cards[0]]][F._V + F._S_DECLARED] == 1.0      # both copies, / 2
    assert tokens[:F.NUM_SLOTS, F._V + F._S_DECLARED].sum() == 1.0
    seat_row = tokens[F.NUM_SLOTS + (declarer - 0) % 4]
    assert seat_row[F._V + F._SEAT_CLASSIC] == 1
    ctx = tokens[F.NUM_SLOTS + F.NUM_SEATS]
    assert ctx[F._V + F._CTX_CLASSIC + 4] == 1.0 and ctx[F._V + F._CTX_CLASSIC + 5] == 0
    # One copy played by the declarer in a finished trick: one still shown.
    trick = ((declarer, (cards[0],)), (0, ("3H",)), (1, ("4H",)), (2, ("5H",)))
    played = dataclasses.replace(made, tricks=((declarer, trick, declarer),))
    tokens, slot = _planes(played, [])
    assert slot[CARD_IDS[cards[0]]][F._V + F._S_DECLARED] == 0.5
    jokers = dataclasses.replace(obs, declaration=(2, ("BJ", "BJ")))
    tokens, _ = _planes(jokers, [])
    assert tokens[F.NUM_SLOTS + F.NUM_SEATS, F._V + F._CTX_CLASSIC + 5] == 1


def test_failed_throws_and_their_penalty():
    state = _play_position()
    obs = state.observation(0)
    throws = ((1, ("AS", "KS", "KS"), ("KS", "KS")), (2, ("AH", "QH"), ("QH",)))
    made = dataclasses.replace(obs, failed_throws=throws)
    tokens, _ = _planes(made, [])
    declarers = obs.declarers
    want = sum((10 if seat % 2 == declarers else -10) * (len(t) - len(d)) for seat, t, d in throws)
    ctx = tokens[F.NUM_SLOTS + F.NUM_SEATS]
    assert np.isclose(ctx[F._V + F._CTX_CLASSIC + 2], want / 100)
    assert tokens[F.NUM_SLOTS + 1, F._V + F._SEAT_CLASSIC + 1] == 1 / 8
    assert tokens[F.NUM_SLOTS + 2, F._V + F._SEAT_CLASSIC + 1] == 1 / 8


def test_phases_declare_and_bury():
    state = SHENGJI.new_deal(17, rules="classic", dealer=1)
    obs = state.observation(state.current_seat)
    tokens, _ = _planes(obs, state.legal_moves(limit=None))
    ctx = tokens[F.NUM_SLOTS + F.NUM_SEATS]
    assert (ctx[F._V + F._CTX_CLASSIC], ctx[F._V + F._CTX_CLASSIC + 1], ctx[F._V + 18]) == (1, 0, 0)
    while state.phase != "bury":
        state.play(state.legal_moves(limit=None)[0])
    tokens, _ = _planes(state.observation(state.current_seat), [])
    ctx = tokens[F.NUM_SLOTS + F.NUM_SEATS]
    assert (ctx[F._V + F._CTX_CLASSIC], ctx[F._V + F._CTX_CLASSIC + 1]) == (0, 1)


def test_tractor_positions_have_no_classic_planes():
    state = _play_position("tractor")
    obs = state.observation(0)
    tokens = featurize(obs, state.legal_moves())["state_tokens"]
    assert tokens[:F.NUM_SLOTS, F._V + F._S_KITTY:F._V + F._S_DECLARED + 1].sum() == 0
    assert tokens[F.NUM_SLOTS:F.NUM_SLOTS + 4, F._V + F._SEAT_CLASSIC:F._V + F._SEAT_CLASSIC + 2].sum() == 0
    assert tokens[F.NUM_SLOTS + 4, F._V + F._CTX_CLASSIC:F._V + F._CTX_CLASSIC + 7].sum() == 0
