# One game of Dou Dizhu at C level: the deal, the end, the score and the rollout loop.
from libc.stdint cimport uint64_t, int32_t
from openlandlord.games.doudizhu._moves cimport PlayState

ctypedef int (*policy_fn)(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil

# setup, end and score
cdef uint64_t splitmix64(uint64_t* state) noexcept nogil
cdef void deal_packed(uint64_t seed, uint64_t* hands, uint64_t* kitty) noexcept nogil
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
