"""How fast the Shengji VecEnv steps, against a plain Python loop over `Round` objects doing the
same work (`bench env` calls `bench`; docs/envs.md quotes it).

A step is one decision of one game: a card added to the seat's partial play, END, a burial
card or a declaration. Both sides choose uniformly among the legal options (the VecEnv with
`sample_actions()`, timed with it), so they play games of the same kind, new deals included;
with features="full" the Python loop also featurizes every decision (`features.featurize`,
the native featurizer on the round's Observation), as a Python environment would.

    python -m openlandlord.envs.shengji_bench --envs 256 --seconds 5
"""
from __future__ import annotations

import time

import numpy as np


def bench(num_envs: int = 256, seconds: float = 5.0, features: str = "mask",
          rules: str = "tractor", python_seconds: float | None = None) -> dict:
    """Steps per second of `VecEnv("shengji", num_envs, features=features, rules=rules)` and of
    the Python loop (for `python_seconds`, default half of `seconds`), and their ratio."""
    from . import VecEnv
    env = VecEnv("shengji", num_envs, seed=0, features=features, rules=rules)
    env.reset()
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, dones, _ = env.step(env.sample_actions())
        steps += num_envs
        games += int(dones.sum())
    elapsed = time.perf_counter() - start
    vec = steps / elapsed
    python = python_loop(python_seconds if python_seconds is not None else seconds / 2, rules,
                         features)
    return {"game": "shengji", "rules": rules, "features": features, "num_envs": num_envs,
            "steps_per_s": round(vec), "games_per_s": round(games / elapsed, 1),
            "python_steps_per_s": round(python), "speedup": round(vec / python, 1)}


def python_loop(seconds: float, rules: str = "tractor", features: str = "mask") -> float:
    """Steps per second of one Python `Round` stepped card by card through `factored_options`
    with a uniformly random option, new deals as rounds end; with features="full" each
    decision's state features computed too."""
    from ..games import END, spec
    rng = np.random.default_rng(0)
    shengji = spec("shengji")
    featurize = shengji.features().featurize if features == "full" else None
    deal = 0
    state, prefix = shengji.new_game(deal, rules=rules), ()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if featurize is not None:
            featurize(state.observation(state.current_seat), [])
        if state.phase == "declare":
            legal = state.legal_moves()
            state.play(legal[rng.integers(len(legal))])
        else:
            options = state.factored_options(prefix)
            choice = options[rng.integers(len(options))]
            if choice == END:
                state.play(prefix)
                prefix = ()
            else:
                prefix += (choice,)
                if not state.factored_options(prefix):
                    state.play(prefix)
                    prefix = ()
        steps += 1
        if state.done:
            deal += 1
            state, prefix = shengji.new_game(deal, rules=rules), ()
    return steps / (time.perf_counter() - start)


def main(argv=None) -> None:
    import argparse
    import json
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--features", choices=("mask", "full"), default="mask")
    parser.add_argument("--rules", choices=("tractor", "classic"), default="tractor")
    args = parser.parse_args(argv)
    print(json.dumps(bench(args.envs, args.seconds, args.features, args.rules)))


if __name__ == "__main__":
    main()
