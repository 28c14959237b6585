"""Shengji observation -> model arrays (FEATURE_VERSION 2).

Cards are featurized by their role under the current trump, not their identity, so what is
learnt about one suit carries to the others. The 54 card identities map to 54 canonical
slots (`slot_order`):

    0-1    the big joker, the small joker
    2-5    the trump-rank card of suit block 0, 1, 2, 3
    6-17   suit block 0, ranks 2..A low to high without the trump rank
    18-53  suit blocks 1, 2, 3, the same way

Suit block 0 is the trump suit; blocks 1-3 are the three plain suits in a canonical order:
by how many of the suit I hold, then by everything the seat knows of the suit (its per-slot
planes below, and which seats are void in it), so two positions that differ only by a
permutation of the plain suits (or by which suit is trump) give the same arrays up to that
permutation, and a tie between two suits is a tie between equal arrays. Without a trump
suit (`classic` no-trump) all four suits are plain and ordered the same way. Seats are
relative to the seat to move (0 = me, 1 = next, 2 = partner, 3 = the seat before me).

State tokens (T = 59, Fs = 32), every token [type one-hot 3 | 29 type-specific values]:
  - 54 slot tokens: group one-hot (joker, trump-rank card, block 0..3), trump flag,
    strength within its category, rank, point value, my count, unseen count, played count
    per relative seat (completed tricks), count in the current trick per relative seat, in
    the led category, void flags of seats 1-3 in its category, position in its block, and
    whether it chains to the next slot in a tractor;
  - 4 seat tokens: relative seat, partner of mine, on the declaring team, dealer, cards left,
    voids (trumps, plain blocks in canonical order), leader / played / winning in the current
    trick, still to play, points and tricks won;
  - 1 context token: both levels (mine first), trump rank, no-trump, I declare, attacker and
    declarer points, tricks done, plays in this trick, points on the table, the lead's size
    and kind, leading or not, ruleset, unseen points.
  - ruleset `classic` planes, in columns the `tractor` ruleset leaves at zero (its arrays, and
    so its students, are unchanged): per slot, the count in my buried kitty (the dealer) and
    in the standing declaration still held by its declarer; per seat, whether it made the
    standing declaration and the cards it took back from failed throws / 8; in the context,
    the phase (declare, bury), the throw penalty so far / 100 (signed to the attackers), my
    kitty's points / 100, the declaration's size / 2, whether it is a joker pair (no trump),
    and whether a kitty is hidden from me (tests/test_features_classic.py).

Actions (Fa = 77): count / 2 per slot (54); cards / 8; single, pair, tractor, other; pairs / 4;
the share of the play in trumps, then in each plain suit block (columns 1-3 for blocks 1-3;
columns 1-4 for blocks 0-3 without a trump suit);
for a factored step (a prefix of a follow, shorter than the lead) the partial flag and the
cards still needed / the lead's size; for a complete follow whether it wins the trick now;
its points; the points it would win; its trumps; its mean strength; its share in the led
category; for a lead, how many unseen cards (pairs, for a pair or tractor) of its category
could beat it (min(n, 8) / 8), whether none can, and whether an opponent or the partner has
shown void in its (plain) suit, so may trump it (version 2 added these four). A partial prefix is recognised from the observation alone (a follow with fewer
cards than the lead), so the arena's card-by-card candidates featurize the same way as the
dataset's factored steps.

Role (num_roles = 4): the seat's position from the dealer, (seat - dealer) % 4:
0 declarer (the dealer), 1 attacker next to the dealer, 2 declarer partner, 3 attacker
before the dealer.

Belief: R = 54 slots, H = 3 hidden holders (relative seats 1, 2, 3), counts up to C = 2;
`unseen[r]` = 2 - my cards - played cards; capacity = those seats' cards left (in a `classic`
round the buried kitty takes what the capacities leave); void[h, r] = 1 where seat h has
shown void in slot r's category (suit or trumps).

This module is the one definition: `featurize_python` computes every array in numpy. The
`featurize` everyone calls is its native twin (`_features.pyx`, built with the referee), which
reads every offset and table from here, takes the trick winner from the referee as
`_winner_seat` does, and gives the same arrays bit for bit, many times faster
(tests/test_native_features.py compares them on random rounds of both rulesets, declarations,
burials and card-by-card follows included; `python -m openlandlord.features.bench --game
shengji` times both). A change to the features is made here first, then mirrored in
`_features.pyx` until that test passes again.
"""
from __future__ import annotations

import functools

import numpy as np

FEATURE_VERSION = 2
NUM_SLOTS = 54
NUM_SEATS = 4
FS, FA = 32, 77
MAX_TOKENS = NUM_SLOTS + NUM_SEATS + 1
ROLES = ("declarer", "attacker_next", "declarer_partner", "attacker_prev")
DIMS = {"state_feat_dim": FS, "action_feat_dim": FA, "num_roles": len(ROLES),
        "belief_slots": NUM_SLOTS, "belief_holders": 3, "belief_max_count": 2,
        "max_tokens": MAX_TOKENS, "feature_version": FEATURE_VERSION}

RANKS = "23456789TJQKA"
SUITS = "SHDC"
TRUMP = 4  # the referee's category index of trumps (0-3 are the plain suits S H D C)
_BJ, _SJ = 53, 52

# Token layout.
TOK_SLOT, TOK_SEAT, TOK_CONTEXT = range(3)
_V = 3                                   # first type-specific column
# Slot token columns (offsets from _V).
_S_GROUP, _S_TRUMP, _S_STRENGTH, _S_RANK, _S_POINTS, _S_MINE, _S_UNSEEN = 0, 6, 7, 8, 9, 10, 11
_S_PLAYED, _S_TRICK, _S_LED, _S_VOID, _S_POS, _S_CHAIN = 12, 16, 20, 21, 24, 25
# Ruleset `classic` planes (zero in every `tractor` position, so the tractor arrays and its
# students are unchanged): the slot in my buried kitty, in the standing declaration still
# held by its declarer.
_S_KITTY, _S_DECLARED = 26, 27
# Seat columns 19-20 and context columns 19-25, likewise (see the docstring).
_SEAT_CLASSIC, _CTX_CLASSIC = 19, 19
# Action columns.
_A_CNT, _A_N, _A_KIND, _A_PAIRS, _A_CAT = 0, 54, 55, 59, 60
_A_PARTIAL, _A_NEED, _A_WINS, _A_POINTS, _A_GAIN, _A_TRUMPS, _A_STRENGTH, _A_LED = range(65, 73)
_A_BEATERS, _A_SAFE, _A_OPP_VOID, _A_PARTNER_VOID = range(73, 77)


def _card_id(name: str) -> int:
    if name == "BJ":
        return _BJ
    if name == "SJ":
        return _SJ
    return SUITS.index(name[1]) * 13 + RANKS.index(name[0])


CARD_IDS = {name: _card_id(name) for name in [r + s for s in SUITS for r in RANKS] + ["SJ", "BJ"]}
_RANK_OF = np.array([c % 13 for c in range(52)] + [13, 14], np.float32)  # jokers above the ace
_GROUP = np.array([0, 0, 1, 1, 1, 1] + [2 + b for b in range(4) for _ in range(12)])
_POSITION = np.array([0, 1, 0, 1, 2, 3] + list(range(12)) * 4, np.float32) / 12.0


def _vector(cards) -> np.ndarray:
    out = np.zeros(NUM_SLOTS, np.int16)
    for c in cards:
        out[CARD_IDS[c]] += 1
    return out


@functools.lru_cache(maxsize=64)
def _table(rules: str, trump_rank: str, trump_suit: str):
    """(cat, strength, points, chains) per card id; chains[c]: the card a tractor continues to
    from c in its plain suit (-1: none)."""
    from . import Rules
    from .rules import card_table
    if rules == "classic":
        r = Rules.classic(trump_rank, trump_suit or "N")
    else:
        r = Rules.tractor(trump_rank, trump_suit)
    cat, strength, points = (np.asarray(a, np.int16) for a in card_table(r))
    rank = RANKS.index(r.trump_rank)
    chains = np.full(NUM_SLOTS, -1, np.int16)
    for c in range(52):
        if cat[c] != TRUMP and c % 13 < 12 and c % 13 + 1 != rank:
            chains[c] = c + 1
    return cat, strength, points, chains


def _trump_suit(obs) -> int:
    return SUITS.index(obs.trump_suit) if obs.trump_suit in tuple(SUITS) else -1


class _View:
    """Everything the features of one observation share: the counts per card id, the
    canonical slot order and the tables in slot order."""

    def __init__(self, obs):
        self.obs = obs
        seat = obs.seat
        self.rel = [(seat + k) % NUM_SEATS for k in range(NUM_SEATS)]
        cat, strength, points, chains = _table(obs.rules, obs.trump_rank, obs.trump_suit)
        self.mine = _vector(obs.hand)
        # Every card of every play, with its seat and trick, counted in one pass.
        seats, ids, trick_of = [], [], []
        for t, (_, trick, _) in enumerate(obs.tricks):
            for s, cards in trick:
                seats += [s] * len(cards)
                ids += [CARD_IDS[c] for c in cards]
                trick_of += [t] * len(cards)
        seats, ids = np.array(seats, np.int64), np.array(ids, np.int64)
        played = np.zeros((NUM_SEATS, NUM_SLOTS), np.int16)  # by absolute seat
        np.add.at(played, (seats, ids), 1)
        per_trick = np.bincount(np.array(trick_of, np.int64), weights=points[ids],
                                minlength=len(obs.tricks))
        winners = np.array([w for _, _, w in obs.tricks], np.int64)
        self.won_points = np.bincount(winners, weights=per_trick, minlength=NUM_SEATS).astype(int).tolist()
        self.won_tricks = np.bincount(winners, minlength=NUM_SEATS).tolist()
        in_trick = np.zeros((NUM_SEATS, NUM_SLOTS), np.int16)
        self.trick_vectors = []
        for s, cards in obs.trick:
            v = _vector(cards)
            in_trick[s] += v
            self.trick_vectors.append(v)
        self.played = played[self.rel]
        self.in_trick = in_trick[self.rel]
        self.unseen = 2 - self.mine - played.sum(0) - in_trick.sum(0)
        self.void = np.zeros((NUM_SEATS, 5), bool)      # by relative seat, by category
        for k, s in enumerate(self.rel):
            for c in obs.voids[s]:
                self.void[k, "SHDCT".index(c)] = True
        self.led_cat = int(cat[CARD_IDS[obs.trick[0][1][0]]]) if obs.trick else -1
        self.lead_size = len(obs.trick[0][1]) if obs.trick else 0

        # Canonical suit blocks: the trump suit first, then the plain suits by a key that
        # only uses what is known of each suit, so relabelling suits permutes, never changes.
        trump = _trump_suit(obs)
        rank = RANKS.index(obs.trump_rank)
        plain = [s for s in range(4) if s != trump]
        ranks = [r for r in range(13) if r != rank]
        per_card = np.concatenate([self.mine[None], self.played, self.in_trick]).T  # [54, 9]

        def key(s):
            ids = [s * 13 + r for r in ranks] + [s * 13 + rank]
            return (int(self.mine[ids].sum()), per_card[ids].tobytes(),
                    self.void[:, s].tobytes())

        plain.sort(key=key, reverse=True)
        self.blocks = ([trump] if trump >= 0 else []) + plain
        order = [_BJ, _SJ] + [s * 13 + rank for s in self.blocks]
        for s in self.blocks:
            order += [s * 13 + r for r in ranks]
        self.order = np.array(order, np.int64)     # slot -> card id
        self.cat = cat[self.order]
        self.strength = strength[self.order]
        self.points = points[self.order]
        self.card_points = points
        slot_of = np.empty(NUM_SLOTS, np.int64)
        slot_of[self.order] = np.arange(NUM_SLOTS)
        self.slot_of = slot_of                     # card id -> slot
        self.chains = (chains[self.order] >= 0).astype(np.float32)
        # Category per block position: the void planes and action shares use these.
        self.cat_of_block = [TRUMP if (b == 0 and trump >= 0) else s for b, s in enumerate(self.blocks)]


def slot_order(obs) -> np.ndarray:
    """The card id (openlandlord.games.shengji.rules.CARD_NAMES order) of each of the 54
    canonical slots of this observation."""
    return _View(obs).order.copy()


def _role(obs) -> int:
    return (obs.seat - obs.dealer) % NUM_SEATS


def featurize_python(obs, legal) -> dict:
    """The featurizer in Python: the definition of every array, and the oracle the native
    `featurize` (`_features.pyx`) is tested against."""
    v = _View(obs)
    o = v.order
    tokens = np.zeros((MAX_TOKENS, FS), np.float32)

    # Slot tokens.
    s = tokens[:NUM_SLOTS]
    s[:, TOK_SLOT] = 1.0
    s[np.arange(NUM_SLOTS), _V + _S_GROUP + _GROUP] = 1.0
    s[:, _V + _S_TRUMP] = v.cat == TRUMP
    s[:, _V + _S_STRENGTH] = v.strength / 23.0
    s[:, _V + _S_RANK] = _RANK_OF[o] / 14.0
    s[:, _V + _S_POINTS] = v.points / 10.0
    s[:, _V + _S_MINE] = v.mine[o] / 2.0
    s[:, _V + _S_UNSEEN] = v.unseen[o] / 2.0
    s[:, _V + _S_PLAYED:_V + _S_PLAYED + 4] = v.played[:, o].T / 2.0
    s[:, _V + _S_TRICK:_V + _S_TRICK + 4] = v.in_trick[:, o].T / 2.0
    s[:, _V + _S_LED] = v.cat == v.led_cat
    s[:, _V + _S_VOID:_V + _S_VOID + 3] = v.void[1:, v.cat].T
    s[:, _V + _S_POS] = _POSITION
    s[:, _V + _S_CHAIN] = v.chains

    # Seat tokens.
    obs_trick_seats = [seat for seat, _ in obs.trick]
    winning = _winner_seat(obs, v) if obs.trick else -1
    for k, seat in enumerate(v.rel):
        row = tokens[NUM_SLOTS + k]
        row[TOK_SEAT] = 1.0
        row[_V + k] = 1.0
        row[_V + 4] = k % 2 == 0
        row[_V + 5] = seat % 2 == obs.declarers
        row[_V + 6] = seat == obs.dealer
        row[_V + 7] = obs.cards_left[seat] / 27.0
        for b, c in enumerate(v.cat_of_block):
            if c != TRUMP:
                row[_V + 8 + b] = v.void[k, c]
        row[_V + 12] = v.void[k, TRUMP]
        row[_V + 13] = bool(obs.trick) and obs.trick[0][0] == seat
        row[_V + 14] = seat in obs_trick_seats
        row[_V + 15] = seat == winning
        row[_V + 16] = k > 0 and seat not in obs_trick_seats and bool(obs.trick)
        row[_V + 17] = v.won_points[seat] / 100.0
        row[_V + 18] = v.won_tricks[seat] / 27.0

    # Context token.
    ctx = tokens[NUM_SLOTS + NUM_SEATS]
    ctx[TOK_CONTEXT] = 1.0
    team = obs.seat % 2
    ctx[_V + 0] = obs.levels[team] / 14.0
    ctx[_V + 1] = obs.levels[1 - team] / 14.0
    ctx[_V + 2] = RANKS.index(obs.trump_rank) / 12.0
    ctx[_V + 3] = _trump_suit(obs) < 0
    ctx[_V + 4] = team == obs.declarers
    ctx[_V + 5] = obs.attacker_points / 200.0
    declarer_points = sum(p for seat, p in enumerate(v.won_points) if seat % 2 == obs.declarers)
    ctx[_V + 6] = declarer_points / 200.0
    ctx[_V + 7] = len(obs.tricks) / 27.0
    ctx[_V + 8] = len(obs.trick) / 4.0
    ctx[_V + 9] = sum(int((t * v.card_points).sum()) for t in v.trick_vectors) / 100.0
    ctx[_V + 10] = v.lead_size / 8.0
    if obs.trick:
        lead = np.zeros(NUM_SLOTS, np.int16)
        lead[v.slot_of] = v.trick_vectors[0]
        ctx[_V + 11 + _kind(lead, v)] = 1.0
    ctx[_V + 15] = not obs.trick
    ctx[_V + 16] = obs.rules == "classic"
    ctx[_V + 17] = int((v.unseen[o] * v.points).sum()) / 200.0
    ctx[_V + 18] = obs.phase == "play"
    _classic_planes(obs, v, tokens)

    capacity = np.array([obs.cards_left[v.rel[k]] for k in (1, 2, 3)], np.int32)
    void = v.void[1:, v.cat].astype(np.float32)
    return {"state_tokens": tokens, "actions": _action_features(obs, legal, v), "role": _role(obs),
            "unseen": np.maximum(v.unseen[o], 0).astype(np.int32), "capacity": capacity,
            "void": void}


def _classic_planes(obs, v: _View, tokens: np.ndarray) -> None:
    """What only a `classic` round shows (all zero in `tractor`): my buried kitty (the dealer,
    once it buried), the standing declaration (its cards its declarer still holds, who made
    it, a single, a pair or a joker pair), the cards each seat took back from failed throws
    and the penalty so far, the phase (declare, bury), and whether a kitty is hidden from me."""
    if obs.rules != "classic":
        return
    o = v.order
    s = tokens[:NUM_SLOTS]
    kitty = _vector(obs.kitty)
    s[:, _V + _S_KITTY] = kitty[o] / 2.0
    declarer = -1
    if obs.declaration:
        declarer, cards = obs.declaration
        k = v.rel.index(declarer)
        held = np.maximum(_vector(cards) - v.played[k] - v.in_trick[k], 0)
        s[:, _V + _S_DECLARED] = held[o] / 2.0
    taken = [0] * NUM_SEATS
    penalty = 0
    for seat, tried, done in obs.failed_throws:
        taken[seat] += len(tried) - len(done)
        penalty += (10 if seat % 2 == obs.declarers else -10) * (len(tried) - len(done))
    for k, seat in enumerate(v.rel):
        row = tokens[NUM_SLOTS + k]
        row[_V + _SEAT_CLASSIC] = seat == declarer
        row[_V + _SEAT_CLASSIC + 1] = taken[seat] / 8.0
    ctx = tokens[NUM_SLOTS + NUM_SEATS]
    c = _V + _CTX_CLASSIC
    ctx[c] = obs.phase == "declare"
    ctx[c + 1] = obs.phase == "bury"
    ctx[c + 2] = penalty / 100.0
    ctx[c + 3] = int((kitty * v.card_points).sum()) / 100.0
    if obs.declaration:
        cards = obs.declaration[1]
        ctx[c + 4] = len(cards) / 2.0
        ctx[c + 5] = all(card in ("SJ", "BJ") for card in cards)
    ctx[c + 6] = not obs.kitty and obs.phase != "bury"


def _kind(slot_counts: np.ndarray, v: _View) -> int:
    """0 single, 1 pair, 2 tractor, 3 anything else (a discard, a throw, a prefix)."""
    n = int(slot_counts.sum())
    held = np.flatnonzero(slot_counts)
    if n == 1:
        return 0
    if n == 2 and len(held) == 1:
        return 1
    if n >= 4 and (slot_counts[held] == 2).all():
        cards = v.order[held]
        cat, _, _, chains = _table(v.obs.rules, v.obs.trump_rank, v.obs.trump_suit)
        if len(set(cat[cards].tolist())) == 1 and cat[cards[0]] != TRUMP:
            cards = sorted(cards.tolist())
            if all(chains[a] == b for a, b in zip(cards, cards[1:])):
                return 2
    return 3


def _winner_seat(obs, v: _View, extra: np.ndarray | None = None) -> int:
    """The seat winning the current trick (with `extra` as the next play, when given)."""
    vectors = [t.astype(np.uint8) for t in v.trick_vectors]
    if extra is not None:
        vectors.append(extra.astype(np.uint8))
    if obs.rules == "classic":
        from . import Rules, _referee
        r = Rules.classic(obs.trump_rank, obs.trump_suit or "N")
        index = _referee.classic_winner(r.rank_index, r.suit_index, vectors)
    else:
        from . import _referee
        index = _referee.winner_of(RANKS.index(obs.trump_rank), SUITS.index(obs.trump_suit), vectors)
    return (obs.trick[0][0] + index) % NUM_SEATS


def action_counts(obs, legal) -> np.ndarray:
    """Card counts of each legal play per canonical slot, int16 [A, 54] (the multi-hot part of
    the action features, times 2)."""
    return _counts(legal, _View(obs))


def _counts(legal, v: _View) -> np.ndarray:
    by_card = np.zeros((len(legal), NUM_SLOTS), np.int16)
    rows = [i for i, play in enumerate(legal) for _ in play]
    cards = [CARD_IDS[c] for play in legal for c in play]
    np.add.at(by_card, (np.array(rows, np.int64), np.array(cards, np.int64)), 1)
    return by_card[:, v.order]


def _action_features(obs, legal, v: _View) -> np.ndarray:
    out = np.zeros((len(legal), FA), np.float32)
    if not legal:
        return out
    cnt = _counts(legal, v)
    out[:, _A_CNT:_A_CNT + NUM_SLOTS] = cnt / 2.0
    n = cnt.sum(1)
    out[:, _A_N] = n / 8.0
    safe_n = np.maximum(n, 1)
    trumps = (cnt * (v.cat == TRUMP)).sum(1)
    out[:, _A_CAT] = trumps / safe_n
    shift = 0 if v.cat_of_block[0] == TRUMP else 1
    for b, c in enumerate(v.cat_of_block):
        if c != TRUMP:
            out[:, _A_CAT + b + shift] = (cnt * (v.cat == c)).sum(1) / safe_n
    out[:, _A_POINTS] = (cnt * v.points).sum(1) / 20.0
    out[:, _A_TRUMPS] = trumps / 8.0
    out[:, _A_STRENGTH] = (cnt * v.strength).sum(1) / safe_n / 23.0
    if obs.trick:
        out[:, _A_LED] = (cnt * (v.cat == v.led_cat)).sum(1) / v.lead_size
    table_points = sum(int((t * v.card_points).sum()) for t in v.trick_vectors)
    team = obs.seat % 2
    kinds = np.array([_kind(row, v) for row in cnt], np.int64)
    out[np.arange(len(legal)), _A_KIND + kinds] = 1.0
    if not obs.trick:
        _lead_safety(out, cnt, n, kinds, v)
    for i in range(len(legal)):
        out[i, _A_PAIRS] = int((cnt[i] == 2).sum()) / 4.0
        if obs.trick and n[i] < v.lead_size:
            out[i, _A_PARTIAL] = 1.0
            out[i, _A_NEED] = (v.lead_size - n[i]) / v.lead_size
        elif obs.trick and n[i] == v.lead_size:
            by_card = np.zeros(NUM_SLOTS, np.int16)
            by_card[v.order] = cnt[i]
            winner = _winner_seat(obs, v, by_card)
            if winner == obs.seat:
                out[i, _A_WINS] = 1.0
            if winner % 2 == team:
                out[i, _A_GAIN] = (table_points + int((cnt[i] * v.points).sum())) / 50.0
    return out


def _lead_safety(out: np.ndarray, cnt: np.ndarray, n: np.ndarray, kinds: np.ndarray, v: _View) -> None:
    """Each lead's chances of holding the trick, from what is known: the unseen cards of its
    category that could beat it (for a single: any stronger card; for a pair or tractor: a
    stronger slot with both copies unseen; otherwise: its weakest card, as a single), and
    the voids shown in its suit (a void opponent may trump a plain lead, a void partner may
    take it over). All leads at once, [A, 54] masks."""
    held = cnt > 0
    cat = v.cat[held.argmax(1)]
    weakest = np.where(held, v.strength, np.iinfo(np.int16).max).min(1)
    strongest = np.where(held, v.strength, -1).max(1)
    top = np.where(kinds == 2, strongest, weakest)
    unseen = v.unseen[v.order]
    paired = (kinds == 1) | (kinds == 2)
    weight = np.where(paired[:, None], unseen >= 2, unseen)
    beats = (v.cat == cat[:, None]) & (v.strength > top[:, None])
    beaters = (beats * weight).sum(1)
    lead = n > 0
    plain = lead & (cat != TRUMP)
    out[:, _A_BEATERS] = np.where(lead, np.minimum(beaters, 8) / 8.0, 0.0)
    out[:, _A_SAFE] = lead & (beaters == 0)
    out[:, _A_OPP_VOID] = plain & (v.void[1, cat] | v.void[3, cat])
    out[:, _A_PARTNER_VOID] = plain & v.void[2, cat]


def belief_target(obs, hands) -> np.ndarray:
    """How many of each slot's card seats 1, 2 and 3 (relative) truly hold, int32 [54, 3]."""
    v = _View(obs)
    rel = v.rel
    return np.stack([_vector(hands[rel[k]])[v.order] for k in (1, 2, 3)], axis=1).astype(np.int32)


def value_score(obs, score: float, result: dict) -> float:
    """The value head's raw target: the seat's team points margin around the 80-point
    threshold, attacker_points - 80 for an attacking seat and 80 - attacker_points for a
    declaring one. The recorded score (levels up, at most 3) is too coarse to learn from."""
    try:
        points, declarers = result["attacker_points"], result["declarers"]
    except (KeyError, TypeError):
        raise ValueError(f"a Shengji round result needs attacker_points and declarers, got {result!r}") from None
    margin = float(points) - 80.0
    return -margin if obs.seat % 2 == declarers else margin


from . import _features as _native  # noqa: E402  (the native twin reads the tables above)


def featurize(obs, legal) -> dict:
    """One decision as unpadded arrays, computed natively: the arrays of `featurize_python`."""
    return _native.featurize(obs, legal)
