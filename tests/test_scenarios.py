"""Scenario tests whose position is drawn as a picture (pgx style): the picture is parsed into
the hands the referee starts from, so what you read is what is played. Each runs through the
game interface and the one decision loop."""
import re

from openlandlord.agents import decisions, listed_legal
from openlandlord.games import spec
from openlandlord.games.doudizhu import Game
from openlandlord.games.shengji import Round, Rules, trick_winner


def hands_of(picture: str, seats: int) -> list[list[str]]:
    """`seat N ...: CARDS` lines of a picture -> the cards of every seat, in seat order
    (anything after `<` on a line is a comment)."""
    found = {int(m.group(1)): m.group(2).split("<")[0].split()
             for m in re.finditer(r"seat (\d)[^:\n]*:((?:(?!seat \d)[^\n<])*)", picture)}
    assert sorted(found) == list(range(seats)), picture
    return [found[s] for s in range(seats)]


def test_doudizhu_a_trio_with_a_kicker_leaves_the_farmers_only_passes():
    picture = """
                      seat 1 (landlord_down): 5 K          < no trio, no bomb
        seat 0 (landlord): 3 3 3 4 9 J                     < leads, to move
                      seat 2 (landlord_up):   6 Q
    """
    hands = ["".join(h) for h in hands_of(picture, 3)]
    game = spec("doudizhu")
    state = Game.from_hands(hands, bidding="none", landlord=0)
    assert "3334" in state.legal_moves()
    state.play("3334")
    # Neither farmer can beat a trio with a kicker: the loop plays their forced passes itself
    # and the next real choice is the landlord's lead again.
    loop = decisions(state, game.legal_cap)
    decision = next(loop)
    assert decision.seat == 0 and decision.legal == ["9", "J"]
    assert state.history[-2:] == [(1, ""), (2, "")]


def test_doudizhu_the_rocket_beats_a_bomb():
    picture = """
                      seat 1 (landlord_down): B R 3        < the rocket
        seat 0 (landlord): 7 7 7 7 5                       < leads the bomb
                      seat 2 (landlord_up):   4 4 8
    """
    state = Game.from_hands(["".join(h) for h in hands_of(picture, 3)], bidding="none", landlord=0)
    state.play("7777")
    assert state.legal_moves() == ["", "BR"]
    state.play("BR")
    assert state.legal_moves() == [""]            # the landlord cannot answer the rocket


def test_shengji_a_void_seat_trumps_a_plain_pair():
    picture = """
                       seat 2 (North): 7H 7H 9C          < follows suit
        seat 1 (West): 3H 4H 5C         seat 3 (East): KS KS 6C   < void in hearts, trumps
                       seat 0 (South): 5H 5H 8D          < leads the pair of hearts
        trump: rank 2, suit S
    """
    hands = hands_of(picture, 4)
    rules = Rules.tractor("2", "S")
    state = Round.from_hands(hands, rules, dealer=0)
    for seat, play in ((0, ("5H", "5H")), (1, ("3H", "4H")), (2, ("7H", "7H"))):
        assert state.current_seat == seat and play in state.legal_moves()
        state.play(play)
    assert ("KS", "KS") in state.legal_moves()
    plays = [["5H", "5H"], ["3H", "4H"], ["7H", "7H"], ["KS", "KS"]]
    assert trick_winner(rules, plays) == 3          # East's trump pair takes it


VOID_FOLLOW = """
    seat 0 (South, leads a tractor): 3H 3H 4H 4H 5H 5H 6H 6H 7C 8C 9C TC JC QC KC AC
    seat 1 (West, void in hearts):   3S 4S 5S 6S 7S 8S 9S TS JS QS KS 3D 4D 5D 6D 7D
    seat 2 (North):                  7H 8H 9H TH JH QH KH AH 3C 4C 5C 6C 8D 9D TD JD
    seat 3 (East):                   3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 8D 9D TD JD
"""


def test_shengji_a_void_follow_too_large_to_list_is_built_card_by_card():
    rules = Rules.tractor("2", "S")
    state = Round.from_hands(hands_of(VOID_FOLLOW, 4), rules, dealer=0)
    game = spec("shengji")
    state.play(("3H", "3H", "4H", "4H", "5H", "5H", "6H", "6H"))
    # West holds no heart: any 8 of its 16 cards follow, 12,870 plays, over the listing cap.
    assert state.count_legal() > game.legal_cap and listed_legal(state, game.legal_cap) is None
    loop = decisions(state, game.legal_cap)
    decision = next(loop)
    assert decision.seat == 1 and decision.legal is None
    decision = loop.send(None)                      # build it card by card
    cards = []
    while decision.prefix is not None and decision.seat == 1:
        cards.append(decision.legal[0][-1])
        decision = loop.send(0)
    # North must follow with all eight of its single hearts (forced: the loop plays it).
    trick = state.observation(3).trick
    assert len(cards) == 8 and state.current_seat == 3 and trick[1] == (1, tuple(sorted(cards)))
    assert trick[2] == (2, ("7H", "8H", "9H", "AH", "JH", "KH", "QH", "TH"))


def test_decide_and_build_play_answer_without_playing():
    from openlandlord.agents import build_play, decide, make
    state = Round.from_hands(hands_of(VOID_FOLLOW, 4), Rules.tractor("2", "S"), dealer=0)
    cap = spec("shengji").legal_cap
    rule = make("rule:expert", 0)
    lead = decide(rule, state, cap)
    assert lead in state.legal_moves() and state.current_seat == 0    # nothing was played
    state.play(("3H", "3H", "4H", "4H", "5H", "5H", "6H", "6H"))
    before = state.to_json()
    follow = build_play(make("random", 1), state)                     # card by card
    assert len(follow) == 8 and state.to_json() == before
    assert decide(make("random", 1), state, cap) == follow            # decide builds it too
    state.play(follow)
