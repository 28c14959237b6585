"""`openlandlord bench env`: how fast the VecEnv steps, beside the Python one-call-per-move loop
doing the same work, in the same run (docs/envs.md, the README's table).

A move is one decision of one game (a Shengji card added to a play being built counts as one).
Every side chooses uniformly among the legal actions (the VecEnv with `sample_actions()`, which
is timed with it), new deals as games end.

- VecEnv: `VecEnv(game, num_envs, features="mask")` (the mask, the seat, rewards, dones) and
  `features="full"` (also the student's state features).
- Python, masks: one `state` of the game's spec, per move the codec's legal `Step` and its mask
  (`openlandlord.envs.actions`), a random legal action, `state.play`.
- Python, full: the PettingZoo AEC environment (`openlandlord.envs.aec`: `last()` gives the
  observation with the featurizer's tokens and the mask, `step(action)`), one call per move.
"""
from __future__ import annotations

import time

import numpy as np

# Issue 22's targets (Dou Dizhu, 256 games, one core).
TARGETS = {"doudizhu": {"mask": 1_000_000, "full": 100_000}}


def vec_rate(game: str, options: dict, num_envs: int, seconds: float, features: str) -> dict:
    from . import VecEnv
    env = VecEnv(game, num_envs, seed=0, features=features, **options)
    env.reset()
    moves = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, dones, _ = env.step(env.sample_actions())
        moves += num_envs
        games += int(dones.sum())
    elapsed = time.perf_counter() - start
    return {"moves_per_s": round(moves / elapsed), "games_per_s": round(games / elapsed, 1)}


def python_mask_rate(game: str, options: dict, seconds: float) -> dict:
    """One game at a time through the spec's state, a mask built per move."""
    from ..games import spec
    from .actions import actions_of
    g, codec = spec(game), actions_of(game)
    rng = np.random.default_rng(0)
    deal = moves = games = 0
    state, prefix = g.new_game(deal, **options), ()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step = codec.step(state, state.observation(state.current_seat), prefix)
        mask = step.mask(codec.n)
        legal = np.flatnonzero(mask)
        action = int(legal[rng.integers(len(legal))])
        if codec.completes(state, step, action):
            state.play(step.options[action])
            prefix = ()
        else:
            prefix = step.options[action]
        moves += 1
        if state.done:
            deal += 1
            games += 1
            state, prefix = g.new_game(deal, **options), ()
    elapsed = time.perf_counter() - start
    return {"moves_per_s": round(moves / elapsed), "games_per_s": round(games / elapsed, 1)}


def python_full_rate(game: str, options: dict, seconds: float) -> dict | None:
    """The PettingZoo AEC environment, one call per move (None without the `rl` extra)."""
    try:
        from .aec import CardGameEnv
    except ImportError:
        return None
    env = CardGameEnv(game, **options)
    rng = np.random.default_rng(0)
    deal = moves = games = 0
    env.reset(seed=deal)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            deal += 1
            games += 1
            env.reset(seed=deal)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        moves += 1
    elapsed = time.perf_counter() - start
    return {"moves_per_s": round(moves / elapsed), "games_per_s": round(games / elapsed, 1)}


def bench_env(game: str, options: dict, num_envs: int = 256, seconds: float = 3.0) -> dict:
    result = {"game": game, "options": options, "num_envs": num_envs, "seconds": seconds,
              "vec": {}, "python": {}, "ratio": {}}
    for features in ("mask", "full"):
        result["vec"][features] = vec_rate(game, options, num_envs, seconds, features)
    result["python"]["mask"] = python_mask_rate(game, options, seconds)
    full = python_full_rate(game, options, seconds)
    if full is not None:
        result["python"]["full"] = full
    for features, py in result["python"].items():
        result["ratio"][features] = round(result["vec"][features]["moves_per_s"]
                                          / max(py["moves_per_s"], 1), 1)
    targets = TARGETS.get(game)
    if targets and num_envs == 256:
        result["targets"] = {f: {"moves_per_s": t,
                                 "met": result["vec"][f]["moves_per_s"] >= t}
                             for f, t in targets.items()}
    return result


def format_table(r: dict) -> str:
    opts = " ".join(f"{k}={v}" for k, v in r["options"].items())
    lines = [f"bench env: {r['game']} {opts}, {r['num_envs']} games per VecEnv, one thread",
             f"  {'':28} {'moves/s':>12} {'games/s':>10} {'VecEnv x':>9}"]
    for features in ("mask", "full"):
        v = r["vec"][features]
        lines.append(f"  {'VecEnv ' + features:28} {v['moves_per_s']:>12,} {v['games_per_s']:>10,.1f}")
    names = {"mask": "Python loop, masks", "full": "PettingZoo AEC, full"}
    for features, p in r["python"].items():
        lines.append(f"  {names[features]:28} {p['moves_per_s']:>12,} {p['games_per_s']:>10,.1f}"
                     f" {r['ratio'][features]:>8}x")
    for features, t in r.get("targets", {}).items():
        lines.append(f"  target {features}: >= {t['moves_per_s']:,} moves/s: "
                     + ("met" if t["met"] else "MISSED"))
    return "\n".join(lines)


def run(args) -> int:
    """`openlandlord bench env`."""
    from .. import artefacts
    from ..games import spec
    from ..provenance import git_sha
    g = spec(args.game)
    options = g.check_options({o.name: getattr(args, o.name, None) for o in g.options})
    result = bench_env(args.game, options, num_envs=args.envs or 256,
                       seconds=args.seconds or 3.0)
    result["git_sha"] = git_sha()
    print(format_table(result))
    if args.json:
        artefacts.write_json(args.json, result)
    return 0
