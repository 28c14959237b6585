"""Dou Dizhu's exact endgame solver from Python: a game's position as the solver's arguments,
and the bench of what a solve costs by cards left (docs/solve.md, "Dou Dizhu").

The solver itself is native (`_solve.pyx`: alpha-beta with an exact transposition table);
`solve` and `EndgameSolver` are re-exported from there. `position(game)` reads the live
position of a `Game` (all hands known) as `solve`'s keyword arguments.

    python -m openlandlord.games.doudizhu.solve --bench [--games 200] [--seed 0]
prints, as JSON, the median and P95 solve time (CPU) and nodes of positions cut from seeded
rule-bot games (bidding `none`) at 6, 9, 12, ... cards left in all hands together."""
from __future__ import annotations

from ._solve import DEFAULT_BUDGET, EndgameSolver, solve

__all__ = ["DEFAULT_BUDGET", "EndgameSolver", "position", "solve", "bench"]

CUTS = (6, 9, 12, 15, 18, 21)


def position(game) -> dict:
    """The live play position of `game` as `solve`'s keyword arguments."""
    from . import classify
    seat = game.current_seat
    obs = game.observation(seat)
    plays = [0, 0, 0]
    bombs = rockets = 0
    for who, move in obs.plays:
        if move:
            plays[who] += 1
            kind = classify(move)[0]
            bombs += kind == "bomb"
            rockets += kind == "rocket"
    return {"hands": game.hands(), "turn": seat, "landlord": obs.landlord,
            "to_beat": obs.to_beat, "to_beat_seat": obs.to_beat_seat if obs.to_beat else -1,
            "plays": tuple(plays), "bombs": bombs, "rockets": rockets}


def cut_positions(games: int, seed: int, cuts=CUTS) -> dict:
    """{cut: [position, ...]}: from rule-bot games seeded seed.., the first position of each
    game with `cut` or fewer cards left in all hands (while the game is still on)."""
    from ...agents import make
    from ...agents.loop import decide
    from . import Game
    found = {c: [] for c in cuts}
    for k in range(games):
        g = Game.new(seed + k)
        agents = [make("rule", seed=(seed + k) * 3 + s) for s in range(3)]
        taken = set()
        while not g.done:
            left = sum(len(h) for h in g.hands())
            for c in cuts:
                if left <= c and c not in taken:
                    taken.add(c)
                    found[c].append(position(g))
            g.play(decide(agents[g.current_seat], g, None))
    return found


def bench(games: int = 200, seed: int = 0, cuts=CUTS, budget: int = 20_000_000) -> dict:
    """Median / P95 solve time (ms of process CPU time: the machine may be shared; a fresh
    table each, its allocation not timed) and nodes by cards left."""
    import time

    import numpy as np
    out = {"games": games, "seed": seed, "budget": budget, "by_cards_left": {}}
    for cut, positions in cut_positions(games, seed, cuts).items():
        ms, nodes, over = [], [], 0
        for p in positions:
            solver = EndgameSolver(budget=budget)
            t = time.process_time()
            value, _, n = solver.solve(**p)
            ms.append(1000 * (time.process_time() - t))
            nodes.append(n)
            over += value is None
        out["by_cards_left"][str(cut)] = {
            "positions": len(positions), "over_budget": over,
            "median_ms": round(float(np.median(ms)), 3), "p95_ms": round(float(np.percentile(ms, 95)), 3),
            "max_ms": round(float(np.max(ms)), 3),
            "median_nodes": int(np.median(nodes)), "p95_nodes": int(np.percentile(nodes, 95))}
    return out


if __name__ == "__main__":
    import argparse
    import json
    parser = argparse.ArgumentParser(description="Dou Dizhu's exact endgame solver: its bench")
    parser.add_argument("--bench", action="store_true", required=True)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cuts", default=",".join(map(str, CUTS)),
                        help="cards left (all hands together) to cut the games at")
    parser.add_argument("--budget", type=int, default=20_000_000, help="nodes a solve may visit")
    args = parser.parse_args()
    print(json.dumps(bench(args.games, args.seed, tuple(int(c) for c in args.cuts.split(",")),
                           args.budget)))
