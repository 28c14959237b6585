"""`rule` (openlandlord.agents.rule, doudizhu_rule): the Dou Dizhu rule bot.

Positions are drawn as the three seats' hands (seat 0 is the landlord) and the moves played
so far; the bot then moves for the seat to play.
"""
import time

import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.games.doudizhu.rule import DouDizhuRuleBot, counts_of, hand_cost
from openlandlord.errors import UserError
from openlandlord.games.doudizhu import Game

BOT = DouDizhuRuleBot("normal")


def choice(hands, moves, bot=BOT):
    game = Game.from_hands(hands, "", bidding="none", landlord=0)
    for move in moves:
        game.play(move)
    legal = game.legal_moves()
    return legal[int(np.argmax(bot.scores(game.observation(game.current_seat), legal)))]


def test_farmer_does_not_overtake_its_winning_partner():
    #   landlord 3JJ9 leads 3, landlord_down 4K plays K; landlord_up A255 to move
    assert choice(["3JJ9", "4K", "A255"], ["3", "K"]) == ""
    # the same cards, but the K is the landlord's: now landlord_up beats it
    assert choice(["KJJ9", "46", "A255"], ["K", ""]) in ("A", "2")
    # a low partner move the landlord has yet to answer is not winning: landlord_up blocks
    #   landlord 3JJ9 leads 3, landlord_down 5K plays 5; landlord_up 9KK6 plays over it
    assert choice(["3JJ9", "5K", "9KK6"], ["3", "5"]) != ""
    # landlord_down, after the landlord has passed its partner's low move, lets it stand
    assert choice(["3JJ9", "6K", "4A"], ["3", "", "4", ""]) == ""


def test_farmer_stops_a_landlord_on_its_last_card_with_its_highest():
    #   landlord 38 plays 8 and holds one card; landlord_down 9Q55
    assert choice(["38", "9Q55", "46"], ["8"]) == "Q"


def test_bomb_is_kept_until_it_stops_the_landlord():
    #   landlord plays KK with one card left: landlord_down 777745 bombs
    assert choice(["3KK", "777745", "46"], ["KK"]) == "7777"
    # landlord plays KK with 9 cards left: the bomb waits
    assert choice(["3KK66899TTJ", "777745", "46"], ["KK"]) == ""


def test_strong_hand_leads_its_long_chain():
    #   landlord 3456789TJ 22 BR
    assert choice(["3456789TJ22BR", "4Q", "5K"], []) == "3456789TJ"


def test_farmer_feeds_a_partner_on_one_card_a_single():
    #   landlord_down leads after 3 / 5 / pass / pass; landlord_up, next, holds one card
    fed = choice(["366QQKKAA", "58JJJ77", "9"], ["3", "5", "", ""])
    assert len(fed) == 1
    # with a full-handed partner it keeps its single inside a trio with kicker / a pair
    assert len(choice(["366QQKKAA", "58JJJ77", "99TT"], ["3", "5", "", ""])) > 1


def test_leads_into_an_opponent_on_one_card_from_the_top():
    #   landlord 3 8 K 2 ... (many); a farmer on one card: no low single is led
    move = choice(["38K2QQ99", "4", "5TTJJ"], ["8", "", ""])
    assert move in ("QQ", "99", "2") or len(move) > 2


def test_hand_cost_prefers_fewer_lower_burdens():
    assert hand_cost(counts_of("")) < hand_cost(counts_of("BR")) < hand_cost(counts_of("3"))
    assert hand_cost(counts_of("34567")) < hand_cost(counts_of("3457"))
    assert hand_cost(counts_of("334455")) < hand_cost(counts_of("3344"))
    assert hand_cost(counts_of("3")) > hand_cost(counts_of("2"))


@pytest.mark.parametrize("bidding", ["none", "points", "call-rob"])
def test_always_legal_and_scored_over_random_games(bidding):
    agents = [make("rule"), make("rule:expert"), make("rule:easy")]
    random = make("random", seed=0)
    for deal in range(100):
        seats = [agents[(deal + k) % 3] for k in range(3)]
        if deal % 4 == 0:
            seats[deal % 3] = random
        game = Game.new(1000 + deal, bidding=bidding)
        while not game.done:
            legal = game.legal_moves()
            scores = seats[game.current_seat].scores(game.observation(game.current_seat), legal)
            assert scores.shape == (len(legal),) and np.all(np.isfinite(scores))
            game.play(legal[int(np.argmax(scores))])


def bid_choice(hand, bidding):
    game = Game.from_hands([hand, "3", "4"], "", bidding=bidding)
    legal = game.legal_moves()
    return legal[int(np.argmax(BOT.scores(game.observation(0), legal)))]


def test_bids_by_hand_strength():
    strong, weak = "BR2222AAKKQQJJT98", "3345567899TJQ44K6"
    assert bid_choice(strong, "points") == "bid3"
    assert bid_choice(weak, "points") == "pass"
    assert bid_choice(strong, "call-rob") == "call"
    assert bid_choice(weak, "call-rob") == "pass"


def test_levels_and_bad_specs():
    assert make("rule").name == "rule" and make("rule:expert").name == "rule:expert"
    with pytest.raises(UserError, match="unknown rule level"):
        make("rule:grandmaster")
    with pytest.raises(UserError):
        make("rule:depth=3")


def test_decision_time():
    """Print the mean time per play decision (normal level), over whole games."""
    game_count, decisions, elapsed = 0, 0, 0.0
    while game_count < 10:
        game = Game.new(500 + game_count, bidding="none")
        while not game.done:
            legal = game.legal_moves()
            obs = game.observation(game.current_seat)
            start = time.perf_counter()
            scores = BOT.scores(obs, legal)
            elapsed += time.perf_counter() - start
            decisions += 1
            game.play(legal[int(np.argmax(scores))])
        game_count += 1
    print(f"rule bot: {1e3 * elapsed / decisions:.3f} ms per decision over {decisions}")
    assert elapsed / decisions < 0.05


def test_dispatches_on_the_game():
    from openlandlord.games import new_deal

    agent = make("rule")
    game = new_deal("shengji", 3)
    while not game.done:
        legal = game.legal_moves()
        scores = agent.scores(game.observation(game.current_seat), legal)
        assert scores.shape == (len(legal),)
        game.play(legal[int(np.argmax(scores))])
