# The moves of Dou Dizhu at C level: the action table, legal moves, and what a move does to
# the play state.
#
# Cards are ranks 0..14 = "3456789TJQKA2BR". A hand (or a move) is *packed*: 4 bits per
# rank, rank r in bits 4r..4r+3, so a whole hand is one uint64 and "move is in hand" is one
# subtraction (see `holds`). Moves are action ids into the 27,472 canonical actions
# (0 = pass); `ACTIONS` in the Python package lists them in id order.
from libc.stdint cimport uint64_t, int32_t, uint8_t

cdef enum:
    N_RANKS = 15
    N_ACTIONS = 27472
    MAX_LEGAL = 27472      # a buffer this long always holds a position's legal moves
    BLACK = 13             # the jokers' ranks
    RED = 14

# Move types, in ACTIONS order; TYPE_NAMES in the Python module spells them.
cdef enum MoveType:
    T_PASS = 0
    T_SINGLE = 1
    T_PAIR = 2
    T_TRIO = 3
    T_TRIO_SINGLE = 4
    T_TRIO_PAIR = 5
    T_STRAIGHT = 6
    T_PAIR_CHAIN = 7
    T_PLANE = 8
    T_PLANE_SINGLE = 9
    T_PLANE_PAIR = 10
    T_FOUR_TWO_SINGLES = 11
    T_FOUR_TWO_PAIRS = 12
    T_BOMB = 13
    T_ROCKET = 14

cdef struct PlayState:
    uint64_t hand[3]        # packed counts per seat
    int32_t n_cards[3]
    int32_t plays[3]        # non-pass moves made by each seat (spring / anti-spring)
    int32_t to_beat         # action id of the standing move; 0 when the seat to move leads
    int32_t to_beat_seat    # who played it; -1 when the seat to move leads
    int32_t turn            # seat to move
    int32_t landlord
    int32_t winner          # seat that emptied its hand; -1 while the play goes on
    int32_t bombs           # bombs played (rocket not included)
    int32_t rockets
    int32_t base_stake      # bid (points), 2^robs (call-rob), 1 (none)
    int32_t seat_factor[3]  # call-rob doubles: farmer f settles base*...*seat_factor[f]

# action table
cdef uint64_t action_packed(int a) noexcept nogil
cdef int action_type(int a) noexcept nogil
cdef int action_rank(int a) noexcept nogil
cdef int action_length(int a) noexcept nogil
cdef int action_cards(int a) noexcept nogil
cdef bint holds(uint64_t hand, uint64_t cards) noexcept nogil
cdef bint beats(int a, int standing) noexcept nogil
cdef int packed_count(uint64_t packed) noexcept nogil

# moves
cdef int legal_from_hand(uint64_t hand, int to_beat, int32_t* out) noexcept nogil
cdef int legal_actions(const PlayState* s, int32_t* out) noexcept nogil
cdef bint is_legal(const PlayState* s, int a) noexcept nogil
cdef void apply_action(PlayState* s, int a) noexcept nogil

# Python-facing helpers (card strings in, packed counts and action ids out; IllegalMove names
# what is wrong), and the legal moves of a state as canonical strings.
cdef uint64_t _parse(str cards, str what) except? 0xFFFFFFFFFFFFFFFF
cdef int _action_of(str move, str what) except -1
cdef str _packed_str(uint64_t p)
cdef list state_legal_moves(const PlayState* s)
