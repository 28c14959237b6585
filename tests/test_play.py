"""`openlandlord play` and the `human` agent: a bad typed move is refused with the reason."""
import io

import numpy as np

from openlandlord.agents.human import HumanAgent
from openlandlord.cli import main
from openlandlord.games.doudizhu import Game


def test_human_is_asked_again_after_a_refused_move():
    game = Game.from_hands(["3345", "66", "77"], kitty="", landlord=0)
    obs, legal = game.observation(0), game.legal_moves()
    out = io.StringIO()
    # Not in the hand, then no move at all, then the pair typed loosely.
    human = HumanAgent(stdin=io.StringIO("99\n34\n 3 3\n"), stdout=out)
    scores = human.scores(obs, legal)
    assert out.getvalue().count("refused:") == 2
    assert legal[int(np.argmax(scores))] == "33" and scores.sum() == 1.0


def test_human_bid_and_pass_words():
    human = HumanAgent(stdin=io.StringIO("bid9\nbid2\n"), stdout=io.StringIO())
    game = Game.new(3, bidding="points")
    obs, legal = game.observation(game.current_seat), game.legal_moves()
    scores = human.scores(obs, legal)
    assert legal[int(np.argmax(scores))] == "bid2"


def test_play_doudizhu_between_bots(capsys):
    assert main(["play", "--game", "doudizhu", "--seats", "random,random,random", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "payoffs by seat" in out


def test_play_needs_one_spec_per_seat(capsys):
    assert main(["play", "--game", "shengji", "--seats", "random,random,random"]) == 2
    assert "4 agent specs" in capsys.readouterr().err


def test_shengji_human_bad_play_is_explained():
    from openlandlord.games.shengji import Match
    match = Match.new(2)
    obs, legal = match.observation(0), match.legal_moves()
    hand = list(obs.hand)
    pair = next((c for c in hand if hand.count(c) == 2), None)
    two_odd = next(f"{a} {b}" for a in hand for b in hand if a != b)
    out = io.StringIO()
    human = HumanAgent(stdin=io.StringIO(f"ZZ\n{two_odd}\n{hand[0]}\n"), stdout=out)
    scores = human.scores(obs, legal)
    assert out.getvalue().count("refused:") == 2
    assert legal[int(np.argmax(scores))] == (hand[0],)
    assert "trump" in out.getvalue()
