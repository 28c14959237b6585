# cython: language_level=3
"""The Dou Dizhu featurizer in C: `featurize(obs, legal)` gives exactly the arrays of
`features.featurize_python` (same dtypes, shapes and values, bit for bit; tests/
test_native_features.py checks it on random games of every bidding flow).

The layout is not restated here: every offset, scale and table (the canonical action table
included) is read from `features.py`, the one definition. This module only does the same
arithmetic without Python objects in the loops: card strings are counted per character,
each value is computed in double and stored as float32, as numpy does.
"""
cimport numpy as cnp
from libc.string cimport memcpy, memset

import numpy as np

from . import features as _py
from ._referee import ACTION_ID, action_id

cnp.import_array()

# The layout, read once from the Python featurizer.
cdef int NR = _py.NUM_RANKS
cdef int FS = _py.FS
cdef int FA = _py.FA
cdef int MAX_HISTORY = _py.MAX_HISTORY
cdef int ROLE_BIDDING = _py.ROLE_BIDDING
cdef int TYPE = _py._TYPE
cdef int RANKV = _py._RANKV
cdef int SEAT = _py._SEAT
cdef int ROLE = _py._ROLE
cdef int SCALAR = _py._SCALAR
cdef int TOK_RANK = _py.TOK_RANK
cdef int TOK_SEAT = _py.TOK_SEAT
cdef int TOK_CONTEXT = _py.TOK_CONTEXT
cdef int TOK_HISTORY = _py.TOK_HISTORY
cdef int A_TYPE = _py._A_TYPE
cdef int A_BID = _py._A_BID
cdef int A_WIN = _py._A_WIN
cdef int A_LEFT = _py._A_LEFT
cdef int N_MOVE_TYPES = len(_py.MOVE_TYPES)
cdef dict BID_INDEX = {w: i for i, w in enumerate(_py.BID_WORDS)}
cdef tuple BID_WORDS = tuple(_py.BID_WORDS)
cdef int N_BID = len(_py.BID_WORDS)

if NR > 32:
    raise ImportError("the Dou Dizhu native featurizer holds at most 32 ranks")
cdef int FULL[32]
cdef int RANK_OF_CHAR[128]
cdef int _i
for _i in range(128):
    RANK_OF_CHAR[_i] = -1
for _c, _r in _py.RANK_INDEX.items():
    RANK_OF_CHAR[ord(_c)] = _r
for _i in range(NR):
    FULL[_i] = int(_py.FULL_COUNT[_i])

# The canonical action table (static features, rank counts), fetched on first use: building
# it imports the referee package.
cdef const float[:, ::1] ACT_FEATS
cdef const int[:, ::1] ACT_COUNTS
cdef bint _table_ready = False

# log2(stake) / 5 as numpy computes it, per stake seen.
cdef dict _STAKE = {}


cdef int _load_table() except -1:
    global ACT_FEATS, ACT_COUNTS, _table_ready
    feats, cnts = _py._action_table()
    ACT_FEATS = np.ascontiguousarray(feats, np.float32)
    ACT_COUNTS = np.ascontiguousarray(cnts, np.int32)
    _table_ready = True
    return 0


cdef int count_cards(str cards, int* out) except -1:
    """Adds the cards of a card string per rank into out[NR]; a character that is no rank
    raises what the Python featurizer raises."""
    cdef Py_UCS4 ch
    cdef int r
    for ch in cards:
        r = RANK_OF_CHAR[ch] if ch < 128 else -1
        if r < 0:
            _py._counts(cards)
            raise KeyError(ch)
        out[r] += 1
    return 0


cdef inline int rel_seat(int s, int seat) noexcept:
    # Python's (s - seat) % 3, never negative (C's % keeps the sign).
    return ((s - seat) % 3 + 3) % 3


def featurize(obs, legal):
    """One decision as unpadded arrays; see features.py for the layout."""
    cdef int seat = obs.seat
    cdef int k, r, j, s, n, a, nlegal, total
    cdef int rel[3]
    cdef int roles[3]
    cdef int hand[32]
    cdef int played[3][32]
    cdef int unseen[32]
    cdef int tmp[32]
    cdef int kitty_left[32]
    cdef int passes[3]
    cdef int bombs[3]
    cdef float* row
    cdef float* t
    cdef float* out
    cdef str move
    cdef cnp.npy_intp dims[2]

    for k in range(3):
        rel[k] = rel_seat(seat + k, 0)
    memset(hand, 0, sizeof(hand))
    memset(played, 0, sizeof(played))
    count_cards(obs.hand, hand)
    obs_played = obs.played
    for k in range(3):
        count_cards(obs_played[rel[k]], played[k])
    for r in range(NR):
        unseen[r] = FULL[r] - hand[r] - played[0][r] - played[1][r] - played[2][r]
    landlord = obs.landlord
    cdef bint has_roles = landlord is not None
    cdef int lord = landlord if has_roles else -1
    for k in range(3):
        roles[k] = rel_seat(rel[k], lord) if has_roles else -1

    plays = obs.plays
    cdef int nplays = len(plays)
    cdef int nrecent = nplays if nplays < MAX_HISTORY else MAX_HISTORY
    cdef int n_tokens = NR + 4 + nrecent
    dims[0] = n_tokens
    dims[1] = FS
    tokens = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    t = <float*>cnp.PyArray_DATA(tokens)

    # Rank tokens.
    for r in range(NR):
        row = t + r * FS
        row[TYPE + TOK_RANK] = 1.0
        row[RANKV + r] = 1.0
        row[SCALAR + 0] = <float>(hand[r] / 4.0)
        row[SCALAR + 1] = <float>(unseen[r] / 4.0)
        for k in range(3):
            row[SCALAR + 2 + k] = <float>(played[k][r] / 4.0)
        row[SCALAR + 6] = <float>(FULL[r] / 4.0)
    kitty = obs.kitty
    if kitty and has_roles:
        memset(kitty_left, 0, sizeof(kitty_left))
        memset(tmp, 0, sizeof(tmp))
        count_cards(kitty, kitty_left)
        count_cards(obs_played[lord], tmp)
        for r in range(NR):
            n = kitty_left[r] - tmp[r]
            t[r * FS + SCALAR + 5] = <float>((n if n > 0 else 0) / 4.0)

    # Seat tokens.
    for k in range(3):
        passes[k] = 0
        bombs[k] = 0
    for s, move in plays:
        k = rel_seat(s, seat)
        n = len(move)
        if n == 0:
            passes[k] += 1
        elif n == 4 and move[0] == move[3] or move == "BR":
            bombs[k] += 1
    to_beat_seat = obs.to_beat_seat
    cards_left = obs.cards_left
    for k in range(3):
        row = t + (NR + k) * FS
        row[TYPE + TOK_SEAT] = 1.0
        for r in range(NR):
            row[RANKV + r] = <float>(played[k][r] / 4.0)
        row[SEAT + k] = 1.0
        if has_roles:
            row[ROLE + roles[k]] = 1.0
        row[SCALAR + 0] = <float>(<int>cards_left[rel[k]] / 20.0)
        row[SCALAR + 1] = bombs[k]
        row[SCALAR + 2] = <float>(passes[k] / 10.0)
        row[SCALAR + 3] = 1.0 if to_beat_seat is not None and to_beat_seat == rel[k] else 0.0

    # Context token.
    row = t + (NR + 3) * FS
    row[TYPE + TOK_CONTEXT] = 1.0
    memset(tmp, 0, sizeof(tmp))
    cdef str to_beat = obs.to_beat
    count_cards(to_beat, tmp)
    for r in range(NR):
        row[RANKV + r] = <float>(tmp[r] / 4.0)
    cdef bint bidding = obs.phase == "bidding"
    row[SCALAR + 0] = 1.0 if bidding else 0.0
    stake = obs.stake
    scaled = _STAKE.get(stake)
    if scaled is None:
        scaled = _STAKE[stake] = float(np.log2(max(stake, 1)) / 5.0)
    row[SCALAR + 1] = <float><double>scaled
    row[SCALAR + 2] = <float>(<int>obs.bombs_played / 4.0)
    row[SCALAR + 3] = 1.0 if len(to_beat) == 0 else 0.0
    row[SCALAR + 4] = <float>(nplays / 60.0)
    bids = obs.bids
    n = len(bids)
    s = n - 8 if n > 8 else 0
    for j in range(n - s):
        b = BID_INDEX.get(bids[s + j][1])
        if b is not None:
            row[SCALAR + 5 + j] = <float>((<int>b + 1) / 8.0)

    # History tokens, newest first.
    for j in range(nrecent):
        s, move = plays[nplays - 1 - j]
        row = t + (NR + 4 + j) * FS
        k = rel_seat(s, seat)
        row[TYPE + TOK_HISTORY] = 1.0
        memset(tmp, 0, sizeof(tmp))
        count_cards(move, tmp)
        for r in range(NR):
            row[RANKV + r] = <float>(tmp[r] / 4.0)
        row[SEAT + k] = 1.0
        if has_roles:
            row[ROLE + roles[k]] = 1.0
        row[SCALAR + 0] = 1.0 if len(move) == 0 else 0.0
        row[SCALAR + 1] = <float>(j / <double>MAX_HISTORY)
        row[SCALAR + 2] = <float>(len(move) / 20.0)

    # Actions.
    cdef list moves = legal if type(legal) is list else list(legal)
    nlegal = len(moves)
    dims[0] = nlegal
    dims[1] = FA
    if bidding or not nlegal:
        actions = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    else:   # every row is copied whole from the action table below
        actions = cnp.PyArray_EMPTY(2, dims, cnp.NPY_FLOAT32, 0)
    out = <float*>cnp.PyArray_DATA(actions)
    if bidding:
        for j in range(nlegal):
            b = BID_INDEX.get(moves[j])
            if b is None:
                BID_WORDS.index(moves[j])   # the ValueError the Python featurizer raises
            out[j * FA + A_TYPE + N_MOVE_TYPES] = 1.0
            out[j * FA + A_BID + <int>b] = 1.0
    elif nlegal:
        if not _table_ready:
            _load_table()
        for j in range(nlegal):
            m = moves[j]
            ident = ACTION_ID.get(m)
            a = <int>ident if ident is not None else <int>action_id(m)
            row = out + j * FA
            memcpy(row, &ACT_FEATS[a, 0], FA * sizeof(float))
            total = 0
            for r in range(NR):
                n = hand[r] - ACT_COUNTS[a, r]
                total += n
                row[A_LEFT + r] = <float>(n / 4.0)
            row[A_WIN] = 1.0 if total == 0 else 0.0

    dims[0] = NR
    unseen_arr = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    cdef int* u = <int*>cnp.PyArray_DATA(unseen_arr)
    for r in range(NR):
        u[r] = unseen[r]
    dims[0] = 2
    capacity = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    cdef int* cap = <int*>cnp.PyArray_DATA(capacity)
    cap[0] = cards_left[rel[1]]
    cap[1] = cards_left[rel[2]]
    dims[0] = 2
    dims[1] = NR
    void = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    role = ROLE_BIDDING if bidding or not has_roles else roles[0]
    return {"state_tokens": tokens, "actions": actions, "role": role, "unseen": unseen_arr,
            "capacity": capacity, "void": void}
