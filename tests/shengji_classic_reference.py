"""The TEST ORACLE for ruleset `classic`: the former pure-Python play rules (card levels with
trump tractors and no-trump rounds, unit decomposition, throws, format-matching follows, the
trick winner), kept only so that tests can compare the native engine (`_referee.pyx`) with an
independent reading of the rules. Library code never imports this module.

Written in Python over count vectors; the choices where the rules page is silent are in
docs/rules-shengji.md.

Card order. Every card has a category (0..3 plain suits, 4 trumps) and a level inside it; equal
levels are equal strength and consecutive levels join into tractors:
- a plain suit: its ranks 2..A without the trump rank, numbered consecutively, so the gap left by
  the trump rank joins its neighbours (trump rank 8: 7H7H9H9H is a tractor);
- trumps: the trump suit's other ranks 0..11, then the off-suit trump-rank cards (level 12, the
  three of them equal), the trump-rank card of the trump suit (13), SJ (14), BJ (15); so
  AS AS 2H 2H 2S 2S (trump 2S) or 2S 2S SJ SJ are trump tractors;
- no trump (suit "N"): only the trump-rank cards (level 13, all four equal) and the jokers.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

TRUMP = 4
OFF_RANK, ON_RANK, SMALL, BIG = 12, 13, 14, 15

# Error codes, shared with the tractor ruleset's (see rules.py), plus one of our own.
OK, WRONG_COUNT, NOT_IN_HAND, MUST_FOLLOW_SUIT, MUST_PLAY_PAIRS, NOT_A_UNIT = range(6)
MUST_PLAY_TRACTORS = 6
MIXED_SUITS = 7


class ClassicTable:
    """Category, level and points of every card id for one trump (suit -1 = no trump)."""

    def __init__(self, rank: int, suit: int):
        self.rank, self.suit = rank, suit
        self.cat = np.zeros(54, np.int16)
        self.level = np.zeros(54, np.int16)
        self.points = np.zeros(54, np.int16)
        plain_level = {r: i for i, r in enumerate(r for r in range(13) if r != rank)}
        for c in range(52):
            s, r = divmod(c, 13)
            self.points[c] = 5 if r == 3 else (10 if r in (8, 11) else 0)
            if r == rank:
                self.cat[c] = TRUMP
                self.level[c] = ON_RANK if (s == suit or suit < 0) else OFF_RANK
            else:
                self.cat[c] = TRUMP if s == suit else s
                self.level[c] = plain_level[r]
        self.cat[52:] = TRUMP
        self.level[52], self.level[53] = SMALL, BIG
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


def pair_runs(t: ClassicTable, vector) -> list[list[int]]:
    """Maximal runs of consecutive levels holding a pair, each level as one pair's card id
    (the highest id at a level with two pairs); a run of length 1 is a lone pair."""
    by_level: dict[int, int] = {}
    for c in np.flatnonzero(np.asarray(vector) == 2):
        by_level[int(t.level[c])] = int(c)
    runs, run, last = [], [], None
    for lvl in sorted(by_level):
        if last is not None and lvl == last + 1:
            run.append(by_level[lvl])
        else:
            if run:
                runs.append(run)
            run = [by_level[lvl]]
        last = lvl
    if run:
        runs.append(run)
    return runs


def decompose(t: ClassicTable, vector) -> list[Unit]:
    """The units of a one-suit play, the traditional way: longest tractors first, then pairs,
    then singles. Largest unit first."""
    rest = np.array(vector, dtype=np.int16)
    units = []
    for run in pair_runs(t, rest):
        if len(run) >= 2:
            units.append(Unit(len(run), int(t.level[run[-1]]), tuple(c for c in run for _ in (0, 1))))
            for c in run:
                rest[c] -= 2
    for c in np.flatnonzero(rest == 2):
        units.append(Unit(1, int(t.level[c]), (int(c), int(c))))
        rest[c] = 0
    for c in np.flatnonzero(rest == 1):
        units.append(Unit(0, int(t.level[c]), (int(c),)))
    units.sort(key=lambda u: (-u.pairs, -u.top))
    return units


def single_cat(t: ClassicTable, vector) -> int:
    """The category of a play all of one category, else -1."""
    cats = set(int(t.cat[c]) for c in np.flatnonzero(vector))
    return cats.pop() if len(cats) == 1 else -1


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


def lead_format(t: ClassicTable, lead) -> Format:
    units = tuple(decompose(t, lead))
    return Format(single_cat(t, lead), int(np.sum(lead)),
                  tuple(u.pairs for u in units if u.pairs >= 2),
                  sum(u.pairs for u in units), units)


def tractors_matched(t: ClassicTable, vector, wanted: tuple) -> int:
    """How many of the lead's tractors (pairs each) disjoint tractors of `vector` can answer,
    each by a tractor of exactly its length cut from one run (best assignment)."""
    if not wanted:
        return 0
    room = sorted((len(r) for r in pair_runs(t, vector) if len(r) >= 2), reverse=True)

    def best(i: int, room: list[int]) -> int:
        if i == len(wanted):
            return 0
        top = best(i + 1, room)  # leave this one unanswered
        for j, free in enumerate(room):
            if free >= wanted[i]:
                room[j] -= wanted[i]
                top = max(top, 1 + best(i + 1, room))
                room[j] += wanted[i]
        return top
    return best(0, room)


def pairs_in(vector) -> int:
    return int(np.count_nonzero(np.asarray(vector) == 2))


def follow_error(t: ClassicTable, hand, fmt: Format, play) -> int:
    hand, play = np.asarray(hand), np.asarray(play)
    if (play > hand).any():
        return NOT_IN_HAND
    if int(play.sum()) != fmt.n:
        return WRONG_COUNT
    in_suit = t.cat == fmt.cat
    held, played = hand * in_suit, play * in_suit
    if played.sum() < min(fmt.n, held.sum()):
        return MUST_FOLLOW_SUIT
    if held.sum() <= fmt.n:
        return OK  # every card of the suit goes in: nothing left to choose
    if pairs_in(played) < min(fmt.pairs, pairs_in(held)):
        return MUST_PLAY_PAIRS
    if tractors_matched(t, played, fmt.tractors) < tractors_matched(t, held, fmt.tractors):
        return MUST_PLAY_TRACTORS
    return OK


def lead_error(t: ClassicTable, hand, play) -> int:
    hand, play = np.asarray(hand), np.asarray(play)
    if (play > hand).any():
        return NOT_IN_HAND
    if play.sum() == 0:
        return WRONG_COUNT
    return OK if single_cat(t, play) >= 0 else MIXED_SUITS


def _suit_choices(t: ClassicTable, hand, fmt: Format):
    """(types of the led suit, the held count vector of the led suit, their number, pairs the
    follow must hold, tractors it must answer)."""
    hand = np.asarray(hand)
    in_suit = t.cat == fmt.cat
    held = (hand * in_suit).astype(np.int16)
    types = [int(c) for c in np.flatnonzero(held)]
    need_pairs = min(fmt.pairs, pairs_in(held))
    need_tractors = tractors_matched(t, held, fmt.tractors)
    return types, held, int(held.sum()), need_pairs, need_tractors


def _suit_parts(t: ClassicTable, hand, fmt: Format, floor=None):
    """Every legal led-suit part of a follow (a seat holding at least as many cards of the led
    suit as were led), each containing `floor` when given. Branches that cannot reach the size
    or the pairs are cut; the tractor condition is checked on the parts that remain."""
    types, held, _, need_pairs, need_tractors = _suit_choices(t, hand, fmt)
    floor = np.zeros(54, np.int16) if floor is None else np.asarray(floor, np.int16)
    cards_after = np.concatenate([np.cumsum([held[c] for c in types][::-1])[::-1], [0]])
    pairs_after = np.concatenate([np.cumsum([held[c] == 2 for c in types][::-1])[::-1], [0]])
    part = np.zeros(54, np.int16)

    def walk(i: int, left: int, pairs: int):
        if left == 0:
            if pairs >= need_pairs and tractors_matched(t, part, fmt.tractors) >= need_tractors \
                    and (part >= floor).all():
                yield part.copy()
            return
        if i == len(types) or cards_after[i] < left:
            return
        if pairs + min(int(pairs_after[i]), left // 2) < need_pairs:
            return
        c = types[i]
        for k in range(min(int(held[c]), left), int(floor[c]) - 1, -1):
            part[c] = k
            yield from walk(i + 1, left - k, pairs + (k == 2))
        part[c] = 0
    yield from walk(0, fmt.n, 0)


def follows(t: ClassicTable, hand, fmt: Format, limit: int | None = None) -> list[tuple]:
    hand = np.asarray(hand, np.int16)
    in_suit = t.cat == fmt.cat
    held = hand * in_suit
    out = []
    if held.sum() >= fmt.n:
        for part in _suit_parts(t, hand, fmt):
            out.append(tuple(np.repeat(np.arange(54), part)))
            if limit is not None and len(out) > limit:
                break
        return out
    others = hand * ~in_suit
    base = list(np.repeat(np.arange(54), held))
    for extra in multisets(others, fmt.n - int(held.sum())):
        out.append(tuple(sorted(base + extra)))
        if limit is not None and len(out) > limit:
            break
    return out


def multisets(vector, size: int):
    """Every multiset of `size` cards from a count vector, generated directly."""
    types = [int(c) for c in np.flatnonzero(vector)]
    chosen: list[int] = []

    def walk(i: int, left: int):
        if left == 0:
            yield list(chosen)
            return
        if i == len(types):
            return
        c = types[i]
        for k in range(min(int(vector[c]), left), -1, -1):
            chosen.extend([c] * k)
            yield from walk(i + 1, left - k)
            del chosen[len(chosen) - k:]
    yield from walk(0, size)


def count_multisets(vector, size: int) -> int:
    ways = [1] + [0] * size
    for c in np.flatnonzero(vector):
        new = [0] * (size + 1)
        for r, w in enumerate(ways):
            if w:
                for k in range(int(vector[c]) + 1):
                    if r + k <= size:
                        new[r + k] += w
        ways = new
    return ways[size]


def count_follows(t: ClassicTable, hand, fmt: Format) -> int:
    hand = np.asarray(hand, np.int16)
    in_suit = t.cat == fmt.cat
    held = hand * in_suit
    if held.sum() >= fmt.n:
        return sum(1 for _ in _suit_parts(t, hand, fmt))
    return count_multisets(hand * ~in_suit, fmt.n - int(held.sum()))


def leads(t: ClassicTable, hand) -> list[tuple]:
    """Every lead: any non-empty set of cards of one category (a unit or a throw)."""
    hand = np.asarray(hand)
    out = []
    for cat in range(5):
        types = [int(c) for c in np.flatnonzero(hand * (t.cat == cat))]
        for ks in itertools.product(*[range(int(hand[c]) + 1) for c in types]):
            if any(ks):
                out.append(tuple(c for c, k in zip(types, ks) for _ in range(k)))
    return out


def count_leads(t: ClassicTable, hand) -> int:
    hand = np.asarray(hand)
    total = 0
    for cat in range(5):
        product = 1
        for c in np.flatnonzero(hand * (t.cat == cat)):
            product *= int(hand[c]) + 1
        total += product - 1
    return total


def follow_completable(t: ClassicTable, hand, fmt: Format, prefix) -> bool:
    hand, prefix = np.asarray(hand, np.int16), np.asarray(prefix, np.int16)
    if (prefix > hand).any() or prefix.sum() > fmt.n:
        return False
    in_suit = t.cat == fmt.cat
    held = hand * in_suit
    if held.sum() < fmt.n:
        return int((prefix * ~in_suit).sum()) <= fmt.n - int(held.sum())
    if (prefix * ~in_suit).any():
        return False
    return next(_suit_parts(t, hand, fmt, floor=prefix), None) is not None


def follow_options(t: ClassicTable, hand, fmt: Format, prefix) -> list[int] | None:
    hand, prefix = np.asarray(hand, np.int16), np.array(prefix, np.int16)
    if not follow_completable(t, hand, fmt, prefix):
        return None
    out = []
    for c in np.flatnonzero(hand > prefix):
        prefix[c] += 1
        if follow_completable(t, hand, fmt, prefix):
            out.append(int(c))
        prefix[c] -= 1
    return out


def beaten_units(t: ClassicTable, fmt: Format, others) -> list[Unit]:
    """The units of a throw that some other hand could beat with a higher unit of the same
    shape in the same suit."""
    failing = []
    for unit in fmt.units:
        for hand in others:
            held = np.asarray(hand) * (t.cat == fmt.cat)
            if unit.pairs == 0:
                levels = t.level[np.flatnonzero(held)]
                beaten = levels.size and levels.max() > unit.top
            elif unit.pairs == 1:
                beaten = any(t.level[c] > unit.top for c in np.flatnonzero(held == 2))
            else:
                beaten = any(len(run) >= unit.pairs and t.level[run[-1]] > unit.top
                             for run in pair_runs(t, held))
            if beaten:
                failing.append(unit)
                break
    return failing


def play_key(t: ClassicTable, fmt: Format, play) -> int:
    """How strongly a play answers the lead: -1 cannot win, higher wins, ties to the earlier.
    A plain-suit play wins only against a single-unit lead of its shape; an all-trump play of a
    void seat matching the lead's format beats every plain play, compared by its highest unit
    of the lead's largest shape."""
    play = np.asarray(play)
    cat = single_cat(t, play)
    shape = fmt.units[0].pairs
    if cat == fmt.cat:
        units = decompose(t, play)
        if fmt.is_throw or len(units) != 1 or units[0].pairs != shape:
            return -1
        return units[0].top
    if cat != TRUMP:
        return -1
    if pairs_in(play) < fmt.pairs or tractors_matched(t, play, fmt.tractors) < len(fmt.tractors):
        return -1
    if shape >= 2:
        top = max(t.level[run[-1]] for run in pair_runs(t, play) if len(run) >= shape)
    elif shape == 1:
        top = max(t.level[c] for c in np.flatnonzero(play == 2))
    else:
        top = t.level[np.flatnonzero(play)].max()
    return 100 + int(top)


def trick_winner(t: ClassicTable, plays) -> int:
    fmt = lead_format(t, plays[0])
    best, best_key = 0, fmt.units[0].top
    for i, play in enumerate(plays[1:], 1):
        key = play_key(t, fmt, play)
        if key > best_key:
            best, best_key = i, key
    return best


def kitty_multiplier(fmt: Format) -> int:
    """2 for a single-card unit, 4 for a pair, 2^(k+1) for a tractor of k pairs: by the
    largest unit of the last trick's lead."""
    return 2 ** (fmt.units[0].pairs + 1)
