"""The exact last-tricks solver of Shengji, both rulesets (native half: `_solve.pyx`, whose
docstring says how it works and why it is exact) from a `Round`, and its benchmark:

    python -m openlandlord.games.shengji.solve --bench [--games 30] [--rules classic] [--json FILE]

plays seeded `rule:expert` rounds (seeds 0 .. games-1), cuts each at the first trick
boundary with at most 4T cards left in all hands for T = 2..6 tricks left (8 .. 24 cards: a
trick of singles takes four cards), solves every cut exactly and prints, per T, the median
and P95 milliseconds (this process's CPU time, so other programs sharing the machine do not
count; one thread) and nodes, next to the seed material's alpha-beta figures (12.7 ms median
at 4 tricks left, 3.4 s at 6)."""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from ...errors import UserError
from . import _solve
from .rules import counts

TRICKS_LEFT = (2, 3, 4, 5, 6)
SEED_MATERIAL_MS = {4: 12.7, 6: 3400.0}   # the seed material's alpha-beta, median per position
BENCH_NODES = 50_000_000


def position_of(round_) -> dict:
    """The solver's arguments for a Round in play: the hands, the leader, the trick in
    progress, the declaring team and (`classic`; None in `tractor`) the buried kitty."""
    if round_.phase != "play":
        raise UserError(f"the Shengji solver takes a round in play, not in its {round_.phase!r} phase")
    obs = round_.observation(round_.current_seat)
    classic = round_.rules.name == "classic"
    return {"trump_rank": round_.rules.rank_index, "trump_suit": round_.rules.suit_index,
            "hands": [counts(h) for h in round_.hands()], "leader": round_.leader,
            "trick": [counts(cards) for _, cards in obs.trick], "declarers": round_.declarers,
            "kitty": counts(round_.kitty()) if classic else None}


def solve_position(p: dict, max_nodes: int = _solve.DEFAULT_NODES):
    """_solve.solve on a position_of dict: (points still to take, best play ids, nodes)."""
    return _solve.solve(p["trump_rank"], p["trump_suit"], p["hands"], p["leader"], p["trick"],
                        p["declarers"], max_nodes, p["kitty"])


def solve_round(round_, max_nodes: int = _solve.DEFAULT_NODES) -> dict:
    """The exact rest of a Round: the attacker points still to take under best play of both
    teams (None past `max_nodes`; `classic`: the kitty's multiplied points included), the
    round's final attacker points (`classic`: its score, penalties so far included, at least
    0), the best play of the seat to move (card names) and the nodes searched."""
    from .rules import CARD_NAMES
    points, best, nodes = solve_position(position_of(round_), max_nodes)
    final = None
    if points is not None:
        final = round_.attacker_points + points
        if round_.rules.name == "classic":
            final = max(0, final + round_.penalty)
    return {"points": points, "nodes": nodes, "final": final,
            "best": None if best is None else tuple(CARD_NAMES[c] for c in best)}


def bench_positions(games: int, rules: str = "tractor") -> dict[int, list]:
    """For each T of TRICKS_LEFT, the Rounds cut from `games` seeded rule:expert rounds of
    the ruleset (`classic`: the bot declares and buries too)."""
    from .rule import ShengjiRuleBot
    from .state import Round
    cuts: dict[int, list] = {t: [] for t in TRICKS_LEFT}
    for seed in range(games):
        bot = ShengjiRuleBot("expert", seed=seed)
        r = Round.new(seed, rules)
        while not r.done:
            if r.phase == "play" and not r.observation(0).trick:
                left = sum(len(h) for h in r.hands())
                for t in TRICKS_LEFT:
                    if left <= 4 * t and len(cuts[t]) < seed + 1:
                        cuts[t].append(r.clone())
            obs = r.observation(r.current_seat)
            if r.phase == "declare":
                legal = r.legal_moves()
                r.play(legal[int(np.argmax(bot.scores(obs, legal)))])
            else:
                r.play(bot.choose_play(obs))
    return cuts


def bench(games: int, max_nodes: int = BENCH_NODES, rules: str = "tractor") -> dict:
    from ...provenance import git_sha
    out = {"games": games, "rules": rules, "max_nodes": max_nodes, "git_sha": git_sha(),
           "tricks_left": {}}
    for t, rounds in bench_positions(games, rules).items():
        ms, nodes, cards, gave_up = [], [], [], 0
        for r in rounds:
            p = position_of(r)
            start = time.process_time()
            points, _, n = solve_position(p, max_nodes)
            ms.append(1000 * (time.process_time() - start))
            nodes.append(n)
            cards.append(sum(int(h.sum()) for h in p["hands"]))
            gave_up += points is None
        out["tricks_left"][t] = {
            "positions": len(ms), "mean_cards": round(float(np.mean(cards)), 2),
            "median_ms": round(float(np.median(ms)), 3),
            "p95_ms": round(float(np.percentile(ms, 95)), 3),
            "median_nodes": int(np.median(nodes)), "p95_nodes": int(np.percentile(nodes, 95)),
            "gave_up": gave_up, "seed_material_median_ms": SEED_MATERIAL_MS.get(t)}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m openlandlord.games.shengji.solve",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", action="store_true", help="time the solver (module docstring)")
    parser.add_argument("--games", type=int, default=30, help="rule:expert rounds to cut (default 30)")
    parser.add_argument("--max-nodes", type=int, default=BENCH_NODES,
                        help=f"node budget per position (default {BENCH_NODES})")
    parser.add_argument("--rules", default="tractor",
                        help="the ruleset of the rounds: tractor (default) or classic")
    parser.add_argument("--json", help="also write the result to this file")
    args = parser.parse_args(argv)
    if not args.bench:
        parser.print_usage(sys.stderr)
        print("solve: nothing to do; pass --bench", file=sys.stderr)
        return 2
    if args.games < 1 or args.max_nodes < 1:
        print("solve: --games and --max-nodes must be at least 1", file=sys.stderr)
        return 2
    if args.rules not in ("tractor", "classic"):
        print(f"solve: --rules is tractor or classic, got {args.rules!r}", file=sys.stderr)
        return 2
    result = bench(args.games, args.max_nodes, args.rules)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
