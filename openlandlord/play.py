"""`openlandlord play`: a game in the terminal between any agents, people included.

Dou Dizhu plays one deal; Shengji plays a whole match (levels 2 to past Ace). Seats are agent
specs, one per seat; `human` is a person at this terminal (Shengji: seat 0 is South, the
partner North is seat 2).
"""
from __future__ import annotations

import numpy as np

from .agents import decide, make
from .errors import UserError
from .games import NUM_SEATS


def _describe(game: str, move) -> str:
    if game == "doudizhu":
        return move if move else "pass"
    return " ".join(move)


def run(args) -> int:
    specs = [s.strip() for s in args.seats.split(",")]
    if len(specs) != NUM_SEATS[args.game]:
        raise UserError(f"--seats needs {NUM_SEATS[args.game]} agent specs for {args.game}, got {len(specs)}")
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    agents = [make(spec, seed=seed * 10 + i) for i, spec in enumerate(specs)]
    if args.game == "doudizhu":
        from .games.doudizhu import Game
        state = Game.new(seed, bidding=getattr(args, "bidding", None) or "none")
    else:
        from .games.shengji import Match
        state = Match.new(seed)
    print(f"{args.game}, seed {seed}: " + ", ".join(f"seat {i} {s}" for i, s in enumerate(specs)))
    while not state.done:
        seat = state.current_seat
        move = decide(agents[seat], state)
        state.play(move)
        print(f"seat {seat} ({specs[seat]}): {_describe(args.game, move)}")
    if args.game == "doudizhu":
        result = state.result()
        print(f"{result['winner']} win; payoffs by seat: {state.payoffs()}")
    else:
        print(f"match won by team {state.winner} (seats {state.winner} and {state.winner + 2})")
    return 0
