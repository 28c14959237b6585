# cython: language_level=3
"""What both rulesets' native searches (`_pimc.pyx`, `tractor`; `_pimc_classic.pyx`) share:
the candidates' buffers and the solver of one search, a rollout's score for a team, a candidate's rollout stream in a world, a uniform subset of the unseen cards, a count vector read from
Python, a world's log-weight under a belief and a Gumbel draw (to keep one of several sampled
worlds in proportion to its weight). Inline, so each search compiles them into its own loop."""
from libc.math cimport log
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy

from openlandlord.games.shengji._cards cimport NCARD, Table, next_random
from openlandlord.games.shengji._solve cimport (
    Solver, solver_open, solver_close, solve_c, solve_classic_c, count_world)


cdef inline double team_score(int attacker_points, int team, int declarers, double level_weight,
                              double margin_weight) noexcept nogil:
    # Levels the team goes up (negative: the other team's) and its point margin, weighted;
    # above 200 (`classic`: the kitty multiplied) each further 40 is one more level, as
    # round_result; below 0 (`classic`: failed throws' penalties) counts as 0.
    cdef int up, winning_team
    cdef double margin
    if attacker_points < 0:
        attacker_points = 0
    if attacker_points == 0:
        up, winning_team = 3, declarers
    elif attacker_points < 40:
        up, winning_team = 2, declarers
    elif attacker_points < 80:
        up, winning_team = 1, declarers
    else:
        up, winning_team = (attacker_points - 80) // 40, 1 - declarers
    margin = 2.0 * attacker_points - 200.0
    if team == declarers:
        margin = -margin
    return level_weight * (up if team == winning_team else -up) + margin_weight * margin


cdef inline unsigned long long rollout_seed(unsigned long long seed, int world,
                                            const unsigned char* play) noexcept nogil:
    # The random stream of one candidate's rollout in one world: (seed, world index, the
    # candidate's 54 counts) alone, so every candidate meets the same worlds and a rerun
    # plays the same rollouts.
    cdef unsigned long long play_hash = 0
    cdef int c
    for c in range(NCARD):
        play_hash = play_hash * 3 + play[c]
    return seed ^ (<unsigned long long>world * 0xA24BAED4963EE407ULL) \
        ^ (play_hash * 0x9FB21C651E98DF25ULL)


cdef inline void draw_subset(int* pool, int npool, int keep, unsigned long long* rng,
                             unsigned char* out) noexcept nogil:
    # A uniform `keep`-card subset of the pool as a count vector (a partial Fisher-Yates).
    cdef int i, j, tmp
    memset(out, 0, NCARD)
    for i in range(keep):
        j = i + <int>(next_random(rng) % <unsigned long long>(npool - i))
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
        out[pool[i]] += 1


cdef inline void load54(object src, unsigned char* dst) except *:
    cdef const unsigned char[::1] view = src
    if view.shape[0] != NCARD:
        raise ValueError("a count vector has 54 entries")
    memcpy(dst, &view[0], NCARD)


cdef inline double world_log_weight(const double* lw, const unsigned char* world) noexcept nogil:
    # The log-weight of a world (the three hidden hands, 3 x 54 counts) under a belief given
    # as a log-weight per hand and card: the sum over every hidden card of its hand's weight.
    cdef int i
    cdef double total = 0.0
    for i in range(3 * NCARD):
        if world[i]:
            total += world[i] * lw[i]
    return total


cdef inline double gumbel(unsigned long long* rng) noexcept nogil:
    # A standard Gumbel variate: the argmax of log-weight + gumbel over candidates picks each
    # candidate with probability proportional to its weight (the Gumbel-max trick).
    cdef double u = (<double>(next_random(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0)
    return -log(-log(u))


cdef inline void close_candidates(unsigned char* cand, double* total, Solver* solver,
                                  int solve) noexcept:
    free(cand)
    free(total)
    if solve:
        solver_close(solver)


cdef inline int open_candidates(object plays, unsigned char** cand, double** total, Solver* solver,
                                const Table* t, int declarers, int solve, int tt_bits) except -1:
    # One search's buffers: the candidates' count vectors (read from `plays`), their score
    # totals at 0 and, with solve > 0, the solver (its table kept over the whole search).
    # Nothing is left allocated when it raises; close_candidates frees what it opened.
    cdef int k, n = len(plays)
    cand[0] = <unsigned char*>malloc(n * NCARD + 1)
    total[0] = <double*>malloc((n + 1) * sizeof(double))
    if cand[0] == NULL or total[0] == NULL or (solve and solver_open(solver, t, declarers,
                                                                     tt_bits) != 0):
        free(cand[0])
        free(total[0])
        raise MemoryError()
    try:
        for k in range(n):
            load54(plays[k], cand[0] + k * NCARD)
            total[0][k] = 0.0
    except BaseException:
        close_candidates(cand[0], total[0], solver, solve)
        raise
    return 0


cdef inline int solved_rest(Solver* solver, const unsigned char* hands, const unsigned char* plays,
                            int n, int leader, const unsigned char* kitty, int* solve,
                            long long solve_nodes) noexcept nogil:
    # A rollout's hand-over to the exact solver (`pimc:solve=K`, both rulesets): with solve[0]
    # > 0 and at most that many cards left in all hands, the attacker points still to take
    # (kitty NULL: `tractor`; else `classic` with that kitty), counted; -1 to roll on. A
    # give-up is counted and sets solve[0] to 0, so the rollout goes on without the solver.
    cdef int c, left = 0, got
    if solve[0] <= 0:
        return -1
    for c in range(4 * NCARD):
        left += hands[c]
    if left > solve[0]:
        return -1
    if kitty == NULL:
        got = solve_c(solver, hands, plays, n, leader, solve_nodes)
    else:
        got = solve_classic_c(solver, hands, plays, n, leader, kitty, solve_nodes)
    count_world(got >= 0)
    if got < 0:
        solve[0] = 0
    return got
