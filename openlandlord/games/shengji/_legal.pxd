# Legal plays of both rulesets, listed constructively or counted exactly.
from openlandlord.games.shengji._cards cimport Table
from openlandlord.games.shengji._trick cimport Lead, Format

cdef long long count_follows(const Table* t, const unsigned char* hand,
                             const Lead* lead) noexcept nogil
cdef long long classic_count_follows_c(const Table* t, const unsigned char* hand,
                                       const Format* f) noexcept nogil
