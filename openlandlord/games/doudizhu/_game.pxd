# One game of Dou Dizhu at C level: the deal, the end, the score and the rollout loop.
from libc.stdint cimport uint64_t, int32_t
from openlandlord.games.doudizhu._moves cimport PlayState

ctypedef int (*policy_fn)(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil

# setup, end and score
cdef uint64_t splitmix64(uint64_t* state) noexcept nogil
cdef void deal_packed(uint64_t seed, uint64_t* hands, uint64_t* kitty) noexcept nogil
cdef void init_play_state(PlayState* s, const uint64_t* hands, int landlord) noexcept nogil
cdef void landlord_takes_kitty(PlayState* s, const uint64_t* dealt, uint64_t kitty,
                               int landlord) noexcept nogil
cdef void deal_play_state(PlayState* s, uint64_t seed, int landlord) noexcept nogil
cdef bint is_spring(const PlayState* s) noexcept nogil
cdef bint is_anti_spring(const PlayState* s) noexcept nogil
cdef int stake_exponent(const PlayState* s) noexcept nogil
cdef double payoff(const PlayState* s, int seat) noexcept nogil

# rollouts
cdef int random_policy(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil
cdef int rollout(PlayState* s, policy_fn policy, void* ctx, int32_t* buf) noexcept nogil
cdef int rollout_random(PlayState* s, uint64_t* rng, int32_t* buf) noexcept nogil

# The bidding flows at C level (`Game` runs them, and so does the VecEnv): a flow's state, its
# legal words (indices into BID_WORD_NAMES, in the order `Game.legal_moves()` lists them) and
# what a word does. A flow is an index into BIDDING_FLOWS ("none", "points", "call-rob").
cdef enum:
    BF_NONE = 0
    BF_POINTS = 1
    BF_CALL_ROB = 2
    ST_POINTS = 0          # bidding stages
    ST_CALL = 1
    ST_ROB = 2
    ST_ROB_BACK = 3
    ST_DOUBLE = 4
    W_PASS = 0             # words, the order of BID_WORD_NAMES
    W_BID1 = 1
    W_BID3 = 3
    W_CALL = 4
    W_ROB = 5
    W_DOUBLE = 6
    W_NODOUBLE = 7
    EV_NONE = 0            # what bid_apply asks of the game next
    EV_VOID = 1            # nobody bid or called: the deal is void
    EV_LANDLORD = 2        # best_seat is landlord (takes the kitty); the doubles follow
    EV_LANDLORD_PLAY = 3   # best_seat is landlord and the play starts
    EV_PLAY = 4            # the doubles are done: the play starts

cdef struct Bidding:
    int flow
    int stage
    int seat               # who bids next
    int best_bid
    int best_seat
    int bids_made          # points: passes since the last bid; call: calls asked
    int caller
    int robs
    int queue[2]           # call-rob: the seats still to be asked to rob
    int nqueue
    int doubled[3]
    int doubles_made

cdef void bid_init(Bidding* b, int flow) noexcept nogil
cdef int bid_legal(const Bidding* b, int* words) noexcept nogil
cdef int bid_apply(Bidding* b, int seat, int word) noexcept nogil
cdef void bid_start_play(PlayState* st, const Bidding* b) noexcept nogil
