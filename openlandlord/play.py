"""`openlandlord play`: a game in the terminal between any agents, people included.

Dou Dizhu plays one deal; Shengji plays a whole match (levels 2 to past Ace) unless `--mode
deal`. Seats are agent specs, one per seat; `human` is a person at this terminal (Shengji:
seat 0 is South, the partner North is seat 2). The game options (`--bidding`, `--rules`) are
the game spec's; the deal is driven by the one decision loop.
"""
from __future__ import annotations

import numpy as np

from .agents import make, play_deal
from .errors import UserError
from .games import game_options, spec as game_spec

# What `play` plays when no --mode is given: a person wants the whole Shengji campaign.
PLAY_DEFAULTS = {"mode": "match"}


def run(args) -> int:
    game = game_spec(args.game)
    specs = [s.strip() for s in args.seats.split(",")]
    if len(specs) != game.num_seats:
        raise UserError(f"--seats needs {game.num_seats} agent specs for {args.game}, got {len(specs)}")
    options = game_options(args.game, args)
    for name, value in PLAY_DEFAULTS.items():
        if name in options and getattr(args, name, None) is None:
            options[name] = value
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    agents = [make(spec, seed=seed * 10 + i) for i, spec in enumerate(specs)]
    state = game.new_game(seed, **options)
    print(f"{args.game}, seed {seed}: " + ", ".join(f"seat {i} {s}" for i, s in enumerate(specs)))
    play_deal(state, game.legal_cap, agents,
              on_move=lambda seat, move: print(f"seat {seat} ({specs[seat]}): {game.describe_move(move)}"))
    print(game.describe_end(state))
    return 0
