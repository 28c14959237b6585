# Legal plays of both rulesets, listed constructively or counted exactly.
from openlandlord.games.shengji._cards cimport Table
from openlandlord.games.shengji._trick cimport Lead, Format

cdef long long count_follows(const Table* t, const unsigned char* hand,
                             const Lead* lead) noexcept nogil
cdef long long classic_count_follows_c(const Table* t, const unsigned char* hand,
                                       const Format* f) noexcept nogil
# The prefix questions of the factored decision (the VecEnv asks them per step).
cdef int follow_options_c(const Table* t, const unsigned char* hand, const Lead* lead,
                          unsigned char* prefix, unsigned char* out) noexcept nogil
cdef int lead_options_c(const Table* t, const unsigned char* hand, const unsigned char* prefix,
                        unsigned char* out, int* complete) noexcept nogil
cdef int classic_follow_options_c(const Table* t, const unsigned char* hand, const Format* f,
                                  unsigned char* prefix, unsigned char* out) noexcept nogil
