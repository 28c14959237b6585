# cython: language_level=3
"""What both rulesets' native searches (`_pimc.pyx`, `tractor`; `_pimc_classic.pyx`) share:
a rollout's score for a team, a uniform subset of the unseen cards, a count vector read from
Python. Inline, so each search compiles them into its own loop."""
from libc.string cimport memset, memcpy

from openlandlord.games.shengji._cards cimport NCARD, next_random


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
