# The exact last-tricks solver of ruleset `tractor` (see _solve.pyx), for the PIMC teacher.
from openlandlord.games.shengji._cards cimport NCARD, Table
from openlandlord.games.shengji._trick cimport Lead

cdef enum:
    MAX_PLAY = 27         # cards in one play (a hand's worth)
    MAX_MOVES = 512       # legal plays at one node; more is counted as a give-up, never cut
    MAX_DEPTH = 112       # plays in one search (every card of the round, and room to spare)

cdef struct Entry:
    # A transposition-table slot: the position's two 64-bit keys, the bounds known on the
    # attacker points still to take from it, and the index of its best play.
    unsigned long long key
    unsigned long long check
    short lo
    short hi
    short best

cdef struct Solver:
    const Table* t
    int declarers
    Entry* tt
    unsigned long long mask
    unsigned char* moves      # MAX_DEPTH * MAX_MOVES records of 1 + MAX_PLAY bytes
    long long nodes
    long long budget
    int aborted
    int depth
    unsigned char hands[4 * NCARD]
    unsigned char plays[4 * NCARD]
    int n                     # plays in the trick in progress
    int leader
    Lead lead
    int left                  # cards in all hands
    int table_points          # card points in the trick in progress
    int open_points           # card points not yet taken (hands and the trick in progress)
    unsigned char best[NCARD] # the root's best play

cdef int solver_open(Solver* s, const Table* t, int declarers, int tt_bits) noexcept nogil
cdef void solver_close(Solver* s) noexcept nogil
cdef int solve_c(Solver* s, const unsigned char* hands, const unsigned char* plays, int n,
                 int leader, long long budget) noexcept nogil
