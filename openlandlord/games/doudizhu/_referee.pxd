# The C-level Dou Dizhu referee, for native callers (the PIMC teacher's rollouts).
#
# Cards are ranks 0..14 = "3456789TJQKA2BR". A hand (or a move) is *packed*: 4 bits per
# rank, rank r in bits 4r..4r+3, so a whole hand is one uint64 and "move is in hand" is one
# subtraction (see `holds`). Moves are action ids into the 27,472 canonical actions
# (0 = pass); `ACTIONS` in the Python package lists them in id order.
#
# Use from Cython:
#     from openlandlord.games.doudizhu._referee cimport (PlayState, legal_actions, apply_action,
#                                                       rollout, policy_fn, MAX_LEGAL, ...)
#     cdef PlayState s
#     cdef int32_t moves[MAX_LEGAL]
#     deal_play_state(&s, seed, 0)                # or fill s.hand/n_cards yourself (init_play_state)
#     n = legal_actions(&s, moves)              # ids, ascending; pass (0) first when following
#     apply_action(&s, moves[k])                # caller guarantees legality (see is_legal)
#     if s.winner >= 0: score = payoff(&s, seat)
#
# A rollout policy is a plain C function; `rollout` owns the game loop, so a new policy
# (a rule bot, a network) plugs in without copying it:
#     cdef int my_policy(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil:
#         return index_into_moves
#     winner = rollout(&s, my_policy, ctx_ptr, moves_buffer)
# Everything here is nogil and allocation-free; buffers belong to the caller.
from libc.stdint cimport uint64_t, int32_t, uint8_t

cdef enum:
    N_RANKS = 15
    N_ACTIONS = 27472
    MAX_LEGAL = 27472      # a buffer this long always holds a position's legal moves

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

ctypedef int (*policy_fn)(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil

# action table
cdef uint64_t action_packed(int a) noexcept nogil
cdef int action_type(int a) noexcept nogil
cdef int action_rank(int a) noexcept nogil
cdef int action_length(int a) noexcept nogil
cdef int action_cards(int a) noexcept nogil
cdef bint holds(uint64_t hand, uint64_t cards) noexcept nogil
cdef bint beats(int a, int standing) noexcept nogil

# moves
cdef int legal_from_hand(uint64_t hand, int to_beat, int32_t* out) noexcept nogil
cdef int legal_actions(const PlayState* s, int32_t* out) noexcept nogil
cdef bint is_legal(const PlayState* s, int a) noexcept nogil
cdef void apply_action(PlayState* s, int a) noexcept nogil

# setup, end and score
cdef uint64_t splitmix64(uint64_t* state) noexcept nogil
cdef void deal_packed(uint64_t seed, uint64_t* hands, uint64_t* kitty) noexcept nogil
cdef int packed_count(uint64_t packed) noexcept nogil
cdef void init_play_state(PlayState* s, const uint64_t* hands, int landlord) noexcept nogil
cdef void deal_play_state(PlayState* s, uint64_t seed, int landlord) noexcept nogil
cdef bint is_spring(const PlayState* s) noexcept nogil
cdef bint is_anti_spring(const PlayState* s) noexcept nogil
cdef int stake_exponent(const PlayState* s) noexcept nogil
cdef double payoff(const PlayState* s, int seat) noexcept nogil

# rollouts
cdef int random_policy(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil
cdef int rollout(PlayState* s, policy_fn policy, void* ctx, int32_t* buf) noexcept nogil
cdef int rollout_random(PlayState* s, uint64_t* rng, int32_t* buf) noexcept nogil
