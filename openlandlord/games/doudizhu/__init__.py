"""Dou Dizhu (斗地主): the native referee and its Python API.

Everything that runs per move (hand counts, move classification, legal move generation,
the deal, the bidding flows, play, end detection and scoring) is Cython: `_moves.pyx` (packed
hands, the action table, legal moves, applying a move) and `_game.pyx` (deal, bidding, `Game`,
scoring, rollouts), re-exported by `_referee`; their C API for native search lives in
`_referee.pxd`. The game's spec (`spec.py`) is what the stages see. The rules are
docs/rules-doudizhu.md; this docstring states the conventions a caller relies on.

Cards and moves
    RANKS = "3456789TJQKA2BR" (B = black joker, R = red joker). A hand or move is a string
    of these characters; input may be in any order, output is canonical (ascending). Pass
    is "". `ACTIONS` is the tuple of the 27,472 canonical actions of DouZero and rlcard,
    pass first, then grouped by type in the order of `TYPE_NAMES` ("single", "pair",
    "trio", "trio_single", "trio_pair", "straight", "pair_chain", "plane",
    "plane_single", "plane_pair", "four_two_singles", "four_two_pairs", "bomb",
    "rocket"), chains by length, then by main rank, then kicker sets in ascending order.
    `action_id(move)` is its inverse (cards in any order; IllegalMove if no action).
    `legal_moves(hand, to_beat="")` lists moves in ACTIONS order, pass first iff
    `to_beat` is not empty. `classify(move)` -> (type, main rank, length): main rank is
    the RANKS index of the lowest rank of a chain or plane, of the trio/four of a
    kickered move, 13 for the rocket, -1 for pass; length is the number of consecutive
    ranks of a chain or plane, 1 otherwise, 0 for pass.
    Kickers never share a rank with their trio/four, never include both jokers, never
    four of a rank, and a plane's single kickers never hold three of a rank adjacent to
    the plane (that would be a longer plane); pair kickers have distinct ranks.

Deal
    `Game.new(seed)`: splitmix64 seeded with `seed` (mod 2^64) drives a Fisher-Yates
    shuffle (from the last position down, j = next() % (i + 1)) of the deck
    3333 4444 ... 2222 B R; seat s gets cards 17s..17s+16, the kitty the last three.
    `deal(seed)` returns those hands; `Game.from_hands(hands, kitty, bidding, landlord)`
    starts from given (possibly partial) hands.

Seats, bidding and the actions of the bidding phase (strings, in `legal_moves()`/`play()`)
    Seats 0, 1, 2 act in the order s -> (s + 1) % 3; landlord_down = landlord + 1,
    landlord_up = landlord + 2 (mod 3). The landlord takes the kitty (shown to all) and
    leads.
    "none": seat 0 (or `landlord` of from_hands) is landlord, stake 1; play starts at once.
    "points" (OpenSpiel's flow): from seat 0, seats in turn say "pass" or a bid above the
        current one ("bid1", "bid2", "bid3"); a seat that passed may bid on a later
        round. "bid3" ends it, as do two passes in a row after a bid: the highest (last)
        bidder is landlord, base stake = bid. Three passes with no bid: the deal is void
        (phase "done", payoffs 0).
    "call-rob": seats 0, 1, 2 in turn "call" or "pass" until one calls (all pass: void).
        Then each other seat, in turn order, may "rob" once ("pass" or "rob"); if anyone
        robbed, the caller may rob back last. The last to call or rob is landlord; base
        stake = 2^robs. Then landlord, landlord_down, landlord_up each say "double" or
        "nodouble": the landlord's double doubles every settlement, a farmer's its own.

Play, end, scoring
    A move beats the standing move if same type and length with a higher main rank, or
    it is a bomb (over a non-bomb, or a higher bomb), or the rocket. When both others pass,
    the last player leads anything. The first seat out of cards wins for its side.
    Common stake S = base * 2^(bombs + rockets + spring + anti_spring); spring: the
    landlord won and neither farmer played a card; anti-spring: the farmers won and the
    landlord played only its first move. Each farmer f settles S * (2 if the landlord
    doubled) * (2 if f doubled); with no doubles the landlord gets +-2S and each farmer
    -+S. `result()` has the breakdown.

Game
    `current_seat` (-1 once done), `phase` ("bidding" | "play" | "done"), `done`,
    `num_seats`, `legal_moves()`, `play(move, seat=None)`, `observation(seat)`,
    `payoffs()`, `result()`, `history` [(seat, action)], `hands()`, `clone()`,
    `to_json()` / `Game.from_json()`. Bad input raises IllegalMove / UserError naming the
    problem and leaves the game unchanged.
"""
from ...errors import IllegalMove
from ._referee import (ACTIONS, ACTION_ID, BIDDING_FLOWS, RANKS, ROLES, TYPE_NAMES, Game,
                       action_id, canonical, classify, deal, legal_moves, random_rollouts)
from .observation import Observation
from .text import explain_move, render

__all__ = ["ACTIONS", "ACTION_ID", "BIDDING_FLOWS", "RANKS", "ROLES", "TYPE_NAMES", "Game",
           "IllegalMove", "Observation", "action_id", "canonical", "classify", "deal",
           "explain_move", "legal_moves", "random_rollouts", "render"]
