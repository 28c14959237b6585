# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The native half of the Shengji (tractor ruleset) PIMC teacher: the round loop from the
middle of a trick, the native rule rollout policy and the search loop, on the referee's C
API (`_referee.pxd`; worlds come from its `sample_world_c`).

`search` samples worlds (the cards the seat cannot see dealt to the three others with their
hand sizes and known voids), forces each candidate play in every world (the same worlds for
every play), finishes the trick and the round with the rollout policy and returns each
play's mean score for the seat's team: with objective `levels` (the default) the signed levels
it goes up (zero when the attackers take the deal with 80-115 points), plus the signed
card-point margin / 1000 as a tie-break; with objective `points` the signed card-point margin
/ 80 alone (the team's points minus the other team's; 40 attacker points = one level).

The rule rollout policy is a native port of the main heuristics of
`games/shengji/rule.py` `ShengjiRuleBot` at level expert. It never lists legal plays: it builds a few
candidates and keeps the best by the bot's scoring. Leading: every single, pair and longest
tractor; a unit no opponent can beat (a "master") is led first, points and trumps are
otherwise kept back, a lead into a suit the partner can ruff is favoured. Following: the
cheapest legal play (low cards, no points), the point-feeding play, and every unit of the
lead's format that could win the trick (in the led suit, or trumps when void); a partner
whose play is safe gets points, a partner who may be beaten gets low cards, a sure win takes
the points on the table, an unsure one is taken only with 10 or more points on the table.
How it differs from the Python bot: inside a world every hand is known, so "master" and
"safe" read the true hands of the later seats instead of counting unseen cards and voids,
and a follow is chosen among those few built candidates instead of every legal play.
"""
from libc.string cimport memset, memcpy

import numpy as np

from openlandlord.games.shengji._search cimport (team_score, draw_subset, load54, world_log_weight,
                                                 gumbel, rollout_seed, open_candidates,
                                                 close_candidates, solved_rest)
from openlandlord.games.shengji._referee cimport (
    Table, Lead, NCARD, TRUMP, build_table, classify, follow_error, trick_winner_c,
    random_policy, sample_world_c, next_random, deal_c, clear_word)
from openlandlord.games.shengji._solve cimport Solver

cdef enum:
    ROLLOUT_RANDOM = 0
    ROLLOUT_RULE = 1

ROLLOUTS = {"random": ROLLOUT_RANDOM, "rule": ROLLOUT_RULE}
# `solve`: the solver's node budget per world (a give-up rolls the world out instead) and the
# size of its transposition table (2^bits entries of 24 bytes, kept over a whole search).
SOLVE_NODES = 200000
SOLVE_TT_BITS = 18
# (weight of the levels, weight of the card-point margin) of each search objective
OBJECTIVES = {"levels": (1.0, 1.0 / 1000.0), "points": (0.0, 1.0 / 80.0)}


def search_settings(str rollout_policy, str objective, int solve=0, long long solve_nodes=1):
    """(rollout kind, level weight, margin weight) of a search's options, for every Shengji
    search (both rulesets); ValueError naming a bad one (`solve`: 0 off or a number of
    cards, its node budget at least 1)."""
    if rollout_policy not in ROLLOUTS:
        raise ValueError(f"unknown rollout policy {rollout_policy!r}")
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}")
    if solve < 0 or solve_nodes < 1:
        raise ValueError(f"solve is 0 (off) or a number of cards, its node budget at least 1; "
                         f"got solve={solve}, solve_nodes={solve_nodes}")
    return (ROLLOUTS[rollout_policy],) + OBJECTIVES[objective]


cdef struct Trick:
    # The trick in progress, as the policy of the seat to play sees it.
    unsigned char plays[4 * 54]
    int n                   # plays made so far
    int leader
    Lead lead


cdef inline int card_cost(const Table* t, int c) noexcept nogil:
    # How much strength a card spends: high cards and trumps are worth keeping.
    return t.strength[c] + (14 if t.cat[c] == TRUMP else 0)


cdef inline int unit_key(const Table* t, const Lead* lead, int cat, int kind, int pairs,
                         int low) noexcept nogil:
    # How strongly a unit answers `lead` (as the referee's trick order): -1 cannot win.
    if lead.kind == 3:
        if kind != 3 or cat != lead.cat or pairs != lead.pairs:
            return -1
        return low
    if kind != lead.kind:
        return -1
    if cat == TRUMP:
        return 100 + low
    if cat == lead.cat:
        return low
    return -1


cdef struct Seats:
    # Per seat and suit (cat): cards held, the highest single and the highest pair held
    # (strengths, -1 when none). Read once per decision, so "can anyone beat this" is cheap.
    int held[4][5]
    int top1[4][5]
    int top2[4][5]


cdef void read_seats(const Table* t, const unsigned char* hands, Seats* out) noexcept nogil:
    cdef int s, c, k, n, w
    for s in range(4):
        for k in range(5):
            out.held[s][k] = 0
            out.top1[s][k] = -1
            out.top2[s][k] = -1
        for w in range(7):
            if w < 6 and clear_word(hands + s * NCARD, w):
                continue
            for c in range(8 * w, 8 * w + 8 if w < 6 else NCARD):
                n = hands[s * NCARD + c]
                if n:
                    k = t.cat[c]
                    out.held[s][k] += n
                    if t.strength[c] > out.top1[s][k]:
                        out.top1[s][k] = t.strength[c]
                    if n == 2 and t.strength[c] > out.top2[s][k]:
                        out.top2[s][k] = t.strength[c]


cdef bint can_beat(const Table* t, const unsigned char* hands, const Seats* seats, int seat,
                   int cat, int kind, int pairs, int low) noexcept nogil:
    # Whether `seat` could beat a unit (cat, kind, low) of its suit: a higher card or pair of
    # that suit (for a tractor, a higher pair that starts a run of two), or, void in a plain
    # suit, a trump of the same format. Trumps never beat a tractor.
    cdef const unsigned char* h
    cdef int c
    if seats.held[seat][cat]:
        if kind == 1:
            return seats.top1[seat][cat] > low
        if kind == 2:
            return seats.top2[seat][cat] > low
        if seats.top2[seat][cat] <= low:
            return False
        h = hands + seat * NCARD
        for c in range(NCARD):
            if t.cat[c] == cat and h[c] == 2 and t.strength[c] > low and t.nxt[c] >= 0 \
                    and h[t.nxt[c]] == 2:
                return True
        return False
    if cat == TRUMP or kind == 3:
        return False
    if kind == 1:
        return seats.held[seat][TRUMP] > 0
    return seats.top2[seat][TRUMP] >= 0


cdef bint is_master(const Table* t, const unsigned char* hands, const Seats* seats, int seat,
                    int later, int cat, int kind, int pairs, int low) noexcept nogil:
    # No opponent among the `later` seats still to play this trick can beat the unit.
    cdef int k, other
    for k in range(1, later + 1):
        other = (seat + k) & 3
        if (other & 1) != (seat & 1) and can_beat(t, hands, seats, other, cat, kind, pairs, low):
            return False
    return True


cdef int play_points(const Table* t, const unsigned char* play) noexcept nogil:
    cdef int c, p = 0
    for c in range(NCARD):
        p += play[c] * t.points[c]
    return p


cdef struct Unit:
    # A play as the policy weighs it: its format (a single, pair or tractor; kind 0 for a
    # mixed follow) and what it spends.
    int cat
    int kind
    int pairs
    int low
    int n
    int points
    int cost
    int trumps


cdef void unit_of(const Table* t, const unsigned char* play, Unit* u) noexcept nogil:
    cdef Lead l
    cdef int c, w
    classify(t, play, &l)
    u.cat = l.cat
    u.kind = l.kind
    u.pairs = l.pairs
    u.low = l.low
    u.n = l.n
    u.points = 0
    u.cost = 0
    u.trumps = 0
    for w in range(7):
        if w < 6 and clear_word(play, w):
            continue
        for c in range(8 * w, 8 * w + 8 if w < 6 else NCARD):
            if play[c]:
                u.points += play[c] * t.points[c]
                u.cost += play[c] * card_cost(t, c)
                if t.cat[c] == TRUMP:
                    u.trumps += play[c]


cdef void run_unit(const Table* t, int c, int copies, int pairs, Unit* u) noexcept nogil:
    # The unit from card c up: the single c (copies 1) or `pairs` pairs, without classifying.
    cdef int k, d = c, steps = pairs if copies == 2 else 1
    u.cat = t.cat[c]
    u.kind = 1 if copies == 1 else (2 if pairs == 1 else 3)
    u.pairs = 0 if copies == 1 else pairs
    u.low = t.strength[c]
    u.n = copies * steps
    u.points = 0
    u.cost = 0
    u.trumps = 0
    for k in range(steps):
        u.points += copies * t.points[d]
        u.cost += copies * card_cost(t, d)
        if t.cat[d] == TRUMP:
            u.trumps += copies
        d = t.nxt[d]


cdef void write_unit(const Table* t, int c, int copies, int pairs,
                     unsigned char* out) noexcept nogil:
    cdef int k, d = c
    memset(out, 0, NCARD)
    for k in range(pairs if copies == 2 else 1):
        out[d] = copies
        d = t.nxt[d]


cdef double score_lead(const Table* t, const unsigned char* hands, const Seats* seats, int seat,
                       const Unit* u) noexcept nogil:
    cdef int partner = (seat + 2) & 3
    cdef double score = 4.0 * u.pairs + (6.0 if u.kind == 3 else 0.0)
    if is_master(t, hands, seats, seat, 3, u.cat, u.kind, u.pairs, u.low):
        score += 12.0 + 0.5 * u.points
    else:
        score -= 1.0 * u.points + 2.0 * u.trumps
        if u.cat != TRUMP and seats.held[partner][u.cat] == 0 and seats.held[partner][TRUMP] > 0:
            score += 3.0
    return score - 0.05 * u.cost / u.n


cdef void lead_rule(const Table* t, const unsigned char* hands, int seat,
                    unsigned char* out) noexcept nogil:
    # Every single, every pair and the longest tractor up from each pair; the best by the
    # bot's lead score.
    cdef const unsigned char* h = hands + seat * NCARD
    cdef Seats seats
    cdef Unit u
    cdef int c, d, length, best_c = -1, best_copies = 1, best_pairs = 1
    cdef double s, best = -1e300
    read_seats(t, hands, &seats)
    for c in range(NCARD):
        if not h[c]:
            continue
        run_unit(t, c, 1, 1, &u)
        s = score_lead(t, hands, &seats, seat, &u)
        if s > best:
            best, best_c, best_copies, best_pairs = s, c, 1, 1
        if h[c] == 2:
            run_unit(t, c, 2, 1, &u)
            s = score_lead(t, hands, &seats, seat, &u)
            if s > best:
                best, best_c, best_copies, best_pairs = s, c, 2, 1
            length = 1
            d = c
            while t.nxt[d] >= 0 and h[t.nxt[d]] == 2:
                d = t.nxt[d]
                length += 1
            if length > 1:
                run_unit(t, c, 2, length, &u)
                s = score_lead(t, hands, &seats, seat, &u)
                if s > best:
                    best, best_c, best_copies, best_pairs = s, c, 2, length
    write_unit(t, best_c, best_copies, best_pairs, out)


cdef void cheapest_follow(const Table* t, const unsigned char* hand, const Lead* lead,
                          bint feed, unsigned char* out) noexcept nogil:
    # A legal follow built from the cards of least value: strength spent, and points kept
    # back (feed = False) or handed over first (feed = True).
    cdef int value[54]
    cdef int c, k, best, held = 0, pairs_held = 0, need, left
    cdef unsigned char rest[54]
    memset(out, 0, NCARD)
    for c in range(NCARD):
        value[c] = card_cost(t, c) + (-30 if feed else 30) * t.points[c]
        if t.cat[c] == lead.cat:
            held += hand[c]
            if hand[c] == 2:
                pairs_held += 1
    memcpy(rest, hand, NCARD)
    if held >= lead.n:
        need = lead.pairs if lead.pairs < pairs_held else pairs_held
        for k in range(need):
            best = -1
            for c in range(NCARD):
                if t.cat[c] == lead.cat and rest[c] == 2 and (best < 0 or value[c] < value[best]):
                    best = c
            out[best] = 2
            rest[best] = 0
        left = lead.n - 2 * need
    else:
        for c in range(NCARD):
            if t.cat[c] == lead.cat:
                out[c] = rest[c]
                rest[c] = 0
        left = lead.n - held
    for k in range(left):
        best = -1
        for c in range(NCARD):
            if rest[c] and (held < lead.n or t.cat[c] == lead.cat) \
                    and (best < 0 or value[c] < value[best]):
                best = c
        out[best] += 1
        rest[best] -= 1


cdef struct Standing:
    # The trick so far, from the seat to play.
    int key                 # the winning play's key (unit_key)
    int seat                # who is winning it
    int points              # card points on the table
    int later               # seats still to play after this one
    Unit winning            # the winning play


cdef double score_follow(const Table* t, const unsigned char* hands, const Seats* seats,
                         int seat, const Trick* tr, const Standing* st,
                         const Unit* u) noexcept nogil:
    # The bot's follow score (level expert) of one legal play.
    cdef int key = unit_key(t, &tr.lead, u.cat, u.kind, u.pairs, u.low) if u.kind else -1
    cdef bint last = st.later == 0, wins = key > st.key
    if st.seat == ((seat + 2) & 3):
        if last or is_master(t, hands, seats, seat, st.later, st.winning.cat, st.winning.kind,
                             st.winning.pairs, st.winning.low):
            return (3.0 * u.points - 0.05 * u.cost
                    - (6.0 * u.trumps if tr.lead.cat != TRUMP else 0.0))
        return -1.0 * u.points - 0.05 * u.cost
    if wins and (last or is_master(t, hands, seats, seat, st.later, u.cat, u.kind, u.pairs,
                                   u.low)):
        return 5.0 + 2.0 * (st.points + u.points) - 0.1 * u.cost
    if wins:
        return ((1.0 * st.points if st.points >= 10 else 0.0) - 2.0 * u.points
                - (0.15 if u.trumps and st.points >= 10 else 0.05) * u.cost)
    return -3.0 * u.points - 0.05 * u.cost


cdef void follow_rule(const Table* t, const unsigned char* hands, int seat, const Trick* tr,
                      unsigned char* out) noexcept nogil:
    # Candidates: the cheapest legal play, the point-feeding play, and of the units of the
    # lead's format that win the trick for now (in the led suit, or trumps when void in it)
    # the lowest and the highest. Such units are legal by construction.
    cdef const unsigned char* h = hands + seat * NCARD
    cdef unsigned char play[54]
    cdef Seats seats
    cdef Standing st
    cdef Unit u
    cdef Unit found[2]
    cdef int start[2]
    cdef int c, d, k, i, held, unit_cat, copies
    cdef double s, best
    read_seats(t, hands, &seats)
    st.key = -1
    st.seat = tr.leader
    st.points = 0
    st.later = 3 - tr.n
    for i in range(tr.n):
        unit_of(t, tr.plays + i * NCARD, &u)
        k = unit_key(t, &tr.lead, u.cat, u.kind, u.pairs, u.low) if u.kind else -1
        if k > st.key:
            st.key = k
            st.seat = (tr.leader + i) & 3
            st.winning = u
        st.points += u.points
    cheapest_follow(t, h, &tr.lead, False, out)
    unit_of(t, out, &u)
    best = score_follow(t, hands, &seats, seat, tr, &st, &u)
    cheapest_follow(t, h, &tr.lead, True, play)
    unit_of(t, play, &u)
    s = score_follow(t, hands, &seats, seat, tr, &st, &u)
    if s > best:
        best = s
        memcpy(out, play, NCARD)
    held = seats.held[seat][tr.lead.cat]
    if held == 0 and tr.lead.kind < 3:
        unit_cat = TRUMP
    elif held >= tr.lead.n:
        unit_cat = tr.lead.cat
    else:
        return
    copies = 1 if tr.lead.kind == 1 else 2
    start[0] = -1
    start[1] = -1
    for c in range(NCARD):
        if t.cat[c] != unit_cat or h[c] < copies:
            continue
        if tr.lead.kind == 3:
            d = c
            for k in range(tr.lead.pairs - 1):
                d = t.nxt[d]
                if d < 0 or h[d] != 2:
                    d = -1
                    break
            if d < 0:
                continue
        run_unit(t, c, copies, tr.lead.pairs, &u)
        if unit_key(t, &tr.lead, u.cat, u.kind, u.pairs, u.low) <= st.key:
            continue
        if start[0] < 0 or u.low < found[0].low:
            start[0] = c
            found[0] = u
        if start[1] < 0 or u.low > found[1].low:
            start[1] = c
            found[1] = u
    for i in range(2):
        if start[i] < 0:
            continue
        s = score_follow(t, hands, &seats, seat, tr, &st, &found[i])
        if s > best:
            best = s
            write_unit(t, start[i], copies, tr.lead.pairs, out)


# (worlds solved exactly, worlds given up and rolled out): one count for both rulesets.
from openlandlord.games.shengji._solve import solve_counts


cdef int finish_round(const Table* t, unsigned char* hands, Trick* tr, int declarers, int kind,
                      unsigned long long* rng, Solver* solver, int solve,
                      long long solve_nodes) noexcept nogil:
    # Plays the round to the end from a trick in progress (the cards of its plays are already
    # out of the hands) and returns the points the attackers take from here on. With solve >
    # 0, once at most `solve` cards are left in all hands (checked here and at every trick
    # boundary) the rest is solved exactly; a give-up (past the node budget) is counted and
    # the rollout goes on without the solver.
    cdef int i, c, seat, winner, points, attacker_points = 0, left, got
    cdef unsigned char* play
    while True:
        got = solved_rest(solver, hands, tr.plays, tr.n, tr.leader, NULL, &solve, solve_nodes)
        if got >= 0:
            return attacker_points + got
        if tr.n == 0:
            left = 0
            for c in range(NCARD):
                left += hands[tr.leader * NCARD + c]
            if left == 0:
                return attacker_points
            if kind == ROLLOUT_RULE:
                lead_rule(t, hands, tr.leader, tr.plays)
            else:
                random_policy(NULL, t, hands + tr.leader * NCARD, NULL, rng, tr.plays)
            for c in range(NCARD):
                hands[tr.leader * NCARD + c] -= tr.plays[c]
            classify(t, tr.plays, &tr.lead)
            tr.n = 1
        while tr.n < 4:
            seat = (tr.leader + tr.n) & 3
            play = tr.plays + tr.n * NCARD
            if kind == ROLLOUT_RULE:
                follow_rule(t, hands, seat, tr, play)
            else:
                random_policy(NULL, t, hands + seat * NCARD, &tr.lead, rng, play)
            for c in range(NCARD):
                hands[seat * NCARD + c] -= play[c]
            tr.n += 1
        points = 0
        for i in range(4):
            points += play_points(t, tr.plays + i * NCARD)
        winner = (tr.leader + trick_winner_c(t, tr.plays, 4)) & 3
        if (winner & 1) != declarers:
            attacker_points += points
        tr.leader = winner
        tr.n = 0


cdef int draw_world(const Table* t, int* pool, int npool, int surplus, const unsigned char* u,
                    const int* sz, const int* vm, unsigned long long* rng, unsigned char* u_world,
                    unsigned char* world) noexcept nogil:
    # One world, uniform among the deals of the unseen cards that fit the sizes and voids
    # (sample_world_c); 1 when none fits. A drawn position with partial hands (surplus > 0):
    # the unseen cards beyond the hidden places stay out of play, a uniform choice per world
    # (redrawn, a few times at most, when the known voids rule a choice out).
    cdef int attempt
    if surplus > 0:
        for attempt in range(16):
            draw_subset(pool, npool, npool - surplus, rng, u_world)
            if sample_world_c(t, u_world, sz, vm, rng, world) == 0:
                return 0
        return 1
    return sample_world_c(t, u, sz, vm, rng, world)


cdef int draw_weighted(const Table* t, int* pool, int npool, int surplus, const unsigned char* u,
                       const int* sz, const int* vm, unsigned long long* rng,
                       unsigned char* u_world, const double* lw, int draws, unsigned char* other,
                       unsigned char* world) noexcept nogil:
    # One world: without a belief (lw NULL) draw_world's; with one, `draws` worlds are drawn
    # and one is kept with probability proportional to its weight under the belief (the
    # Gumbel-max trick), so that as `draws` grows the worlds follow uniform x belief.
    cdef int j
    cdef double best, g
    if draw_world(t, pool, npool, surplus, u, sz, vm, rng, u_world, world) != 0:
        return 1
    if lw == NULL or draws <= 1:
        return 0
    best = world_log_weight(lw, world) + gumbel(rng)
    for j in range(1, draws):
        if draw_world(t, pool, npool, surplus, u, sz, vm, rng, u_world, other) != 0:
            return 1
        g = world_log_weight(lw, other) + gumbel(rng)
        if g > best:
            best = g
            memcpy(world, other, 3 * NCARD)
    return 0


cdef void load_belief(object belief, double* lw) except *:
    # A belief as 3 x 54 log-weights (hidden hand in seat order after the searching seat, card).
    cdef const double[:, ::1] view = belief
    if view.shape[0] != 3 or view.shape[1] != NCARD:
        raise ValueError("a belief is 3 x 54 log-weights (hidden hand, card)")
    memcpy(lw, &view[0, 0], 3 * NCARD * sizeof(double))


cdef int read_hidden(object sizes, object void_masks, const unsigned char* u, int* sz, int* vm,
                     int* pool, int* npool) except? -1:
    # The three hidden hands' sizes and void masks, and the unseen cards as a pool of card
    # ids; returns the surplus: the unseen cards beyond the hidden places.
    cdef int s, c, k, n = 0, places = 0
    for s in range(3):
        sz[s] = sizes[s]
        vm[s] = void_masks[s]
        places += sz[s]
    for c in range(NCARD):
        for k in range(u[c]):
            pool[n] = c
            n += 1
    npool[0] = n
    return n - places


def sample_worlds(int trump_rank, int trump_suit, unseen, sizes, void_masks, int n,
                  unsigned long long seed, belief=None, int draws=1):
    """The first `n` worlds `search` plays from `seed` (3 x 54 counts each: the hidden hands
    in seat order after the searching seat), with `belief` and `draws` as there; for tests.
    Raises ValueError when no world fits the sizes and voids."""
    cdef Table t
    cdef unsigned char u[54]
    cdef unsigned char u_world[54]
    cdef unsigned char other[3 * 54]
    cdef int sz[3]
    cdef int vm[3]
    cdef int pool[108]
    cdef double lw[3 * 54]
    cdef int npool, surplus, w
    cdef unsigned long long rng = seed
    build_table(&t, trump_rank, trump_suit)
    load54(unseen, u)
    if belief is not None:
        load_belief(belief, lw)
    surplus = read_hidden(sizes, void_masks, u, sz, vm, pool, &npool)
    out = np.zeros((n, 3, NCARD), np.uint8)
    cdef unsigned char[:, :, ::1] view = out
    for w in range(n):
        if draw_weighted(&t, pool, npool, surplus, u, sz, vm, &rng, u_world,
                         lw if belief is not None else NULL, draws, other, &view[w, 0, 0]) != 0:
            raise ValueError("no deal of the unseen cards fits the hand sizes and known voids")
    return out


def search(int trump_rank, int trump_suit, hand, int seat, int leader, trick, int declarers,
           int attacker_points, unseen, sizes, void_masks, plays, int skip, int worlds,
           str rollout_policy, unsigned long long seed, str objective="levels", int solve=0,
           long long solve_nodes=SOLVE_NODES, belief=None, int draws=1):
    """Mean score (see the module docstring) for the seat's team of each candidate play over
    worlds skip .. skip + worlds - 1 of the sequence `seed` draws; a world and the random
    rollout of a play in it depend only on (seed, world index, play).

    `hand`, `unseen` and each play are count vectors (54 bytes); `trick` the count vectors
    played so far in the current trick from `leader` on; `sizes` and `void_masks` (bit cat
    set = void) are those of the three other seats in seat order after `seat`; `objective`
    is "levels" or "points" (module docstring). With solve = K > 0 each rollout hands over to
    the exact solver (`_solve.pyx`) once K or fewer cards are left in all hands (at the start
    or at a trick boundary), `solve_nodes` nodes at most per world (`solve_counts`); solve = 0
    is the plain rollout. With `belief` (3 x 54 float64 log-weights: the hidden hands in seat
    order after `seat`, each card's weight in each; e.g. the log of a student's belief head)
    and draws = K > 1, each world is the one of K drawn worlds kept in proportion to its
    weight under the belief (`draw_weighted`); without, every world is uniform among those
    that fit. Raises ValueError when no world fits the sizes and voids."""
    cdef Table t
    cdef unsigned char h[54]
    cdef unsigned char u[54]
    cdef unsigned char world[3 * 54]
    cdef unsigned char base_hands[4 * 54]
    cdef unsigned char hands[4 * 54]
    cdef Trick root, tr
    cdef int sz[3]
    cdef int vm[3]
    cdef int n = len(plays), k, w, s, c, team = seat & 1, kind, bad = 0, got
    cdef int pool[108]
    cdef unsigned char u_world[54]
    cdef int npool, surplus
    cdef unsigned char other[3 * 54]
    cdef double lw[3 * 54]
    cdef double* lwp = NULL
    cdef unsigned long long rng = seed, rollout_rng
    cdef unsigned char* cand
    cdef double* total
    cdef double level_weight, margin_weight
    cdef Solver solver
    kind, level_weight, margin_weight = search_settings(rollout_policy, objective, solve,
                                                        solve_nodes)
    if len(trick) > 3:
        raise ValueError("a trick in progress has at most three plays")
    build_table(&t, trump_rank, trump_suit)
    load54(hand, h)
    load54(unseen, u)
    if belief is not None:
        load_belief(belief, lw)
        lwp = lw
    surplus = read_hidden(sizes, void_masks, u, sz, vm, pool, &npool)
    memset(&root, 0, sizeof(Trick))
    root.leader = leader
    root.n = len(trick)
    for k in range(root.n):
        load54(trick[k], root.plays + k * NCARD)
    if root.n:
        classify(&t, root.plays, &root.lead)
    open_candidates(plays, &cand, &total, &solver, &t, declarers, solve, SOLVE_TT_BITS)
    try:
        with nogil:
            for w in range(skip + worlds):
                if draw_weighted(&t, pool, npool, surplus, u, sz, vm, &rng, u_world, lwp, draws,
                                 other, world) != 0:
                    bad = 1
                    break
                if w < skip:
                    continue
                memcpy(base_hands + seat * NCARD, h, NCARD)
                for s in range(3):
                    memcpy(base_hands + ((seat + 1 + s) & 3) * NCARD, world + s * NCARD, NCARD)
                for k in range(n):
                    memcpy(hands, base_hands, 4 * NCARD)
                    tr = root
                    memcpy(tr.plays + tr.n * NCARD, cand + k * NCARD, NCARD)
                    for c in range(NCARD):
                        hands[seat * NCARD + c] -= cand[k * NCARD + c]
                    if tr.n == 0:
                        classify(&t, tr.plays, &tr.lead)
                    tr.n += 1
                    rollout_rng = rollout_seed(seed, w, cand + k * NCARD)
                    got = finish_round(&t, hands, &tr, declarers, kind, &rollout_rng, &solver,
                                       solve, solve_nodes)
                    total[k] += team_score(attacker_points + got, team, declarers, level_weight,
                                           margin_weight)
        if bad:
            raise ValueError("no deal of the unseen cards fits the hand sizes and known voids")
        return [total[k] / worlds for k in range(n)]
    finally:
        close_candidates(cand, total, &solver, solve)


def checked_rule_rounds(int rounds, unsigned long long seed):
    """Plays `rounds` fresh deals (trump drawn per deal) with the rule rollout policy in every
    seat, checking every play against the referee's rules; returns the attacker points of
    each round. Raises AssertionError on an illegal play (for the tests)."""
    cdef Table t
    cdef unsigned char hands[4 * 54]
    cdef unsigned char held[54]
    cdef Trick tr
    cdef Lead u
    cdef unsigned long long rng = seed
    cdef int r, i, c, seat, winner, points, attacker_points, declarers, left
    out = []
    for r in range(rounds):
        build_table(&t, <int>(next_random(&rng) % 13), <int>(next_random(&rng) % 4))
        deal_c(hands, &rng)
        memset(&tr, 0, sizeof(Trick))
        tr.leader = <int>(next_random(&rng) % 4)
        declarers = tr.leader & 1
        attacker_points = 0
        left = 27
        while left > 0:
            for i in range(4):
                seat = (tr.leader + i) & 3
                memcpy(held, hands + seat * NCARD, NCARD)
                if i == 0:
                    lead_rule(&t, hands, seat, tr.plays)
                    if not classify(&t, tr.plays, &tr.lead):
                        raise AssertionError("the rule policy led a play that is not a unit")
                    left -= tr.lead.n
                    for c in range(NCARD):
                        if tr.plays[c] > held[c]:
                            raise AssertionError("the rule policy led cards it does not hold")
                else:
                    follow_rule(&t, hands, seat, &tr, tr.plays + i * NCARD)
                    if follow_error(&t, held, &tr.lead, tr.plays + i * NCARD) != 0:
                        raise AssertionError("the rule policy made an illegal follow")
                for c in range(NCARD):
                    hands[seat * NCARD + c] -= tr.plays[i * NCARD + c]
                tr.n = i + 1
            points = 0
            for i in range(4):
                points += play_points(&t, tr.plays + i * NCARD)
            winner = (tr.leader + trick_winner_c(&t, tr.plays, 4)) & 3
            if (winner & 1) != declarers:
                attacker_points += points
            tr.leader = winner
            tr.n = 0
        for c in range(4 * NCARD):
            if hands[c]:
                raise AssertionError("a hand is not empty when the leader's is")
        out.append(attacker_points)
    return out
