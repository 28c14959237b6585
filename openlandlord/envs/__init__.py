"""RL environments for both games (docs/envs.md): a batched native `VecEnv` (here), PettingZoo
AEC environments (`doudizhu_v0.env(bidding=...)`, `shengji_v0.env(rules=...)`, one class in
`aec.py`) and a Gymnasium single-agent wrapper against fixed opponent specs
(`single_agent.SingleAgentEnv`), all over the same fixed action spaces (`actions.py`). The
PettingZoo and Gymnasium ones need the `rl` extra; `openlandlord bench env` measures them.

    from openlandlord.envs import VecEnv
    env = VecEnv("doudizhu", num_envs=256, seed=0, features="full", bidding="none")
    obs = env.reset()                      # a dict of numpy arrays, one row per game
    obs, rewards, dones, info = env.step(env.sample_actions())

`VecEnv(game, num_envs, seed, features="full" | "mask", **game_options)` asks the game's spec
for its vectorised environment (`spec.vec_env`). Every one has the same contract:

- `reset()` -> obs and `step(actions)` -> (obs, rewards, dones, info), actions an int array of
  `num_envs` indices into the game's fixed action space (`openlandlord.envs.actions`).
- obs["mask"]: uint8 [num_envs, num_actions], 1 for the legal actions of the seat to move;
  obs["seat"]: int32 [num_envs]; with features="full" also the student's state features from the
  one featurizer (obs["state_tokens"] float32 [num_envs, max_tokens, state_feat_dim], zero
  padded, obs["n_tokens"], obs["role"], ...).
- `phase(i)`: env i's phase now, "play" or the spec's `bidding_kinds` word of its decision
  (Dou Dizhu "bid" and "double"; Shengji `classic` "declare" and "bury").
- rewards: float32 [num_envs, num_seats], the payoffs of a game that ended on this step (zero
  otherwise); dones: bool [num_envs]. A finished game is reset at once (auto-reset): its row of
  obs is the next game's first decision.
- The arrays are the environment's own buffers, rewritten by the next call: copy what you keep.
- Deterministic for a seed: the deals and `sample_actions()` (uniform random legal actions,
  from the environment's own random stream) depend on `seed` only.
"""
from __future__ import annotations

from ..errors import UserError

FEATURE_MODES = ("full", "mask")


def VecEnv(game: str, num_envs: int, seed: int = 0, features: str = "full", **game_options):
    """A batched environment of `num_envs` games of `game` (see the module docstring)."""
    from ..games import spec
    g = spec(game)
    if features not in FEATURE_MODES:
        raise UserError(f"features {features!r}: choose one of {', '.join(FEATURE_MODES)}")
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise UserError(f"num_envs must be a positive integer, got {num_envs!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"seed must be a non-negative integer, got {seed!r}")
    options = g.check_options(game_options)
    return g.vec_env(num_envs, seed, features, options)
