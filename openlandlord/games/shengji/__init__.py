"""The Shengji (升级, Tractor) referee: ruleset `tractor`, native core in `_referee.pyx`.

The rules are those of docs/rules-shengji.md (ruleset `tractor`: 27 cards each, no kitty, a
trump suit drawn per round and shown to all; leads are one unit, a single, a pair or a plain-suit
tractor; follows must follow suit and play the led suit's pairs as far as held). Ruleset
`classic` is not implemented yet: `Rules.classic()` raises NotAvailable.

Cards are strings: rank `2..9 T J Q K A` + suit `S H D C`, jokers `BJ` (big) and `SJ` (small).
A play is a tuple of cards, sorted as strings.

Stateless rule functions: `legal_plays(rules, hand, lead)`, `count_legal_plays`, `is_legal`,
`explain_illegal` (the rule a play breaks, "" if legal), `trick_winner(rules, plays)` (index,
0 = leader), `round_result(attacker_points)` -> ("declarers" | "attackers", levels up).

States: `Round` is one deal, `Match` the campaign from level 2 to past A. Both have the uniform
game interface (`current_seat`, `phase`, `done`, `num_seats`, `legal_moves()`, `play(cards)`,
`observation(seat)`, `payoffs()`, `result()`, `hands()`, `clone()`, `to_json()`/`from_json()`).
Round payoffs: +levels up for the winning side's seats, -levels up for the others.

Factored decisions. A seat void in a long tractor may have millions of legal follows, so
`state.count_legal()` gives the exact count without listing, `state.legal_moves()` lists the
plays only when there are at most 256 of them (`limit=None` lists any number), and
`state.factored_options(prefix)` returns the distinct cards that can be added to the partial
play `prefix` with a legal completion still possible ([] once `prefix` is complete). Choosing
from it card by card reaches exactly the legal plays. When leading, the option `END` (the string
"END") closes a prefix that is already a legal lead but could still grow (a pair that could
become a tractor, a single that could become a pair).

The world sampler (`sample_worlds`) deals the cards a seat cannot see to the other three seats,
consistent with their hand sizes and the voids they have shown; its C entry and the native
round loop with a pluggable policy are declared in `_referee.pxd`.
"""
import numpy as np

from ...errors import IllegalMove
from ._referee import sample_worlds as _sample_world_ids
from .rules import (END, Rules, count_legal_plays, counts, explain_illegal, factored_options,
                    is_legal, legal_plays, names_of, round_result, trick_winner)
from .state import Match, Observation, Round, render

__all__ = ["Rules", "legal_plays", "count_legal_plays", "is_legal", "explain_illegal",
           "trick_winner", "round_result", "Round", "Match", "Observation", "IllegalMove",
           "render", "sample_worlds", "factored_options", "END"]


def sample_worlds(obs: Observation, count: int, seed: int = 0) -> list[list[tuple[str, ...]]]:
    """`count` deals of the cards `obs.seat` cannot see to the other seats (in seat order after
    it), consistent with their cards left and the voids they have shown. Without known voids the
    deal is uniform; with voids, cards of restricted suits are placed first, each in proportion
    to the free places that keep a deal possible (consistent, close to uniform)."""
    rules = Rules.tractor(obs.trump_rank, obs.trump_suit)
    seen = counts(list(obs.hand))
    for _, trick, _ in obs.tricks:
        for _, cards in trick:
            seen += counts(cards)
    for _, cards in obs.trick:
        seen += counts(cards)
    unseen = 2 - seen
    others = [(obs.seat + k) % 4 for k in (1, 2, 3)]
    masks = [sum(1 << "SHDCT".index(s) for s in obs.voids[o]) for o in others]
    worlds = _sample_world_ids(rules.rank_index, rules.suit_index, unseen,
                               [obs.cards_left[o] for o in others], masks, count, seed)
    return [[tuple(names_of(np.frombuffer(h, np.uint8))) for h in world] for world in worlds]
