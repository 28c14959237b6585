"""Random-simulation invariants of the Shengji referee, over as many rounds as asked.

`python -m openlandlord.games.shengji.selfcheck --rules classic --rounds 10000` plays random
rounds through the `Round` interface (huge move sets built card by card with
`factored_options`) and checks, at every step, that a legal move exists and that the 108 cards
are conserved (hands + played + kitty), and at the end of every round that the hands are empty,
that captured points plus points in the kitty make 200, that the payoffs are zero-sum and that
the JSON record replays to the same result. For `tractor` it also runs the native loop with
every play checked (`_referee.simulate(check=True)`).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from .rules import END
from .state import Round


def random_move(r, rng) -> list[str]:
    """A random legal move; a `classic` lead stops growing with probability 0.6 per card, so
    that random leads are not mostly failed throws."""
    if r.count_legal() <= 256:
        moves = r.legal_moves()
        return list(moves[rng.integers(len(moves))])
    prefix: list[str] = []
    while options := r.factored_options(prefix):
        options = [o for o in options if o != END]
        prefix.append(options[rng.integers(len(options))])
        if r.phase == "play" and not r.observation(r.current_seat).trick and rng.random() < 0.6:
            break
    return prefix


def check_round(seed: int, rules: str, rng) -> dict:
    r = Round.new(seed, rules, dealer=seed % 4, levels=(2 + seed % 13, 2 + (seed // 13) % 13))
    while not r.done:
        if r.count_legal() < 1:
            raise AssertionError(f"round {seed}: no legal move in phase {r.phase}")
        r.play(random_move(r, rng))
        if r.phase in ("play", "done"):
            obs = r.observation(0)
            played = sum(len(c) for _, trick, _ in obs.tricks for _, c in trick)
            played += sum(len(c) for _, c in obs.trick)
            kitty = len(r.kitty()) if rules == "classic" else 0
            if sum(len(h) for h in r.hands()) + played + kitty != 108:
                raise AssertionError(f"round {seed}: cards not conserved")
    res = r.result()
    kitty_points = res.get("kitty_points", 0)
    captured = res.get("captured", res["attacker_points"])
    if r.hands() != [()] * 4:
        raise AssertionError(f"round {seed}: a hand is not empty at the end")
    if captured + r.declarer_points + kitty_points != 200:
        raise AssertionError(f"round {seed}: points not conserved")
    if sum(r.payoffs()) != 0:
        raise AssertionError(f"round {seed}: payoffs not zero-sum")
    if Round.from_json(json.loads(json.dumps(r.to_json()))).result() != res:
        raise AssertionError(f"round {seed}: the record does not replay")
    return res


def check_rounds(rules: str, rounds: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    points = [check_round(seed * 1_000_003 + i, rules, rng)["attacker_points"] for i in range(rounds)]
    return {"rules": rules, "rounds": rounds, "mean_attacker_points": float(np.mean(points)),
            "seconds": time.perf_counter() - start}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="tractor", choices=("tractor", "classic"))
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.rules == "tractor":
        from . import _referee
        native = _referee.simulate(args.rounds, args.seed, check=True)
        print(f"native tractor loop: {len(native)} rounds, every play checked: ok "
              f"(mean attacker points {np.mean(native):.1f})")
    report = check_rounds(args.rules, args.rounds, args.seed)
    print(f"{report['rules']}: {report['rounds']} random rounds through Round: invariants ok "
          f"(mean attacker score {report['mean_attacker_points']:.1f}, {report['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
