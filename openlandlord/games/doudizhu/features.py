"""Dou Dizhu observation -> model arrays (FEATURE_VERSION 1).

State tokens (T = 34, Fs = 48), every seat-dependent quantity relative to the seat to move
(0 = me, 1 = next seat, 2 = the seat after it):
  - 15 rank tokens: the rank, my count, the unseen count, how many each seat has played,
    and how many of the public kitty's cards of that rank the landlord has not played yet;
  - 3 seat tokens: that seat's role, cards left, everything it has played, its bombs and passes;
  - 1 context token: phase, stake, bombs so far, whether I lead, the bidding state;
  - up to 15 history tokens: the last plays and passes, newest first.
Every token has the same layout: [type one-hot 4 | rank vector 15 | relative seat 3 |
role 3 | 23 scalars whose meaning depends on the type].

Actions (Fa = 103): per rank, one-hot of 1..4 cards used (60); the move type (15 types plus
`bid`, 16); the bidding word (8); chain length, main rank and card count, scaled; whether the
move empties my hand; my hand after the move (15). The static part of every canonical action
is tabulated once, so featurizing a decision is a table gather plus a few vector operations.

Belief: R = 15 rank slots, H = 2 hidden holders (the next seat, then the one after it),
counts up to C = 4; `unseen[r]` is 4 (1 for a joker) minus my cards minus all played cards.

This module is the one definition: `featurize_python` computes every array in numpy. The
`featurize` everyone calls is its native twin (`_features.pyx`, built with the referee), which
reads every offset and table from here and gives the same arrays bit for bit, several times
faster (tests/test_native_features.py compares them on random games of every bidding flow;
`python -m openlandlord.features.bench --game doudizhu` times both). A change to the features
is made here first, then mirrored in `_features.pyx` until that test passes again.
"""
from __future__ import annotations

import functools

import numpy as np

FEATURE_VERSION = 1
NUM_RANKS = 15
FS, FA = 48, 103
MAX_HISTORY = 15
MAX_TOKENS = NUM_RANKS + 3 + 1 + MAX_HISTORY
ROLES = ("landlord", "landlord_down", "landlord_up")
ROLE_BIDDING = 3
DIMS = {"state_feat_dim": FS, "action_feat_dim": FA, "num_roles": 4, "belief_slots": NUM_RANKS,
        "belief_holders": 2, "belief_max_count": 4, "max_tokens": MAX_TOKENS,
        "feature_version": FEATURE_VERSION}

MOVE_TYPES = ("pass", "single", "pair", "trio", "trio_single", "trio_pair", "straight",
              "pair_chain", "plane", "plane_single", "plane_pair", "four_two_singles",
              "four_two_pairs", "bomb", "rocket")
BID_WORDS = ("pass", "bid1", "bid2", "bid3", "call", "rob", "double", "nodouble")
RANK_INDEX = {c: i for i, c in enumerate("3456789TJQKA2BR")}
FULL_COUNT = np.array([4] * 13 + [1, 1], np.int32)

# Token layout offsets.
_TYPE, _RANKV, _SEAT, _ROLE, _SCALAR = 0, 4, 19, 22, 25
TOK_RANK, TOK_SEAT, TOK_CONTEXT, TOK_HISTORY = range(4)
# Action layout offsets.
_A_CNT, _A_TYPE, _A_BID, _A_LEN, _A_MAIN, _A_NCARDS, _A_WIN, _A_LEFT = 0, 60, 76, 84, 85, 86, 87, 88


def counts(cards: str) -> np.ndarray:
    """Cards per rank of a canonical (or any-order) card string (a fresh array)."""
    return _counts(cards).copy()


@functools.lru_cache(maxsize=65536)
def _counts(cards: str) -> np.ndarray:
    out = np.zeros(NUM_RANKS, np.int32)
    for c in cards:
        out[RANK_INDEX[c]] += 1
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=1)
def _action_table():
    """Static features and rank counts of every canonical action, indexed by action id."""
    from . import ACTIONS, classify
    n = len(ACTIONS)
    feats = np.zeros((n, FA), np.float32)
    cnts = np.zeros((n, NUM_RANKS), np.int32)
    for i, move in enumerate(ACTIONS):
        c = counts(move)
        cnts[i] = c
        for r in np.nonzero(c)[0]:
            feats[i, _A_CNT + 4 * r + c[r] - 1] = 1.0
        kind, main, length = classify(move)
        feats[i, _A_TYPE + MOVE_TYPES.index(kind)] = 1.0
        feats[i, _A_LEN] = length / 12.0
        feats[i, _A_MAIN] = main / 14.0 if kind != "pass" else 0.0
        feats[i, _A_NCARDS] = len(move) / 20.0
    return feats, cnts


def _bid_features(word: str) -> np.ndarray:
    f = np.zeros(FA, np.float32)
    f[_A_TYPE + len(MOVE_TYPES)] = 1.0
    f[_A_BID + BID_WORDS.index(word)] = 1.0
    return f


def featurize_python(obs, legal) -> dict:
    """The featurizer in Python: the definition of every array, and the oracle the native
    `featurize` (`_features.pyx`) is tested against."""
    seat = obs.seat
    rel = [(seat + k) % 3 for k in range(3)]
    hand = _counts(obs.hand)
    played = [_counts(obs.played[s]) for s in rel]
    unseen = FULL_COUNT - hand - played[0] - played[1] - played[2]
    roles = [None] * 3
    if obs.landlord is not None:
        for k in range(3):
            roles[k] = (rel[k] - obs.landlord) % 3

    tokens = np.zeros((MAX_TOKENS, FS), np.float32)
    # Rank tokens.
    tokens[:NUM_RANKS, _TYPE + TOK_RANK] = 1.0
    tokens[:NUM_RANKS, _RANKV:_RANKV + NUM_RANKS] = np.eye(NUM_RANKS, dtype=np.float32)
    tokens[:NUM_RANKS, _SCALAR + 0] = hand / 4.0
    tokens[:NUM_RANKS, _SCALAR + 1] = unseen / 4.0
    for k in range(3):
        tokens[:NUM_RANKS, _SCALAR + 2 + k] = played[k] / 4.0
    if obs.kitty and obs.landlord is not None:
        landlord_played = counts(obs.played[obs.landlord])
        kitty_left = np.maximum(counts(obs.kitty) - landlord_played, 0)
        tokens[:NUM_RANKS, _SCALAR + 5] = kitty_left / 4.0
    tokens[:NUM_RANKS, _SCALAR + 6] = FULL_COUNT / 4.0
    # Seat tokens.
    passes = [0, 0, 0]
    bombs = [0, 0, 0]
    for s, move in obs.plays:
        k = (s - seat) % 3
        if move == "":
            passes[k] += 1
        elif len(move) == 4 and move[0] == move[3] or move == "BR":
            bombs[k] += 1
    for k in range(3):
        row = tokens[NUM_RANKS + k]
        row[_TYPE + TOK_SEAT] = 1.0
        row[_RANKV:_RANKV + NUM_RANKS] = played[k] / 4.0
        row[_SEAT + k] = 1.0
        if roles[k] is not None:
            row[_ROLE + roles[k]] = 1.0
        row[_SCALAR + 0] = obs.cards_left[rel[k]] / 20.0
        row[_SCALAR + 1] = bombs[k]
        row[_SCALAR + 2] = passes[k] / 10.0
        row[_SCALAR + 3] = 1.0 if obs.to_beat_seat == rel[k] else 0.0
    # Context token.
    ctx = tokens[NUM_RANKS + 3]
    ctx[_TYPE + TOK_CONTEXT] = 1.0
    ctx[_RANKV:_RANKV + NUM_RANKS] = _counts(obs.to_beat) / 4.0
    ctx[_SCALAR + 0] = 1.0 if obs.phase == "bidding" else 0.0
    ctx[_SCALAR + 1] = np.log2(max(obs.stake, 1)) / 5.0
    ctx[_SCALAR + 2] = obs.bombs_played / 4.0
    ctx[_SCALAR + 3] = 1.0 if obs.to_beat == "" else 0.0
    ctx[_SCALAR + 4] = len(obs.plays) / 60.0
    for j, (_, word) in enumerate(obs.bids[-8:]):
        if word in BID_WORDS:
            ctx[_SCALAR + 5 + j] = (BID_WORDS.index(word) + 1) / 8.0
    # History tokens, newest first.
    recent = obs.plays[-MAX_HISTORY:][::-1]
    n_tokens = NUM_RANKS + 4 + len(recent)
    for j, (s, move) in enumerate(recent):
        row = tokens[NUM_RANKS + 4 + j]
        k = (s - seat) % 3
        row[_TYPE + TOK_HISTORY] = 1.0
        row[_RANKV:_RANKV + NUM_RANKS] = _counts(move) / 4.0
        row[_SEAT + k] = 1.0
        if roles[k] is not None:
            row[_ROLE + roles[k]] = 1.0
        row[_SCALAR + 0] = 1.0 if move == "" else 0.0
        row[_SCALAR + 1] = j / MAX_HISTORY
        row[_SCALAR + 2] = len(move) / 20.0

    actions = _action_features(obs, legal, hand)
    capacity = np.array([obs.cards_left[rel[1]], obs.cards_left[rel[2]]], np.int32)
    role = ROLE_BIDDING if obs.phase == "bidding" or roles[0] is None else roles[0]
    return {"state_tokens": tokens[:n_tokens], "actions": actions, "role": role,
            "unseen": unseen.astype(np.int32), "capacity": capacity,
            "void": np.zeros((2, NUM_RANKS), np.float32)}


def _action_features(obs, legal, hand: np.ndarray) -> np.ndarray:
    if obs.phase == "bidding":
        return np.stack([_bid_features(w) for w in legal]) if legal else np.zeros((0, FA), np.float32)
    from . import action_id
    feats, cnts = _action_table()
    ids = np.fromiter((action_id(m) for m in legal), np.int64, len(legal))
    out = feats[ids]
    left = hand[None, :] - cnts[ids]
    out[:, _A_LEFT:_A_LEFT + NUM_RANKS] = left / 4.0
    out[:, _A_WIN] = (left.sum(axis=1) == 0)
    return out


def belief_target(obs, hands) -> np.ndarray:
    """How many of each rank the next seat and the seat after it truly hold, [15, 2]."""
    nxt, after = (obs.seat + 1) % 3, (obs.seat + 2) % 3
    return np.stack([counts(hands[nxt]), counts(hands[after])], axis=1).astype(np.int32)


def value_score(obs, score: float, result: dict) -> float:
    """The value head's raw target: the seat's signed payoff, as recorded."""
    return float(score)


from . import _features as _native  # noqa: E402  (the native twin reads the tables above)


def featurize(obs, legal) -> dict:
    """One decision as unpadded arrays, computed natively: the arrays of `featurize_python`."""
    return _native.featurize(obs, legal)
