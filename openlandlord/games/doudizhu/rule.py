"""The Dou Dizhu rule bot behind `rule`: hand decomposition plus a few role-aware rules.

Everything works on rank-count arrays (15 ints, ranks `3..2 B R`), so the logic ports to
Cython as it stands; it is the default rollout policy of the PIMC teacher.

How a move is scored:
- `hand_cost(counts)` says how hard a hand is to play out: the cheapest split into chains
  (straights, pair chains, planes, found by an exact search over where chains start),
  trios with the worst singles/pairs as kickers, pairs and singles. Each group costs about one
  turn, less for high ones (a single 2 or joker wins its own trick: it is control, not a
  burden); bombs and the rocket count negative, they are control too.
- Leading: play the move whose rest is cheapest to play out; a low move and a long one break
  ties. Near the end nobody leads into an opponent's count: with an opponent on one card,
  singles are led only from the top; on two cards, pairs likewise.
- Following: passing keeps the hand's cost; beating pays the rest's cost, plus a price for
  spending a 2 or a joker early. (A bonus for taking the lead made it weaker against
  `rlcard`: the cost of the rest already rewards shedding.)
- Roles: a farmer does not overtake its partner's winning move (unless it goes out). A low
  partner move (below Q) that the landlord has yet to answer is not winning: landlord_up,
  between its partner and the landlord, plays over it to block the landlord (measured:
  +0.13 mean score against `rlcard`, neutral against the bot without it). Anyone
  facing an opponent on one or two cards beats that opponent's move with its highest
  option, bombs included; bombs are kept otherwise, unless the rest plays out fast after it.
  The farmer after the landlord leads a single, the lower the better, when its partner,
  next to play, has one card left.

Levels: `easy` sheds the most cards it can, lowest first, with no search (it never bombs to
follow, never overtakes its partner); `normal` is the bot described here; `expert` is
`normal` plus a bonus for leading a move that nothing unseen can beat when the rest then
plays out in about one more move (measured: about as strong as `normal`).

Bidding: a hand-strength score (control cards, bombs, and how cheaply the hand plays out)
sets the highest bid the bot will make; `points` bids up to it, `call-rob` calls, robs and
doubles above fixed strength thresholds.
"""
from __future__ import annotations

import numpy as np

from ...errors import UserError

RANKS = "3456789TJQKA2BR"
_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
_DECK = (4,) * 13 + (1, 1)
_TWO, _BLACK, _RED, _ACE = 12, 13, 14, 11

# What one single / pair costs to get rid of, by rank: low cards are the burden,
# a 2 or a joker takes its own trick.
_SINGLE_COST = (1.0,) * 8 + (0.95, 0.9, 0.8, 0.6, 0.3, 0.2, 0.1)
_PAIR_COST = (1.0,) * 8 + (0.9, 0.85, 0.75, 0.5, 0.25, 0.0, 0.0)
_TRIO_COST = 1.0
_CHAIN_COST = 1.0
_BOMB_COST = -1.0
_ROCKET_COST = -0.7
# chain type (copies per rank) -> (shortest, longest) length in ranks
_CHAINS = ((1, 5, 12), (2, 3, 10), (3, 2, 6))
_LAST_CHAIN_RANK = 11  # chains stop at A

_cost_cache: dict = {}
_move_cache: dict = {}


def counts_of(cards: str) -> tuple:
    c = [0] * 15
    for ch in cards:
        c[_RANK_INDEX[ch]] += 1
    return tuple(c)


def _move_info(move: str):
    """(counts, main rank, size) of a move string, cached: the same few thousand moves recur
    all game long. Main rank = the highest rank among those with the most copies, which
    orders moves of one type and length the way the rules do."""
    info = _move_cache.get(move)
    if info is None:
        c = counts_of(move)
        top = max(c)
        main = max(r for r in range(15) if c[r] == top) if move else -1
        info = (c, main, len(move))
        _move_cache[move] = info
    return info


def _groups_cost(c, trios_with_slots: int) -> float:
    """Cost of the hand left after chains: bombs, rocket, trios, pairs, singles; each trio
    (and each trio inside a plane, counted in `trios_with_slots`) carries away the most
    expensive leftover single or pair as its kicker."""
    cost = 0.0
    loose = []
    if c[_BLACK] and c[_RED]:
        cost += _ROCKET_COST
    else:
        if c[_BLACK]:
            loose.append(_SINGLE_COST[_BLACK])
        if c[_RED]:
            loose.append(_SINGLE_COST[_RED])
    slots = trios_with_slots
    for r in range(13):
        n = c[r]
        if n == 4:
            cost += _BOMB_COST
        elif n == 3:
            cost += _TRIO_COST * (0.5 if r == _TWO else 1.0)
            slots += 1
        elif n == 2:
            loose.append(_PAIR_COST[r])
        elif n == 1:
            loose.append(_SINGLE_COST[r])
    if slots and loose:
        loose.sort(reverse=True)
        # a kicker only helps when it is a burden; a 2 or a joker stays a trick of its own
        absorbed = 0
        while absorbed < slots and absorbed < len(loose) and loose[absorbed] >= 0.5:
            absorbed += 1
        loose = loose[absorbed:]
    return cost + sum(loose)


def _search(c: list, start: int, trios: int) -> float:
    # the lowest rank >= start where some chain can begin
    for i in range(start, _LAST_CHAIN_RANK):
        if c[i]:
            break
    else:
        return _groups_cost(c, trios)
    best = _search(c, i + 1, trios)
    for copies, shortest, longest in _CHAINS:
        if c[i] < copies:
            continue
        length = 0
        while (i + length <= _LAST_CHAIN_RANK and length < longest
               and c[i + length] >= copies):
            length += 1
        if length < shortest:
            continue
        for r in range(i, i + shortest - 1):
            c[r] -= copies
        for end in range(i + shortest - 1, i + length):
            c[end] -= copies
            # a chain of high ranks is closer to a sure trick
            value = _CHAIN_COST - (0.3 if end >= 10 else 0.0)
            extra = (end - i + 1) if copies == 3 else 0
            total = value + _search(c, i, trios + extra)
            if total < best:
                best = total
        for r in range(i, i + length):
            c[r] += copies
    return best


def hand_cost(counts) -> float:
    """How hard these cards are to play out (about one per turn needed, less for control);
    0 for an empty hand."""
    key = tuple(counts)
    cost = _cost_cache.get(key)
    if cost is None:
        if len(_cost_cache) > 500_000:
            _cost_cache.clear()
        cost = _search(list(key), 0, 0) if sum(key) else -2.0
        _cost_cache[key] = cost
    return cost


def hand_strength(counts) -> float:
    """A bidding score for a hand: control cards and bombs up, a hard play-out down."""
    c = counts
    strength = 1.2 * c[_RED] + 1.0 * c[_BLACK] + 0.7 * c[_TWO] + 0.25 * c[_ACE]
    if c[_BLACK] and c[_RED]:
        strength += 1.0
    strength += 1.5 * sum(1 for r in range(13) if c[r] == 4)
    return strength - 0.4 * hand_cost(c)


class DouDizhuRuleBot:
    """The rule bot for one seat at a time. It keeps no state between decisions and is
    deterministic; `seed` is taken only so that every bot has the same constructor."""

    # Bidding: strength needed for each bid level (points) and for call / rob / double.
    BID_THRESHOLDS = (0.0, 1.0, 2.2)
    CALL, ROB, DOUBLE = 0.3, 1.5, 2.5
    # Play: the price of spending a 2 or a joker early, of a bomb that does not finish the
    # hand (following / leading), of overtaking a partner (landlord_up overtakes a partner's
    # move whose main rank is below UP_OVERTAKE_BELOW: 9 = Q); the pull of stopping an
    # opponent on THREAT_CARDS cards or fewer.
    TOP_CARD_PRICE = 0.4
    BOMB_PRICE = 2.0
    LEAD_BOMB_PRICE = 1.0
    PARTNER_PRICE = 3.0
    THREAT_BONUS = 4.0
    THREAT_CARDS = 2
    UP_OVERTAKE_BELOW = 9

    def __init__(self, level: str = "normal", seed: int | None = None):
        if level not in ("easy", "normal", "expert"):
            raise ValueError(f"unknown rule level {level!r}; choose easy, normal or expert")
        self.level = level
        self.seed = seed

    def scores(self, obs, legal) -> np.ndarray:
        if obs.phase == "bidding":
            return self.bid_scores(obs, legal)
        if self.level == "easy":
            return self._easy_scores(obs, legal)
        return self.play_scores(obs, legal)

    def bid_scores(self, obs, legal) -> np.ndarray:
        strength = hand_strength(counts_of(obs.hand))
        out = np.zeros(len(legal))
        if obs.bidding == "points":
            wanted = sum(1 for t in self.BID_THRESHOLDS if strength >= t)
            for j, action in enumerate(legal):
                if action.startswith("bid"):
                    level = int(action[3:])
                    out[j] = 1.0 + 0.1 * level if level <= wanted else -float(level - wanted)
                else:
                    out[j] = 0.5
            return out
        threshold = {"call": self.CALL, "rob": self.ROB, "double": self.DOUBLE}
        for j, action in enumerate(legal):
            if action in threshold:
                out[j] = strength - threshold[action]
        return out

    def _easy_scores(self, obs, legal) -> np.ndarray:
        """Shed the most cards, lowest first; never overtake a partner; no bombs to follow."""
        out = np.zeros(len(legal))
        partner_winning = (obs.to_beat and obs.seat != obs.landlord
                           and obs.to_beat_seat != obs.landlord)
        for j, move in enumerate(legal):
            if not move:
                out[j] = 0.0
                continue
            c, main, size = _move_info(move)
            if size == len(obs.hand):
                out[j] = 100.0
            elif obs.to_beat and (partner_winning or (size == 4 and c[main] == 4)
                                  or move == "BR"):
                out[j] = -1.0
            else:
                out[j] = 1.0 + size - 0.05 * main
        return out

    def play_scores(self, obs, legal) -> np.ndarray:
        hand = counts_of(obs.hand)
        n_hand = len(obs.hand)
        seat, landlord = obs.seat, obs.landlord
        left = obs.cards_left
        if seat == landlord:
            opponents = ((seat + 1) % 3, (seat + 2) % 3)
            partner = -1
        else:
            opponents = (landlord,)
            partner = 3 - seat - landlord
        danger = min(left[o] for o in opponents)
        unseen = list(_DECK)
        for r in range(15):
            unseen[r] -= hand[r]
        for cards in obs.played:
            for ch in cards:
                unseen[_RANK_INDEX[ch]] -= 1
        top_single = max((r for r in range(15) if unseen[r] >= 1), default=-1)
        top_pair = max((r for r in range(13) if unseen[r] >= 2), default=-1)

        base = hand_cost(hand)
        leading = not obs.to_beat
        threat = (not leading and obs.to_beat_seat in opponents and danger <= self.THREAT_CARDS)
        partner_winning = not leading and obs.to_beat_seat == partner
        # a farmer right after the landlord whose partner, next, has one card left
        feed_partner = (leading and partner == (seat + 1) % 3 and left[partner] == 1)
        out = np.empty(len(legal))
        for j, move in enumerate(legal):
            if not move:
                out[j] = -base
                continue
            c, main, size = _move_info(move)
            if size == n_hand:
                out[j] = 100.0
                continue
            rest = tuple(hand[r] - c[r] for r in range(15))
            rest_cost = hand_cost(rest)
            s = -rest_cost
            bomb = move == "BR" or (size == 4 and c[main] == 4)
            if leading:
                s += 0.005 * size - 0.01 * main
                if size == 1:
                    if danger == 1 and main < top_single:
                        s -= 3.0
                    if feed_partner:
                        s += 5.0 - 0.1 * main
                    elif danger == 1:
                        s += 0.05 * main
                elif size == 2 and c[main] == 2 and danger == 2 and main < top_pair:
                    s -= 2.0
                if bomb and rest_cost > 1.0:
                    s -= self.LEAD_BOMB_PRICE
            else:
                if threat:
                    s += self.THREAT_BONUS + 0.1 * main
                else:
                    if bomb and rest_cost > 1.0:
                        s -= self.BOMB_PRICE
                    if main >= _TWO and size <= 2 and n_hand > 6 and danger > 4:
                        s -= self.TOP_CARD_PRICE
                if partner_winning:
                    if not (seat == (landlord + 2) % 3
                            and _move_info(obs.to_beat)[1] < self.UP_OVERTAKE_BELOW):
                        s -= self.PARTNER_PRICE
            if self.level == "expert":
                s += self._sure_trick_bonus(c, main, size, rest, unseen, leading)
            out[j] = s
        return out

    def _sure_trick_bonus(self, c, main, size, rest, unseen, leading) -> float:
        """Expert: lead a move nothing unseen can beat (single, pair, trio, trio + single)
        when the rest then plays out in about one more move; never while the unseen cards
        could hold a bomb or the rocket."""
        if not leading:
            return 0.0
        if hand_cost(rest) > 1.0:
            return 0.0
        if any(unseen[r] == 4 for r in range(13)) or (unseen[_BLACK] and unseen[_RED]):
            return 0.0
        copies = c[main]
        if size <= 4 and all(unseen[r] < copies for r in range(main + 1, 15)):
            return 1.0
        return 0.0


class BidsByRule:
    """For Dou Dizhu players that cannot bid (the rlcard yardstick, DouZero networks): any
    other game is refused, the bidding phase is scored by the rule bot's bidding, and the
    play phase by the player's own `play_scores(obs, legal)`. Needs `self.name`, `self.seed`."""

    _bidder = None

    def scores(self, obs, legal) -> np.ndarray:
        if obs.game != "doudizhu":
            kind = self.name.partition(":")[0]
            raise UserError(f"the {kind} agent plays Dou Dizhu only, not {obs.game!r}")
        if obs.phase == "bidding":
            if self._bidder is None:
                self._bidder = DouDizhuRuleBot("normal", self.seed)
            return self._bidder.scores(obs, legal)
        return self.play_scores(obs, legal)
