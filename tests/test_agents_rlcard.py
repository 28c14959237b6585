"""`rlcard` (openlandlord.agents.rlcard_agent): rlcard's rule agent driven from our observation."""
import numpy as np
import pytest

pytest.importorskip("rlcard")

from rlcard.games.doudizhu.utils import cards2str
from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

from openlandlord.agents import make
from openlandlord.games.doudizhu.rlcard_agent import RLCardAgent
from openlandlord.errors import UserError
from openlandlord.games.doudizhu import Game


def test_always_legal_over_300_games():
    strict = RLCardAgent(seed=0, strict=True)
    random = make("random", seed=1)
    for deal in range(300):
        # half the games rlcard plays itself; in the others a random seat reaches odd positions
        seats = [strict, strict, strict]
        if deal % 2 == 0:
            seats[deal % 3] = random
        game = Game.new(deal, bidding="none" if deal % 4 else "points")
        while not game.done:
            legal = game.legal_moves()
            scores = seats[game.current_seat].scores(game.observation(game.current_seat), legal)
            assert scores.shape == (len(legal),)
            if game.phase == "play" and seats[game.current_seat] is strict:
                assert sorted(scores.tolist()) == [0.0] * (len(legal) - 1) + [1.0]
            game.play(legal[int(np.argmax(scores))])
    assert strict.fallbacks == 0


def test_equals_rlcards_own_agent_on_its_own_states():
    """rlcard's env deals and plays; our referee replays the same game in lockstep. At each
    state, our wrapper (fed our observation, and rlcard's legal list in rlcard's order,
    which its agent uses to break ties) must pick what rlcard's agent picks on rlcard's
    own state. Where rlcard's agent has no rule it draws from numpy's global generator, which
    the wrapper seeds from its own generator: a twin of that generator seeds rlcard's draw
    the same way, so every state is compared."""
    import rlcard

    ours = RLCardAgent(seed=0, strict=True)
    twin = np.random.default_rng(0)
    theirs = DouDizhuRuleAgentV1()
    compared = 0
    for seed in range(40):
        env = rlcard.make("doudizhu", config={"seed": seed})
        state, player = env.reset()
        landlord = env.game.round.landlord_id
        hands = [cards2str(p.current_hand) for p in env.game.players]
        game = Game.from_hands(hands, "", bidding="none", landlord=landlord)
        while not env.is_over():
            assert game.current_seat == player
            legal = [a if a != "pass" else "" for a in state["raw_obs"]["actions"]]
            assert sorted(legal) == sorted(game.legal_moves())
            np.random.seed(int(twin.integers(2**32)))
            pick = str(theirs.step(state))
            mine = legal[int(np.argmax(ours.scores(game.observation(player), legal)))]
            assert (mine or "pass") == pick
            compared += 1
            game.play(mine)
            state, player = env.step(pick, raw_action=True)
        assert game.done
    assert compared > 1000


def test_bad_specs():
    with pytest.raises(UserError):
        make("rlcard:fast")
    with pytest.raises(UserError):
        make("rlcard:strict=1")
