# Whole rounds: the deals, the random policies, the native round loops of both rulesets and
# the world sampler of the PIMC teacher.
from openlandlord.games.shengji._cards cimport Table
from openlandlord.games.shengji._trick cimport Lead, Format

ctypedef int (*Policy)(void* ctx, const Table* t, const unsigned char* hand, const Lead* lead,
                       unsigned long long* rng, unsigned char* out) noexcept nogil
# A policy writes its play (a count vector) into `out` and returns the number of cards.
# `lead` is NULL when the seat leads.

# Ruleset `tractor`.
cdef int random_policy(void* ctx, const Table* t, const unsigned char* hand, const Lead* lead,
                       unsigned long long* rng, unsigned char* out) noexcept nogil
cdef void deal_c(unsigned char* hands, unsigned long long* rng) noexcept nogil
cdef int play_round_c(const Table* t, unsigned char* hands, int leader, int declarers,
                      Policy policy, void* ctx, unsigned long long* rng) noexcept nogil
cdef int sample_world_c(const Table* t, const unsigned char* unseen, const int* sizes,
                        const int* void_masks, unsigned long long* rng,
                        unsigned char* out) noexcept nogil

# Ruleset `classic`.
cdef int classic_random_lead(const Table* t, const unsigned char* hand,
                             unsigned long long* rng, unsigned char* out) noexcept nogil
cdef int classic_random_follow(const Table* t, const unsigned char* hand, const Format* f,
                               unsigned long long* rng, unsigned char* out) noexcept nogil
