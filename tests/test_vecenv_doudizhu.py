"""The native Dou Dizhu VecEnv against the referee it wraps: every game of a seeded run is replayed
on `Game` (same deal seed, same actions) and, at every step and in every bidding flow, the mask is
exactly the legal set, the seat to move, the state features (the one featurizer's arrays for the
observation), the action rows, the rewards and the done flags agree. Also: determinism for a seed,
auto-reset, and bad input refused."""
import numpy as np
import pytest

from openlandlord.envs import VecEnv
from openlandlord.envs.actions import DoudizhuActions
from openlandlord.errors import IllegalMove, UserError
from openlandlord.games.doudizhu import Game
from openlandlord.games import spec
from openlandlord.games.doudizhu import features as F

ACTIONS = DoudizhuActions()
DOUDIZHU = spec("doudizhu")


@pytest.mark.parametrize("bidding", ["none", "points", "call-rob"])
def test_vecenv_replays_on_the_referee(bidding):
    env = VecEnv("doudizhu", 6, seed=11, bidding=bidding)
    obs = env.reset()
    games = [Game.new(int(s), bidding=bidding) for s in env.deal_seeds()]
    finished = void = phases = 0
    for step in range(320):
        for i, g in enumerate(games):
            bidding_phase = g.phase == "bidding"
            phases += bidding_phase
            legal = env.legal_actions(i)
            want = [ACTIONS.index(m, bidding_phase) for m in g.legal_moves()]
            assert sorted(legal.tolist()) == sorted(want), (step, i)
            assert obs["mask"][i].sum() == len(want) and obs["mask"][i, legal].all()
            assert obs["seat"][i] == g.current_seat
            assert env.phase(i) == (DOUDIZHU.bidding_kind(g, g.legal_moves()) or "play"), (step, i)
            f = F.featurize(g.observation(g.current_seat), [ACTIONS.move(a) for a in legal])
            n = f["state_tokens"].shape[0]
            assert obs["n_tokens"][i] == n
            assert np.array_equal(obs["state_tokens"][i, :n], f["state_tokens"]), (step, i)
            assert not obs["state_tokens"][i, n:].any()
            assert obs["role"][i] == f["role"]
            assert np.array_equal(obs["unseen"][i], f["unseen"])
            assert np.array_equal(obs["capacity"][i], f["capacity"])
            assert np.array_equal(env.action_features(i), f["actions"])
        actions = env.sample_actions()
        for i, g in enumerate(games):
            g.play(ACTIONS.move(actions[i]))
        obs, rewards, dones, info = env.step(actions)
        for i, g in enumerate(games):
            assert bool(dones[i]) == g.done, (step, i)
            if g.done:
                assert rewards[i].tolist() == g.payoffs()
                finished += 1
                void += g.is_void
                games[i] = Game.new(int(env.deal_seeds()[i]), bidding=bidding)
            else:
                assert not rewards[i].any()
    assert finished >= 25
    if bidding != "none":
        assert phases >= 60


@pytest.mark.parametrize("bidding", ["points", "call-rob"])
def test_vecenv_void_deals_end_with_zero_rewards(bidding):
    env = VecEnv("doudizhu", 5, seed=3, features="full", bidding=bidding)
    obs = env.reset()
    seeds = env.deal_seeds().copy()
    passing = np.full(5, ACTIONS.index("pass", True))
    for k in range(3):
        assert obs["mask"][:, passing[0]].all() and (obs["seat"] == k).all()
        obs, rewards, dones, _ = env.step(passing)
    assert dones.all() and not rewards.any()
    for seed in seeds:
        g = Game.new(int(seed), bidding=bidding)
        for _ in range(3):
            g.play("pass")
        assert g.is_void and g.payoffs() == [0.0, 0.0, 0.0]
    assert (env.episodes() == 1).all() and (obs["seat"] == 0).all()


def test_vecenv_is_deterministic_for_a_seed():
    def run(seed):
        env = VecEnv("doudizhu", 16, seed=seed, features="mask", bidding="call-rob")
        env.reset()
        trace = []
        for _ in range(200):
            actions = env.sample_actions()
            _, rewards, dones, _ = env.step(actions)
            trace.append((actions.copy(), rewards.copy(), dones.copy()))
        return trace, env.deal_seeds(), env.episodes()
    a, b, c = run(4), run(4), run(5)
    assert all(np.array_equal(x, y) for s, t in zip(a[0], b[0]) for x, y in zip(s, t))
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert not np.array_equal(a[1], c[1])


def test_vecenv_auto_resets_and_counts_episodes():
    env = VecEnv("doudizhu", 4, seed=2, features="mask")
    obs = env.reset()
    seeds = env.deal_seeds().copy()
    total = np.zeros(4, np.int64)
    for _ in range(400):
        obs, rewards, dones, _ = env.step(env.sample_actions())
        total += dones
        for i in np.flatnonzero(dones):
            assert rewards[i].sum() == 0 and rewards[i].any()   # zero-sum, decided
            # the row already shows the next deal: the landlord leads from 20 cards
            assert obs["seat"][i] == 0 and obs["mask"][i, 0] == 0
    assert np.array_equal(env.episodes(), total) and total.min() >= 3
    assert not np.array_equal(env.deal_seeds(), seeds)


def test_vecenv_refuses_bad_input():
    with pytest.raises(UserError):
        VecEnv("doudizhu", 0)
    with pytest.raises(UserError):
        VecEnv("doudizhu", 4, features="pixels")
    with pytest.raises(UserError):
        VecEnv("doudizhu", 4, bidding="auction")
    env = VecEnv("doudizhu", 3, seed=1, features="mask")
    with pytest.raises(UserError):
        env.step([0, 0, 0])                 # before reset
    env.reset()
    with pytest.raises(UserError):
        env.step([0, 0])                    # wrong shape
    with pytest.raises(IllegalMove):
        env.step([0, 0, 0])                 # the landlord leads: no pass
    with pytest.raises(IllegalMove):
        env.step([27480, 1, 1])
    legal = env.sample_actions()
    before = env.legal_actions(0)
    with pytest.raises(IllegalMove):
        env.step(np.r_[legal[:2], -1])      # one bad action: nothing is played
    assert np.array_equal(env.legal_actions(0), before)
    env.step(legal)


def test_bench_env_measures_both_sides(tmp_path, capsys):
    import json

    from openlandlord.cli import main
    out = tmp_path / "env.json"
    assert main(["bench", "env", "--seconds", "0.2", "--envs", "32", "--bidding", "points",
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["options"] == {"bidding": "points"} and result["num_envs"] == 32
    for side in ("vec", "python"):
        for features in ("mask", "full"):
            assert result[side][features]["moves_per_s"] > 0
    assert result["ratio"]["mask"] > 1 and "git_sha" in result
    assert "VecEnv mask" in capsys.readouterr().out
    assert main(["bench", "env", "--seconds", "0.2", "--json", str(out)]) == 2   # no --force
