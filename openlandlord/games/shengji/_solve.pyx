# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The exact last-tricks solver of both rulesets: the rest of a round with every hand known,
from a trick boundary or the middle of a trick, solved by two-team minimax.

What it searches: the card points the attackers take from here on (the points already on
the table in the trick in progress included). The attackers maximise them, the declarers
minimise them. Both PIMC objectives (`_pimc.pyx` `team_score`: levels with the margin
/ 1000 tie-break, or the margin / 80) are strictly increasing functions of the round's final
attacker points for the attacking team and strictly decreasing for the declarers, and the
final total is the points taken so far plus the points still to take. A strictly monotone
map commutes with max and min, so minimax over the points still to take gives every play's
exact objective value once mapped at the end, and the value of a position does not depend
on the points taken before it: the transposition table keys on the hands, the trick in
progress and its leader alone. (`tractor` has no kitty and no last-trick bonus.)

`classic` (the table's `classic` flag, `solve_classic_c`): the points still to take include
the kitty's points times the last trick's multiplier when the attackers win the last trick,
and the key includes the kitty (a decision's worlds share the table and their kitties may
differ). Its objective maps the final attacker score, clipped at 0, which is still
non-decreasing, so it commutes with max and min too. A lead is any set of one suit's cards;
a throw that another hand could beat is never searched: it plays its smallest beaten unit
and pays a penalty to the other side, so it is worth no more to the thrower than leading that
unit, which is itself a legal lead (the tests check the values against a minimax that does
search the failing throws). The value bound adds the kitty's points times the largest
multiplier a last lead could still earn.

How: fail-soft alpha-beta over every legal play, listed with the referee's own prefix
questions (`lead_options_c`, `follow_options_c`: a play is grown card by card in ascending
id order while the referee says a legal play still contains it, so each legal play comes
out exactly once and no follow rule is written twice); a transposition table of bounds
(two independent 64-bit Zobrist keys per position, one for the slot and both checked on a
hit); move ordering by the table's best play, then plays that leave the trick to the
mover's team richest, then cheap plays; the points not yet taken bound every value (a
position with none left is worth 0). A node budget makes the solver give up (solve_c
returns -1, nothing stored from the unfinished search) instead of hanging; so does a node
with more than MAX_MOVES legal plays. The caller counts the give-ups and rolls out instead.
"""
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, calloc, free

from openlandlord.games.shengji._cards cimport NCARD, TRUMP, Table, build_table, next_random
from openlandlord.games.shengji._cards cimport classic_setup
from openlandlord.games.shengji._trick cimport (
    Lead, Format, classify, play_key, trick_winner_c, follow_error, lead_format_c,
    classic_play_key, classic_follow_error, kitty_multiplier_c, throw_check_c, single_cat)
from openlandlord.games.shengji._legal cimport (
    follow_options_c, lead_options_c, classic_follow_options_c)

cdef enum:
    RECORD = 1 + MAX_PLAY     # a move: its card count, then its card ids ascending
    FULL = 100000             # above every value: the root's open window

DEFAULT_NODES = 2000000       # the Python entries' budget (the PIMC search sets its own)
TT_BITS = 18

cdef unsigned long long HAND1[4][NCARD][3]
cdef unsigned long long HAND2[4][NCARD][3]
cdef unsigned long long TRICK1[4][NCARD][3]
cdef unsigned long long TRICK2[4][NCARD][3]
cdef unsigned long long LEADER1[4]
cdef unsigned long long LEADER2[4]
cdef unsigned long long KITTY1[NCARD][3]
cdef unsigned long long KITTY2[NCARD][3]


cdef void init_keys() noexcept nogil:
    cdef unsigned long long rng = 0x51A6E7C0FFEE1234ULL
    cdef int s, c, k
    for s in range(4):
        LEADER1[s] = next_random(&rng)
        LEADER2[s] = next_random(&rng)
        for c in range(NCARD):
            HAND1[s][c][0] = HAND2[s][c][0] = TRICK1[s][c][0] = TRICK2[s][c][0] = 0
            for k in range(1, 3):
                HAND1[s][c][k] = next_random(&rng)
                HAND2[s][c][k] = next_random(&rng)
                TRICK1[s][c][k] = next_random(&rng)
                TRICK2[s][c][k] = next_random(&rng)
    for c in range(NCARD):
        KITTY1[c][0] = KITTY2[c][0] = 0
        for k in range(1, 3):
            KITTY1[c][k] = next_random(&rng)
            KITTY2[c][k] = next_random(&rng)


init_keys()


cdef long long solved_worlds = 0
cdef long long gave_up_worlds = 0


cdef void count_world(int solved) noexcept nogil:
    global solved_worlds, gave_up_worlds
    if solved:
        solved_worlds += 1
    else:
        gave_up_worlds += 1


def solve_counts(bint reset=False):
    """(worlds solved exactly, worlds the solver gave up on and rolled out) by the PIMC
    searches of both rulesets with solve > 0 in this process, since the last reset."""
    global solved_worlds, gave_up_worlds
    out = (solved_worlds, gave_up_worlds)
    if reset:
        solved_worlds = gave_up_worlds = 0
    return out


cdef int solver_open(Solver* s, const Table* t, int declarers, int tt_bits) noexcept nogil:
    # 0, or -1 out of memory. calloc: the table's pages are touched only as it fills.
    s.t = t
    s.declarers = declarers
    s.mask = (1ULL << tt_bits) - 1
    s.tt = <Entry*>calloc(<size_t>1 << tt_bits, sizeof(Entry))
    s.moves = <unsigned char*>malloc(MAX_DEPTH * MAX_MOVES * RECORD)
    if s.tt == NULL or s.moves == NULL:
        solver_close(s)
        return -1
    return 0


cdef void solver_close(Solver* s) noexcept nogil:
    free(s.tt)
    free(s.moves)
    s.tt = NULL
    s.moves = NULL


cdef bint throw_stands(const Table* t, const unsigned char* play,
                       const unsigned char* others) noexcept nogil:
    # `classic`: whether this lead plays whole (one unit, or a throw none of the three other
    # hands, `others`, can beat).
    cdef Format g
    cdef unsigned char cut[NCARD]
    lead_format_c(t, play, &g)
    return g.nunits <= 1 or throw_check_c(t, play, &g, others, 3, cut) == 0


cdef int list_plays(const Table* t, const unsigned char* hand, const Lead* lead,
                    const Format* f, const unsigned char* others,
                    unsigned char* prefix, unsigned char* ids, int last, int size,
                    unsigned char* out, int* count) noexcept nogil:
    # Every legal play containing `prefix` (its `size` cards in `ids`) whose further cards are
    # ids >= last, as records into `out`; -1 past MAX_MOVES. `tractor`: lead NULL = the seat
    # leads, else it follows lead. `classic` (t.classic): f NULL = the seat leads (any set of
    # one suit's cards, kept only when the throw stands against `others`, the other three
    # hands), else it follows f.
    cdef unsigned char options[NCARD]
    cdef unsigned char* rec
    cdef int c, complete = 0, n = 0, cat
    if (f != NULL) if t.classic else (lead != NULL):
        if size == (f.n if t.classic else lead.n):
            complete = 1
        elif t.classic:
            n = classic_follow_options_c(t, hand, f, prefix, options)
        else:
            n = follow_options_c(t, hand, lead, prefix, options)
    elif t.classic:
        cat = single_cat(t, prefix) if size else -1
        for c in range(NCARD):
            options[c] = hand[c] > prefix[c] and (size == 0 or t.cat[c] == cat)
            n += options[c]
        complete = size > 0 and throw_stands(t, prefix, others)
    else:
        n = lead_options_c(t, hand, prefix, options, &complete)
    if complete and size > 0:
        if count[0] == MAX_MOVES:
            return -1
        rec = out + count[0] * RECORD
        rec[0] = size
        memcpy(rec + 1, ids, size)
        count[0] += 1
    if n <= 0 or size == MAX_PLAY:
        return 0
    for c in range(last, NCARD):
        if options[c]:
            prefix[c] += 1
            ids[size] = c
            if list_plays(t, hand, lead, f, others, prefix, ids, c, size + 1, out, count) < 0:
                prefix[c] -= 1
                return -1
            prefix[c] -= 1
    return 0


cdef inline int answer_key(const Solver* s, int i, const unsigned char* play) noexcept nogil:
    # How strongly play i of the trick in progress (i = 0 the lead) answers its lead: higher
    # wins, -1 cannot win (the referee's own keys, as its trick winner reads them).
    if s.t.classic:
        return s.fmt.utop[0] if i == 0 else classic_play_key(s.t, &s.fmt, play)
    return play_key(s.t, &s.lead, play)


cdef int order_plays(Solver* s, int seat, unsigned char* moves, int count, int tt_best,
                     short* order) noexcept nogil:
    # Likely best first: the table's best play; then, following, the plays after which the
    # mover's team holds the trick (the most points first, then the cheapest), then the
    # rest (the fewest points, the cheapest); leading, the longest units, then the highest.
    cdef const Table* t = s.t
    cdef unsigned char v[NCARD]
    cdef int score[MAX_MOVES]
    cdef int i, j, k, c, m, points, cost, key, best_key = -1, best_seat = s.leader, team_holds
    cdef unsigned char* rec
    cdef short tmp
    if s.n:
        for i in range(s.n):
            key = answer_key(s, i, s.plays + i * NCARD)
            if key > best_key:
                best_key = key
                best_seat = (s.leader + i) & 3
    for i in range(count):
        rec = moves + i * RECORD
        m = rec[0]
        points = 0
        cost = 0
        for k in range(m):
            c = rec[1 + k]
            points += t.points[c]
            cost += t.strength[c] + (14 if t.cat[c] == TRUMP else 0)
        if s.n == 0:
            score[i] = 1000 * m + cost // m
        else:
            memset(v, 0, NCARD)
            for k in range(m):
                v[rec[1 + k]] += 1
            key = answer_key(s, s.n, v)
            if key > best_key:
                team_holds = 1
            else:
                team_holds = (best_seat & 1) == (seat & 1)
            if team_holds:
                score[i] = 100000 + 100 * points - cost
            else:
                score[i] = -100 * points - cost
        if i == tt_best:
            score[i] = 1 << 30
        order[i] = i
    for i in range(1, count):
        tmp = order[i]
        j = i - 1
        while j >= 0 and score[order[j]] < score[tmp]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = tmp
    return 0


cdef inline int upper_bound(const Solver* s) noexcept nogil:
    # The most attacker points still to take: every point not yet taken, and (`classic`) the
    # kitty times the largest multiplier a last lead could earn, 2^(1 + pairs), its pairs at
    # most half the largest hand ((left + n * lead size) / 4 cards).
    cdef int biggest, shift
    if s.kitty_points == 0:
        return s.open_points
    biggest = (s.left + s.n * s.fmt.n) // 4 if s.n else s.left // 4
    shift = 1 + biggest // 2
    if shift > 20:
        shift = 20
    return s.open_points + (s.kitty_points << shift)


cdef int search(Solver* s, unsigned long long h1, unsigned long long h2,
                unsigned long long k1, unsigned long long k2, int alpha, int beta) noexcept nogil:
    # The attacker points still to take from the solver's position (hand keys h, trick keys
    # k), fail-soft inside (alpha, beta). Leaves the position as it found it.
    cdef const Table* t = s.t
    cdef int seat = (s.leader + s.n) & 3, maxing, count = 0, i, j, k, c, m, v, value, best_i
    cdef int a0, b0, lo, hi, tt_best = -1, pos, winner, gain, total, saved_leader, saved_table
    cdef int upper
    cdef unsigned long long key1, key2, c1, c2, t1, t2
    cdef unsigned char prefix[NCARD]
    cdef unsigned char ids[MAX_PLAY]
    cdef unsigned char saved[4 * NCARD]
    cdef short order[MAX_MOVES]
    cdef unsigned char* hand = s.hands + seat * NCARD
    cdef unsigned char* moves
    cdef unsigned char* rec
    cdef Entry* e
    cdef Lead saved_lead
    cdef Format saved_fmt
    cdef unsigned char others[3 * NCARD]
    s.nodes += 1
    if s.nodes > s.budget:
        s.aborted = 1
        return 0
    upper = upper_bound(s)
    if s.depth > 0:
        if upper == 0:
            return 0
        if upper <= alpha:
            return upper
    key1 = h1 ^ k1 ^ LEADER1[s.leader]
    key2 = h2 ^ k2 ^ LEADER2[s.leader]
    e = &s.tt[key1 & s.mask]
    if e.key == key1 and e.check == key2:
        if s.depth > 0:
            if e.lo >= beta:
                return e.lo
            if e.hi <= alpha:
                return e.hi
            if e.lo == e.hi:
                return e.lo
            if e.lo > alpha:
                alpha = e.lo
            if e.hi < beta:
                beta = e.hi
        tt_best = e.best
    if s.depth + 1 >= MAX_DEPTH:
        s.aborted = 1
        return 0
    moves = s.moves + s.depth * MAX_MOVES * RECORD
    memset(prefix, 0, NCARD)
    if t.classic and s.n == 0:
        for k in range(3):
            memcpy(others + k * NCARD, s.hands + ((seat + 1 + k) & 3) * NCARD, NCARD)
    if list_plays(t, hand, &s.lead if s.n else NULL, &s.fmt if s.n else NULL, others,
                  prefix, ids, 0, 0, moves, &count) < 0 \
            or count == 0:
        s.aborted = 1
        return 0
    order_plays(s, seat, moves, count, tt_best, order)
    maxing = (seat & 1) != s.declarers
    a0 = alpha
    b0 = beta
    value = -1 if maxing else FULL
    best_i = order[0]
    pos = s.n
    saved_lead = s.lead
    if t.classic and pos == 0:
        saved_fmt = s.fmt           # only a lead changes the trick's format
    saved_leader = s.leader
    saved_table = s.table_points
    for j in range(count):
        i = order[j]
        rec = moves + i * RECORD
        m = rec[0]
        c1 = h1
        c2 = h2
        t1 = k1
        t2 = k2
        for k in range(m):
            c = rec[1 + k]
            c1 ^= HAND1[seat][c][hand[c]] ^ HAND1[seat][c][hand[c] - 1]
            c2 ^= HAND2[seat][c][hand[c]] ^ HAND2[seat][c][hand[c] - 1]
            hand[c] -= 1
            t1 ^= TRICK1[pos][c][s.plays[pos * NCARD + c]] \
                ^ TRICK1[pos][c][s.plays[pos * NCARD + c] + 1]
            t2 ^= TRICK2[pos][c][s.plays[pos * NCARD + c]] \
                ^ TRICK2[pos][c][s.plays[pos * NCARD + c] + 1]
            s.plays[pos * NCARD + c] += 1
            s.table_points += t.points[c]
        if pos == 0:
            if t.classic:
                lead_format_c(t, s.plays, &s.fmt)
            else:
                classify(t, s.plays, &s.lead)
        s.left -= m
        s.depth += 1
        if pos == 3:
            winner = (s.leader + trick_winner_c(t, s.plays, 4)) & 3
            total = s.table_points
            gain = total if (winner & 1) != s.declarers else 0
            if s.left == 0 and (winner & 1) != s.declarers:
                gain += s.kitty_points * kitty_multiplier_c(&s.fmt)
            memcpy(saved, s.plays, 4 * NCARD)
            memset(s.plays, 0, 4 * NCARD)
            s.n = 0
            s.leader = winner
            s.table_points = 0
            s.open_points -= total
            if s.left == 0:
                v = gain
            else:
                v = gain + search(s, c1, c2, 0, 0, alpha - gain, beta - gain)
            s.open_points += total
            memcpy(s.plays, saved, 4 * NCARD)
            s.leader = saved_leader
        else:
            s.n = pos + 1
            v = search(s, c1, c2, t1, t2, alpha, beta)
        s.depth -= 1
        s.n = pos
        s.left += m
        s.lead = saved_lead
        if t.classic and pos == 0:
            s.fmt = saved_fmt
        s.table_points = saved_table
        for k in range(m):
            c = rec[1 + k]
            hand[c] += 1
            s.plays[pos * NCARD + c] -= 1
        if s.aborted:
            return 0
        if maxing:
            if v > value:
                value = v
                best_i = i
                if v > alpha:
                    alpha = v
        elif v < value:
            value = v
            best_i = i
            if v < beta:
                beta = v
        if alpha >= beta:
            break
    if s.depth == 0:
        memset(s.best, 0, NCARD)
        rec = moves + best_i * RECORD
        for k in range(rec[0]):
            s.best[rec[1 + k]] += 1
    # Bounds on the true value from this search's window (a0, b0), merged with what the slot
    # already knows of this position.
    lo = 0
    hi = upper
    if value <= a0:
        hi = value
    elif value >= b0:
        lo = value
    else:
        lo = hi = value
    if e.key == key1 and e.check == key2:
        if e.lo > lo:
            lo = e.lo
        if e.hi < hi:
            hi = e.hi
    e.key = key1
    e.check = key2
    e.lo = lo
    e.hi = hi
    e.best = best_i
    return value


cdef int solve_c(Solver* s, const unsigned char* hands, const unsigned char* plays, int n,
                 int leader, long long budget) noexcept nogil:
    # The attacker points still to take (those on the table in the trick in progress
    # included) under best play of both teams, from these hands (`plays`: the trick's n plays
    # from `leader` on, already out of the hands); -1 when the budget runs out. s.best is the
    # best play of the seat to move (when n < 4 and a card is left). Ruleset `tractor`.
    s.kitty_points = 0
    s.kitty1 = s.kitty2 = 0
    return solve_at(s, hands, plays, n, leader, budget)


cdef int solve_classic_c(Solver* s, const unsigned char* hands, const unsigned char* plays, int n,
                         int leader, const unsigned char* kitty, long long budget) noexcept nogil:
    # solve_c for ruleset `classic` (a table built by build_classic_table): the points still
    # to take include the kitty's (`kitty`: the buried cards) times the last trick's
    # multiplier when the attackers win it. Throw penalties are not in the value: the solver
    # never makes a failing throw (module docstring).
    cdef int c
    s.kitty_points = 0
    s.kitty1 = s.kitty2 = 0
    for c in range(NCARD):
        s.kitty_points += kitty[c] * s.t.points[c]
        s.kitty1 ^= KITTY1[c][kitty[c]]
        s.kitty2 ^= KITTY2[c][kitty[c]]
    return solve_at(s, hands, plays, n, leader, budget)


cdef int solve_at(Solver* s, const unsigned char* hands, const unsigned char* plays, int n,
                  int leader, long long budget) noexcept nogil:
    cdef const Table* t = s.t
    cdef int i, c, winner, gain = 0, value
    cdef unsigned long long h1 = s.kitty1, h2 = s.kitty2, k1 = 0, k2 = 0
    memcpy(s.hands, hands, 4 * NCARD)
    memset(s.plays, 0, 4 * NCARD)
    memcpy(s.plays, plays, n * NCARD)
    s.n = n
    s.leader = leader
    s.left = 0
    s.table_points = 0
    s.open_points = 0
    for i in range(4):
        for c in range(NCARD):
            s.left += s.hands[i * NCARD + c]
            s.open_points += s.hands[i * NCARD + c] * t.points[c]
            s.table_points += s.plays[i * NCARD + c] * t.points[c]
    s.open_points += s.table_points
    if n:
        if t.classic:
            lead_format_c(t, s.plays, &s.fmt)
        else:
            classify(t, s.plays, &s.lead)
    if n == 4:
        winner = (leader + trick_winner_c(t, s.plays, 4)) & 3
        gain = s.table_points if (winner & 1) != s.declarers else 0
        if s.left == 0 and (winner & 1) != s.declarers:
            gain += s.kitty_points * kitty_multiplier_c(&s.fmt)
        s.open_points -= s.table_points
        s.table_points = 0
        memset(s.plays, 0, 4 * NCARD)
        s.n = 0
        s.leader = winner
    for i in range(4):
        for c in range(NCARD):
            h1 ^= HAND1[i][c][s.hands[i * NCARD + c]]
            h2 ^= HAND2[i][c][s.hands[i * NCARD + c]]
            k1 ^= TRICK1[i][c][s.plays[i * NCARD + c]]
            k2 ^= TRICK2[i][c][s.plays[i * NCARD + c]]
    s.nodes = 0
    s.budget = budget
    s.aborted = 0
    s.depth = 0
    memset(s.best, 0, NCARD)
    if s.left == 0:
        return gain
    value = search(s, h1, h2, k1, k2, -1, FULL)
    if s.aborted:
        return -1
    return gain + value


cdef int load_position(const Table* t, hands, int leader, trick, unsigned char* h,
                       unsigned char* plays) except -1:
    # Checks a position of the Python entries: four hands, a trick of at most three plays
    # from `leader` on (a unit, then legal follows, by the referee), every card at most
    # twice, and hand sizes that end the round together.
    cdef const unsigned char[::1] view
    cdef Lead lead
    cdef Format f
    cdef int s, c, k, n = len(trick), size, seat, lead_n = 0
    cdef int sizes[4]
    cdef unsigned char held[NCARD]
    if len(hands) != 4:
        raise ValueError("a position has four hands")
    if not 0 <= leader < 4:
        raise ValueError(f"the leader is a seat 0..3, got {leader}")
    if n > 3:
        raise ValueError("a trick in progress has at most three plays")
    for s in range(4):
        view = hands[s]
        if view.shape[0] != NCARD:
            raise ValueError("a count vector has 54 entries")
        memcpy(h + s * NCARD, &view[0], NCARD)
    memset(plays, 0, 4 * NCARD)
    for k in range(n):
        view = trick[k]
        if view.shape[0] != NCARD:
            raise ValueError("a count vector has 54 entries")
        memcpy(plays + k * NCARD, &view[0], NCARD)
    for c in range(NCARD):
        size = 0
        for s in range(4):
            size += h[s * NCARD + c] + plays[s * NCARD + c]
        if size > 2:
            raise ValueError("a card appears more than twice in the position")
    if n:
        if t.classic:
            lead_format_c(t, plays, &f)
            if f.cat < 0:
                raise ValueError("the trick's lead mixes suits")
            lead_n = f.n
        else:
            if not classify(t, plays, &lead):
                raise ValueError("the trick's lead is not a single, a pair or a tractor")
            lead_n = lead.n
        for k in range(1, n):
            seat = (leader + k) & 3
            for c in range(NCARD):
                held[c] = h[seat * NCARD + c] + plays[k * NCARD + c]
            if (classic_follow_error(t, held, &f, plays + k * NCARD) if t.classic
                    else follow_error(t, held, &lead, plays + k * NCARD)) != 0:
                raise ValueError(f"play {k} of the trick is not a legal follow")
    for s in range(4):
        sizes[s] = 0
        for c in range(NCARD):
            sizes[s] += h[s * NCARD + c]
    for k in range(n):
        sizes[(leader + k) & 3] += lead_n
    for s in range(4):
        if sizes[s] != sizes[0]:
            raise ValueError("the hands do not end the round together (sizes differ)")
    return n


def solve(int trump_rank, int trump_suit, hands, int leader, trick, int declarers,
          long long max_nodes=DEFAULT_NODES, kitty=None):
    """The exact rest of a round with every hand known: (attacker points still to take under
    best play, the best play of the seat to move as a tuple of card ids, nodes searched). The
    points are None (and the play None) when `max_nodes` runs out.

    `hands`: four count vectors (54 bytes each, seats 0..3); `trick`: the count vectors
    played so far in the trick in progress from `leader` on (out of the hands already);
    `declarers`: the declaring team (0 = seats 0 and 2); `kitty`: None for ruleset
    `tractor`, else the count vector of a `classic` round's buried cards (the points then
    include the kitty's times the last trick's multiplier when the attackers win it;
    `trump_suit` -1 is no trump). ValueError on a bad position."""
    cdef Table t
    cdef Solver s
    cdef unsigned char h[4 * NCARD]
    cdef unsigned char plays[4 * NCARD]
    cdef unsigned char kit[NCARD]
    cdef const unsigned char[::1] view
    cdef int n, value, c
    if declarers not in (0, 1):
        raise ValueError(f"the declarers are team 0 or 1, got {declarers}")
    if max_nodes < 1:
        raise ValueError(f"the node budget is at least 1, got {max_nodes}")
    if kitty is None:
        build_table(&t, trump_rank, trump_suit)
    else:
        classic_setup(&t, trump_rank, trump_suit)
        view = kitty
        if view.shape[0] != NCARD:
            raise ValueError("a count vector has 54 entries")
        memcpy(kit, &view[0], NCARD)
    n = load_position(&t, hands, leader, trick, h, plays)
    if kitty is not None:
        for c in range(NCARD):
            if kit[c] + h[c] + h[NCARD + c] + h[2 * NCARD + c] + h[3 * NCARD + c] \
                    + plays[c] + plays[NCARD + c] + plays[2 * NCARD + c] > 2:
                raise ValueError("a card appears more than twice in the position and the kitty")
    if solver_open(&s, &t, declarers, TT_BITS) != 0:
        raise MemoryError()
    try:
        with nogil:
            if kitty is None:
                value = solve_c(&s, h, plays, n, leader, max_nodes)
            else:
                value = solve_classic_c(&s, h, plays, n, leader, kit, max_nodes)
        if value < 0:
            return None, None, s.nodes
        best = tuple(c for c in range(NCARD) for _ in range(s.best[c])) or None
        return value, best, s.nodes
    finally:
        solver_close(&s)


def legal_plays(int trump_rank, int trump_suit, hand, lead=None, others=None):
    """The plays the solver searches for a hand (lead None = leading), as card-id tuples in
    the order it lists them: for the tests, which compare them with the referee's list.
    `others` (the other three hands, in seat order after this one) makes it `classic`: its
    leads are then the ones whose throw stands against them."""
    cdef Table t
    cdef Lead u
    cdef Format f
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef unsigned char rest[3 * NCARD]
    cdef unsigned char prefix[NCARD]
    cdef unsigned char ids[MAX_PLAY]
    cdef const unsigned char[::1] view = hand
    cdef unsigned char* out = <unsigned char*>malloc(MAX_MOVES * RECORD)
    cdef int count = 0, r, i, k
    if out == NULL:
        raise MemoryError()
    try:
        if others is None:
            build_table(&t, trump_rank, trump_suit)
        else:
            classic_setup(&t, trump_rank, trump_suit)
            if len(others) != 3:
                raise ValueError("others are the three other hands")
            for k in range(3):
                view = others[k]
                memcpy(rest + k * NCARD, &view[0], NCARD)
            view = hand
        memcpy(h, &view[0], NCARD)
        memset(prefix, 0, NCARD)
        if lead is not None:
            view = lead
            memcpy(l, &view[0], NCARD)
            if t.classic:
                lead_format_c(&t, l, &f)
                if f.cat < 0:
                    raise ValueError("the lead mixes suits")
            elif not classify(&t, l, &u):
                raise ValueError("the lead is not a single, a pair or a tractor")
        r = list_plays(&t, h, &u if lead is not None else NULL, &f if lead is not None else NULL,
                       rest, prefix, ids, 0, 0, out, &count)
        if r < 0:
            raise ValueError(f"more than {MAX_MOVES} legal plays")
        return [tuple(out[i * RECORD + 1 + k] for k in range(out[i * RECORD]))
                for i in range(count)]
    finally:
        free(out)
