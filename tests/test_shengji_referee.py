"""The Shengji referee (openlandlord.games.shengji), clause by clause of the `tractor` rules page.

Scenarios are tables of drawn positions. The tractor ruleset's clauses run here; ruleset
`classic` differs in leads, follows and winners and has its own tables in
test_shengji_classic.py, where the clauses both share run under both rulesets.
"""
import itertools
import json
from collections import Counter

import numpy as np
import pytest

from openlandlord.errors import IllegalMove, UserError
from openlandlord.games.shengji import (END, IllegalMove as ExportedIllegalMove, Match, Observation,
                                        Round, Rules, count_legal_plays, explain_illegal,
                                        factored_options, is_legal, legal_plays, render,
                                        round_result, sample_worlds, trick_winner)
from openlandlord.games.shengji import _referee

VARIANTS = ["tractor"]


def rules_of(variant, rank, suit):
    return getattr(Rules, variant)(rank, suit)


# --- an independent reading of the rules, for exhaustive comparison on small hands ----------
def cat_of(card, rank, suit):
    if card in ("BJ", "SJ") or card[0] == rank or card[1] == suit:
        return "T"
    return card[1]


def is_unit(cards, rank, suit):
    cards = sorted(cards)
    if len(cards) == 1:
        return True
    if len(cards) == 2:
        return cards[0] == cards[1]
    count = Counter(cards)
    if len(cards) % 2 or any(v != 2 for v in count.values()):
        return False
    cats = {cat_of(c, rank, suit) for c in count}
    if len(cats) != 1 or "T" in cats:
        return False
    order = "23456789TJQKA"
    ranks = sorted(order.index(c[0]) for c in count)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def follow_ok(hand, lead, play, rank, suit):
    if len(play) != len(lead) or Counter(play) - Counter(hand):
        return False
    led = cat_of(lead[0], rank, suit)
    held = [c for c in hand if cat_of(c, rank, suit) == led]
    played = [c for c in play if cat_of(c, rank, suit) == led]
    if len(played) < min(len(held), len(lead)):
        return False
    k = len(lead) // 2 if len(lead) > 1 else 0
    pairs_held = sum(1 for v in Counter(held).values() if v == 2)
    pairs_played = sum(1 for v in Counter(played).values() if v == 2)
    return pairs_played >= min(k, pairs_held)


def all_submultisets(hand, n):
    return {tuple(sorted(c)) for c in itertools.combinations(sorted(hand), n)}


def oracle_plays(hand, lead, rank, suit):
    if lead is None:
        return {p for n in range(1, len(hand) + 1) for p in all_submultisets(hand, n)
                if is_unit(p, rank, suit)}
    return {p for p in all_submultisets(hand, len(lead)) if follow_ok(hand, lead, p, rank, suit)}


# --- clause: trump order, trumps as one suit, plain suits without the trump-rank card ------------
#   trump 8H: BJ > SJ > 8H > 8S = 8D = 8C > AH KH ... 2H;  plain spades A ... 9 7 ... 2 (no 8S)
WINNER_SCENARIOS = [
    # (name, trump rank, trump suit, plays, winner index)
    ("big joker beats small joker", "8", "H", [["SJ"], ["BJ"], ["8H"], ["AH"]], 1),
    ("small joker beats trump-rank card of trump suit", "8", "H", [["8H"], ["SJ"], ["8S"], ["AH"]], 1),
    ("trump-rank of trump suit beats off-suit rank cards", "8", "H", [["8S"], ["8H"], ["8D"], ["AH"]], 1),
    ("equal off-suit rank cards: the first played wins", "8", "H", [["8S"], ["8D"], ["8C"], ["3H"]], 0),
    ("off-suit rank card beats trump-suit ace", "8", "H", [["AH"], ["8C"], ["KH"], ["2H"]], 1),
    ("trump suit runs A K ... 2", "8", "H", [["2H"], ["3H"], ["AH"], ["KH"]], 2),
    ("plain suit: ace high", "8", "H", [["KS"], ["AS"], ["2S"], ["QS"]], 1),
    ("plain suit: trump-rank card is not in it", "8", "H", [["9S"], ["7S"], ["8S"], ["2S"]], 2),
    ("a card neither trump nor led suit never wins", "8", "H", [["3S"], ["AD"], ["AC"], ["4S"]], 3),
    ("the lowest trump ruffs a plain single", "8", "H", [["AS"], ["2H"], ["KS"], ["AD"]], 1),
    ("higher trump over-ruffs", "8", "H", [["AS"], ["2H"], ["3H"], ["AD"]], 2),
    ("pair beaten by a higher pair of the led suit", "8", "H", [["4S", "4S"], ["9S", "9S"], ["AS", "KS"], ["2D", "2D"]], 1),
    ("two odd cards never beat a pair", "8", "H", [["4S", "4S"], ["AS", "KS"], ["AH", "KH"], ["2D", "3D"]], 0),
    ("a void follower's trump pair beats a plain pair", "8", "H", [["AS", "AS"], ["2H", "2H"], ["KS", "KS"], ["AD", "AD"]], 1),
    ("higher trump pair over-ruffs", "8", "H", [["AS", "AS"], ["2H", "2H"], ["BJ", "BJ"], ["AD", "AD"]], 2),
    ("pair of another plain suit never wins", "8", "H", [["3S", "3S"], ["AD", "AD"], ["4S", "5S"], ["6S", "7S"]], 0),
    ("equal trump-rank pairs: the first played wins", "8", "H", [["8S", "8S"], ["8D", "8D"], ["2H", "3H"], ["4H", "5H"]], 0),
    ("tractor beaten by a higher tractor of the same suit", "8", "H",
     [["3S", "3S", "4S", "4S"], ["9S", "9S", "TS", "TS"], ["AS", "KS", "QS", "JS"], ["2D", "2D", "3D", "3D"]], 1),
    ("trumps cannot ruff a tractor", "8", "H",
     [["3S", "3S", "4S", "4S"], ["BJ", "BJ", "SJ", "SJ"], ["2D", "2D", "3D", "3D"], ["AC", "AC", "KC", "KC"]], 0),
    ("a tractor is not beaten by pairs of the suit that do not connect", "8", "H",
     [["3S", "3S", "4S", "4S"], ["9S", "9S", "JS", "JS"], ["2D", "2D", "3D", "3D"], ["AC", "AC", "KC", "KC"]], 0),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name,rank,suit,plays,winner", WINNER_SCENARIOS,
                         ids=[s[0] for s in WINNER_SCENARIOS])
def test_trick_winner(variant, name, rank, suit, plays, winner):
    assert trick_winner(rules_of(variant, rank, suit), plays) == winner


# --- clauses: units, leading, following -----------------------------------------------------
PLAY_SCENARIOS = [
    # (name, trump rank, trump suit, hand, lead (None = leading), play, legal, reason fragment)
    ("a single is any card", "8", "H", ["3S", "BJ"], None, ["BJ"], True, ""),
    ("a pair is two identical cards", "8", "H", ["3S", "3S"], None, ["3S", "3S"], True, ""),
    ("2H and 2D never pair", "8", "S", ["2H", "2D"], None, ["2D", "2H"], False, "one unit"),
    ("two big jokers pair", "8", "H", ["BJ", "BJ"], None, ["BJ", "BJ"], True, ""),
    ("plain tractor", "8", "S", ["7H", "7H", "9D"], None, ["7H", "7H"], True, ""),
    ("tractor of consecutive pairs", "8", "S", ["9D", "9D", "TD", "TD", "JD", "JD"], None,
     ["9D", "9D", "TD", "TD", "JD", "JD"], True, ""),
    ("the trump-rank gap does not join (rank 8)", "8", "S", ["7H", "7H", "9H", "9H"], None,
     ["7H", "7H", "9H", "9H"], False, "one unit"),
    ("no tractors in trumps", "8", "S", ["3S", "3S", "4S", "4S"], None,
     ["3S", "3S", "4S", "4S"], False, "one unit"),
    ("no throws: two units are not a lead", "8", "S", ["AH", "KH"], None, ["AH", "KH"], False, "throws"),
    ("a lead needs a card", "8", "S", ["AH"], None, [], False, "at least one card"),
    ("cards must be in hand", "8", "S", ["AH"], None, ["KH"], False, "not in hand"),
    ("follow with as many cards as led", "8", "S", ["AH", "KH"], ["3H", "3H"], ["AH"], False, "wrong number"),
    ("must follow suit", "8", "S", ["AH", "3D"], ["5H"], ["3D"], False, "must follow suit"),
    ("void: anything goes", "8", "S", ["3D", "3S"], ["5H"], ["3D"], True, ""),
    ("trump lead asks for any trump", "8", "S", ["8D", "AH"], ["3S"], ["AH"], False, "must follow suit"),
    ("trump-rank card follows a trump lead", "8", "S", ["8D", "AH"], ["3S"], ["8D"], True, ""),
    ("short of the suit: all of it, then anything", "8", "S", ["4H", "3D", "3C"], ["5H", "5H"],
     ["3D", "4H"], True, ""),
    ("short of the suit but holding back", "8", "S", ["4H", "3D", "3C"], ["5H", "5H"],
     ["3C", "3D"], False, "must follow suit"),
    ("pair lead: must play a pair held", "8", "S", ["4H", "4H", "6H"], ["5H", "5H"],
     ["4H", "6H"], False, "must play pairs"),
    ("pair lead: no pair held, any two of the suit", "8", "S", ["4H", "7H", "6H"], ["5H", "5H"],
     ["4H", "6H"], True, ""),
    ("tractor lead: pairs need not be consecutive", "8", "S", ["3H", "3H", "9H", "9H", "KH"],
     ["5H", "5H", "6H", "6H"], ["3H", "3H", "9H", "9H"], True, ""),
    ("tractor lead: min(n, pairs held) pairs", "8", "S", ["3H", "3H", "9H", "KH", "AH"],
     ["5H", "5H", "6H", "6H"], ["3H", "9H", "KH", "AH"], False, "must play pairs"),
    ("tractor lead: the one pair held, then singles", "8", "S", ["3H", "3H", "9H", "KH", "AH"],
     ["5H", "5H", "6H", "6H"], ["3H", "3H", "9H", "KH"], True, ""),
    ("trump pair lead: trump pairs count too", "8", "S", ["BJ", "BJ", "3S", "AH"], ["4S", "4S"],
     ["3S", "BJ"], False, "must play pairs"),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name,rank,suit,hand,lead,play,legal,reason", PLAY_SCENARIOS,
                         ids=[s[0] for s in PLAY_SCENARIOS])
def test_play_scenarios(variant, name, rank, suit, hand, lead, play, legal, reason):
    rules = rules_of(variant, rank, suit)
    assert is_legal(rules, hand, lead, play) is legal
    explanation = explain_illegal(rules, hand, lead, play)
    assert (explanation == "") is legal
    assert reason in explanation
    plays = legal_plays(rules, hand, lead)
    assert (tuple(sorted(play)) in plays) is legal
    assert count_legal_plays(rules, hand, lead) == len(plays)


# --- clause: point cards and round result ----------------------------------------------------
def test_points_are_fives_tens_kings_and_total_200():
    _, _, points = _referee.card_order(0, 0)
    assert sum(points) * 2 == 200
    assert {p for p in points if p} == {5, 10}


@pytest.mark.parametrize("points,result", [
    (0, ("declarers", 3)), (5, ("declarers", 2)), (35, ("declarers", 2)), (40, ("declarers", 1)),
    (75, ("declarers", 1)), (80, ("attackers", 0)), (115, ("attackers", 0)),
    (120, ("attackers", 1)), (155, ("attackers", 1)), (160, ("attackers", 2)),
    (195, ("attackers", 2)), (200, ("attackers", 3))])
def test_round_result(points, result):
    assert round_result(points) == result


@pytest.mark.parametrize("bad", [-5, 3, True, "80"])
def test_round_result_rejects_bad_points(bad):
    with pytest.raises(UserError):
        round_result(bad)


# --- exhaustive comparison with the independent reading above ---------------------------------
def random_hand(rng, size):
    deck = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["SJ", "BJ"]
    return sorted(rng.choice(deck * 2, size=size, replace=False).tolist())


def random_lead(rng, rank, suit, size):
    """A random unit of `size` cards: a single, a pair, or a plain-suit tractor."""
    deck = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["SJ", "BJ"]
    if size <= 2:
        return [deck[rng.integers(54)]] * size
    order = "23456789TJQKA"
    while True:
        lead_suit = "SHDC"[rng.integers(4)]
        start = int(rng.integers(13 - size // 2 + 1))
        ranks = order[start:start + size // 2]
        if lead_suit != suit and rank not in ranks:
            return [r + lead_suit for r in ranks for _ in range(2)]


def random_follow_hand(rng, lead, size):
    # Biased towards the led suit so that following, pairs and shortness all occur.
    hand = random_hand(rng, size)
    led_suit = lead[0][1] if lead[0] not in ("BJ", "SJ") else "S"
    extra = rng.permutation(lead + [r + led_suit for r in "23456789"]).tolist()
    keep = int(rng.integers(0, size + 1))
    mixed = sorted((extra[:keep] + hand)[:size])
    return mixed if max(Counter(mixed).values()) <= 2 else hand


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_plays_match_the_rules_exhaustively(variant):
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 300:
        rank, suit = "23456789TJQKA"[rng.integers(13)], "SHDC"[rng.integers(4)]
        rules = rules_of(variant, rank, suit)
        size = int(rng.integers(4, 10))
        lead = None if checked % 5 == 0 else random_lead(rng, rank, suit, int(rng.choice([1, 2, 2, 4, 4, 6])))
        hand = random_hand(rng, size) if lead is None else random_follow_hand(rng, lead, size)
        if lead is not None and len(lead) > len(hand):
            continue
        expected = oracle_plays(hand, lead, rank, suit)
        assert set(legal_plays(rules, hand, lead)) == expected, (hand, lead, rank, suit)
        assert count_legal_plays(rules, hand, lead) == len(expected)
        checked += 1


def reachable(rules, hand, lead, prefix, out):
    options = factored_options(rules, hand, lead, list(prefix))
    assert options or prefix, "every prefix has a legal completion"
    if not options:
        out.add(tuple(sorted(prefix)))
        return
    for card in options:
        if card == END:
            out.add(tuple(sorted(prefix)))
        else:
            reachable(rules, hand, lead, prefix + (card,), out)


@pytest.mark.parametrize("variant", VARIANTS)
def test_factored_decisions_reach_exactly_the_legal_plays(variant):
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 150:
        rank, suit = "23456789TJQKA"[rng.integers(13)], "SHDC"[rng.integers(4)]
        rules = rules_of(variant, rank, suit)
        size = int(rng.integers(4, 9))
        lead = None if checked % 4 == 0 else random_lead(rng, rank, suit, int(rng.choice([1, 2, 4, 6])))
        hand = random_hand(rng, size) if lead is None else random_follow_hand(rng, lead, size)
        if lead is not None and len(lead) > len(hand):
            continue
        legal = set(legal_plays(rules, hand, lead))
        found = set()
        reachable(rules, hand, lead, (), found)
        assert found == legal, (hand, lead, rank, suit)
        checked += 1


def test_factored_prefix_without_completion_is_rejected():
    rules = Rules.tractor("8", "S")
    with pytest.raises(IllegalMove, match="no legal play"):
        factored_options(rules, ["4H", "4H", "6H", "3D"], ["5H", "5H"], ["3D"])


def test_huge_follow_is_counted_not_listed():
    # A seat void in hearts answers a 6-pair heart tractor: 12 of its 27 cards, any of them.
    rules = Rules.tractor("2", "S")
    hand = ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "3C", "4C",
            "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "3S", "4S", "BJ"]
    lead = ["3H", "3H", "4H", "4H", "5H", "5H", "6H", "6H", "7H", "7H", "8H", "8H"]
    assert count_legal_plays(rules, hand, lead) == 17383860  # C(27, 12): 27 distinct cards
    options = factored_options(rules, hand, lead, [])
    assert options == sorted(hand)


# --- the match, the round, the uniform interface -----------------------------------------------
def test_exports():
    assert ExportedIllegalMove is IllegalMove


def test_round_deal_and_first_lead():
    r = Round.new(5, dealer=2, levels=(4, 9))
    hands = r.hands()
    assert [len(h) for h in hands] == [27] * 4
    assert Counter(c for h in hands for c in h) == Counter({c: 2 for c in set(sum(hands, ()))})
    assert len(set(sum(hands, ()))) == 54
    assert r.current_seat == 2 and r.declarers == 0 and r.rules.trump_rank == "4"
    obs = r.observation(1)
    assert isinstance(obs, Observation) and obs.game == "shengji" and obs.hand == hands[1]
    assert obs.trump_suit == Round.new(5).rules.trump_suit  # drawn from the seed, shown to all


def test_bad_input_leaves_the_round_unchanged():
    r = Round.new(3)
    before = r.to_json()
    hand = r.hands()[0]
    missing = next(c for c in ["AS", "AH", "AD", "AC", "KS", "KH"] if c not in hand)
    for bad in (["ZZ"], [missing], [], list(hand[:2]) if hand[0] != hand[1] else list(hand[1:3]),
                "7H"):
        with pytest.raises(IllegalMove):
            r.play(bad)
    with pytest.raises(IllegalMove, match="out of turn"):
        r.play([hand[0]], seat=1)
    assert r.to_json() == before and r.hands()[0] == hand


def test_legal_moves_refuses_beyond_the_cap_unless_asked():
    r = Round.new(0, levels=(2, 2))
    assert r.count_legal() == len(r.legal_moves())
    with pytest.raises(UserError, match="cap"):
        r.legal_moves(limit=3)
    assert len(r.legal_moves(limit=None)) == r.count_legal()


def play_random_round(r, rng):
    while not r.done:
        if r.count_legal() > 256:
            prefix = []
            while True:
                options = r.factored_options(prefix)
                if not options:
                    break
                prefix.append(options[rng.integers(len(options))])
            r.play(prefix)
        else:
            moves = r.legal_moves()
            r.play(moves[rng.integers(len(moves))])


def test_python_rounds_keep_the_invariants_and_replay_exactly():
    rng = np.random.default_rng(1)
    for seed in range(12):
        r = Round.new(seed, dealer=seed % 4, levels=(2 + seed % 13, 2 + (seed * 5) % 13))
        play_random_round(r, rng)
        res = r.result()
        assert sum(r.observation(0).cards_left) == 0 and r.hands() == [()] * 4
        assert res["attacker_points"] + r.declarer_points == 200
        assert len(r.observation(0).tricks) == len(r._tricks)
        assert sum(r.payoffs()) == 0
        replay = Round.from_json(json.loads(json.dumps(r.to_json())))
        assert replay.to_json() == r.to_json() and replay.result() == res
        assert r.clone().result() == res


def test_voids_are_public_after_failing_to_follow():
    r = Round.new(2)
    rng = np.random.default_rng(0)
    seen_void = False
    while not r.done and not seen_void:
        moves = r.legal_moves(limit=None) if r.count_legal() < 5000 else None
        if moves is None:
            break
        r.play(moves[rng.integers(len(moves))])
        for seat in range(4):
            for cat in r.observation(0).voids[seat]:
                seen_void = True
                hand = r.hands()[seat]
                assert all(("T" if c in ("BJ", "SJ") or c[0] == r.rules.trump_rank
                            or c[1] == r.rules.trump_suit else c[1]) != cat for c in hand)
    assert seen_void


def test_match_campaign_to_past_ace_and_replay():
    m = Match.new(4)
    rng = np.random.default_rng(4)
    dealers = []
    while not m.done:
        dealers.append((m.round.dealer, m.round.declarers, m.levels))
        r = m.round
        while m.round is r and not m.done:
            moves = m.legal_moves(limit=None) if m.count_legal() <= 5000 else None
            if moves is None:
                prefix = []
                while (options := m.factored_options(prefix)):
                    prefix.append(options[rng.integers(len(options))])
                m.play(prefix)
            else:
                m.play(moves[rng.integers(len(moves))])
    assert m.winner in (0, 1) and m.levels[m.winner] > 14 and m.phase == "done"
    assert sorted(m.payoffs()) == [-1, -1, 1, 1]
    # The deal passes as the rules say: hold -> partner, takeover -> next seat.
    for (dealer, _, _), (next_dealer, _, _), res in zip(dealers, dealers[1:], m.results):
        assert next_dealer == ((dealer + 2) % 4 if res["winner"] == "declarers" else (dealer + 1) % 4)
    for (_, declarers, levels), res in zip(dealers, m.results):
        assert res["declarers"] == declarers
    assert Match.from_json(m.to_json()).result() == m.result()


def test_render_shows_trump_hand_and_trick():
    r = Round.new(9)
    r.play(r.legal_moves()[0])
    text = render(r.observation(1))
    assert f"trump {r.rules.trump_rank}{r.rules.trump_suit}" in text
    assert "trick: 0:" in text and "seat 1 (attacker)" in text
    for card in r.observation(1).hand:
        assert card in text


# --- random-simulation invariants, natively -----------------------------------------------------
def test_native_random_rounds_keep_every_invariant():
    # 10,000 rounds, every play checked against the rules and conservation asserted each trick.
    points = _referee.simulate(10_000, 12345, check=True)
    assert len(points) == 10_000 and all(0 <= p <= 200 and p % 5 == 0 for p in points)
    assert 60 < np.mean(points) < 140


def test_native_loop_is_deterministic():
    assert _referee.simulate(50, 9) == _referee.simulate(50, 9)
    assert _referee.simulate(50, 9) != _referee.simulate(50, 10)


# --- the world sampler ---------------------------------------------------------------------------
def test_world_sampler_respects_sizes_voids_and_unseen_cards():
    r = Round.new(6)
    rng = np.random.default_rng(6)
    while not any(r.observation(0).voids[s] for s in (1, 2, 3)):
        moves = r.legal_moves(limit=None)
        r.play(moves[rng.integers(len(moves))])
    obs = r.observation(0)
    truth = r.hands()
    worlds = sample_worlds(obs, 200, seed=1)
    unseen = Counter(c for s in (1, 2, 3) for c in truth[s])
    for world in worlds:
        assert Counter(c for h in world for c in h) == unseen
        for k, hand in enumerate(world):
            seat = (obs.seat + 1 + k) % 4
            assert len(hand) == obs.cards_left[seat]
            for card in hand:
                cat = "T" if card in ("BJ", "SJ") or card[0] == obs.trump_rank or card[1] == obs.trump_suit else card[1]
                assert cat not in obs.voids[seat]
    assert len({tuple(w[0]) for w in worlds}) > 100


def test_world_sampler_is_uniform_without_voids():
    # Two unseen cards, two for seat 1 out of four places: each pair of cards equally likely.
    unseen = np.zeros(54, np.uint8)
    unseen[[0, 1, 2, 3]] = 1
    worlds = _referee.sample_worlds(0, 0, unseen, [2, 1, 1], [0, 0, 0], 6000, 3)
    firsts = Counter(bytes(w[0]) for w in worlds)
    assert len(firsts) == 6
    assert all(abs(v - 1000) < 150 for v in firsts.values())


def test_world_sampler_rejects_impossible_voids():
    unseen = np.zeros(54, np.uint8)
    unseen[[14, 15]] = 1  # two hearts (trump spades, rank 2)
    with pytest.raises(ValueError):
        _referee.sample_worlds(0, 0, unseen, [1, 1, 0], [2, 2, 0], 1, 0)


# --- named regression tests ------------------------------------------------------------------------
def test_regression_native_round_ends_when_the_hands_do():
    # Bug: the native loop ran one trick per card in the leader's hand and the random lead
    # reported one card for a pair or tractor, so rounds with multi-card leads ran past the
    # empty hands (a crash). Rounds now end with the hands, every card played exactly once.
    for seed in range(3):
        points = _referee.simulate(300, seed, check=True)
        assert all(0 <= p <= 200 for p in points)


@pytest.mark.parametrize("bad", ["abc", "1", None, 1.7, True])
def test_shengji_bad_seeds_regression(bad):
    # Raw ValueError/TypeError before, and "1" and 1.7 were silently taken as seeds.
    for new in (Match.new, Round.new):
        with pytest.raises(UserError, match=f"seed must be an integer, got {bad!r}"):
            new(bad)


def test_shengji_negative_seed_regression():
    # Dou Dizhu's rule: any integer, mod 2^64; -1 raised a raw ValueError from numpy.
    from openlandlord.games.doudizhu import Game

    Game.new(-1)
    assert Match.new(-1).seed == Match.new(2 ** 64 - 1).seed == 2 ** 64 - 1
    assert Round.new(-1).to_json() == Round.new(2 ** 64 - 1).to_json()


def test_shengji_bad_argument_types_regression():
    # counts() reported `card` from a loop that never ran: UnboundLocalError; trick_winner(None)
    # was a raw TypeError. Each is now an IllegalMove naming the argument, the match unchanged.
    m = Match.new(1)
    rules, before = m.round.rules, m.to_json()
    with pytest.raises(IllegalMove, match="play must be a list of cards"):
        m.play(None)
    assert m.to_json() == before
    with pytest.raises(IllegalMove, match="hand must be a list of cards"):
        legal_plays(rules, None, None)
    with pytest.raises(IllegalMove, match="play must be a list of cards"):
        is_legal(rules, ["7H"], None, None)
    with pytest.raises(IllegalMove, match="a trick must be a list of plays"):
        trick_winner(rules, None)
