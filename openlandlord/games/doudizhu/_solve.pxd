# The exact Dou Dizhu endgame solver at C level (see _solve.pyx for how it works and why its
# table is exact), for native callers (the PIMC teacher's `search`).
#
#     cdef Solver sv
#     if solver_init(&sv, 18, 200000): raise MemoryError()   # 2^18 table entries, node budget
#     if solve_state(&sv, &s, &v, &best) == 0:                # 0 solved, -1 over budget
#         score = solved_payoff(&s, v, seat)
#     solver_free(&sv)
# The table belongs to the Solver and stays valid across calls (any positions, any landlord).
from libc.stdint cimport uint64_t, uint32_t, int32_t
from openlandlord.games.doudizhu._moves cimport PlayState

cdef struct TableEntry:
    uint64_t hand[3]
    uint32_t rest          # to_beat, to_beat_seat, turn, landlord, the spring flags; 0 = empty
    int32_t best           # the best (or cutting) move found, a hint for move ordering
    float value            # the value, normalized (see _solve.pyx)
    int32_t bound          # EXACT, LOWER or UPPER

cdef struct Solver:
    TableEntry* table
    uint64_t mask          # table size - 1
    int32_t* stack         # the legal moves of every node on the current line
    long long stack_size
    long long budget       # nodes one solve may visit
    long long nodes        # nodes the last solve visited
    bint over_budget

cdef int solver_init(Solver* sv, int table_bits, long long budget) noexcept nogil
cdef void solver_free(Solver* sv) noexcept nogil
cdef int solve_state(Solver* sv, const PlayState* s, double* value, int32_t* best) noexcept nogil
cdef double solved_payoff(const PlayState* s, double value, int seat) noexcept nogil
