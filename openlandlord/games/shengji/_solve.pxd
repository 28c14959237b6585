# The exact last-tricks solver of both rulesets (see _solve.pyx), for the PIMC teachers. The
# table's `classic` flag picks the ruleset: `classic` adds throws (a failing one is never
# searched: it is dominated) and the kitty multiplied on the last trick.
from openlandlord.games.shengji._cards cimport NCARD, Table
from openlandlord.games.shengji._trick cimport Lead, Format

cdef enum:
    MAX_PLAY = 27         # cards in one play (a hand's worth)
    MAX_MOVES = 512       # legal plays at one node; more is counted as a give-up, never cut
    MAX_DEPTH = 112       # plays in one search (every card of the round, and room to spare)

cdef struct Entry:
    # A transposition-table slot: the position's two 64-bit keys, the bounds known on the
    # attacker points still to take from it, and the index of its best play.
    unsigned long long key
    unsigned long long check
    int lo
    int hi
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
    Format fmt                # `classic`: the trick's lead format (lead is `tractor`'s)
    int kitty_points          # `classic`: the kitty's card points (0 in `tractor`)
    unsigned long long kitty1 # `classic`: the kitty's two keys (the table is shared across
    unsigned long long kitty2 # the worlds of a decision, whose kitties may differ)
    int left                  # cards in all hands
    int table_points          # card points in the trick in progress
    int open_points           # card points not yet taken (hands and the trick in progress)
    unsigned char best[NCARD] # the root's best play

cdef int solver_open(Solver* s, const Table* t, int declarers, int tt_bits) noexcept nogil
cdef void solver_close(Solver* s) noexcept nogil
cdef int solve_c(Solver* s, const unsigned char* hands, const unsigned char* plays, int n,
                 int leader, long long budget) noexcept nogil
cdef int solve_at(Solver* s, const unsigned char* hands, const unsigned char* plays, int n,
                  int leader, long long budget) noexcept nogil
cdef int solve_classic_c(Solver* s, const unsigned char* hands, const unsigned char* plays, int n,
                         int leader, const unsigned char* kitty, long long budget) noexcept nogil
# The worlds a PIMC search solved exactly or gave up on (both rulesets' searches count here;
# `solve_counts()` reads them from Python).
cdef void count_world(int solved) noexcept nogil
