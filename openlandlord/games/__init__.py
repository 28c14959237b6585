"""The games behind one interface, so that the arena, generation and play never branch on
the game for the loop itself.

Every state returned here has: `current_seat`, `phase`, `done`, `num_seats`, `legal_moves()`,
`play(move)`, `observation(seat)`, `payoffs()` (zero-sum, per seat), `result()`, `hands()`,
`clone()`, `to_json()`. An observation says which game it is from in `obs.game`.
"""
from __future__ import annotations

from ..errors import UserError

GAMES = ("doudizhu", "shengji")
NUM_SEATS = {"doudizhu": 3, "shengji": 4}


def new_deal(game: str, seed: int, **options):
    """A fresh deal of `game` from `seed`. Options: Dou Dizhu `bidding` ("none", "points",
    "call-rob"); Shengji `rules` ("tractor", "classic"), `dealer` (seat), `levels`."""
    if game == "doudizhu":
        from .doudizhu import Game
        return Game.new(seed, bidding=options.get("bidding", "none"))
    if game == "shengji":
        from .shengji import Round
        return Round.new(seed, rules=options.get("rules", "tractor"),
                         dealer=options.get("dealer", 0), levels=options.get("levels", (2, 2)))
    raise UserError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
