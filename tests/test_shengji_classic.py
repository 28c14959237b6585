"""Ruleset `classic` of the Shengji referee: trump tractors, no-trump, throws and their failure,
format-matching follows, the kitty and its multiplier, declarations during the deal."""
import itertools
import json
from collections import Counter

import numpy as np
import pytest

from openlandlord.errors import IllegalMove, UserError
from openlandlord.games.shengji import (END, Match, Round, Rules, count_legal_plays,
                                        explain_illegal, factored_options, is_legal, legal_plays,
                                        sample_worlds, trick_winner)
from openlandlord.games.shengji import classic
from openlandlord.games.shengji.rules import counts
from openlandlord.games.shengji.selfcheck import check_rounds

VARIANTS = ["tractor", "classic"]

# Clauses both rulesets share: trump order, single and pair winners (trump 8H).
SHARED_WINNERS = [
    ("big joker beats small joker", [["SJ"], ["BJ"], ["8H"], ["AH"]], 1),
    ("trump-rank card of the trump suit beats the off-suit ones", [["8S"], ["8H"], ["8D"], ["AH"]], 1),
    ("equal off-suit rank cards: the first played wins", [["8S"], ["8D"], ["8C"], ["3H"]], 0),
    ("the lowest trump ruffs a plain single", [["AS"], ["2H"], ["KS"], ["AD"]], 1),
    ("a card neither trump nor led suit never wins", [["3S"], ["AD"], ["AC"], ["4S"]], 3),
    ("two odd cards never beat a pair", [["4S", "4S"], ["AS", "KS"], ["AH", "KH"], ["2D", "3D"]], 0),
    ("a void follower's trump pair beats a plain pair", [["AS", "AS"], ["2H", "2H"], ["KS", "KS"], ["AD", "AD"]], 1),
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name,plays,winner", SHARED_WINNERS, ids=[s[0] for s in SHARED_WINNERS])
def test_shared_winner_clauses(variant, name, plays, winner):
    assert trick_winner(getattr(Rules, variant)("8", "H"), plays) == winner


# Classic only. Trump order with levels: trump suit 3..A (without the rank), off-suit rank
# cards, on-suit rank card, SJ, BJ; consecutive levels join into trump tractors.
CLASSIC_WINNERS = [
    # (name, trump rank, trump suit, plays, winner)
    ("no trump: only rank cards and jokers are trump", "8", "N", [["AH"], ["8S"], ["KH"], ["2H"]], 1),
    ("no trump: hearts are a plain suit", "8", "N", [["AS"], ["AH"], ["KS"], ["2S"]], 0),
    ("a trump tractor ruffs a plain tractor", "2", "S",
     [["3H", "3H", "4H", "4H"], ["5S", "5S", "6S", "6S"], ["5H", "6H", "7H", "8H"], ["3D", "3D", "4D", "4D"]], 1),
    ("off-suit rank pair + on-suit rank pair is a trump tractor", "2", "S",
     [["3S", "3S", "4S", "4S"], ["2H", "2H", "2S", "2S"], ["5D", "6D", "7D", "8D"], ["5C", "6C", "7C", "8C"]], 1),
    ("trump ace pair + off-suit rank pair is a trump tractor", "2", "S",
     [["3S", "3S", "4S", "4S"], ["AS", "AS", "2H", "2H"], ["5D", "6D", "7D", "8D"], ["5C", "6C", "7C", "8C"]], 1),
    ("two off-suit rank pairs are not a tractor", "2", "S",
     [["3S", "3S", "4S", "4S"], ["2H", "2H", "2D", "2D"], ["5D", "6D", "7D", "8D"], ["5C", "6C", "7C", "8C"]], 0),
    ("on-suit rank pair + small jokers is a tractor", "2", "S",
     [["3S", "3S", "4S", "4S"], ["2S", "2S", "SJ", "SJ"], ["5D", "6D", "7D", "8D"], ["5C", "6C", "7C", "8C"]], 1),
    ("the trump-rank gap joins in a plain suit", "8", "S",
     [["7H", "7H", "9H", "9H"], ["TH", "TH", "JH", "JH"], ["2D", "2D", "3D", "3D"], ["4C", "4C", "5C", "5C"]], 1),
    ("a throw is beaten only by trumps", "8", "S", [["AH", "KH"], ["3H", "4H"], ["2S", "3S"], ["5D", "6D"]], 2),
    ("a trump ruff of a throw must match its pairs", "8", "S",
     [["AH", "AH", "KH"], ["3S", "4S", "5S"], ["6D", "7D", "9D"], ["3C", "4C", "5C"]], 0),
    ("a matching trump ruff of a throw wins", "8", "S",
     [["AH", "AH", "KH"], ["3S", "3S", "4S"], ["6D", "7D", "9D"], ["3C", "4C", "5C"]], 1),
    ("the higher matching ruff wins, by the largest unit", "8", "S",
     [["AH", "AH", "KH"], ["3S", "3S", "AS"], ["4S", "4S", "5S"], ["3C", "4C", "5C"]], 2),
]


@pytest.mark.parametrize("name,rank,suit,plays,winner", CLASSIC_WINNERS,
                         ids=[s[0] for s in CLASSIC_WINNERS])
def test_classic_winners(name, rank, suit, plays, winner):
    assert trick_winner(Rules.classic(rank, suit), plays) == winner


CLASSIC_PLAYS = [
    # (name, rank, suit, hand, lead (None = leading), play, legal, reason fragment)
    ("a throw is a lead of one suit", "8", "S", ["AH", "KH", "3D"], None, ["AH", "KH"], True, ""),
    ("a lead mixing suits is illegal", "8", "S", ["AH", "KD"], None, ["AH", "KD"], False, "one suit"),
    ("a trump throw mixes trump suit, rank cards and jokers", "8", "S", ["AS", "8H", "BJ"], None,
     ["8H", "AS", "BJ"], True, ""),
    ("follow a throw's pair with a pair", "8", "S", ["QH", "QH", "3H", "4H"], ["AH", "AH", "KH"],
     ["3H", "4H", "QH"], False, "must play pairs"),
    ("follow a throw's pair with a pair (legal)", "8", "S", ["QH", "QH", "3H", "4H"],
     ["AH", "AH", "KH"], ["3H", "QH", "QH"], True, ""),
    ("a tractor is answered by a tractor when held", "8", "S",
     ["9H", "9H", "TH", "TH", "QH", "QH"], ["3H", "3H", "4H", "4H"], ["9H", "9H", "QH", "QH"],
     False, "must play tractors"),
    ("a tractor answered by a tractor", "8", "S", ["9H", "9H", "TH", "TH", "QH", "QH"],
     ["3H", "3H", "4H", "4H"], ["TH", "TH", "QH", "QH"], False, "must play tractors"),
    ("a tractor answered by the tractor held", "8", "S", ["9H", "9H", "TH", "TH", "QH", "QH"],
     ["3H", "3H", "4H", "4H"], ["9H", "9H", "TH", "TH"], True, ""),
    ("a tractor cut from a longer run", "8", "S", ["9H", "9H", "TH", "TH", "JH", "JH"],
     ["3H", "3H", "4H", "4H"], ["JH", "JH", "TH", "TH"], True, ""),
    ("a trump tractor answers a trump tractor lead", "2", "S", ["2H", "2H", "2S", "2S", "5S", "3D"],
     ["3S", "3S", "4S", "4S"], ["2H", "2H", "2S", "5S"], False, "must play pairs"),
    ("a trump tractor answers (legal)", "2", "S", ["2H", "2H", "2S", "2S", "5S", "3D"],
     ["3S", "3S", "4S", "4S"], ["2H", "2H", "2S", "2S"], True, ""),
    ("void: anything goes", "8", "S", ["3D", "3C", "4C"], ["AH", "AH", "KH"], ["3C", "3D", "4C"], True, ""),
    ("short of the suit: all of it first", "8", "S", ["3H", "3C", "4C"], ["AH", "AH", "KH"],
     ["3C", "3D", "4C"], False, "not in hand"),
    ("short of the suit: all of it first (follow)", "8", "S", ["3H", "3C", "4C", "5C"],
     ["AH", "AH", "KH"], ["3C", "4C", "5C"], False, "must follow suit"),
]


@pytest.mark.parametrize("name,rank,suit,hand,lead,play,legal,reason", CLASSIC_PLAYS,
                         ids=[s[0] for s in CLASSIC_PLAYS])
def test_classic_plays(name, rank, suit, hand, lead, play, legal, reason):
    rules = Rules.classic(rank, suit)
    assert is_legal(rules, hand, lead, play) is legal
    explanation = explain_illegal(rules, hand, lead, play)
    assert (explanation == "") is legal and reason in explanation
    plays = legal_plays(rules, hand, lead)
    assert (tuple(sorted(play)) in plays) is legal
    assert count_legal_plays(rules, hand, lead) == len(plays)


def test_kitty_multiplier_by_the_largest_unit_of_the_last_lead():
    t = Rules.classic("2", "S").table()
    for lead, mult in [(["3H"], 2), (["3H", "3H"], 4), (["3H", "3H", "4H", "4H"], 8),
                       (["3H", "3H", "4H", "4H", "5H", "5H"], 16), (["AH", "AH", "KH"], 4)]:
        assert classic.kitty_multiplier(classic.lead_format(t, counts(lead))) == mult


# --- exhaustive comparison on small hands: listing, counting and factoring agree ------------------
DECK = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["SJ", "BJ"]


def brute_force(rules, hand, lead):
    return {p for n in ({len(lead)} if lead else range(1, len(hand) + 1))
            for p in {tuple(sorted(c)) for c in itertools.combinations(sorted(hand), n)}
            if is_legal(rules, hand, lead, list(p))}


def reachable(rules, hand, lead, prefix, out):
    options = factored_options(rules, hand, lead, list(prefix))
    assert options or prefix
    if not options:
        out.add(tuple(sorted(prefix)))
    for card in options:
        if card == END:
            out.add(tuple(sorted(prefix)))
        else:
            key = tuple(sorted(prefix + (card,)))
            if key not in reachable.seen:
                reachable.seen.add(key)
                reachable(rules, hand, lead, prefix + (card,), out)


def test_classic_listing_counting_and_factoring_agree_exhaustively():
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 120:
        rank, suit = "23456789TJQKA"[rng.integers(13)], "SHDCN"[rng.integers(5)]
        rules = Rules.classic(rank, suit)
        t = rules.table()
        led_cat = int(rng.choice([c for c in range(5) if (t.cat == c).any()]))
        pool = [c for c in DECK if t.cat[DECK.index(c)] == led_cat]
        # A lead of a few cards of one suit, some doubled: singles, pairs, tractors, throws.
        picked = rng.choice(pool, size=min(len(pool), int(rng.integers(1, 4))), replace=False)
        lead = sorted(c for c in picked.tolist() for _ in range(1 + int(rng.random() < 0.6)))
        pool = pool * 2
        size = int(rng.integers(len(lead), 8))
        near = rng.choice(pool, size=int(rng.integers(0, size + 1)), replace=False).tolist()
        hand = sorted((near + rng.choice(DECK * 2, size=size, replace=False).tolist())[:size])
        if max(Counter(hand).values()) > 2:
            continue
        lead_or_none = None if checked % 6 == 0 else lead
        if lead_or_none is None and len(hand) > 7:
            continue
        expected = brute_force(rules, hand, lead_or_none)
        assert set(legal_plays(rules, hand, lead_or_none)) == expected, (hand, lead_or_none, rank, suit)
        assert count_legal_plays(rules, hand, lead_or_none) == len(expected)
        found = set()
        reachable.seen = set()
        reachable(rules, hand, lead_or_none, (), found)
        assert found == expected
        checked += 1


# --- throws, the kitty and the deal, in whole rounds ---------------------------------------------
def test_a_throw_that_stands_and_one_that_fails():
    rules = Rules.classic("2", "S")
    hands = [["AH", "KH", "3D"], ["QH", "4D", "5D"], ["3H", "6D", "7D"], ["4H", "8D", "9D"]]
    r = Round.from_hands(hands, rules)
    r.play(["AH", "KH"])  # nobody holds a heart above K except the thrower: it stands
    assert r.observation(1).trick == ((0, ("AH", "KH")),) and r.penalty == 0
    hands = [["AH", "QH", "3D"], ["KH", "4D", "5D"], ["3H", "6D", "7D"], ["4H", "8D", "9D"]]
    r = Round.from_hands(hands, rules)
    r.play(["AH", "QH"])  # KH beats QH: only QH is played, one card taken back
    assert r.observation(1).trick == ((0, ("QH",)),)
    assert r.penalty == 10 and r.observation(2).failed_throws == ((0, ("AH", "QH"), ("QH",)),)
    assert set(r.hands()[0]) == {"AH", "3D"}
    replay = Round.from_json(r.to_json())
    assert replay.observation(0) == r.observation(0)


def test_failed_throw_plays_the_smallest_beaten_unit():
    rules = Rules.classic("2", "S")
    hands = [["3H", "3H", "JH", "3D"], ["KH", "KH", "QH", "4D"], ["AH", "6D", "7D", "8D"],
             ["4H", "9D", "TD", "JD"]]
    r = Round.from_hands(hands, rules, dealer=0)
    r.play(["3H", "3H", "JH"])  # KH KH beats the pair, QH the single: the single is smaller
    assert r.observation(1).trick == ((0, ("JH",)),) and r.penalty == 20


def test_kitty_goes_to_attackers_winning_the_last_trick_multiplied():
    rules = Rules.classic("2", "S")
    hands = [["3H"], ["AH"], ["4H"], ["5H"]]
    r = Round.from_hands(hands, rules, dealer=0, kitty=["KD", "5C"])
    for seat in range(4):
        r.play(list(hands[seat]))
    res = r.result()
    assert res["captured"] == 5 and res["kitty_bonus"] == 15 * 2
    assert res["attacker_points"] == 35 and res["winner"] == "declarers"
    hands = [["3H", "3H"], ["AH", "AH"], ["4H", "4H"], ["5H", "5H"]]
    r = Round.from_hands(hands, rules, dealer=0, kitty=["KD", "5C"])
    for seat in range(4):
        r.play(list(hands[seat]))
    assert r.result()["kitty_bonus"] == 15 * 4


def test_declarations_during_the_deal_and_the_burial():
    seen_declaration = False
    for seed in range(6):
        r = Round.new(seed, "classic", dealer=1, levels=(5, 3))
        assert r.rules.trump_rank == "3"
        while r.phase == "declare":
            moves = r.legal_moves()
            assert moves[0] == () and all(len(m) in (1, 2) for m in moves[1:])
            for m in moves[1:]:
                assert m[0][0] == "3" or m in (("SJ", "SJ"), ("BJ", "BJ"))
            r.play(moves[-1])  # the strongest declaration open
            seen_declaration = True
        assert r.phase == "bury" and r.current_seat == 1
        sizes = [len(h) for h in r.hands()]
        assert sizes == [25, 33, 25, 25]
        if r.declaration:
            card = r.declaration[1][0]
            assert r.rules.trump_suit == ("N" if card in ("SJ", "BJ") else card[1])
        with pytest.raises(UserError, match="cap"):
            r.legal_moves()
        prefix = []
        while options := r.factored_options(prefix):
            prefix.append(options[0])
        before = r.to_json()
        with pytest.raises(IllegalMove):
            r.play(prefix[:7])
        assert r.to_json() == before
        r.play(prefix)
        assert [len(h) for h in r.hands()] == [25] * 4 and r.phase == "play"
        assert sorted(r.observation(1).kitty) == sorted(prefix)
        assert r.observation(0).kitty == ()
    assert seen_declaration


def test_an_override_needs_a_stronger_declaration():
    for seed in range(30):
        r = Round.new(seed, "classic")
        singles = False
        while r.phase == "declare":
            moves = r.legal_moves()
            if r.declaration and len(r.declaration[1]) == 1:
                singles = True
                assert all(len(m) == 2 for m in moves[1:])
            if r.declaration and r.declaration[1][0] == "BJ":
                assert moves == [()]
            r.play(moves[1] if len(moves) > 1 and len(moves[1]) == 1 else moves[0])
        if singles:
            return
    pytest.fail("no single declaration seen")


def test_random_classic_rounds_keep_the_invariants_and_replay():
    # Cards and points conserved at every step, a legal move always there, hands empty at the
    # end, zero-sum payoffs, exact replay (longer runs: python -m ...shengji.selfcheck).
    report = check_rounds("classic", 8, seed=5)
    assert report["rounds"] == 8 and report["mean_attacker_points"] >= 0


def test_classic_match_passes_the_deal():
    m = Match.new(1, rules="classic")
    rng = np.random.default_rng(1)
    dealers = [m.round.dealer]
    while len(m.results) < 2:
        if m.count_legal() > 256:
            prefix = []
            while options := m.factored_options(prefix):
                options = [o for o in options if o != END]
                prefix.append(options[rng.integers(len(options))])
                if m.round.phase == "play" and not m.round._trick:
                    break
            m.play(prefix)
        else:
            moves = m.legal_moves()
            m.play(moves[rng.integers(len(moves))])
        if m.round.dealer != dealers[-1] or len(m.results) == len(dealers):
            dealers.append(m.round.dealer)
    for dealer, next_dealer, res in zip(dealers, dealers[1:], m.results):
        assert next_dealer == ((dealer + 2) % 4 if res["winner"] == "declarers" else (dealer + 1) % 4)
    assert Match.from_json(m.to_json()).to_json() == m.to_json()


def test_world_sampler_deals_the_hidden_kitty_too():
    r = Round.new(2, Rules.classic("2", "D"), dealer=0)
    rng = np.random.default_rng(2)
    r.play(sorted(r.hands()[0])[:8])
    for _ in range(12):
        moves = r.legal_moves(limit=None) if r.count_legal() <= 5000 else None
        if moves is None:
            break
        r.play(moves[rng.integers(len(moves))])
    seat = r.current_seat if r.current_seat != 0 else 1
    obs = r.observation(seat)
    truth = r.hands()
    hidden = Counter(c for s in range(4) if s != seat for c in truth[s]) + Counter(r.kitty())
    for world in sample_worlds(obs, 50, seed=3):
        assert len(world) == 4 and len(world[3]) == 8
        assert Counter(c for h in world for c in h) == hidden
        for k, hand in enumerate(world[:3]):
            assert len(hand) == obs.cards_left[(seat + 1 + k) % 4]
    dealer_view = sample_worlds(r.observation(0), 5, seed=3)
    assert all(len(w) == 3 for w in dealer_view)


def test_regression_classic_round_deals_before_the_burial():
    # Bug: the shared classic setup marked the deal as finished, so a fresh round skipped the
    # deal and started play with four empty hands.
    r = Round.new(0, "classic")
    while r.phase == "declare":
        r.play(())
    assert [len(h) for h in r.hands()] == [33, 25, 25, 25] and len(r.kitty()) == 8
