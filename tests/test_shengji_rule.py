"""The Shengji rule bots (openlandlord.games.shengji.rule): drawn positions per level, the
constructive choice for huge follow sets, and a small match in the arena."""
import numpy as np
import pytest

from openlandlord.games.shengji.rule import ShengjiRuleBot, choose_play
from openlandlord.errors import UserError
from openlandlord.games.shengji import Observation, Round, Rules, is_legal, legal_plays


def position(seat, hand, trick, trump=("2", "S"), declarers=0, tricks=(), voids=((),) * 4):
    """An observation for `seat` with the current trick ((seat, cards), ...)."""
    leader = trick[0][0] if trick else seat
    n = len(hand)
    return Observation(game="shengji", seat=seat, phase="play", rules="tractor",
                       trump_rank=trump[0], trump_suit=trump[1], hand=tuple(hand),
                       declarers=declarers, dealer=0, levels=(2, 2), current_seat=seat,
                       leader=leader, trick=tuple((s, tuple(sorted(c))) for s, c in trick),
                       tricks=tricks, attacker_points=0,
                       cards_left=(n,) * 4, voids=voids)


def best(level, obs):
    rules = Rules.tractor(obs.trump_rank, obs.trump_suit)
    legal = legal_plays(rules, list(obs.hand), list(obs.trick[0][1]) if obs.trick else None)
    scores = ShengjiRuleBot(level, seed=0).scores(obs, legal)
    assert scores.shape == (len(legal),)
    return legal[int(np.argmax(scores))]


# Seat 3 plays last. Trump: rank 2, spades.
#   seat 0 (partner of 2): 9H    seat 1 (partner of 3): AH    seat 2: 3H    seat 3: KH 4H 6D
@pytest.mark.parametrize("level", ["normal", "expert"])
def test_last_seat_feeds_points_to_a_winning_partner(level):
    obs = position(3, ["KH", "4H", "6D"], [(0, ["9H"]), (1, ["AH"]), (2, ["3H"])])
    assert best(level, obs) == ("KH",)


#   seat 0: AH (opponent of 3, winning)   seat 1: 3H   seat 2: 9H   seat 3: KH 4H 6D
@pytest.mark.parametrize("level", ["normal", "expert"])
def test_never_gives_points_to_opponents(level):
    obs = position(3, ["KH", "4H", "6D"], [(0, ["AH"]), (1, ["3H"]), (2, ["9H"])])
    assert best(level, obs) == ("4H",)


#   seat 0: KH (opponent)  seat 1: 3H  seat 2: TH (opponent)   seat 3: AH 4H: takes 20 points
@pytest.mark.parametrize("level", ["normal", "expert"])
def test_last_seat_takes_a_point_rich_trick_it_can_win(level):
    obs = position(3, ["AH", "4H", "6D"], [(0, ["KH"]), (1, ["3H"]), (2, ["TH"])])
    assert best(level, obs) == ("AH",)


#   void in hearts, opponent winning a 25-point trick: ruff with the cheapest trump
@pytest.mark.parametrize("level", ["normal", "expert"])
def test_ruffs_a_point_trick_with_the_cheapest_trump(level):
    obs = position(3, ["3S", "AS", "6D"], [(0, ["KH"]), (1, ["3H"]), (2, ["TH"])])
    assert best(level, obs) == ("3S",)


def test_expert_leads_a_counted_master():
    # Both aces of hearts are gone; the expert's KH cannot be beaten, so it leads it.
    played = ((0, ((0, ("AH",)), (1, ("AH",)), (2, ("3H",)), (3, ("4H",))), 1),)
    obs = position(1, ["KH", "5D", "7C"], [], tricks=played)
    assert best("expert", obs) == ("KH",)


def test_levels_are_checked_and_easy_is_seeded():
    with pytest.raises(UserError):
        ShengjiRuleBot("grandmaster")
    obs = position(3, ["KH", "4H", "6D", "7D"], [])
    legal = legal_plays(Rules.tractor("2", "S"), list(obs.hand), None)
    a = ShengjiRuleBot("easy", seed=3).scores(obs, legal)
    b = ShengjiRuleBot("easy", seed=3).scores(obs, legal)
    assert np.array_equal(a, b)


def test_choose_play_builds_a_huge_follow_without_the_list():
    # Seat 3, void in hearts, answers a 6-pair heart tractor led by its partner (seat 1),
    # which is winning: it feeds points (K, T, 5) with its 12 cards.
    hand = ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "3C", "4C",
            "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "3S", "4S", "BJ"]
    lead = ["8H", "8H", "9H", "9H", "TH", "TH", "JH", "JH", "QH", "QH", "KH", "KH"]
    obs = position(3, hand, [(1, lead), (2, ["3H", "4H", "5H", "6H", "7H", "AH", "AH", "5S",
                                              "6S", "7S", "8S", "9S"])])
    rules = Rules.tractor("2", "S")
    for level in ("easy", "normal", "expert"):
        play = choose_play(obs, level, np.random.default_rng(0))
        assert len(play) == 12 and is_legal(rules, hand, list(lead), list(play))
    play = choose_play(obs, "normal", np.random.default_rng(0))
    assert {"KD", "KC", "TD", "TC", "5D", "5C"} <= set(play) and "BJ" not in play


def test_bots_play_whole_rounds_legally():
    for level in ("easy", "normal", "expert"):
        r = Round.new(3)
        bot = ShengjiRuleBot(level, seed=1)
        while not r.done:
            obs = r.observation(r.current_seat)
            if r.count_legal() > 256:
                r.play(bot.choose_play(obs))
            else:
                legal = r.legal_moves()
                r.play(legal[int(np.argmax(bot.scores(obs, legal)))])
        assert r.attacker_points + r.declarer_points == 200


def test_normal_beats_easy_on_a_few_deals_in_the_arena():
    # The levels are measured against each other by the ordinary arena (no duplicate loop of
    # the rule module's own): each deal twice, teams swapped.
    from openlandlord.eval import arena, dealsets
    result, _ = arena.evaluate("shengji", "rule", "rule:easy", dealsets.adhoc("shengji", 6, 2),
                               seed=2, workers=1, progress=False)
    assert result["games"] == 12 and result["mean_points"] > 0


def test_bots_play_whole_classic_rounds_legally():
    # Declarations, the burial (built without the list), throws and follows of `classic`.
    for level in ("easy", "normal", "expert"):
        r = Round.new(4, "classic", dealer=2)
        bot = ShengjiRuleBot(level, seed=2)
        while not r.done:
            obs = r.observation(r.current_seat)
            if r.count_legal() > 256:
                r.play(bot.choose_play(obs))
            else:
                legal = r.legal_moves()
                r.play(legal[int(np.argmax(bot.scores(obs, legal)))])
        res = r.result()
        assert res["captured"] + r.declarer_points + res["kitty_points"] == 200


def test_burial_keeps_trumps_and_points():
    r = Round.new(8, Rules.classic("2", "H"), dealer=0)
    assert r.phase == "bury"
    buried = ShengjiRuleBot("normal").choose_play(r.observation(0))
    hand = r.hands()[0]
    assert len(buried) == 8 and not {"BJ", "SJ"} & set(buried)
    assert all(not (c[1] == "H" or c[0] == "2") for c in buried if c not in ("BJ", "SJ"))
    cheap = [c for c in hand if c not in ("BJ", "SJ") and c[1] != "H" and c[0] != "2"
             and c[0] not in "5TKA"]
    assert len(cheap) >= 8 and set(buried) <= set(cheap)
