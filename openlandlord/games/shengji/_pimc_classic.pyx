# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The native half of the Shengji `classic` PIMC teacher: a classic round played to its end
from any point of play (the kitty multiplied on the last trick, throws checked against the
world's hands and their failures paid for), a native classic rule rollout policy, and the
search loops over sampled worlds for play decisions, for the dealer's burial (`search`) and
for the declarations (`search_declaration`).

Worlds. The cards the seat cannot see go to the three other seats (their hand sizes, the
suits they have shown void in, and the cards they are known to hold: a standing
declaration's cards not yet played) and, unless the seat is the dealer (who knows what it
buried), to the 8-card kitty. The dealer's worlds come from the referee's sampler
(`sample_world_c`); the others' from `sample_with_kitty`, which deals card by card in a
random order, each card to a random holder (a seat or the kitty) with room that takes it and
leaves the rest placeable (Hall's condition over the five suits). Both are consistent with
everything the seat knows; the second is not exactly the uniform conditional distribution.

The rule rollout policy (`rollout=rule`) follows the main heuristics of the classic
`rule:expert` bot (games/shengji/rule.py) without listing legal plays:
- Leading: every single, every pair and every tractor (each maximal run of pairs); a unit
  no opponent can beat (a "master") first, points and trumps otherwise kept back, a suit the
  partner can ruff favoured; and, per suit, the throw of all its master units when there are
  two or more, which is taken whenever it exists (inside a world every hand is known, so the
  throw is checked against the true hands and never fails there).
- Following: the cheapest legal follow (low cards, points kept), the point-feeding follow,
  and for a single or pair lead every single or pair of the led suit (or of trumps when void
  in it) that would win the trick for now; scored as the tractor policy scores them (a safe
  partner gets points, a sure win takes the table's points, an unsure win is taken only with
  10 or more points on the table).
How it differs from the Python bot: "master" and "safe" read the true hands of the world;
a follow is chosen among those few built candidates instead of every legal play; the throw
is the whole set of a suit's master units rather than the bot's own choice of throws.

Declarations. A declaration world deals every card the seat has not seen (uniformly: a
shuffle of them fills the other seats' hands so far, around the standing declaration's
cards its declarer is known to hold, then the rest of the deal in order, the kitty last).
Each candidate (pass, the card alone, the pair) is rolled out over the rest of the deal,
where every seat's declarations (the seat's own later ones included) follow the rule bot's
(`rule_declaration`, the exact port of rule.py's `_declare_scores`), then the dealer's
burial by the rule bot's keep values (`rule_burial`, exact), then the play as above. With
`rollout=random` the declarations are uniform among pass and the open ones and the burial is
8 uniform cards. Whether another seat passed when it could have declared is not used.
"""
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, free

from openlandlord.games.shengji._search cimport (
    team_score, draw_subset, load54, rollout_seed, open_candidates, close_candidates,
    solved_rest)
from openlandlord.games.shengji._solve cimport Solver
from openlandlord.games.shengji._referee cimport (
    Table, Format, NCARD, TRUMP, build_classic_table, lead_format_c, classic_follow_error,
    classic_lead_error, classic_trick_winner_c, classic_play_key, throw_check_c,
    kitty_multiplier_c, runs_c, match_rec, beaten_units_c, sample_world_c, next_random,
    classic_random_lead, classic_random_follow, place_tractors)

cdef enum:
    ROLLOUT_RANDOM = 0
    ROLLOUT_RULE = 1
    THROW_PENALTY = 10

# The search options, one definition for both rulesets (the enum values above are its kinds).
from openlandlord.games.shengji._pimc import (
    ROLLOUTS, OBJECTIVES, SOLVE_NODES, SOLVE_TT_BITS, search_settings)
if ROLLOUTS != {"random": ROLLOUT_RANDOM, "rule": ROLLOUT_RULE}:
    raise ImportError("the classic search's rollout kinds disagree with _pimc's")


cdef struct CTrick:
    unsigned char plays[4 * 54]
    int n                   # plays made so far
    int leader
    Format f                # the format every follower answers (after a failed throw: the
                            # unit actually played)


cdef inline int card_cost(const Table* t, int c) noexcept nogil:
    # How much strength a card spends: high cards and trumps are worth keeping.
    return t.level[c] + (16 if t.cat[c] == TRUMP else 0)


cdef int vec_points(const Table* t, const unsigned char* v) noexcept nogil:
    cdef int c, p = 0
    for c in range(NCARD):
        p += v[c] * t.points[c]
    return p


cdef int vec_cards(const unsigned char* v) noexcept nogil:
    cdef int c, p = 0
    for c in range(NCARD):
        p += v[c]
    return p


cdef enum:
    SUM_CARDS = 0
    SUM_POINTS = 1
    SUM_TRUMPS = 2
    SUM_COST = 3


cdef void vec_sums(const Table* t, const unsigned char* v, int* out) noexcept nogil:
    # A play's cards, card points, trumps and cost (card_cost summed), in one pass (out[SUM_*]).
    cdef int c
    out[0] = out[1] = out[2] = out[3] = 0
    for c in range(NCARD):
        if v[c]:
            out[SUM_CARDS] += v[c]
            out[SUM_POINTS] += v[c] * t.points[c]
            if t.cat[c] == TRUMP:
                out[SUM_TRUMPS] += v[c]
            out[SUM_COST] += v[c] * card_cost(t, c)


cdef int held_in(const Table* t, const unsigned char* hand, int cat) noexcept nogil:
    # The cards of category `cat` in `hand` (read through the table's cards of each level).
    cdef int lvl, i, p = 0
    for lvl in range(16):
        for i in range(t.lvl_n[cat][lvl]):
            p += hand[t.lvl_cards[cat][lvl][i]]
    return p


cdef bint master_unit(const Table* t, const unsigned char* hands, int seat,
                      const unsigned char* unit) noexcept nogil:
    # No opponent could beat this one-unit lead: of its suit, a higher unit of its shape; of a
    # plain suit, an opponent void in it with trumps for its shape.
    cdef Format f
    cdef unsigned char opp[2 * 54]
    cdef int beaten[55]
    cdef int k, o, shape, c
    lead_format_c(t, unit, &f)
    for k in range(2):
        o = (seat + 1 + 2 * k) & 3
        memcpy(opp + k * NCARD, hands + o * NCARD, NCARD)
    if beaten_units_c(t, &f, opp, 2, beaten):
        return False
    if f.cat == TRUMP:
        return True
    shape = f.upairs[0]
    for k in range(2):
        o = (seat + 1 + 2 * k) & 3
        if held_in(t, hands + o * NCARD, f.cat) == 0:
            if shape == 0 and held_in(t, hands + o * NCARD, TRUMP) > 0:
                return False
            if shape >= 1:
                for c in range(NCARD):
                    if t.cat[c] == TRUMP and hands[o * NCARD + c] == 2:
                        return False
    return True


cdef double score_lead(const Table* t, const unsigned char* hands, int seat,
                       const unsigned char* play) noexcept nogil:
    cdef Format f
    cdef int partner = (seat + 2) & 3, n, points
    cdef int sums[4]
    cdef double score
    vec_sums(t, play, sums)
    n, points = sums[SUM_CARDS], sums[SUM_POINTS]
    lead_format_c(t, play, &f)
    score = 4.0 * f.pairs + (6.0 if f.ntractors else 0.0)
    if master_unit(t, hands, seat, play):
        score += 12.0 + 0.5 * points
    else:
        score -= 1.0 * points + 2.0 * sums[SUM_TRUMPS]
        if f.cat != TRUMP and held_in(t, hands + partner * NCARD, f.cat) == 0 \
                and held_in(t, hands + partner * NCARD, TRUMP) > 0:
            score += 3.0
    return score - 0.05 * sums[SUM_COST] / n


cdef void lead_rule(const Table* t, const unsigned char* hands, int seat,
                    unsigned char* out) noexcept nogil:
    cdef const unsigned char* h = hands + seat * NCARD
    cdef unsigned char cand[54]
    cdef unsigned char throw[54]
    cdef unsigned char others[3 * 54]
    cdef unsigned char played[54]
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef Format f
    cdef int c, cat, k, lvl, nr, units, best_throw = -1
    cdef double s, best = -1e300
    memset(out, 0, NCARD)
    # Units: singles and pairs of every card, tractors of every maximal run.
    for c in range(NCARD):
        if not h[c]:
            continue
        memset(cand, 0, NCARD)
        cand[c] = 1
        s = score_lead(t, hands, seat, cand)
        if s > best:
            best = s
            memcpy(out, cand, NCARD)
        if h[c] == 2:
            cand[c] = 2
            s = score_lead(t, hands, seat, cand)
            if s > best:
                best = s
                memcpy(out, cand, NCARD)
    for cat in range(5):
        nr = runs_c(t, h, cat, rstart, rlen, reps)
        for k in range(nr):
            if rlen[k] < 2:
                continue
            memset(cand, 0, NCARD)
            for lvl in range(rstart[k], rstart[k] + rlen[k]):
                cand[reps[lvl]] = 2
            s = score_lead(t, hands, seat, cand)
            if s > best:
                best = s
                memcpy(out, cand, NCARD)
    # A throw of every master unit of a suit (two units or more), checked in this world.
    for k in range(3):
        memcpy(others + k * NCARD, hands + ((seat + 1 + k) & 3) * NCARD, NCARD)
    for cat in range(5):
        memset(throw, 0, NCARD)
        units = 0
        for c in range(NCARD):
            if t.cat[c] != cat or not h[c]:
                continue
            memset(cand, 0, NCARD)
            cand[c] = h[c]
            if master_unit(t, hands, seat, cand):
                throw[c] = h[c]
                units += 1
        if units < 2:
            continue
        lead_format_c(t, throw, &f)
        if f.nunits < 2 or throw_check_c(t, throw, &f, others, 3, played):
            continue
        s = 12.0 + 2.0 * f.n + 0.5 * vec_points(t, throw)
        if s > best:
            best = s
            memcpy(out, throw, NCARD)


cdef void valued_follow(const Table* t, const unsigned char* hand, const Format* f,
                        const int* value, unsigned char* out) noexcept nogil:
    # A legal follow of the lowest `value` cards: short of the led suit, all of it plus the
    # lowest others; otherwise the lead's tractors the suit can answer (an optimal
    # assignment, each cut from the bottom of its run), then the lowest pairs up to the pairs
    # required, then the lowest cards of the suit.
    cdef unsigned char held[54]
    cdef int c, k, nheld = 0, pheld = 0, need, have, taken
    cdef int best, left
    memset(out, 0, NCARD)
    for c in range(NCARD):
        held[c] = hand[c] if t.cat[c] == f.cat else 0
        nheld += held[c]
        if held[c] == 2:
            pheld += 1
    if nheld <= f.n:
        memcpy(out, held, NCARD)
        left = f.n - nheld
        for k in range(left):
            best = -1
            for c in range(NCARD):
                if t.cat[c] != f.cat and hand[c] > out[c] and (best < 0 or value[c] < value[best]):
                    best = c
            out[best] += 1
        return
    have = place_tractors(t, held, f, out)
    taken = 2 * have
    need = f.pairs if f.pairs < pheld else pheld
    while have < need:
        best = -1
        for c in range(NCARD):
            if held[c] == 2 and out[c] == 0 and (best < 0 or value[c] < value[best]):
                best = c
        out[best] = 2
        taken += 2
        have += 1
    for k in range(f.n - taken):
        best = -1
        for c in range(NCARD):
            if held[c] > out[c] and (best < 0 or value[c] < value[best]):
                best = c
        out[best] += 1


cdef struct Standing:
    int key                 # the winning play's key (classic_play_key; the lead's top unit)
    int seat                # who is winning it
    int points              # card points on the table
    int later               # seats still to play after this one


cdef bint safe_win(const Table* t, const unsigned char* hands, int seat, const CTrick* tr,
                   int later, int key) noexcept nogil:
    # No later opponent can answer with a higher key: tried with its best built answers
    # (the highest units of the lead's shape in the led suit, or in trumps when void).
    cdef unsigned char answer[54]
    cdef int value[54]
    cdef int k, o, c
    for c in range(NCARD):
        value[c] = -card_cost(t, c)           # the strongest cards first
    for k in range(1, later + 1):
        o = (seat + k) & 3
        if (o & 1) == (seat & 1):
            continue
        valued_follow(t, hands + o * NCARD, &tr.f, value, answer)
        if classic_play_key(t, &tr.f, answer) > key:
            return False
    return True


cdef double score_follow(const Table* t, const unsigned char* hands, int seat, const CTrick* tr,
                         const Standing* st, const unsigned char* play) noexcept nogil:
    cdef int key = classic_play_key(t, &tr.f, play), points, cost, trumps
    cdef int sums[4]
    cdef bint last = st.later == 0, wins = key > st.key
    vec_sums(t, play, sums)
    points, cost, trumps = sums[SUM_POINTS], sums[SUM_COST], sums[SUM_TRUMPS]
    if st.seat == ((seat + 2) & 3):
        if last or safe_win(t, hands, seat, tr, st.later, st.key):
            return 3.0 * points - 0.05 * cost - (6.0 * trumps if tr.f.cat != TRUMP else 0.0)
        return -1.0 * points - 0.05 * cost
    if wins and (last or safe_win(t, hands, seat, tr, st.later, key)):
        return 5.0 + 2.0 * (st.points + points) - 0.1 * cost
    if wins:
        return ((1.0 * st.points if st.points >= 10 else 0.0) - 2.0 * points
                - (0.15 if trumps and st.points >= 10 else 0.05) * cost)
    return -3.0 * points - 0.05 * cost


cdef void follow_rule(const Table* t, const unsigned char* hands, int seat, const CTrick* tr,
                      unsigned char* out) noexcept nogil:
    cdef const unsigned char* h = hands + seat * NCARD
    cdef unsigned char play[54]
    cdef int value[54]
    cdef Standing st
    cdef int c, i, k, shape, unit_cat, held
    cdef double s, best
    st.seat = (tr.leader + classic_trick_winner_c(t, tr.plays, tr.n)) & 3
    i = (st.seat - tr.leader) & 3
    st.key = tr.f.utop[0] if i == 0 else classic_play_key(t, &tr.f, tr.plays + i * NCARD)
    st.points = 0
    for i in range(tr.n):
        st.points += vec_points(t, tr.plays + i * NCARD)
    st.later = 3 - tr.n
    for c in range(NCARD):
        value[c] = card_cost(t, c) + 30 * t.points[c]
    valued_follow(t, h, &tr.f, value, out)
    best = score_follow(t, hands, seat, tr, &st, out)
    for c in range(NCARD):
        value[c] = card_cost(t, c) - 30 * t.points[c]
    valued_follow(t, h, &tr.f, value, play)
    s = score_follow(t, hands, seat, tr, &st, play)
    if s > best:
        best = s
        memcpy(out, play, NCARD)
    # A single or pair lead: every single / pair that could win, of the suit or of trumps.
    if tr.f.nunits != 1 or tr.f.upairs[0] > 1:
        return
    shape = tr.f.upairs[0]
    held = held_in(t, h, tr.f.cat)
    if held >= tr.f.n:
        unit_cat = tr.f.cat
    elif held == 0:
        unit_cat = TRUMP
    else:
        return
    for c in range(NCARD):
        # (legal: a single of the suit, a pair when a pair is led and one is held, or
        # anything when void in the suit)
        if t.cat[c] != unit_cat or h[c] < (2 if shape == 1 else 1):
            continue
        memset(play, 0, NCARD)
        play[c] = 2 if shape == 1 else 1
        if classic_play_key(t, &tr.f, play) <= st.key:
            continue
        s = score_follow(t, hands, seat, tr, &st, play)
        if s > best:
            best = s
            memcpy(out, play, NCARD)


cdef int lead_with(const Table* t, unsigned char* hands, CTrick* tr, const unsigned char* attempt,
                   int declarers, int* penalty) noexcept nogil:
    # The leader plays `attempt`: a throw that another hand can beat is cut to its smallest
    # beaten unit and the thrower's side pays for the cards taken back.
    cdef unsigned char others[3 * 54]
    cdef int k, c, taken, seat = tr.leader
    lead_format_c(t, attempt, &tr.f)
    if tr.f.nunits > 1:
        for k in range(3):
            memcpy(others + k * NCARD, hands + ((seat + 1 + k) & 3) * NCARD, NCARD)
        taken = throw_check_c(t, attempt, &tr.f, others, 3, tr.plays)
        if taken:
            penalty[0] += (THROW_PENALTY if (seat & 1) == declarers else -THROW_PENALTY) * taken
            lead_format_c(t, tr.plays, &tr.f)
    else:
        memcpy(tr.plays, attempt, NCARD)
    for c in range(NCARD):
        hands[seat * NCARD + c] -= tr.plays[c]
    tr.n = 1
    return 0


cdef int finish_round(const Table* t, unsigned char* hands, const unsigned char* kitty,
                      CTrick* tr, int declarers, int kind, unsigned long long* rng,
                      int* penalty, Solver* solver, int solve, long long solve_nodes) noexcept nogil:
    # Plays the round to its end from a trick in progress (the cards of its plays are out of
    # the hands already); returns the points the attackers capture from here on, the kitty
    # multiplied included; throw penalties are added to `penalty`. With solve > 0, once at
    # most `solve` cards are left in all hands (checked here and at every trick boundary) the
    # rest is solved exactly (`_solve.pyx`: it never makes a failing throw, so no penalty
    # follows); a give-up (past the node budget) is counted and the rollout goes on.
    cdef unsigned char attempt[54]
    cdef unsigned char* play
    cdef int i, c, seat, winner = tr.leader, points, attackers = 0, left, got
    while True:
        got = solved_rest(solver, hands, tr.plays, tr.n, tr.leader, kitty, &solve, solve_nodes)
        if got >= 0:
            return attackers + got
        if tr.n == 0:
            left = vec_cards(hands + tr.leader * NCARD)
            if left == 0:
                break
            if kind == ROLLOUT_RULE:
                lead_rule(t, hands, tr.leader, attempt)
            else:
                classic_random_lead(t, hands + tr.leader * NCARD, rng, attempt)
            lead_with(t, hands, tr, attempt, declarers, penalty)
        while tr.n < 4:
            seat = (tr.leader + tr.n) & 3
            play = tr.plays + tr.n * NCARD
            if kind == ROLLOUT_RULE:
                follow_rule(t, hands, seat, tr, play)
            else:
                classic_random_follow(t, hands + seat * NCARD, &tr.f, rng, play)
            for c in range(NCARD):
                hands[seat * NCARD + c] -= play[c]
            tr.n += 1
        points = 0
        for i in range(4):
            points += vec_points(t, tr.plays + i * NCARD)
        winner = (tr.leader + classic_trick_winner_c(t, tr.plays, 4)) & 3
        if (winner & 1) != declarers:
            attackers += points
        tr.leader = winner
        tr.n = 0
    if (winner & 1) != declarers:
        attackers += vec_points(t, kitty) * kitty_multiplier_c(&tr.f)
    return attackers


cdef bint hall_ok(const int* left, const int* cap, const int* masks) noexcept nogil:
    # Whether the cards still to place (left[cat]) fit the holders' room (cap[h], h = three
    # seats then the kitty; masks[h] bit cat = void there): for every set of categories, its
    # cards fit the room of the holders that take any of them.
    cdef int subset, cat, h, need, room
    for subset in range(1, 32):
        need = 0
        for cat in range(5):
            if subset >> cat & 1:
                need += left[cat]
        if need == 0:
            continue
        room = 0
        for h in range(4):
            if (~masks[h]) & subset:
                room += cap[h]
        if need > room:
            return False
    return True


cdef int sample_with_kitty(const Table* t, const unsigned char* unseen, const int* sizes,
                           const int* voids, int kitty_size, unsigned long long* rng,
                           unsigned char* world, unsigned char* kitty) noexcept nogil:
    # The unseen cards dealt to the three other seats (their sizes, no card of a suit a seat
    # is void in) and to a hidden kitty of `kitty_size`: card by card in a random order, each
    # to a random holder with room that takes it and leaves the rest placeable (hall_ok).
    # Consistent with what the seat knows, though not exactly uniform. Returns -1 when
    # nothing fits.
    cdef int pool[108]
    cdef int left[5]
    cdef int cap[4]
    cdef int masks[4]
    cdef int order[4]
    cdef int n = 0, i, j, k, c, h, cat, tmp, placed
    memset(left, 0, sizeof(left))
    for c in range(NCARD):
        for i in range(unseen[c]):
            pool[n] = c
            n += 1
        left[t.cat[c]] += unseen[c]
    for h in range(3):
        cap[h] = sizes[h]
        masks[h] = voids[h]
    cap[3] = kitty_size
    masks[3] = 0
    if not hall_ok(left, cap, masks):
        return -1
    memset(world, 0, 3 * NCARD)
    memset(kitty, 0, NCARD)
    for i in range(n):
        j = i + <int>(next_random(rng) % <unsigned long long>(n - i))
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
        c = pool[i]
        cat = t.cat[c]
        for k in range(4):
            order[k] = k
        for k in range(3, 0, -1):
            j = <int>(next_random(rng) % <unsigned long long>(k + 1))
            tmp = order[k]
            order[k] = order[j]
            order[j] = tmp
        left[cat] -= 1
        placed = 0
        for k in range(4):
            h = order[k]
            if cap[h] == 0 or (masks[h] >> cat & 1):
                continue
            cap[h] -= 1
            if hall_ok(left, cap, masks):
                if h == 3:
                    kitty[c] += 1
                else:
                    world[h * NCARD + c] += 1
                placed = 1
                break
            cap[h] += 1
        if not placed:
            return -1
    return 0


def search(int trump_rank, int trump_suit, hand, int seat, int leader, trick, int declarers,
           int attacker_points, int penalty, unseen, sizes, void_masks, known, kitty,
           plays, int skip, int worlds, str rollout_policy, unsigned long long seed,
           str objective="levels", bint bury=False, int solve=0,
           long long solve_nodes=SOLVE_NODES):
    """Mean score for the seat's team of each candidate over worlds skip .. skip+worlds-1 of
    the sequence `seed` draws (common to every candidate: a world and each candidate's
    rollout in it depend only on (seed, world index, candidate)).

    Count vectors (54 bytes): `hand`, `unseen` (every card the seat cannot place: the other
    hands and, when `kitty` is None, the 8 kitty cards), each of `known` (per other seat in
    seat order after `seat`, the cards it is known to hold, already out of `unseen`), `kitty`
    (the buried cards the dealer knows, or None), every candidate in `plays`, and `trick`'s
    plays (so far, from `leader`). `sizes` and `void_masks` (bit cat = void) are the other
    seats'. `attacker_points` captured so far, `penalty` the throw penalties so far (signed,
    to the attackers' score). With `bury`, the seat is the dealer holding 33 cards and each
    candidate is the 8 cards it buries; then the dealer leads the first trick. With solve =
    K > 0 each rollout hands over to the exact solver (`_solve.pyx`) once K or fewer cards are
    left in all hands (at its start or at a trick boundary), `solve_nodes` nodes at most per
    world (`_solve.solve_counts`); solve = 0 is the plain rollout.
    Raises ValueError when no world fits."""
    cdef Table t
    cdef unsigned char h[54]
    cdef unsigned char u[54]
    cdef unsigned char kit[54]
    cdef unsigned char world_kitty[54]
    cdef unsigned char kn[3 * 54]
    cdef unsigned char world[3 * 54]
    cdef unsigned char base_hands[4 * 54]
    cdef unsigned char hands[4 * 54]
    cdef CTrick root, tr
    cdef int sz[3]
    cdef int vm[3]
    cdef int n = len(plays), k, w, s, c, team = seat & 1, kind, bad = 0, got, pen
    cdef int hidden_kitty, total_unseen = 0, total_sizes = 0
    cdef unsigned long long rng = seed, rollout_rng
    cdef unsigned char* cand
    cdef double* total
    cdef double level_weight, margin_weight
    cdef Solver solver
    kind, level_weight, margin_weight = search_settings(rollout_policy, objective, solve,
                                                        solve_nodes)
    if len(trick) > 3 or (bury and len(trick)):
        raise ValueError("a trick in progress has at most three plays (none at the burial)")
    build_classic_table(&t, trump_rank, trump_suit)
    load54(hand, h)
    load54(unseen, u)
    hidden_kitty = 8 if kitty is None else 0
    if kitty is not None:
        load54(kitty, kit)
    else:
        memset(kit, 0, NCARD)
    for s in range(3):
        load54(known[s], kn + s * NCARD)
        sz[s] = sizes[s] - vec_cards(kn + s * NCARD)
        vm[s] = void_masks[s]
        if sz[s] < 0:
            raise ValueError("a seat is known to hold more cards than it has")
        total_sizes += sz[s]
    for c in range(NCARD):
        total_unseen += u[c]
    if total_unseen != total_sizes + hidden_kitty:
        raise ValueError(f"{total_unseen} unseen cards for {total_sizes} hidden places and "
                         f"a kitty of {hidden_kitty}")
    memset(&root, 0, sizeof(CTrick))
    root.leader = leader
    root.n = len(trick)
    for k in range(root.n):
        load54(trick[k], root.plays + k * NCARD)
    if root.n:
        lead_format_c(&t, root.plays, &root.f)
    open_candidates(plays, &cand, &total, &solver, &t, declarers, solve, SOLVE_TT_BITS)
    try:
        with nogil:
            for w in range(skip + worlds):
                if hidden_kitty:
                    if sample_with_kitty(&t, u, sz, vm, hidden_kitty, &rng, world, world_kitty):
                        bad = 1
                        break
                else:
                    memcpy(world_kitty, kit, NCARD)
                    if sample_world_c(&t, u, sz, vm, &rng, world) != 0:
                        bad = 1
                        break
                if w < skip:
                    continue
                memcpy(base_hands + seat * NCARD, h, NCARD)
                for s in range(3):
                    for c in range(NCARD):
                        base_hands[((seat + 1 + s) & 3) * NCARD + c] = world[s * NCARD + c] \
                            + kn[s * NCARD + c]
                for k in range(n):
                    memcpy(hands, base_hands, 4 * NCARD)
                    tr = root
                    pen = penalty
                    for c in range(NCARD):
                        hands[seat * NCARD + c] -= cand[k * NCARD + c]
                    if bury:
                        memcpy(world_kitty, cand + k * NCARD, NCARD)
                        tr.leader = seat
                        tr.n = 0
                    elif tr.n == 0:
                        # The candidate is a lead: back into the hand, then led (a throw is
                        # checked against this world's hands).
                        for c in range(NCARD):
                            hands[seat * NCARD + c] += cand[k * NCARD + c]
                        lead_with(&t, hands, &tr, cand + k * NCARD, declarers, &pen)
                    else:
                        memcpy(tr.plays + tr.n * NCARD, cand + k * NCARD, NCARD)
                        tr.n += 1
                    rollout_rng = rollout_seed(seed, w, cand + k * NCARD)
                    got = finish_round(&t, hands, world_kitty, &tr, declarers, kind,
                                       &rollout_rng, &pen, &solver, solve, solve_nodes)
                    total[k] += team_score(attacker_points + got + pen, team, declarers,
                                           level_weight, margin_weight)
        if bad:
            raise ValueError("no deal of the unseen cards fits the hand sizes, known cards and voids")
        return [total[k] / worlds for k in range(n)]
    finally:
        close_candidates(cand, total, &solver, solve)


def checked_rule_rounds(int rounds, unsigned long long seed, str policy="rule"):
    """Plays `rounds` fresh classic deals (trump drawn per deal, a random burial) with the
    rollout policy in every seat, checking every lead and follow against the referee's rules;
    returns the attacker scores. Raises AssertionError on an illegal play (for the tests)."""
    cdef Table t
    cdef unsigned char hands[4 * 54]
    cdef unsigned char kitty[54]
    cdef unsigned char held[54]
    cdef unsigned char attempt[54]
    cdef int pool[108]
    cdef CTrick tr
    cdef unsigned long long rng = seed
    cdef int r, i, c, seat, winner, points, attackers, declarers, npool, pen, kind = ROLLOUTS[policy]
    out = []
    for r in range(rounds):
        build_classic_table(&t, <int>(next_random(&rng) % 13), <int>(next_random(&rng) % 5) - 1)
        npool = 0
        for c in range(NCARD):
            pool[npool] = c
            pool[npool + 1] = c
            npool += 2
        draw_subset(pool, npool, 8, &rng, kitty)
        memset(hands, 0, 4 * NCARD)
        for i in range(8, 108):
            hands[((i - 8) % 4) * NCARD + pool[i]] += 1
        memset(&tr, 0, sizeof(CTrick))
        tr.leader = <int>(next_random(&rng) % 4)
        declarers = tr.leader & 1
        attackers = 0
        pen = 0
        while vec_cards(hands + tr.leader * NCARD):
            memcpy(held, hands + tr.leader * NCARD, NCARD)
            if kind == ROLLOUT_RULE:
                lead_rule(&t, hands, tr.leader, attempt)
            else:
                classic_random_lead(&t, hands + tr.leader * NCARD, &rng, attempt)
            if classic_lead_error(&t, held, attempt) != 0:
                raise AssertionError("the policy led an illegal play")
            lead_with(&t, hands, &tr, attempt, declarers, &pen)
            for i in range(1, 4):
                seat = (tr.leader + i) & 3
                memcpy(held, hands + seat * NCARD, NCARD)
                if kind == ROLLOUT_RULE:
                    follow_rule(&t, hands, seat, &tr, tr.plays + i * NCARD)
                else:
                    classic_random_follow(&t, hands + seat * NCARD, &tr.f, &rng, tr.plays + i * NCARD)
                if classic_follow_error(&t, held, &tr.f, tr.plays + i * NCARD) != 0:
                    raise AssertionError("the policy made an illegal follow")
                for c in range(NCARD):
                    hands[seat * NCARD + c] -= tr.plays[i * NCARD + c]
                tr.n = i + 1
            points = 0
            for i in range(4):
                points += vec_points(&t, tr.plays + i * NCARD)
            winner = (tr.leader + classic_trick_winner_c(&t, tr.plays, 4)) & 3
            if (winner & 1) != declarers:
                attackers += points
            tr.leader = winner
            tr.n = 0
        for c in range(4 * NCARD):
            if hands[c]:
                raise AssertionError("a hand is not empty when the leader's is")
        if (winner & 1) != declarers:
            attackers += vec_points(&t, kitty) * kitty_multiplier_c(&tr.f)
        out.append(max(0, attackers + pen))
    return out


def sample_worlds(int trump_rank, int trump_suit, unseen, sizes, void_masks, int kitty_size,
                  int count, unsigned long long seed):
    """`count` worlds of `sample_with_kitty` as (three hands, kitty) count-vector bytes (for
    the tests). Raises ValueError when nothing fits."""
    cdef Table t
    cdef unsigned char u[54]
    cdef unsigned char world[3 * 54]
    cdef unsigned char kitty[54]
    cdef int sz[3]
    cdef int vm[3]
    cdef int s, i
    cdef unsigned long long rng = seed
    build_classic_table(&t, trump_rank, trump_suit)
    load54(unseen, u)
    for s in range(3):
        sz[s] = sizes[s]
        vm[s] = void_masks[s]
    out = []
    for i in range(count):
        if sample_with_kitty(&t, u, sz, vm, kitty_size, &rng, world, kitty):
            raise ValueError("no deal of the unseen cards fits the sizes and voids")
        out.append((bytes(world[:3 * 54]), bytes(kitty[:54])))
    return out


# --- declarations: the deal searched from a card that lets the seat declare -----------------
cdef enum:
    DEAL = 100              # cards dealt to the seats; the 8 after them are the kitty
    DECK = 108


cdef int declaration_strength(int trump_rank, int card, int copies) noexcept nogil:
    # What a declaration of `copies` of `card` is worth (classic_round.py): 1 a trump-rank
    # single, 2 a trump-rank pair, 3 the small-joker pair, 4 the big-joker pair; 0 none.
    if card < 52:
        return copies if card % 13 == trump_rank and 1 <= copies <= 2 else 0
    if copies != 2:
        return 0
    return 3 if card == 52 else 4


cdef bint declaration_open(int trump_rank, const unsigned char* hand, int card, int copies,
                           int declared) noexcept nogil:
    # Whether the seat holding `hand` (the card just received included) may declare with
    # `copies` of `card` over a standing declaration of strength `declared`.
    cdef int strength = declaration_strength(trump_rank, card, copies)
    if strength == 0 or hand[card] < copies:
        return False
    return declared == 0 if strength == 1 else declared < strength


cdef int declared_suit(int card) noexcept nogil:
    return -1 if card >= 52 else card // 13


cdef int rule_declaration(int trump_rank, const unsigned char* hand, int card,
                          int declared) noexcept nogil:
    # The expert rule bot's declaration (rule.py `_declare_scores`): each open declaration
    # scores the share of the hand so far that its suit would make trump, less 0.3 (0.2 for
    # no trump); pass scores 0 and, as the bot's argmax over [pass, single, pair], wins ties.
    # Returns the copies declared (0: pass).
    cdef int copies, c, trumps, n, suit, best = 0
    cdef double s, best_score = 0.0
    for copies in range(1, 3):
        if not declaration_open(trump_rank, hand, card, copies, declared):
            continue
        suit = declared_suit(card)
        trumps = 0
        n = 0
        for c in range(NCARD):
            n += hand[c]
            if c >= 52 or c % 13 == trump_rank or (suit >= 0 and c // 13 == suit):
                trumps += hand[c]
        s = (<double>trumps) / (n if n > 0 else 1) - (0.3 if suit >= 0 else 0.2)
        if s > best_score:
            best_score = s
            best = copies
    return best


cdef int rollout_declaration(int trump_rank, const unsigned char* hand, int card, int declared,
                             int kind, unsigned long long* rng) noexcept nogil:
    # The rollout policy's declaration: the rule bot's, or a uniform choice among pass and
    # the open declarations.
    cdef int options[3]
    cdef int n = 1, copies
    if kind == ROLLOUT_RULE:
        return rule_declaration(trump_rank, hand, card, declared)
    options[0] = 0
    for copies in range(1, 3):
        if declaration_open(trump_rank, hand, card, copies, declared):
            options[n] = copies
            n += 1
    if n == 1:
        return 0
    return options[<int>(next_random(rng) % <unsigned long long>n)]


cdef void rule_burial(const Table* t, const unsigned char* hand, unsigned char* out) noexcept nogil:
    # The expert rule bot's burial (rule.py `_keep_value`): the 8 cards least worth keeping,
    # level + 14 for a trump + 0.8 a point (here times 5, in integers), lower ids first on ties.
    cdef unsigned char left[54]
    cdef int k, c, best, value, best_value
    memcpy(left, hand, NCARD)
    memset(out, 0, NCARD)
    for k in range(8):
        best = -1
        best_value = 0
        for c in range(NCARD):
            if not left[c]:
                continue
            value = 5 * t.level[c] + (70 if t.cat[c] == TRUMP else 0) + 4 * t.points[c]
            if best < 0 or value < best_value:
                best, best_value = c, value
        left[best] -= 1
        out[best] += 1


cdef void random_burial(const unsigned char* hand, unsigned long long* rng,
                        unsigned char* out) noexcept nogil:
    cdef int pool[108]
    cdef int n = 0, c, i
    for c in range(NCARD):
        for i in range(hand[c]):
            pool[n] = c
            n += 1
    draw_subset(pool, n, 8, rng, out)


cdef int finish_deal(int trump_rank, const int* deck, int dealt, int dealer, int declared,
                     int suit, unsigned char* hands, int kind,
                     unsigned long long* rng) noexcept nogil:
    # The round from the card after `dealt` cards to its end: the rest of the deal with every
    # seat's declarations by the rollout policy, the trump (the standing declaration's suit,
    # else the kitty's first card's), the dealer's burial by the policy, then the play from
    # the dealer's lead. Returns the attackers' final score (throw penalties included).
    cdef Table t
    cdef CTrick tr
    cdef unsigned char buried[54]
    cdef int i, c, s, copies, pen = 0, got
    for i in range(dealt, DEAL):
        c = deck[i]
        s = (dealer + i) & 3
        hands[s * NCARD + c] += 1
        copies = rollout_declaration(trump_rank, hands + s * NCARD, c, declared, kind, rng)
        if copies:
            declared = declaration_strength(trump_rank, c, copies)
            suit = declared_suit(c)
    if not declared:
        suit = declared_suit(deck[DEAL])
    build_classic_table(&t, trump_rank, suit)
    for i in range(DEAL, DECK):
        hands[dealer * NCARD + deck[i]] += 1
    if kind == ROLLOUT_RULE:
        rule_burial(&t, hands + dealer * NCARD, buried)
    else:
        random_burial(hands + dealer * NCARD, rng, buried)
    for c in range(NCARD):
        hands[dealer * NCARD + c] -= buried[c]
    memset(&tr, 0, sizeof(CTrick))
    tr.leader = dealer
    got = finish_round(&t, hands, buried, &tr, dealer & 1, kind, rng, &pen, NULL, 0, 1)
    return got + pen


def search_declaration(int trump_rank, hand, int seat, int dealer, int dealt, int declared,
                       int suit, unseen, known, plays, int skip, int worlds,
                       str rollout_policy, unsigned long long seed, str objective="levels"):
    """Mean score for the seat's team of each declaration candidate (`plays`: count vectors,
    empty to pass, one or two copies of the card just received to declare) over worlds
    skip .. skip+worlds-1 of the sequence `seed` draws; a world and each candidate's rollout
    in it depend only on (seed, world index, candidate).

    The seat has just received card `dealt - 1` of the deal (dealt one at a time from the
    dealer; `hand` holds it). `declared` is the standing declaration's strength (0 none, 1
    single, 2 pair, 3 small-joker pair, 4 big-joker pair) and `suit` its trump suit (0..3,
    -1 no trump). `known` (per other seat in seat order after `seat`) are the cards it is
    known to hold (the standing declaration's), already out of `unseen`: every card the seat
    has not seen, the rest of the deal and the kitty included. Raises ValueError on
    inconsistent input."""
    cdef unsigned char h[54]
    cdef unsigned char u[54]
    cdef unsigned char kn[3 * 54]
    cdef unsigned char base_hands[4 * 54]
    cdef unsigned char hands[4 * 54]
    cdef unsigned char scratch[54]
    cdef int pool[108]
    cdef int deck[108]
    cdef int need[3]
    cdef int n = len(plays), k, w, s, c, i, j, npool = 0, total_need = 0, held = 0
    cdef int team = seat & 1, kind, copies, card, got, own
    cdef unsigned long long rng = seed, rollout_rng
    cdef unsigned char* cand
    cdef int* cand_card
    cdef int* cand_copies
    cdef double* total
    cdef double level_weight, margin_weight
    kind, level_weight, margin_weight = search_settings(rollout_policy, objective)
    if not (0 <= trump_rank < 13 and 0 <= seat < 4 and 0 <= dealer < 4 and 1 <= dealt <= DEAL):
        raise ValueError("trump rank 0..12, seats 0..3 and 1..100 cards dealt")
    if (dealer + dealt - 1) % 4 != seat:
        raise ValueError(f"card {dealt} of the deal goes to seat {(dealer + dealt - 1) % 4}, "
                         f"not to seat {seat}")
    if not 0 <= declared <= 4 or not -1 <= suit <= 3:
        raise ValueError("a declaration's strength is 0..4 and its suit -1..3")
    load54(hand, h)
    load54(unseen, u)
    own = (dealt - 1 - ((seat - dealer) & 3)) // 4 + 1
    if vec_cards(h) != own:
        raise ValueError(f"seat {seat} holds {vec_cards(h)} cards after {dealt} dealt, not {own}")
    for s in range(3):
        load54(known[s], kn + s * NCARD)
        i = (seat + 1 + s - dealer) & 3        # the other seat's first card of the deal
        need[s] = (dealt - 1 - i) // 4 + 1 if dealt > i else 0
        need[s] -= vec_cards(kn + s * NCARD)
        if need[s] < 0:
            raise ValueError("a seat is known to hold more cards than it was dealt")
        total_need += need[s]
    for c in range(NCARD):
        for i in range(u[c]):
            pool[npool] = c
            npool += 1
        held = h[c] + kn[c] + kn[NCARD + c] + kn[2 * NCARD + c]
        if held + u[c] != 2:
            raise ValueError(f"card {c} is counted {held + u[c]} times (hand, known, unseen), "
                             "not twice")
    if npool != total_need + DECK - dealt:
        raise ValueError(f"{npool} unseen cards for {total_need} hidden places and "
                         f"{DECK - dealt} cards still to deal")
    cand = <unsigned char*>malloc(n * NCARD + 1)
    cand_card = <int*>malloc((n + 1) * sizeof(int))
    cand_copies = <int*>malloc((n + 1) * sizeof(int))
    total = <double*>malloc((n + 1) * sizeof(double))
    if cand == NULL or cand_card == NULL or cand_copies == NULL or total == NULL:
        free(cand)
        free(cand_card)
        free(cand_copies)
        free(total)
        raise MemoryError()
    try:
        for k in range(n):
            load54(plays[k], cand + k * NCARD)
            total[k] = 0.0
            cand_card[k], cand_copies[k] = -1, 0
            for c in range(NCARD):
                if cand[k * NCARD + c]:
                    if cand_card[k] >= 0:
                        cand_copies[k] = 3          # two different cards: no declaration
                    cand_card[k], cand_copies[k] = c, cand_copies[k] + cand[k * NCARD + c]
            if cand_card[k] >= 0 and not declaration_open(trump_rank, h, cand_card[k],
                                                          cand_copies[k], declared):
                raise ValueError(f"candidate {k} is not a declaration open to seat {seat} now")
        with nogil:
            for w in range(skip + worlds):
                # A uniform deal of the unseen cards: the other seats' hands so far, then the
                # rest of the deal in order, the kitty last.
                draw_subset(pool, npool, npool, &rng, scratch)
                if w < skip:
                    continue
                memcpy(base_hands + seat * NCARD, h, NCARD)
                i = 0
                for s in range(3):
                    memcpy(base_hands + ((seat + 1 + s) & 3) * NCARD, kn + s * NCARD, NCARD)
                    for j in range(need[s]):
                        base_hands[((seat + 1 + s) & 3) * NCARD + pool[i]] += 1
                        i += 1
                for j in range(dealt, DECK):
                    deck[j] = pool[i]
                    i += 1
                for k in range(n):
                    memcpy(hands, base_hands, 4 * NCARD)
                    rollout_rng = rollout_seed(seed, w, cand + k * NCARD)
                    card, copies = cand_card[k], cand_copies[k]
                    if copies:
                        got = finish_deal(trump_rank, deck, dealt, dealer,
                                          declaration_strength(trump_rank, card, copies),
                                          declared_suit(card), hands, kind, &rollout_rng)
                    else:
                        got = finish_deal(trump_rank, deck, dealt, dealer, declared, suit,
                                          hands, kind, &rollout_rng)
                    total[k] += team_score(got, team, dealer & 1, level_weight, margin_weight)
        return [total[k] / worlds for k in range(n)]
    finally:
        free(cand)
        free(cand_card)
        free(cand_copies)
        free(total)


def rule_declaration_choice(int trump_rank, hand, int card, int declared):
    """The copies of `card` the native rule declaration declares with (0: pass), for the
    seat holding `hand` (the card included) over a declaration of strength `declared`; what
    the tests compare with the Python rule bot."""
    cdef unsigned char h[54]
    load54(hand, h)
    return rule_declaration(trump_rank, h, card, declared)


def rule_burial_of(int trump_rank, int trump_suit, hand):
    """The native rule burial of a 33-card dealer hand, as count-vector bytes (for the tests)."""
    cdef Table t
    cdef unsigned char h[54]
    cdef unsigned char out[54]
    build_classic_table(&t, trump_rank, trump_suit)
    load54(hand, h)
    rule_burial(&t, h, out)
    return bytes(out[:54])
