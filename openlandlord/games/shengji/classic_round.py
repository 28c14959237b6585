"""One round of ruleset `classic`: the deal with trump declarations, the kitty and its burial,
then play with throws, format-matching follows and the kitty multiplied on the last trick.

Phases and moves (every move is a tuple of cards, `()` included):
- "declare": the deal goes one card at a time, dealer first, 25 cards each, 8 left for the
  kitty. It stops after a card that lets the seat receiving it declare: that card alone (a
  trump-rank card, when nobody has declared), that card as a pair (a trump-rank pair overrides
  a single, by any seat; the same seat doubling its card reinforces), or a joker pair (no trump,
  small under big, over any rank declaration). The seat plays the declaration or `()` to pass.
  A seat can declare with a card only when it receives it (or its twin).
- "bury": the dealer takes the kitty (33 cards) and buries any 8 of them.
- "play": the dealer leads. With nobody declaring, the first card of the kitty names the trump
  suit (a joker: no trump).
A round created with an explicit `Rules.classic(rank, suit)` skips the declarations.
"""
from __future__ import annotations

import numpy as np

from ...errors import IllegalMove, UserError
from . import _referee
from .rules import (CARD_NAMES, NO_TRUMP, SUITS, Rules, card_table, counts, explain_illegal,
                    factored_options, names_of, play_of, round_result)
from .state import DEFAULT_CAP, Observation, Round, check_turn

KITTY = 8
DEAL = 100
THROW_PENALTY = 10  # points per card a failed throw takes back, to the other side


def burial_options(hand, prefix=()) -> list[str]:
    """The cards that can be added to the partial burial `prefix` from the dealer's `hand` (a
    54-count vector of its 33 cards), in card-name order; [] once 8 are chosen."""
    prefix_vector = counts(prefix, "prefix")
    if (prefix_vector > hand).any() or prefix_vector.sum() > KITTY:
        raise IllegalMove(f"no burial of {KITTY} cards from this hand contains {list(prefix)}")
    if prefix_vector.sum() == KITTY:
        return []
    return sorted(CARD_NAMES[i] for i in np.flatnonzero(hand > prefix_vector))


def declaration_strength(move) -> int:
    """What a declaration overrides by: 1 a trump-rank single, 2 a trump-rank pair, 3 the
    small-joker pair, 4 the big-joker pair."""
    return 1 if len(move) == 1 else 2 if move[0] not in ("SJ", "BJ") else 3 if move[0] == "SJ" else 4


class ClassicRound(Round):
    """A `classic` round (see the module docstring); the interface is `Round`'s."""

    @classmethod
    def create(cls, seed: int, rules, dealer: int, levels) -> "ClassicRound":
        self = object.__new__(cls)
        self.seed, self.dealer, self.levels = seed, dealer, levels
        self.declarers = dealer % 2
        given = isinstance(rules, Rules)
        rank = rules.trump_rank if given else Rules.classic(levels[dealer % 2], NO_TRUMP).trump_rank
        self._setup_classic(rules if given else Rules.classic(rank, NO_TRUMP),
                            np.zeros(54, np.uint8), trump_given=given)
        self._deck = [int(c) for c in np.random.default_rng(seed).permutation(108) // 2]
        self._hands = np.zeros((4, 54), np.uint8)
        self._moves: list = []
        self._start_play()
        self._phase, self._dealt = "declare", 0
        self._deal_on()
        return self

    def _setup_classic(self, rules: Rules, kitty, trump_given: bool = True) -> None:
        self.rules, self._rank, self.trump_given = rules, rules.trump_rank, trump_given
        self._kitty = np.array(kitty, np.uint8)
        self._phase = "play"
        self.declaration: tuple = ()
        self._declared = 0           # strength of the standing declaration (0 none .. 4 BJ pair)
        self._dealt = DEAL
        self._deck = None
        self.penalty = 0             # signed change to the attackers' score from failed throws
        self.kitty_bonus = 0
        self._throws: list = []

    # --- the deal and the declarations -----------------------------------------------------
    def _declarations(self, seat: int, card: int) -> list[tuple[str, ...]]:
        if self.trump_given:
            return []
        hand = self._hands[seat]
        name = CARD_NAMES[card]
        out = []
        if card < 52 and name[0] == self._rank:
            if self._declared == 0:
                out.append((name,))
            if hand[card] == 2 and self._declared < 2:
                out.append((name, name))
        elif card >= 52 and hand[card] == 2 and self._declared < (3 if card == 52 else 4):
            out.append((name, name))
        return out

    def _deal_on(self) -> None:
        while self._dealt < DEAL:
            card = self._deck[self._dealt]
            seat = (self.dealer + self._dealt) % 4
            self._hands[seat][card] += 1
            self._dealt += 1
            if self._declarations(seat, card):
                self.current_seat = seat
                return
        self._take_kitty()

    def _take_kitty(self) -> None:
        kitty = self._deck[DEAL:]
        if not self.trump_given:
            if self.declaration:
                card = self.declaration[1][0]
                suit = NO_TRUMP if card in ("SJ", "BJ") else card[1]
            else:
                suit = NO_TRUMP if kitty[0] >= 52 else SUITS[kitty[0] // 13]
            self.rules = Rules.classic(self._rank, suit)
            self._cats, self._strength, self._points = (np.asarray(a) for a in card_table(self.rules))
        for card in kitty:
            self._hands[self.dealer][card] += 1
        self._phase = "bury"
        self.current_seat = self.dealer

    # --- the uniform interface -----------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._phase == "done"

    @property
    def phase(self) -> str:
        return self._phase

    def count_legal(self) -> int:
        if self._phase == "declare":
            return 1 + len(self._pending())
        if self._phase == "bury":
            return int(_referee.count_multiset_ids(self._hands[self.dealer], KITTY))
        if self._phase == "play":
            return int(_referee.classic_count_legal(
                self.rules.rank_index, self.rules.suit_index, self._hands[self.current_seat],
                self._led if self._trick else None))
        return 0

    def _pending(self) -> list[tuple[str, ...]]:
        seat = (self.dealer + self._dealt - 1) % 4
        return self._declarations(seat, self._deck[self._dealt - 1])

    def legal_moves(self, limit: int | None = DEFAULT_CAP) -> list[tuple[str, ...]]:
        if self._phase == "done":
            return []
        if self._phase == "declare":
            return [()] + sorted(self._pending())
        if limit is not None:
            n = self.count_legal()
            if n > limit:
                raise UserError(f"{n} legal moves here, more than the cap of {limit}: build the "
                                "move with factored_options(prefix) or ask legal_moves(limit=None)")
        hand = self._hands[self.current_seat]
        if self._phase == "bury":
            ids = _referee.multiset_ids(hand, KITTY)
        else:
            ids = _referee.classic_legal_play_ids(self.rules.rank_index, self.rules.suit_index,
                                                  hand, self._led if self._trick else None)
        return sorted(play_of(p) for p in ids)

    legal_plays = legal_moves

    def factored_options(self, prefix=()) -> list[str]:
        if self._phase == "done":
            raise IllegalMove("the round is over")
        if self._phase == "declare":
            raise IllegalMove("declarations are whole moves: choose from legal_moves()")
        hand = self._hands[self.current_seat]
        if self._phase == "bury":
            return burial_options(hand, prefix)
        lead = self._trick[0][1] if self._trick else None
        return factored_options(self.rules, names_of(hand), lead, prefix)

    def play(self, cards, seat: int | None = None) -> None:
        if self._phase == "done":
            raise IllegalMove("the round is over")
        check_turn(seat, self.current_seat)
        vector = counts(cards, "move")
        move = play_of(np.repeat(np.arange(54), vector))
        if self._phase == "declare":
            if move != () and move not in self._pending():
                raise IllegalMove(f"{list(move)} is not a declaration open to seat "
                                  f"{self.current_seat} now; legal: {self.legal_moves()}")
            self._moves.append(list(move))
            if move:
                self.declaration = (self.current_seat, move)
                self._declared = declaration_strength(move)
            self._deal_on()
            return
        hand = self._hands[self.current_seat]
        if self._phase == "bury":
            if int(vector.sum()) != KITTY or (vector > hand).any():
                raise IllegalMove(f"the dealer buries exactly {KITTY} cards of its hand")
            self._moves.append(list(move))
            self._hands[self.dealer] -= vector
            self._kitty = vector.copy()
            self._phase = "play"
            self.leader = self.current_seat = self.dealer
            return
        if _referee.classic_play_error(self.rules.rank_index, self.rules.suit_index, hand,
                                       self._led if self._trick else None, vector):
            lead = self._trick[0][1] if self._trick else None
            raise IllegalMove(explain_illegal(self.rules, names_of(hand), lead, names_of(vector)))
        played = vector if self._trick else self._resolve_throw(vector)
        self._apply(play_of(np.repeat(np.arange(54), played)), played)
        self._moves[-1] = list(move)  # the record keeps the attempted throw: replay redoes it
        if not self._hands.any():
            self._finish()

    def _resolve_throw(self, vector):
        """A throw stands when no other hand can beat any of its units; otherwise only its
        smallest beaten unit is played and the thrower's side pays for the cards taken back."""
        seat = self.current_seat
        others = [self._hands[s] for s in range(4) if s != seat]
        ids, failing = _referee.classic_throw(self.rules.rank_index, self.rules.suit_index,
                                              vector, others)
        if not failing:
            return vector
        played = np.bincount(np.asarray(ids, np.intp), minlength=54).astype(np.uint8)
        taken_back = int(vector.sum() - played.sum())
        sign = 1 if seat % 2 == self.declarers else -1
        self.penalty += sign * THROW_PENALTY * taken_back
        self._throws.append((seat, play_of(np.repeat(np.arange(54), vector)),
                             play_of(np.repeat(np.arange(54), played))))
        return played

    def _winner_index(self, vectors) -> int:
        return _referee.classic_winner(self.rules.rank_index, self.rules.suit_index, vectors)

    def _finish(self) -> None:
        leader, trick, winner = self._tricks[-1]
        if winner % 2 != self.declarers:
            multiplier = _referee.classic_kitty_multiplier(
                self.rules.rank_index, self.rules.suit_index, counts(trick[0][1]))
            self.kitty_bonus = int((self._kitty * self._points).sum()) * multiplier
        self._phase = "done"

    def score(self) -> int:
        """The attackers' score: captured points, the multiplied kitty, throw penalties."""
        return max(0, self.attacker_points + self.kitty_bonus + self.penalty)

    def result(self) -> dict:
        if not self.done:
            return {}
        side, up = round_result(self.score())
        team = self.declarers if side == "declarers" else 1 - self.declarers
        return {"attacker_points": self.score(), "captured": self.attacker_points,
                "kitty_points": int((self._kitty * self._points).sum()),
                "kitty_bonus": self.kitty_bonus, "penalty": self.penalty, "winner": side,
                "winning_team": team, "levels_up": up, "declarers": self.declarers}

    def kitty(self) -> tuple[str, ...]:
        """The buried cards (the undealt kitty before the burial); agents never call this."""
        if self._phase in ("declare", "bury"):
            return tuple(sorted(CARD_NAMES[c] for c in self._deck[DEAL:]))
        return self._sorted(self._kitty)

    def observation(self, seat: int) -> Observation:
        base = super().observation(seat)
        fields = dict(base.__dict__)
        fields.update(
            trump_suit="" if self._phase == "declare" and not self.trump_given else self.rules.trump_suit,
            declaration=self.declaration,
            kitty=self._sorted(self._kitty) if seat == self.dealer else (),
            failed_throws=tuple(self._throws))
        return Observation(**fields)

    def clone(self) -> "ClassicRound":
        other = super().clone()
        other._kitty = self._kitty.copy()
        other._throws = list(self._throws)
        return other

    def _header(self) -> dict:
        return {**super()._header(), "trump_given": self.trump_given}
