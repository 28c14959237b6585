"""The one featurizer (openlandlord.features) on real Dou Dizhu positions."""
import numpy as np

from openlandlord import features
from openlandlord.games.doudizhu import Game

DIMS = features.dims("doudizhu")


def _positions(n_games=30, seed=0):
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        game = Game.new(1000 + g)
        while not game.done:
            obs = game.observation(game.current_seat)
            legal = game.legal_moves()
            yield game, obs, legal
            game.play(legal[int(rng.integers(len(legal)))])


def test_shapes_and_ranges():
    for game, obs, legal in _positions(10):
        s = features.featurize(obs, legal)
        assert s["state_tokens"].shape[1] == DIMS["state_feat_dim"]
        assert s["state_tokens"].shape[0] <= DIMS["max_tokens"]
        assert s["actions"].shape == (len(legal), DIMS["action_feat_dim"])
        assert 0 <= s["role"] < DIMS["num_roles"]
        assert np.isfinite(s["state_tokens"]).all() and np.isfinite(s["actions"]).all()


def test_unseen_cards_are_exactly_the_hidden_hands():
    # Conservation: what the seat cannot see is what the two other seats hold.
    for game, obs, legal in _positions(20):
        s = features.featurize(obs, legal)
        truth = features.belief_target(obs, game.hands())
        assert np.array_equal(truth.sum(axis=1), s["unseen"])
        assert np.array_equal(truth.sum(axis=0), s["capacity"])


def test_action_rows_follow_the_legal_order():
    rng = np.random.default_rng(1)
    for game, obs, legal in _positions(5):
        perm = rng.permutation(len(legal))
        a = features.featurize(obs, legal)["actions"]
        b = features.featurize(obs, [legal[i] for i in perm])["actions"]
        assert np.array_equal(a[perm], b)


def test_winning_move_is_flagged():
    game = Game.from_hands(["33", "4", "5"], kitty="", landlord=0)
    obs = game.observation(0)
    legal = game.legal_moves()
    acts = features.featurize(obs, legal)["actions"]
    from openlandlord.games.doudizhu.features import _A_WIN
    assert {m: bool(acts[i, _A_WIN]) for i, m in enumerate(legal)} == {"3": False, "33": True}


def test_collate_pads_with_masks():
    samples = [features.featurize(o, l) for _, o, l in list(_positions(2))[:5]]
    batch = features.collate(samples)
    assert batch["action_mask"].sum() == sum(len(s["actions"]) for s in samples)
    assert batch["state_mask"].sum() == sum(len(s["state_tokens"]) for s in samples)
    wide = features.collate(samples, action_slots=600)
    assert wide["actions"].shape[1] == 600


def test_belief_is_masked_while_the_kitty_is_hidden():
    game = Game.new(5, bidding="points")
    bidding = features.featurize(game.observation(game.current_seat), game.legal_moves())
    while game.phase == "bidding":
        game.play(game.legal_moves()[-1])
    playing = features.featurize(game.observation(game.current_seat), game.legal_moves())
    assert features.collate([bidding, playing])["belief_mask"].tolist() == [0.0, 1.0]
