"""The Gymnasium single-agent wrapper (`openlandlord.envs.single_agent.SingleAgentEnv`): Gymnasium's
env checker, whole episodes against rule opponents, seeding and the illegal-action rules."""
import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from openlandlord.envs.single_agent import SingleAgentEnv
from openlandlord.errors import IllegalMove, UserError

CASES = [("doudizhu", ["rule", "rule"], {"bidding": "call-rob"}),
         ("doudizhu", ["random", "rule:expert"], {"bidding": "points"}),
         ("shengji", ["rule", "rule", "rule"], {"rules": "tractor"}),
         ("shengji", ["rule", "random", "rule"], {"rules": "classic"})]


def _id(case):
    return f"{case[0]}-{'-'.join(case[2].values())}"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_check_env(case):
    game, opponents, options = case
    # check_env steps unmasked random actions: with illegal_reward they end the episode.
    check_env(SingleAgentEnv(game, opponents, seat=1, illegal_reward=-1.0, render_mode="ansi",
                             **options))


def _episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    rewards, steps = [], 0
    while True:
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs["action_mask"], info["action_mask"]) and info["action_mask"].any()
        assert env.aec.state.current_seat == env.seat
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        rewards.append(reward)
        steps += 1
        assert not truncated
        if terminated:
            return rewards, info, steps


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_an_episode_against_rule_opponents_finishes(case):
    game, opponents, options = case
    for seat in (0, 1):
        env = SingleAgentEnv(game, opponents, seat=seat, **options)
        rewards, info, steps = _episode(env, seed=seat + 4, rng=np.random.default_rng(seat))
        assert env.aec.state.done and steps > 0
        assert rewards[:-1] == [0.0] * (len(rewards) - 1)
        assert rewards[-1] == info["payoffs"][seat] and sum(info["payoffs"]) == 0
        assert not info["action_mask"].any()
        with pytest.raises(UserError, match="reset"):
            env.step(0)


def test_same_seed_same_episode():
    def run():
        env = SingleAgentEnv("shengji", ["rule", "rule:expert", "random"], seat=2, rules="classic")
        return _episode(env, seed=9, rng=np.random.default_rng(3))
    first, second = run(), run()
    assert first[0] == second[0] and first[2] == second[2] and first[1]["payoffs"] == second[1]["payoffs"]
    # The constructor's seed is the first reset's.
    a = SingleAgentEnv("doudizhu", seed=21)
    b = SingleAgentEnv("doudizhu")
    obs_a, _ = a.reset()
    obs_b, _ = b.reset(seed=21)
    assert all(np.array_equal(obs_a[k], obs_b[k]) for k in obs_a)


def test_illegal_actions():
    env = SingleAgentEnv("doudizhu", bidding="points")
    _, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalMove, match="not legal now"):
        env.step(illegal)
    env = SingleAgentEnv("doudizhu", bidding="points", illegal_reward=-5.0)
    env.reset(seed=2)
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-5.0, True, False) and info["illegal_action"]
    assert not obs["action_mask"].any()


def test_bad_arguments_are_user_errors():
    with pytest.raises(UserError, match="3 opponent specs"):
        SingleAgentEnv("shengji", ["rule", "rule"])
    with pytest.raises(UserError, match="seat"):
        SingleAgentEnv("doudizhu", seat=3)
    with pytest.raises(UserError, match="unknown agent"):
        SingleAgentEnv("doudizhu", ["rule", "nobody"])
    with pytest.raises(UserError, match="no option"):
        SingleAgentEnv("doudizhu", rules="classic")


def test_render():
    env = SingleAgentEnv("shengji", ["rule"] * 3, render_mode="ansi", rules="classic")
    env.reset(seed=1)
    assert "Shengji" in env.render()
    assert isinstance(env, gymnasium.Env)
