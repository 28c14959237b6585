"""Train a small policy on the VecEnv, end to end: a linear softmax policy over the student's
action rows (REINFORCE with a running baseline) plays the Dou Dizhu landlord against two
farmers who move at random, in `num_envs` games stepped together. The landlord's mean reward
per block of games is printed; it rises as the policy learns to shed its cards in long combos.

    python docs/examples/vecenv_reinforce.py                  # 4,000 games, ~5 s
    python docs/examples/vecenv_reinforce.py --games 600      # what the test runs

Everything here is the public API: `VecEnv`, `sample_actions()` for the random seats,
`legal_actions(i)` and `action_features(i)` (the one featurizer's action rows) for the learner.
"""
from __future__ import annotations

import argparse

import numpy as np

from openlandlord.envs import VecEnv

LEARNER = 0     # bidding "none": seat 0 is the landlord


def train(games: int = 4000, num_envs: int = 64, lr: float = 0.05, seed: int = 0,
          block: int = 200) -> list[float]:
    """Plays `games` games while learning; returns the learner's mean reward per `block` games."""
    env = VecEnv("doudizhu", num_envs, seed=seed, features="mask")
    obs = env.reset()
    rng = np.random.default_rng(seed)
    dim = env.action_features(0).shape[1]
    w = np.zeros(dim)
    baseline = 0.0
    # Per game in progress: the sum over the learner's decisions of phi(a) - E_pi[phi].
    score_grad = np.zeros((num_envs, dim))
    rewards, curve = [], []
    while len(rewards) < games:
        actions = env.sample_actions()
        for i in np.flatnonzero(obs["seat"] == LEARNER):
            phi = env.action_features(int(i)).astype(np.float64)
            logits = phi @ w
            p = np.exp(logits - logits.max())
            p /= p.sum()
            k = rng.choice(len(p), p=p)
            actions[i] = env.legal_actions(int(i))[k]
            score_grad[i] += phi[k] - p @ phi
        obs, reward, dones, _ = env.step(actions)
        for i in np.flatnonzero(dones):
            r = float(reward[i, LEARNER]) / 2.0      # the landlord's stake is +-2 per unit
            w += lr * (r - baseline) * score_grad[i]
            baseline += 0.02 * (r - baseline)
            score_grad[i] = 0.0
            rewards.append(r)
            if len(rewards) % block == 0:
                curve.append(float(np.mean(rewards[-block:])))
    return curve


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    block = max(args.games // 10, 1)
    for n, mean in enumerate(train(args.games, args.envs, seed=args.seed, block=block), 1):
        print(f"games {n * block:>6}: landlord's mean reward {mean:+.3f}")


if __name__ == "__main__":
    main()
