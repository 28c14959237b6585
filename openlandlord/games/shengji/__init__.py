"""The Shengji (升级, Tractor) referee: rulesets `tractor` and `classic` in one native engine,
chosen by a `Rules` value (or the name, for a fresh round). The engine is split along its
seams: `_cards` (card ids and the round's card table), `_trick` (units, lead formats, follow
rules, the trick winner, throws, the kitty multiplier), `_legal` (legal plays listed and
counted, factored options) and `_round` (deals, round loops, the world sampler); `_referee`
re-exports their Python API and, in `_referee.pxd`, their C API. Where the rulesets agree
they share one rule (a tractor lead's follow demands go through the one follow rule).
The game's spec (`spec.py`) is what the stages see.

The rules are those of docs/rules-shengji.md. Ruleset `tractor`: 27 cards each, no kitty, a
trump suit drawn per round and shown to all; leads are one unit, a single, a pair or a
plain-suit tractor; follows must follow suit and play the led suit's pairs as far as held.
Ruleset `classic`: trump declared during the deal, an 8-card kitty buried by the dealer, throws
(a failed one is cut to its smallest beaten unit, 10 points a card taken back to the other
side), trump tractors, format-matching follows, the kitty multiplied on the last trick,
no-trump rounds (trump suit "N"). Its rule work is native too (the `classic_*` functions: card levels, units, legal leads and follows listed constructively and counted
exactly, factored options, legality, the throw check, the trick winner, the kitty multiplier;
`classic.py` wraps them as Python values); the round itself (deal, declarations, phases,
penalties, JSON) is Python in `classic_round.py`. `_referee.classic_simulate` plays whole random
`classic` rounds natively (declarations skipped: the trump is drawn).

Cards are strings: rank `2..9 T J Q K A` + suit `S H D C`, jokers `BJ` (big) and `SJ` (small).
A play is a tuple of cards, sorted as strings.

Stateless rule functions: `legal_plays(rules, hand, lead)`, `count_legal_plays`, `is_legal`,
`explain_illegal` (the rule a play breaks, "" if legal), `trick_winner(rules, plays)` (index,
0 = leader), `round_result(attacker_points)` -> ("declarers" | "attackers", levels up).

States: `Round` is one deal, `Match` the campaign from level 2 to past A; `Round.from_hands`
starts a round from given hands (search, analysis). Both have the uniform
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
become a tractor, a single that could become a pair, a `classic` throw that could take more
cards of its suit). A `classic` burial is built the same way (any 8 cards); declarations are
few and always listed.

The world sampler (`sample_worlds`) deals the cards a seat cannot see to the other three seats,
consistent with their hand sizes and the voids they have shown; its C entry and the native
round loop with a pluggable policy are declared in `_referee.pxd`.
"""
import numpy as np

from ...errors import IllegalMove, UserError
from ._referee import sample_worlds as _sample_world_ids
from .rules import (END, Rules, count_legal_plays, counts, explain_illegal, factored_options,
                    is_legal, legal_plays, names_of, round_result, trick_winner)
from .state import Match, Observation, Round, render

__all__ = ["Rules", "legal_plays", "count_legal_plays", "is_legal", "explain_illegal",
           "trick_winner", "round_result", "Round", "Match", "Observation", "IllegalMove",
           "render", "sample_worlds", "factored_options", "END"]


def sample_worlds(obs: Observation, count: int, seed: int = 0) -> list[list[tuple[str, ...]]]:
    """`count` deals of the cards `obs.seat` cannot see to the other seats (in seat order after
    it), consistent with their cards left and the voids they have shown; in a `classic` round
    whose kitty the seat has not seen, each world also holds the 8 buried cards, last. Without
    known voids the deal is uniform; with voids, cards of restricted suits are placed first,
    each in proportion to the free places that keep a deal possible (consistent, close to
    uniform). Cards revealed by a failed throw are not pinned to the thrower."""
    if obs.phase not in ("play", "bury"):
        raise UserError(f"worlds are sampled in the bury and play phases, not {obs.phase!r}")
    rules = (Rules.classic(obs.trump_rank, obs.trump_suit) if obs.rules == "classic"
             else Rules.tractor(obs.trump_rank, obs.trump_suit))
    seen = counts(list(obs.hand)).astype(np.int16) + counts(list(obs.kitty))
    for _, trick, _ in obs.tricks:
        for _, cards in trick:
            seen += counts(cards)
    for _, cards in obs.trick:
        seen += counts(cards)
    unseen = (2 - seen).astype(np.uint8)
    others = [(obs.seat + k) % 4 for k in (1, 2, 3)]
    sizes = [obs.cards_left[o] for o in others]
    masks = [sum(1 << "SHDCT".index(s) for s in obs.voids[o]) for o in others]
    hidden_kitty = int(unseen.sum()) - sum(sizes)
    rng = np.random.default_rng(seed)
    worlds = []
    for _ in range(count if hidden_kitty else 1):
        kitty = np.zeros(54, np.uint8)
        if hidden_kitty:
            # The kitty is any 8 of the unseen cards (voids say nothing about it); redraw it
            # when the rest cannot be dealt to the voids.
            for _ in range(100):
                kitty = np.bincount(rng.choice(np.repeat(np.arange(54), unseen), hidden_kitty,
                                               replace=False), minlength=54).astype(np.uint8)
                try:
                    ids = _sample_world_ids(rules.rank_index, rules.suit_index, unseen - kitty,
                                            sizes, masks, 1, int(rng.integers(1 << 62)))
                    break
                except ValueError:
                    continue
            else:
                raise UserError("no deal of the unseen cards fits the hand sizes and known voids")
        else:
            try:
                ids = _sample_world_ids(rules.rank_index, rules.suit_index, unseen, sizes, masks,
                                        count, seed)
            except ValueError as exc:
                raise UserError(str(exc)) from None
        for world in ids:
            hands = [tuple(names_of(np.frombuffer(h, np.uint8))) for h in world]
            worlds.append(hands + ([tuple(names_of(kitty))] if hidden_kitty else []))
    return worlds
