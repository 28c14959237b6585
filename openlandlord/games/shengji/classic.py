"""Ruleset `classic` over count vectors, as Python values: thin wrappers around the native engine
(`_referee.pyx`, which does all the rule work: card levels, units, leads and follows, throws,
the trick winner, the kitty multiplier). The round (deal, declarations, burial, throw penalty)
is `classic_round.py`; the choices where the rules page is silent are in docs/rules-shengji.md.

Card order. Every card has a category (0..3 plain suits, 4 trumps) and a level inside it; equal
levels are equal strength and consecutive levels join into tractors:
- a plain suit: its ranks 2..A without the trump rank, numbered consecutively, so the gap left by
  the trump rank joins its neighbours (trump rank 8: 7H7H9H9H is a tractor);
- trumps: the trump suit's other ranks 0..11, then the off-suit trump-rank cards (level 12, the
  three of them equal), the trump-rank card of the trump suit (13), SJ (14), BJ (15); so
  AS AS 2H 2H 2S 2S (trump 2S) or 2S 2S SJ SJ are trump tractors;
- no trump (suit -1, "N"): only the trump-rank cards (level 13, all four equal) and the jokers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _referee

TRUMP = 4
OFF_RANK, ON_RANK, SMALL, BIG = 12, 13, 14, 15

# Error codes of `_referee.classic_play_error`, shared with the tractor ruleset's (rules.py).
OK, WRONG_COUNT, NOT_IN_HAND, MUST_FOLLOW_SUIT, MUST_PLAY_PAIRS, NOT_A_UNIT = range(6)
MUST_PLAY_TRACTORS = 6
MIXED_SUITS = 7


class ClassicTable:
    """Category, level and points of every card id for one trump (suit -1 = no trump), read
    from the native table."""

    def __init__(self, rank: int, suit: int):
        self.rank, self.suit = rank, suit
        cat, level, points = _referee.classic_table(rank, suit)
        self.cat = np.array(cat, np.int16)
        self.level = np.array(level, np.int16)
        self.points = np.array(points, np.int16)
        for table in (self.cat, self.level, self.points):
            table.flags.writeable = False  # shared by every user of this trump


@dataclass(frozen=True)
class Unit:
    """One unit of a play: a single (pairs 0), a pair (1) or a tractor (pairs >= 2)."""
    pairs: int
    top: int                  # level of its highest card
    cards: tuple              # card ids, with repeats

    @property
    def size(self) -> int:
        return max(1, 2 * self.pairs)


@dataclass(frozen=True)
class Format:
    """What a lead asks of the followers."""
    cat: int
    n: int
    tractors: tuple           # pairs per tractor, longest first
    pairs: int                # pairs in all, tractors included
    units: tuple

    @property
    def is_throw(self) -> bool:
        return len(self.units) > 1


def _vector(vector) -> np.ndarray:
    return np.ascontiguousarray(vector, dtype=np.uint8)


def pair_runs(t: ClassicTable, vector) -> list[list[int]]:
    """Maximal runs of consecutive levels holding a pair (one category at a time), each level
    as one pair's card id (the highest id at a level with two pairs); a run of length 1 is a
    lone pair."""
    return _referee.classic_pair_runs(t.rank, t.suit, _vector(vector))


def lead_format(t: ClassicTable, lead) -> Format:
    cat, n, tractors, pairs, units = _referee.classic_format(t.rank, t.suit, _vector(lead))
    return Format(cat, n, tractors, pairs, tuple(Unit(*u) for u in units))


def decompose(t: ClassicTable, vector) -> list[Unit]:
    """The units of a one-suit play, the traditional way: longest tractors first, then pairs,
    then singles. Largest unit first."""
    return list(lead_format(t, vector).units)


def trick_winner(t: ClassicTable, plays) -> int:
    """Index of the winning play (count vectors), 0 = the lead."""
    return _referee.classic_winner(t.rank, t.suit, [_vector(p) for p in plays])


def kitty_multiplier(fmt: Format) -> int:
    """2 for a single-card unit, 4 for a pair, 2^(k+1) for a tractor of k pairs: by the
    largest unit of the last trick's lead."""
    return 2 ** (fmt.units[0].pairs + 1)
