"""The Shengji VecEnv against the Python referee: random games played with `sample_actions()`
are replayed on `spec("shengji").new_game(...)` rounds, card by card through
`factored_options`, and at every step the mask must be those options (mapped through
`envs.actions`), the seat the round's seat to move, a finished round's rewards its payoffs and
(features="full") the state tokens, belief arrays and `action_features` the featurizer's for
the round's observation and the candidates the legal actions make. Both rulesets (`classic`:
declarations, burials, failed throws and kitty bonuses met on the way). Then the contract:
dtypes and shapes, determinism for a seed, auto-reset, bad input.
"""
import numpy as np
import pytest

from openlandlord.envs import VecEnv
from openlandlord.envs.actions import ShengjiActions
from openlandlord.errors import IllegalMove, UserError
from openlandlord.games import spec

CODEC = ShengjiActions()
SHENGJI = spec("shengji")


def expected_mask(state, prefix: tuple) -> np.ndarray:
    """The Python referee's options for the seat to move, as a row of the action mask."""
    mask = np.zeros(CODEC.n, np.uint8)
    if state.phase == "declare":
        mask[[CODEC.declaration_index(tuple(m)) for m in state.legal_moves()]] = 1
    else:
        mask[[CODEC.option_index(o) for o in state.factored_options(prefix)]] = 1
    return mask


class Replay:
    """The Python round of one env's current deal, stepped with the env's actions."""

    def __init__(self, env, index: int, episode: int):
        self.episode = episode
        self.state = SHENGJI.new_game(env.deal_seed(index, episode),
                                      **env.deal_options(index, episode))
        self.prefix = ()

    def candidate(self, action: int) -> tuple:
        """The move or partial play an action makes (what the student's action row describes)."""
        if self.state.phase == "declare":
            return CODEC.declaration(action, self.state.legal_moves())
        return self.prefix if action == CODEC.END else self.prefix + (CODEC.option(action),)

    def step(self, action: int) -> None:
        s = self.state
        if s.phase == "declare":
            s.play(CODEC.declaration(action, s.legal_moves()))
        elif action == CODEC.END:
            s.play(self.prefix)
            self.prefix = ()
        else:
            self.prefix += (CODEC.option(action),)
            if not s.factored_options(self.prefix):
                s.play(self.prefix)
                self.prefix = ()


def cross_check(env, steps: int, check_features: bool = False) -> list[dict]:
    """Plays `steps` random steps, asserting the env against the replayed rounds; returns the
    results of the rounds that finished."""
    obs = env.reset()
    n = env.num_envs
    replays = [Replay(env, i, 0) for i in range(n)]
    features = SHENGJI.features()
    finished = []
    for t in range(steps):
        for i, r in enumerate(replays):
            assert (obs["mask"][i] == expected_mask(r.state, r.prefix)).all(), (t, i)
            assert obs["seat"][i] == r.state.current_seat
            assert obs["prefix"][i].sum() == len(r.prefix)
            assert env.phase(i) == (SHENGJI.bidding_kind(r.state, None) or "play"), (t, i)
            if check_features:
                seen = r.state.observation(r.state.current_seat)
                legal = env.legal_actions(i).tolist()
                arrays = features.featurize(seen, [r.candidate(a) for a in legal])
                np.testing.assert_array_equal(obs["state_tokens"][i], arrays["state_tokens"])
                np.testing.assert_array_equal(env.action_features(i), arrays["actions"])
                assert obs["role"][i] == arrays["role"]
                assert (obs["slot_order"][i] == features.slot_order(seen)).all()
                for key in ("unseen", "capacity", "void"):
                    np.testing.assert_array_equal(obs[key][i], arrays[key])
        actions = env.sample_actions()
        obs, rewards, dones, info = env.step(actions)
        for i, r in enumerate(replays):
            r.step(int(actions[i]))
            assert bool(dones[i]) == r.state.done, (t, i)
            if r.state.done:
                assert rewards[i].tolist() == r.state.payoffs()
                assert info["attacker_points"][i] == r.state.result()["attacker_points"]
                assert env.episodes()[i] == r.episode + 1
                assert env.deal_seeds()[i] == env.deal_seed(i, r.episode + 1)
                replays[i] = Replay(env, i, r.episode + 1)
                finished.append(r.state.result())
            else:
                assert not rewards[i].any()
    return finished


@pytest.mark.parametrize("options", [{}, {"trump_rank": "any"},
                                     {"levels": (5, 11), "dealer": 3}])
def test_masks_and_payoffs_are_the_python_referee_s(options):
    env = VecEnv("shengji", num_envs=6, seed=11, features="mask", **options)
    assert len(cross_check(env, 450)) >= 6        # every env finished a round and went on


def test_state_features_are_the_featurizer_s():
    env = VecEnv("shengji", num_envs=3, seed=5, features="full", trump_rank="any")
    assert len(cross_check(env, 240, check_features=True)) >= 3


@pytest.mark.parametrize("features, options", [("full", {}), ("mask", {"trump_rank": "any"})])
def test_classic_declarations_burial_and_throws_are_the_python_referee_s(features, options):
    env = VecEnv("shengji", num_envs=4, seed=2, features=features, rules="classic", **options)
    results = cross_check(env, 400, check_features=features == "full")
    assert len(results) >= 6
    assert any(r["penalty"] for r in results) and any(r["kitty_bonus"] for r in results)


def test_the_contract_dtypes_and_shapes():
    env = VecEnv("shengji", num_envs=5, seed=0, features="full")
    assert (env.num_envs, env.num_actions, env.num_seats) == (5, 57, 4)
    obs = env.reset()
    assert obs["mask"].dtype == np.uint8 and obs["mask"].shape == (5, 57)
    assert obs["seat"].dtype == np.int32 and obs["seat"].shape == (5,)
    features = SHENGJI.features()
    assert obs["state_tokens"].shape == (5, features.MAX_TOKENS, features.FS)
    assert obs["state_tokens"].dtype == np.float32
    assert (obs["n_tokens"] == features.MAX_TOKENS).all()
    assert obs["unseen"].shape == (5, 54) and obs["capacity"].shape == (5, 3)
    assert obs["void"].shape == (5, 3, 54) and obs["slot_order"].shape == (5, 54)
    assert env.legal_actions(0).tolist() == np.flatnonzero(obs["mask"][0]).tolist()
    assert env.action_features(0).shape == (len(env.legal_actions(0)), features.FA)
    _, rewards, dones, _ = env.step(env.sample_actions())
    assert rewards.dtype == np.float32 and rewards.shape == (5, 4)
    assert dones.dtype == np.bool_ and dones.shape == (5,)
    assert set(VecEnv("shengji", 2, features="mask").reset()) == {"mask", "seat", "prefix"}


def play(env, steps: int):
    obs = env.reset()
    trace = [obs["mask"].copy()]
    for _ in range(steps):
        actions = env.sample_actions()
        obs, rewards, dones, _ = env.step(actions)
        trace += [actions, obs["mask"].copy(), rewards.copy(), dones.copy()]
    return trace


def test_deterministic_for_a_seed():
    first = play(VecEnv("shengji", 4, seed=9, features="mask", trump_rank="any"), 300)
    again = play(VecEnv("shengji", 4, seed=9, features="mask", trump_rank="any"), 300)
    other = play(VecEnv("shengji", 4, seed=10, features="mask", trump_rank="any"), 300)
    assert all((a == b).all() for a, b in zip(first, again))
    assert not all((a == b).all() for a, b in zip(first, other))


def test_a_finished_round_restarts_at_once():
    env = VecEnv("shengji", 2, seed=4, features="mask", dealer=1)
    obs = env.reset()
    while True:
        obs, rewards, dones, _ = env.step(env.sample_actions())
        if dones.any():
            break
    i = int(np.flatnonzero(dones)[0])
    assert env.episodes()[i] == 1 and rewards[i].sum() == 0
    fresh = SHENGJI.new_game(env.deal_seed(i, 1), **env.deal_options(i, 1))
    assert obs["seat"][i] == 1 == fresh.current_seat
    assert (obs["mask"][i] == expected_mask(fresh, ())).all()


def test_bad_input_is_named():
    env = VecEnv("shengji", 3, seed=0, features="mask")
    with pytest.raises(UserError, match="reset"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(UserError, match="reset"):
        env.legal_actions(0)
    obs = env.reset()
    before = obs["mask"].copy()
    with pytest.raises(UserError, match=r"shape \(3,\)"):
        env.step(np.zeros(4, np.int64))
    with pytest.raises(UserError, match="integers"):
        env.step(np.zeros(3, np.float32))
    illegal = env.sample_actions()
    illegal[1] = int(np.flatnonzero(obs["mask"][1] == 0)[0])
    with pytest.raises(IllegalMove, match="env 1: action"):
        env.step(illegal)
    illegal[1] = 57
    with pytest.raises(IllegalMove, match="outside"):
        env.step(illegal)
    assert (obs["mask"] == before).all()      # nothing was stepped
    with pytest.raises(UserError, match="env 3"):
        env.action_features(3)
    with pytest.raises(UserError, match="single deals"):
        VecEnv("shengji", 2, mode="match")
    with pytest.raises(UserError, match="not both"):
        VecEnv("shengji", 2, levels=(3, 4), trump_rank="5")
    with pytest.raises(UserError, match="dealer"):
        VecEnv("shengji", 2, dealer=7)
