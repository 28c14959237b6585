"""Random-simulation invariants of the Shengji referee, over as many rounds as asked.

`python -m openlandlord.games.shengji.selfcheck --rules classic --rounds 10000` first plays
`--rounds` random rounds in the native engine with every play checked
(`_referee.classic_simulate(check=True)`, or `_referee.simulate(check=True)` for `tractor`): every
random lead and follow legal by the engine's rules, a legal follow always there, the 108 cards
(hands + played + kitty) and the 200 points conserved after every trick, the hands empty and
every card played (or buried) exactly twice at the end; `classic` rounds deal an 8-card kitty,
bury 8 random cards, throw (failed throws pay the penalty) and multiply the kitty on the last
trick. Then it plays random rounds through the `Round` interface (`--python-rounds`: all of
them for `tractor`, at most 1,000 by default for `classic`, declarations during the deal
included; huge move sets built card by card with `factored_options`) and checks, at every
step, that a legal move exists and that the 108 cards are conserved, and at the end of every
round that the hands are empty, that captured points plus points in the kitty make 200, that
the payoffs are zero-sum and that the JSON record replays to the same result.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from .rules import END
from .state import Round
from .state import DEFAULT_CAP


def random_move(r, rng) -> list[str]:
    """A random legal move; a `classic` lead stops growing with probability 0.6 per card, so
    that random leads are not mostly failed throws."""
    if r.count_legal() <= DEFAULT_CAP:
        moves = r.legal_moves()
        return list(moves[rng.integers(len(moves))])
    prefix: list[str] = []
    while options := r.factored_options(prefix):
        options = [o for o in options if o != END]
        prefix.append(options[rng.integers(len(options))])
        if r.phase == "play" and not r._trick and rng.random() < 0.6:
            break
    return prefix


def check_round(seed: int, rules: str, rng) -> dict:
    r = Round.new(seed, rules, dealer=seed % 4, levels=(2 + seed % 13, 2 + (seed // 13) % 13))
    while not r.done:
        if r.count_legal() < 1:
            raise AssertionError(f"round {seed}: no legal move in phase {r.phase}")
        r.play(random_move(r, rng))
        if r.phase in ("play", "done"):
            played = sum(len(c) for _, trick, _ in r._tricks for _, c in trick)
            played += sum(len(c) for _, c in r._trick)
            kitty = int(r._kitty.sum()) if rules == "classic" else 0
            if int(r._hands.sum()) + played + kitty != 108:
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
    parser.add_argument("--python-rounds", type=int, default=None,
                        help="rounds through the Round interface (default: --rounds for tractor, "
                             "min(--rounds, 1000) for classic)")
    args = parser.parse_args(argv)
    from . import _referee
    start = time.perf_counter()
    if args.rules == "tractor":
        native = _referee.simulate(args.rounds, args.seed, check=True)
        print(f"native tractor loop: {len(native)} rounds, every play checked: ok "
              f"(mean attacker points {np.mean(native):.1f})")
    else:
        native, stats = _referee.classic_simulate(args.rounds, args.seed, check=True, stats=True)
        print(f"native classic loop: {len(native)} rounds, every play checked: ok "
              f"(mean attacker score {np.mean(native):.1f}; {stats['throws']} throws, "
              f"{stats['failed_throws']} failed; {time.perf_counter() - start:.1f} s)")
    python_rounds = args.python_rounds
    if python_rounds is None:
        python_rounds = args.rounds if args.rules == "tractor" else min(args.rounds, 1000)
    report = check_rounds(args.rules, python_rounds, args.seed)
    print(f"{report['rules']}: {report['rounds']} random rounds through Round: invariants ok "
          f"(mean attacker score {report['mean_attacker_points']:.1f}, {report['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
