# cython: language_level=3
"""The Dou Dizhu featurizer in C: `featurize(obs, legal)` gives exactly the arrays of
`features.featurize_python` (same dtypes, shapes and values, bit for bit; tests/
test_native_features.py checks it on random games of every bidding flow).

The layout is not restated here: every offset, scale and table (the canonical action table
included) is read from `features.py`, the one definition. This module only does the same
arithmetic without Python objects in the loops: card strings are counted per character,
each value is computed in double and stored as float32, as numpy does.

Its body works on a `DdzView` (_features.pxd): a decision as plain counts. `featurize` fills
the view from an Observation; a native caller (the VecEnv) fills it from the referee's state
and calls the same `write_state` / `write_play_action`.
"""
cimport numpy as cnp
from libc.math cimport log2
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

if NR > V_RANKS or MAX_HISTORY > V_HISTORY:
    raise ImportError("the Dou Dizhu native featurizer holds at most 32 ranks and 64 history "
                      "tokens")
cdef int FULL[V_RANKS]
cdef int RANK_OF_CHAR[128]
cdef int _i
for _i in range(128):
    RANK_OF_CHAR[_i] = -1
for _c, _r in _py.RANK_INDEX.items():
    RANK_OF_CHAR[ord(_c)] = _r
for _i in range(NR):
    FULL[_i] = int(_py.FULL_COUNT[_i])

# log2(max(stake, 1)) / 5 as numpy computes it, for every stake the referee makes: m * 2^e
# with m = 1 or 3 (a bid of 3, or 2^robs, doubled by bombs and the landlord's double).
cdef double STAKE_POW[2][63]
for _e in range(63):
    STAKE_POW[0][_e] = float(np.log2(float(1 << _e)) / 5.0)
    STAKE_POW[1][_e] = float(np.log2(float(3 << _e)) / 5.0) if _e < 61 else 0.0

# The canonical action table (static features, rank counts), fetched on first use: building
# it imports the referee package.
cdef const float[:, ::1] ACT_FEATS
cdef const int[:, ::1] ACT_COUNTS
cdef bint _table_ready = False

# log2(stake) / 5 as numpy computes it, per stake seen (stakes of other forms).
cdef dict _STAKE = {}


cdef int table_ready() except -1:
    global ACT_FEATS, ACT_COUNTS, _table_ready
    if _table_ready:
        return 0
    feats, cnts = _py._action_table()
    ACT_FEATS = np.ascontiguousarray(feats, np.float32)
    ACT_COUNTS = np.ascontiguousarray(cnts, np.int32)
    _table_ready = True
    return 0


cdef double stake_scale(long long stake) noexcept nogil:
    """log2(max(stake, 1)) / 5 from the numpy-made table; libm for a stake of another form."""
    cdef long long m = stake
    cdef int e = 0
    if stake <= 1:
        return 0.0
    while m % 2 == 0:
        m //= 2
        e += 1
    if m == 1 and e < 63:
        return STAKE_POW[0][e]
    if m == 3 and e < 61:
        return STAKE_POW[1][e]
    return log2(<double>stake) / 5.0


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


cdef inline int rel_seat(int s, int seat) noexcept nogil:
    # Python's (s - seat) % 3, never negative (C's % keeps the sign).
    return ((s - seat) % 3 + 3) % 3


cdef int view_tokens(const DdzView* v) noexcept nogil:
    return NR + 4 + v.nrecent


cdef int view_role(const DdzView* v) noexcept nogil:
    if v.bidding or v.lord < 0:
        return ROLE_BIDDING
    return rel_seat(v.seat, v.lord)


cdef void write_unseen(const DdzView* v, int* unseen) noexcept nogil:
    cdef int r
    for r in range(NR):
        unseen[r] = FULL[r] - v.hand[r] - v.played[0][r] - v.played[1][r] - v.played[2][r]


cdef inline void token_head(float* row, int kind, const int* counts, int k, int role) noexcept nogil:
    # A seat or history token's common part: its type, its cards per rank, the relative seat
    # k and (once there is a landlord) that seat's role.
    cdef int r
    row[TYPE + kind] = 1.0
    for r in range(NR):
        row[RANKV + r] = <float>(counts[r] / 4.0)
    row[SEAT + k] = 1.0
    if role >= 0:
        row[ROLE + role] = 1.0


cdef void write_state(const DdzView* v, float* t) noexcept nogil:
    """The state tokens of a view into t (view_tokens(v) rows of FS, zeroed by the caller)."""
    cdef int k, r, j, n, s
    cdef int rel[3]
    cdef int roles[3]
    cdef int unseen[V_RANKS]
    cdef float* row
    cdef bint has_roles = v.lord >= 0
    for k in range(3):
        rel[k] = rel_seat(v.seat + k, 0)
        roles[k] = rel_seat(rel[k], v.lord) if has_roles else -1
    write_unseen(v, unseen)

    # Rank tokens.
    for r in range(NR):
        row = t + r * FS
        row[TYPE + TOK_RANK] = 1.0
        row[RANKV + r] = 1.0
        row[SCALAR + 0] = <float>(v.hand[r] / 4.0)
        row[SCALAR + 1] = <float>(unseen[r] / 4.0)
        for k in range(3):
            row[SCALAR + 2 + k] = <float>(v.played[k][r] / 4.0)
        row[SCALAR + 6] = <float>(FULL[r] / 4.0)
        if v.kitty_shown:
            n = v.kitty_left[r]
            row[SCALAR + 5] = <float>((n if n > 0 else 0) / 4.0)

    # Seat tokens.
    for k in range(3):
        row = t + (NR + k) * FS
        token_head(row, TOK_SEAT, v.played[k], k, roles[k] if has_roles else -1)
        row[SCALAR + 0] = <float>(v.cards_left[rel[k]] / 20.0)
        row[SCALAR + 1] = v.bombs[k]
        row[SCALAR + 2] = <float>(v.passes[k] / 10.0)
        row[SCALAR + 3] = 1.0 if v.to_beat_seat >= 0 and v.to_beat_seat == rel[k] else 0.0

    # Context token.
    row = t + (NR + 3) * FS
    row[TYPE + TOK_CONTEXT] = 1.0
    for r in range(NR):
        row[RANKV + r] = <float>(v.to_beat[r] / 4.0)
    row[SCALAR + 0] = 1.0 if v.bidding else 0.0
    row[SCALAR + 1] = <float>v.stake_scaled
    row[SCALAR + 2] = <float>(v.bombs_played / 4.0)
    row[SCALAR + 3] = 1.0 if v.to_beat_len == 0 else 0.0
    row[SCALAR + 4] = <float>(v.nplays / 60.0)
    for j in range(v.nbids):
        if v.bid_word[j] >= 0:
            row[SCALAR + 5 + j] = <float>((v.bid_word[j] + 1) / 8.0)

    # History tokens, newest first.
    for j in range(v.nrecent):
        row = t + (NR + 4 + j) * FS
        k = rel_seat(v.recent_seat[j], v.seat)
        token_head(row, TOK_HISTORY, v.recent[j], k, roles[k] if has_roles else -1)
        row[SCALAR + 0] = 1.0 if v.recent_len[j] == 0 else 0.0
        row[SCALAR + 1] = <float>(j / <double>MAX_HISTORY)
        row[SCALAR + 2] = <float>(v.recent_len[j] / 20.0)


cdef void write_play_action(const int* hand, int a, float* row) noexcept nogil:
    """The action row of canonical action a from a hand (table_ready() first)."""
    cdef int r, n, total = 0
    memcpy(row, &ACT_FEATS[a, 0], FA * sizeof(float))
    for r in range(NR):
        n = hand[r] - ACT_COUNTS[a, r]
        total += n
        row[A_LEFT + r] = <float>(n / 4.0)
    row[A_WIN] = 1.0 if total == 0 else 0.0


cdef void write_bid_action(int word, float* row) noexcept nogil:
    """The action row of bidding word `word` (index into BID_WORDS) into a zeroed row."""
    row[A_TYPE + N_MOVE_TYPES] = 1.0
    row[A_BID + word] = 1.0


cdef int fill_view(obs, DdzView* v) except -1:
    """The view of an Observation."""
    cdef int k, r, j, s, n, nplays
    cdef int rel[3]
    cdef int tmp[V_RANKS]
    cdef str move
    memset(v, 0, sizeof(DdzView))
    v.seat = obs.seat
    for k in range(3):
        rel[k] = rel_seat(v.seat + k, 0)
    count_cards(obs.hand, v.hand)
    obs_played = obs.played
    for k in range(3):
        count_cards(obs_played[rel[k]], v.played[k])
    landlord = obs.landlord
    v.lord = landlord if landlord is not None else -1
    kitty = obs.kitty
    if kitty and v.lord >= 0:
        v.kitty_shown = 1
        memset(tmp, 0, sizeof(tmp))
        count_cards(kitty, v.kitty_left)
        count_cards(obs_played[v.lord], tmp)
        for r in range(NR):
            v.kitty_left[r] -= tmp[r]
    plays = obs.plays
    nplays = len(plays)
    v.nplays = nplays
    v.nrecent = nplays if nplays < MAX_HISTORY else MAX_HISTORY
    for s, move in plays:
        k = rel_seat(s, v.seat)
        n = len(move)
        if n == 0:
            v.passes[k] += 1
        elif n == 4 and move[0] == move[3] or move == "BR":
            v.bombs[k] += 1
    for j in range(v.nrecent):
        s, move = plays[nplays - 1 - j]
        v.recent_seat[j] = s
        v.recent_len[j] = len(move)
        count_cards(move, v.recent[j])
    to_beat_seat = obs.to_beat_seat
    v.to_beat_seat = to_beat_seat if to_beat_seat is not None else -1
    cards_left = obs.cards_left
    for k in range(3):
        v.cards_left[k] = cards_left[k]
    cdef str to_beat = obs.to_beat
    count_cards(to_beat, v.to_beat)
    v.to_beat_len = len(to_beat)
    v.bidding = obs.phase == "bidding"
    stake = obs.stake
    scaled = _STAKE.get(stake)
    if scaled is None:
        scaled = _STAKE[stake] = float(np.log2(max(stake, 1)) / 5.0)
    v.stake_scaled = <double>scaled
    v.bombs_played = obs.bombs_played
    bids = obs.bids
    n = len(bids)
    s = n - 8 if n > 8 else 0
    v.nbids = n - s
    for j in range(n - s):
        b = BID_INDEX.get(bids[s + j][1])
        v.bid_word[j] = <int>b if b is not None else -1
    return 0


def featurize(obs, legal):
    """One decision as unpadded arrays; see features.py for the layout."""
    cdef DdzView v
    cdef int j, r, a, nlegal
    cdef cnp.npy_intp dims[2]
    fill_view(obs, &v)
    dims[0] = view_tokens(&v)
    dims[1] = FS
    tokens = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    write_state(&v, <float*>cnp.PyArray_DATA(tokens))

    # Actions.
    cdef list moves = legal if type(legal) is list else list(legal)
    nlegal = len(moves)
    dims[0] = nlegal
    dims[1] = FA
    if v.bidding or not nlegal:
        actions = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    else:   # every row is copied whole from the action table below
        actions = cnp.PyArray_EMPTY(2, dims, cnp.NPY_FLOAT32, 0)
    cdef float* out = <float*>cnp.PyArray_DATA(actions)
    if v.bidding:
        for j in range(nlegal):
            b = BID_INDEX.get(moves[j])
            if b is None:
                BID_WORDS.index(moves[j])   # the ValueError the Python featurizer raises
            write_bid_action(<int>b, out + j * FA)
    elif nlegal:
        table_ready()
        for j in range(nlegal):
            m = moves[j]
            ident = ACTION_ID.get(m)
            a = <int>ident if ident is not None else <int>action_id(m)
            write_play_action(v.hand, a, out + j * FA)

    dims[0] = NR
    unseen_arr = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    write_unseen(&v, <int*>cnp.PyArray_DATA(unseen_arr))
    dims[0] = 2
    capacity = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    cdef int* cap = <int*>cnp.PyArray_DATA(capacity)
    cap[0] = v.cards_left[rel_seat(v.seat + 1, 0)]
    cap[1] = v.cards_left[rel_seat(v.seat + 2, 0)]
    dims[0] = 2
    dims[1] = NR
    void = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    return {"state_tokens": tokens, "actions": actions, "role": view_role(&v),
            "unseen": unseen_arr, "capacity": capacity, "void": void}
