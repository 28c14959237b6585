"""What one Dou Dizhu seat can see: the `Observation` the referee hands to agents.

Kept apart from the Cython referee so that featurizers and agents can import the type
without building anything.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Observation:
    """One seat's view. Card strings are canonical (`RANKS` order, ascending); pass is "".

    `played[s]` is every card seat s has played so far; `plays` the play-phase moves in
    order as (seat, move); `bids` the bidding actions as (seat, action). `to_beat` is the
    standing move this seat must beat ("" when it leads or it is not its turn to follow)
    and `to_beat_seat` who played it. `stake` is the common stake so far: the base stake
    (bid, or 2^robs in call-rob), doubled per bomb and rocket played and by the landlord's
    double; a farmer's own double and spring/anti-spring are applied at settlement.
    `bombs_played` counts bombs and rockets.
    """
    game: str
    seat: int
    phase: str
    bidding: str
    hand: str
    landlord: int | None
    role: str | None
    kitty: str
    cards_left: tuple
    played: tuple
    plays: tuple
    bids: tuple
    to_beat: str
    to_beat_seat: int | None
    stake: int
    bombs_played: int
    current_seat: int = -1
    doubled: tuple = (False, False, False)
    robs: int = 0
