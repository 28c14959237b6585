"""The Dou Dizhu referee: move table, classification, legal moves, the bidding flows, play,
scoring, bad input, and exactness against rlcard, douzero and OpenSpiel."""
import random

import pytest

from openlandlord.errors import IllegalMove, UserError
from openlandlord.games.doudizhu import (ACTIONS, RANKS, Game, Observation, action_id, canonical,
                                         classify, deal, legal_moves, random_rollouts)
from openlandlord.games.doudizhu import oracle_check


# -- the action table ------------------------------------------------------------------
def test_actions_are_the_27472_canonical_moves_of_rlcard():
    rlcard_utils = pytest.importorskip("rlcard.games.doudizhu.utils")
    assert len(ACTIONS) == 27472 and ACTIONS[0] == ""
    assert len(set(ACTIONS)) == len(ACTIONS)
    assert set(ACTIONS) - {""} == set(rlcard_utils.ID_2_ACTION) - {"pass"}


def test_action_id_inverts_actions_and_accepts_any_card_order():
    assert all(action_id(m) == i for i, m in enumerate(ACTIONS))
    assert all(m == "".join(sorted(m, key=RANKS.index)) for m in ACTIONS)
    assert action_id("76543") == action_id("34567")
    with pytest.raises(IllegalMove):
        action_id("3345")


CLASSIFY = [
    ("", ("pass", -1, 0)),
    ("3", ("single", 0, 1)),
    ("R", ("single", 14, 1)),
    ("22", ("pair", 12, 1)),
    ("TTT", ("trio", 7, 1)),
    ("3334", ("trio_single", 0, 1)),
    ("A222", ("trio_single", 12, 1)),
    ("33344", ("trio_pair", 0, 1)),
    ("73456", ("straight", 0, 5)),
    ("TJQKA", ("straight", 7, 5)),
    ("3456789TJQKA", ("straight", 0, 12)),
    ("334455", ("pair_chain", 0, 3)),
    ("333444", ("plane", 0, 2)),
    ("333444555666", ("plane", 0, 4)),       # not a plane of 3 with a trio kicker
    ("33344456", ("plane_single", 0, 2)),
    ("33344455", ("plane_single", 0, 2)),    # a pair may be two single kickers
    ("333444555777", ("plane_single", 0, 3)),  # a trio not next to the plane may be kickers
    ("3334445566", ("plane_pair", 0, 2)),
    ("333345", ("four_two_singles", 0, 1)),
    ("333344", ("four_two_singles", 0, 1)),
    ("33334455", ("four_two_pairs", 0, 1)),
    ("2222", ("bomb", 12, 1)),
    ("BR", ("rocket", 13, 1)),
]


@pytest.mark.parametrize("move,expected", CLASSIFY)
def test_classify(move, expected):
    assert classify(move) == expected


@pytest.mark.parametrize("move,why", [
    ("JQKA2", "not a Dou Dizhu move"),       # straights stop at the ace
    ("3345", "not a Dou Dizhu move"),
    ("BR3", "not a Dou Dizhu move"),         # the rocket takes no kicker
    ("333444BR", "not a Dou Dizhu move"),    # both jokers are never two kickers
    ("33334444", "not a Dou Dizhu move"),
    ("3333444455", "not a Dou Dizhu move"),  # a bomb is never a plane's kickers
    ("33X", "unknown card 'X'"),
    ("33333", "more '3'"),
    ("BB", "more 'B'"),
])
def test_classify_says_why_not(move, why):
    with pytest.raises(IllegalMove, match=why):
        classify(move)


# -- legal moves from drawn positions ---------------------------------------------------
LEGAL = [
    # hand           to_beat   legal moves
    ("33",           "",       ["3", "33"]),
    ("3",            "4",      [""]),
    ("BR",           "2222",   ["", "BR"]),
    ("2222",         "BR",     [""]),
    ("55556",        "3333",   ["", "5555"]),
    ("55556",        "4",      ["", "5", "6", "5555"]),
    ("3456789",      "34567",  ["", "45678", "56789"]),
    ("TJQKA",        "TJQKA",  [""]),
    ("3334",         "",       ["3", "4", "33", "333", "3334"]),
    ("444555",       "333444", ["", "444555"]),
    ("4445556",      "3334",   ["", "4445", "4446", "4555", "5556"]),
]


@pytest.mark.parametrize("hand,to_beat,expected", LEGAL)
def test_legal_moves_drawn(hand, to_beat, expected):
    assert legal_moves(hand, to_beat) == expected


def test_legal_moves_rejects_bad_input():
    with pytest.raises(IllegalMove, match="unknown card 'x'"):
        legal_moves("33x")
    with pytest.raises(IllegalMove, match="to_beat"):
        legal_moves("33", "3345")


# -- exactness against the peers --------------------------------------------------------
def test_legal_moves_equal_rlcard_on_10000_states():
    pytest.importorskip("rlcard")
    result = oracle_check.compare_rlcard(oracle_check.sample_states(10_000, seed=1))
    assert result["mismatches"] == 0, result["examples"]
    assert result["leads"] > 1000


def test_legal_moves_equal_douzero_minus_its_documented_extras():
    pytest.importorskip("douzero")
    states = oracle_check.sample_states(3000, seed=2)
    # hands where douzero's extras appear: rocket, bomb or adjacent trio as plane kickers
    states += [("333444555666BR7", ""), ("3334445556669999", ""),
               ("444555666777", "333444555789"), ("3333444BR", "")]
    result = oracle_check.compare_douzero(states)
    assert result["mismatches"] == 0, result["examples"]
    assert set(result["extras_removed"]) == {"rocket as kickers", "bomb as plane kickers",
                                             "trio next to the plane as kickers"}


def test_payoffs_equal_openspiel_on_1000_points_games():
    pytest.importorskip("pyspiel")
    result = oracle_check.compare_openspiel(1000, seed=3)
    assert result["mismatches"] == 0, result["examples"]
    counts = result["counts"]
    for what in ("bombs or rockets", "rockets", "spring", "anti_spring", "void"):
        assert counts.get(what, 0) > 0, what
    # OpenSpiel lets a bomb follow the rocket; the rules (and we) do not.
    assert all(m in {"3333", "4444", "5555", "6666", "7777", "8888", "9999", "TTTT", "JJJJ",
                     "QQQQ", "KKKK", "AAAA", "2222"}
               for moves in result["legal_set_differences"]["openspiel only"] for m in moves)


# -- deal, play, scoring ----------------------------------------------------------------
def test_deal_is_seeded_and_complete():
    hands, kitty = deal(7)
    assert deal(7) == (hands, kitty) and deal(8) != (hands, kitty)
    assert [len(h) for h in hands] == [17, 17, 17] and len(kitty) == 3
    assert "".join(sorted("".join(hands) + kitty)) == "".join(sorted(oracle_check.DECK))
    g = Game.new(7)
    assert g.hands() == [canonical(hands[0] + kitty), hands[1], hands[2]]
    assert g.landlord == 0 and g.current_seat == 0 and g.phase == "play"


def _random_game(seed, bidding, rng):
    g = Game.new(seed, bidding=bidding)
    moves = 0
    while not g.done:
        seat = g.current_seat
        before = g.phase
        g.play(rng.choice(g.legal_moves()))
        moves += 1
        assert moves < 200, "game does not end"
        if before == "play" and not g.done:
            assert g.current_seat == (seat + 1) % 3
    return g


def _expected_payoffs(g):
    """Scores recomputed from the history alone."""
    r = g.result()
    if r["void"]:
        return [0.0, 0.0, 0.0]
    lord = r["landlord"]
    plays = [(s, m) for s, m in g.history if m not in ("pass", "call", "rob", "double", "nodouble")
             and not m.startswith("bid")]
    bids = [(s, m) for s, m in g.history if (s, m) not in plays]
    made = [sum(1 for s, m in plays if s == seat and m) for seat in range(3)]
    winner = plays[-1][0]
    spring = winner == lord and made[(lord + 1) % 3] == 0 and made[(lord + 2) % 3] == 0
    anti = winner != lord and made[lord] == 1
    bombs = sum(1 for _, m in plays if m and classify(m)[0] in ("bomb", "rocket"))
    base = 1
    doubled = [False] * 3
    if g.bidding == "points":
        base = max(int(m[3]) for _, m in bids if m.startswith("bid"))
    elif g.bidding == "call-rob":
        base = 2 ** sum(1 for _, m in bids if m == "rob")
        doubled = [any(s == seat and m == "double" for s, m in bids) for seat in range(3)]
    common = base * 2 ** (bombs + spring + anti)
    sign = 1 if winner == lord else -1
    pay = [0.0] * 3
    for f in range(3):
        if f != lord:
            stake = common * (2 if doubled[lord] else 1) * (2 if doubled[f] else 1)
            pay[f] = -sign * stake
            pay[lord] += sign * stake
    return pay


@pytest.mark.parametrize("bidding", ["none", "points", "call-rob"])
def test_random_games_keep_the_invariants(bidding):
    rng = random.Random(bidding)
    for seed in range(300):
        g = _random_game(seed, bidding, rng)
        pay = g.payoffs()
        assert sum(pay) == 0
        assert pay == _expected_payoffs(g)
        r = g.result()
        if not r["void"]:
            obs = g.observation(0)
            # cards conserved: what is held plus what was played is the deal
            assert sum(obs.cards_left) + sum(len(p) for p in obs.played) == 54
            assert "".join(sorted("".join(g.hands()) + "".join(obs.played))) == \
                "".join(sorted(oracle_check.DECK))
            assert min(obs.cards_left) == 0
        # replays are deterministic and JSON round trips exactly
        again = Game.from_json(g.to_json())
        assert again.to_json() == g.to_json() and again.payoffs() == pay
        assert again.result() == r


def test_every_flow_has_void_deals_and_landlords():
    rng = random.Random(5)
    for bidding in ("points", "call-rob"):
        results = [_random_game(seed, bidding, rng).result() for seed in range(200)]
        assert any(r["void"] for r in results) and any(not r["void"] for r in results)


def test_spring_anti_spring_and_bombs_from_drawn_positions():
    #   landlord 33, farmers 4 / 5: the landlord goes out at once -> spring, stake 2
    g = Game.from_hands(["33", "4", "5"])
    g.play("33")
    assert g.payoffs() == [4.0, -2.0, -2.0] and g.result()["breakdown"]["spring"]
    #   landlord 35 leads 3, the next farmer goes out with 4 -> anti-spring, stake 2
    g = Game.from_hands(["35", "4", "6"])
    g.play("3")
    g.play("4")
    assert g.payoffs() == [-4.0, 2.0, 2.0] and g.result()["breakdown"]["anti_spring"]
    #   bomb then rocket then last card: 2 doublings, the farmers win
    g = Game.from_hands(["33334", "BR6", "7"])
    for move in ("3333", "BR", "", "", "6"):
        g.play(move)
    r = g.result()
    assert r["breakdown"]["bombs"] == 1 and r["breakdown"]["rockets"] == 1
    assert g.payoffs() == [-16.0, 8.0, 8.0]   # base 1 * 2^(bomb + rocket + anti-spring)


def test_standing_move_and_lead_after_two_passes():
    g = Game.from_hands(["3344", "557", "668"])
    g.play("33")
    assert g.observation(1).to_beat == "33" and g.observation(1).to_beat_seat == 0
    g.play("55")
    g.play("66")
    g.play("")
    g.play("")
    assert g.current_seat == 2 and g.observation(2).to_beat == ""
    assert "" not in g.legal_moves()


# -- bidding flows ----------------------------------------------------------------------
def test_points_flow():
    g = Game.new(1, bidding="points")
    assert g.phase == "bidding" and g.legal_moves() == ["pass", "bid1", "bid2", "bid3"]
    for bid in ("pass", "bid1", "bid2", "pass", "pass"):
        g.play(bid)
    assert g.phase == "play" and g.landlord == 2 and g.current_seat == 2
    assert len(g.hands()[2]) == 20 and g.observation(0).kitty != ""
    g = Game.new(1, bidding="points")
    g.play("bid1")
    assert g.legal_moves() == ["pass", "bid2", "bid3"]
    g.play("bid3")
    assert g.landlord == 1 and g.phase == "play"
    g = Game.new(1, bidding="points")
    for _ in range(3):
        g.play("pass")
    assert g.done and g.is_void and g.payoffs() == [0.0, 0.0, 0.0]


def test_call_rob_flow():
    g = Game.new(2, bidding="call-rob")
    assert g.legal_moves() == ["pass", "call"]
    g.play("call")
    assert g.current_seat == 1 and g.legal_moves() == ["pass", "rob"]
    g.play("rob")
    g.play("pass")
    assert g.current_seat == 0 and g.legal_moves() == ["pass", "rob"]   # the caller robs back
    g.play("rob")
    assert g.landlord == 0 and g.current_seat == 0 and g.legal_moves() == ["nodouble", "double"]
    g.play("double")
    g.play("double")
    g.play("nodouble")
    assert g.phase == "play" and g.current_seat == 0
    obs = g.observation(1)
    assert obs.stake == 4 * 2 and obs.doubled == (True, True, False) and obs.robs == 2
    g = Game.new(2, bidding="call-rob")
    for action in ("pass", "call", "pass", "pass"):
        g.play(action)
    assert g.landlord == 1 and g.legal_moves() == ["nodouble", "double"]   # nobody robbed
    g = Game.new(2, bidding="call-rob")
    for _ in range(3):
        g.play("pass")
    assert g.done and g.is_void


# -- bad input leaves the game unchanged ------------------------------------------------
def _unchanged(g, move, match, **kw):
    before = (g.to_json(), g.hands(), g.current_seat, g.phase)
    with pytest.raises(IllegalMove, match=match):
        g.play(move, **kw)
    assert (g.to_json(), g.hands(), g.current_seat, g.phase) == before


def test_bad_moves_raise_and_leave_the_game_unchanged():
    g = Game.from_hands(["3344", "55", "66"])
    _unchanged(g, "3Z", "unknown card 'Z'")
    _unchanged(g, "55", "does not hold")
    _unchanged(g, "34", "not a Dou Dizhu move")
    _unchanged(g, "", "cannot pass")
    _unchanged(g, "33", "out of turn", seat=1)
    g.play("44")
    _unchanged(g, "5", "does not beat")
    g = Game.new(0, bidding="points")
    _unchanged(g, "call", "not a legal bid")
    _unchanged(g, "33", "not a legal bid")
    g.play("bid2")
    _unchanged(g, "bid1", "not a legal bid")
    g = Game.new(0, bidding="call-rob")
    _unchanged(g, "bid3", "not a legal bid")
    g = Game.from_hands(["3", "4", "5"])
    g.play("3")
    _unchanged(g, "4", "game is over")


def test_bad_setup_raises():
    with pytest.raises(UserError, match="bidding flow"):
        Game.new(0, bidding="auction")
    with pytest.raises(UserError, match="more '3'"):
        Game.from_hands(["333", "33", ""])
    with pytest.raises(UserError, match="seed"):
        Game.new("seven")
    with pytest.raises(UserError, match="before the game is done"):
        Game.new(0).payoffs()


# -- observation, clone, native layer ---------------------------------------------------
def test_observation_shows_only_what_the_seat_may_see():
    g = Game.new(3, bidding="points")
    obs = g.observation(1)
    assert isinstance(obs, Observation) and obs.game == "doudizhu"
    assert obs.landlord is None and obs.role is None and obs.kitty == ""
    assert obs.hand == g.hands()[1]
    g.play("bid3")
    obs = g.observation(1)
    assert (obs.landlord, obs.role, obs.cards_left) == (0, "landlord_down", (20, 17, 17))
    assert obs.bids == ((0, "bid3"),) and obs.stake == 3
    assert g.observation(2).role == "landlord_up"


def test_clone_is_independent():
    g = Game.new(4)
    c = g.clone()
    c.play(c.legal_moves()[0])
    assert g.history == [] and len(c.history) == 1 and g.hands() != c.hands()


def test_native_random_rollouts_finish_and_score():
    wins, total, moves = random_rollouts(500, 0)
    assert 0 < wins < 500 and moves > 500 * 10
    assert random_rollouts(500, 0) == (wins, total, moves)


# -- text for people --------------------------------------------------------------------
def test_render_and_explain_move():
    from openlandlord.games.doudizhu import explain_move, render
    g = Game.from_hands(["3344", "557", "668"])
    g.play("33")
    text = render(g.observation(1))
    assert "to beat: 33 (seat 0)" in text and "your hand: 557" in text
    assert explain_move("557", "33", "55") == ""
    assert "does not beat" in explain_move("557", "66", "55")
    assert "do not hold" in explain_move("557", "33", "77")
    assert "not a Dou Dizhu move" in explain_move("557", "33", "57")
    assert "must play" in explain_move("557", "", "")


def test_doudizhu_bad_argument_types_regression():
    # play(None) was "TypeError 'NoneType' is not iterable", observation("0") a Cython
    # TypeError, a history string "need more than 1 value to unpack", and format 99 passed.
    import json

    g = Game.new(7)
    before = g.to_json()
    with pytest.raises(IllegalMove, match="a move must be a string"):
        g.play(None)
    assert g.to_json() == before
    for seat in ("0", None, True, 3):
        with pytest.raises(UserError, match="seat must be 0, 1 or 2"):
            g.observation(seat)
    record = json.loads(before)
    with pytest.raises(UserError, match="history must be a list of"):
        Game.from_json(json.dumps({**record, "history": "abc"}))
    with pytest.raises(UserError, match="format 99 is not supported"):
        Game.from_json(json.dumps({**record, "format": 99}))
    assert Game.from_json(before).to_json() == before


def test_explain_move_pass_when_leading_regression():
    # A person typing "pass" on the lead was told "unknown card 'P' in move 'PASS'".
    from openlandlord.agents.human import parse_move
    from openlandlord.games.doudizhu import explain_move

    for typed in ("pass", "PASS", " Pass ", ""):
        assert explain_move("557", "", typed) == "you lead: you must play cards, not pass"
        assert explain_move("557", "33", typed) == ""
    g = Game.from_hands(["3344", "557", "668"])
    with pytest.raises(ValueError, match="you lead: you must play cards, not pass"):
        parse_move(g.observation(0), "pass", g.legal_moves())
