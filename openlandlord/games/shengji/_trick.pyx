# cython: language_level=3
"""Trick formats of both rulesets: a `tractor` lead is one unit (`classify`), a `classic` lead
any cards of one suit decomposed into units (`lead_format_c`); the follow errors, the trick
winner (`trick_winner_c` serves both, by the table's `classic` flag), the kitty multiplier and
a `classic` throw's check against the other hands. The semantics are those of
docs/rules-shengji.md; tests/shengji_classic_reference.py keeps the former pure-Python
`classic` rules as the test oracle.

Everything works on count vectors (see `_cards.pxd`); the Python-facing functions here take
count vectors (bytes or uint8 arrays of length 54) and give plays back as card-id tuples.
"""
from libc.string cimport memset, memcpy

from openlandlord.games.shengji._cards cimport (
    NCARD, TRUMP, Table, build_table, load, classic_setup, clear_word)


cdef void follow_demands(const Lead* lead, Format* f) noexcept nogil:
    # What a `tractor` lead asks of a follower, in the terms of the one follow rule both
    # rulesets share (classic_follow_error, classic_count_follows_c): its suit, its size and
    # its pairs. Ruleset `tractor` never makes a follower answer a tractor with a tractor, so
    # the demands list none; only these four fields are set, the only ones the rule reads.
    f.cat = lead.cat
    f.n = lead.n
    f.pairs = lead.pairs
    f.ntractors = 0


cdef int follow_error(const Table* t, const unsigned char* hand, const Lead* lead,
                      const unsigned char* play) noexcept nogil:
    cdef Format f
    follow_demands(lead, &f)
    return classic_follow_error(t, hand, &f, play)


cdef int single_cat(const Table* t, const unsigned char* v) noexcept nogil:
    # The category of a play all of one category; -1 when mixed, -2 when empty.
    cdef int c, cat = -2
    for c in range(NCARD):
        if v[c]:
            if cat == -2:
                cat = t.cat[c]
            elif t.cat[c] != cat:
                return -1
    return cat


cdef int runs_c(const Table* t, const unsigned char* v, int cat, int* rstart, int* rlen,
                int* reps) noexcept nogil:
    # The maximal runs of consecutive levels of `cat` holding a pair in `v`, as (first level,
    # length); reps[level] = the highest id holding a pair at that level, or -1. Returns the
    # number of runs (a run of length 1 is a lone pair).
    cdef int lvl, i, c, n = 0, prev = -2
    for lvl in range(16):
        reps[lvl] = -1
        for i in range(t.lvl_n[cat][lvl]):
            c = t.lvl_cards[cat][lvl][i]
            if v[c] == 2:
                reps[lvl] = c
        if reps[lvl] >= 0:
            if lvl == prev + 1:
                rlen[n - 1] += 1
            else:
                rstart[n] = lvl
                rlen[n] = 1
                n += 1
            prev = lvl
    return n


cdef struct Scan:
    int n                     # cards
    int ids                   # card ids held
    int card                  # the last of them
    int pairs                 # ids held twice
    int cat                   # the one category (single_cat's: -1 mixed, -2 empty)


cdef inline void scan_card(const Table* t, const unsigned char* v, int c, Scan* s) noexcept nogil:
    s.n += v[c]
    s.ids += 1
    s.card = c
    if v[c] == 2:
        s.pairs += 1
    if s.cat == -2:
        s.cat = t.cat[c]
    elif t.cat[c] != s.cat:
        s.cat = -1


cdef inline void scan_play(const Table* t, const unsigned char* v, Scan* s) noexcept nogil:
    # One pass over a play, eight card ids at a time: a play holds few cards, so most words
    # are zero and skipped whole.
    cdef int w, c
    s.n = s.ids = s.pairs = 0
    s.card = -1
    s.cat = -2
    for w in range(7):
        if w < 6 and clear_word(v, w):
            continue
        for c in range(8 * w, 8 * w + 8 if w < 6 else NCARD):
            if v[c]:
                scan_card(t, v, c, s)


cdef void decompose_c(const Table* t, const unsigned char* v, Format* f) noexcept nogil:
    # The units of a play, the traditional way: longest tractors first (pairs on consecutive
    # levels, one pair per level), then pairs, then singles; sorted largest first (by pairs,
    # then top level, both descending; stable).
    cdef unsigned char rest[NCARD]
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef int upairs[55]
    cdef int utop[55]
    cdef int ustart[56]
    cdef int ucards[55]
    cdef int order[55]
    cdef int npairs[5]
    cdef int cat, k, nr, lvl, c, nu = 0, nc = 0, i, j, u, tmp
    memcpy(rest, v, NCARD)
    for cat in range(5):
        npairs[cat] = 0
    for c in range(NCARD):
        if v[c] == 2:
            npairs[t.cat[c]] += 1
    for cat in range(5):
        if npairs[cat] < 2:
            continue               # no tractor without two pairs of the category
        nr = runs_c(t, rest, cat, rstart, rlen, reps)
        for k in range(nr):
            if rlen[k] >= 2:
                upairs[nu] = rlen[k]
                utop[nu] = rstart[k] + rlen[k] - 1
                ustart[nu] = nc
                for lvl in range(rstart[k], rstart[k] + rlen[k]):
                    ucards[nc] = reps[lvl]
                    nc += 1
                    rest[reps[lvl]] -= 2
                nu += 1
    for c in range(NCARD):
        if rest[c] == 2:
            upairs[nu] = 1
            utop[nu] = t.level[c]
            ustart[nu] = nc
            ucards[nc] = c
            nc += 1
            nu += 1
    for c in range(NCARD):
        if rest[c] == 1:
            upairs[nu] = 0
            utop[nu] = t.level[c]
            ustart[nu] = nc
            ucards[nc] = c
            nc += 1
            nu += 1
    ustart[nu] = nc
    for i in range(nu):
        order[i] = i
    # Stable insertion sort by (-pairs, -top).
    for i in range(1, nu):
        j = i
        while j > 0:
            u = order[j - 1]
            tmp = order[j]
            if upairs[u] > upairs[tmp] or (upairs[u] == upairs[tmp] and utop[u] >= utop[tmp]):
                break
            order[j - 1] = tmp
            order[j] = u
            j -= 1
    nc = 0
    for i in range(nu):
        u = order[i]
        f.upairs[i] = upairs[u]
        f.utop[i] = utop[u]
        f.ustart[i] = nc
        for k in range(ustart[u], ustart[u + 1]):
            f.ucards[nc] = ucards[k]
            nc += 1
    f.nunits = nu
    if nu < 55:
        f.ustart[nu] = nc


cdef int lead_format_c(const Table* t, const unsigned char* lead, Format* f) noexcept nogil:
    # The format a lead asks of the followers; returns its number of units.
    cdef Scan sc
    cdef int u, card
    scan_play(t, lead, &sc)
    f.n = sc.n
    f.cat = sc.cat
    f.ntractors = 0
    if sc.ids == 1:                # one card id: a single or a pair, one unit (decompose_c's)
        card = sc.card
        f.nunits = 1
        f.pairs = f.upairs[0] = lead[card] - 1
        f.utop[0] = t.level[card]
        f.ustart[0] = 0
        f.ucards[0] = card
        f.ustart[1] = 1
        return 1
    decompose_c(t, lead, f)
    f.pairs = 0
    for u in range(f.nunits):
        f.pairs += f.upairs[u]
        if f.upairs[u] >= 2:
            f.tractors[f.ntractors] = f.upairs[u]
            f.ntractors += 1
    return f.nunits


cdef inline int unit_end(const Format* f, int u) noexcept nogil:
    if u + 1 < f.nunits:
        return f.ustart[u + 1]
    return f.ustart[u] + (f.upairs[u] if f.upairs[u] > 1 else 1)


cdef int match_rec(const int* wanted, int nw, int i, int* room, int nroom, int cur, int best,
                   int* assign, int* best_assign) noexcept nogil:
    # Branch and bound: the most of wanted[i:] that fit the free room of the runs, each cut
    # from one run; records an optimal assignment (run index or -1) in best_assign.
    cdef int j, k, dup
    if cur + (nw - i) <= best:
        return best
    if i == nw:
        if best_assign != NULL:
            memcpy(best_assign, assign, nw * sizeof(int))
        return cur
    for j in range(nroom):
        if room[j] < wanted[i]:
            continue
        dup = 0
        for k in range(j):
            if room[k] == room[j]:
                dup = 1
                break
        if dup:
            continue
        room[j] -= wanted[i]
        assign[i] = j
        best = match_rec(wanted, nw, i + 1, room, nroom, cur + 1, best, assign, best_assign)
        room[j] += wanted[i]
        if best == nw:
            return best
    assign[i] = -1
    return match_rec(wanted, nw, i + 1, room, nroom, cur, best, assign, best_assign)


cdef inline int tractor_rooms(const Table* t, const unsigned char* v, int cat, int* rstart,
                              int* rlen, int* reps, int* room, int* runof) noexcept nogil:
    # The runs of pairs of `v` in `cat` long enough to hold a tractor (runs_c fills rstart,
    # rlen, reps): room[j] is the j-th such run's length in pairs, runof[j] its index among
    # the runs. Returns how many there are (what match_rec assigns tractors to).
    cdef int k, nr, nroom = 0
    nr = runs_c(t, v, cat, rstart, rlen, reps)
    for k in range(nr):
        if rlen[k] >= 2:
            room[nroom] = rlen[k]
            runof[nroom] = k
            nroom += 1
    return nroom


cdef int place_tractors(const Table* t, const unsigned char* held, const Format* f,
                       unsigned char* out) noexcept nogil:
    # The lead's tractors that `held` (the follower's cards of the led suit) can answer, an
    # optimal assignment (match_rec), each cut from the bottom of its run: marks their pairs
    # in `out` (2 each) and returns how many pairs it placed. The constructive follows of
    # both the random policy and the search's rule policy start with this.
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef int room[16]
    cdef int runof[16]
    cdef int used[16]
    cdef int assign[27]
    cdef int best_assign[27]
    cdef int i, j, k, lvl, nroom, placed = 0
    if not f.ntractors:
        return 0
    nroom = tractor_rooms(t, held, f.cat, rstart, rlen, reps, room, runof)
    for k in range(nroom):
        used[k] = 0
    for i in range(f.ntractors):
        best_assign[i] = -1
    if nroom and match_rec(f.tractors, f.ntractors, 0, room, nroom, 0, -1, assign,
                           best_assign) > 0:
        for i in range(f.ntractors):
            j = best_assign[i]
            if j < 0:
                continue
            k = runof[j]
            for lvl in range(rstart[k] + used[j], rstart[k] + used[j] + f.tractors[i]):
                out[reps[lvl]] = 2
                placed += 1
            used[j] += f.tractors[i]
    return placed


cdef int tractors_matched_c(const Table* t, const unsigned char* v, int cat, const int* wanted,
                            int nw) noexcept nogil:
    # How many of the lead's tractors (pairs each) disjoint tractors of `v` (cards of `cat`)
    # can answer, each by a tractor of exactly its length cut from one run (best assignment).
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef int room[16]
    cdef int runof[16]
    cdef int assign[27]
    cdef int nroom
    if nw == 0 or cat < 0:
        return 0
    nroom = tractor_rooms(t, v, cat, rstart, rlen, reps, room, runof)
    if nroom == 0:
        return 0
    return match_rec(wanted, nw, 0, room, nroom, 0, -1, assign, NULL)


cdef int classic_lead_error(const Table* t, const unsigned char* hand,
                            const unsigned char* play) noexcept nogil:
    cdef int c, n = 0
    for c in range(NCARD):
        if play[c] > hand[c]:
            return NOT_IN_HAND
        n += play[c]
    if n == 0:
        return WRONG_COUNT
    return OK if single_cat(t, play) >= 0 else MIXED_SUITS


cdef int classic_follow_error(const Table* t, const unsigned char* hand, const Format* f,
                              const unsigned char* play) noexcept nogil:
    cdef unsigned char held[NCARD]
    cdef unsigned char played[NCARD]
    cdef int c, n = 0, nheld = 0, nplayed = 0, pheld = 0, pplayed = 0, need
    for c in range(NCARD):
        if play[c] > hand[c]:
            return NOT_IN_HAND
        n += play[c]
        if t.cat[c] == f.cat:
            held[c] = hand[c]
            played[c] = play[c]
            nheld += hand[c]
            nplayed += play[c]
            if hand[c] == 2:
                pheld += 1
            if play[c] == 2:
                pplayed += 1
        else:
            held[c] = 0
            played[c] = 0
    if n != f.n:
        return WRONG_COUNT
    if nplayed < (f.n if f.n < nheld else nheld):
        return MUST_FOLLOW_SUIT
    if nheld <= f.n:
        return OK  # every card of the suit goes in: nothing left to choose
    need = f.pairs if f.pairs < pheld else pheld
    if pplayed < need:
        return MUST_PLAY_PAIRS
    if f.ntractors and (tractors_matched_c(t, played, f.cat, f.tractors, f.ntractors)
                        < tractors_matched_c(t, held, f.cat, f.tractors, f.ntractors)):
        return MUST_PLAY_TRACTORS
    return OK


cdef int classic_play_key(const Table* t, const Format* f,
                          const unsigned char* play) noexcept nogil:
    # How strongly a play answers the lead: -1 cannot win, higher wins, ties to the earlier. A
    # plain-suit play wins only against a single-unit lead of its shape; an all-trump play of a
    # void seat matching the lead's format beats every plain play, compared by its highest unit
    # of the lead's largest shape.
    cdef Format g
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef Scan sc
    cdef int cat, shape = f.upairs[0], top = -1, c, k, nr, card
    scan_play(t, play, &sc)
    cat, card = sc.cat, sc.card
    if cat == f.cat:
        if f.nunits > 1:
            return -1
        if shape <= 1 and sc.ids == 1 and play[card] == shape + 1:
            return t.level[card]   # a single or a pair led, answered by one of its shape
        decompose_c(t, play, &g)
        if f.nunits > 1 or g.nunits != 1 or g.upairs[0] != shape:
            return -1
        return g.utop[0]
    if cat != TRUMP:
        return -1
    if sc.pairs < f.pairs or (f.ntractors and tractors_matched_c(
            t, play, TRUMP, f.tractors, f.ntractors) < f.ntractors):
        return -1
    if shape >= 2:
        nr = runs_c(t, play, TRUMP, rstart, rlen, reps)
        for k in range(nr):
            if rlen[k] >= shape and rstart[k] + rlen[k] - 1 > top:
                top = rstart[k] + rlen[k] - 1
    else:
        for c in range(NCARD):
            if (play[c] == 2 if shape == 1 else play[c] > 0) and t.level[c] > top:
                top = t.level[c]
    return 100 + top


cdef int classic_trick_winner_c(const Table* t, const unsigned char* plays,
                                int nplays) noexcept nogil:
    cdef Format f
    cdef int i, key, best = 0, best_key
    lead_format_c(t, plays, &f)
    best_key = f.utop[0]
    for i in range(1, nplays):
        key = classic_play_key(t, &f, plays + i * NCARD)
        if key > best_key:
            best_key = key
            best = i
    return best


cdef int kitty_multiplier_c(const Format* f) noexcept nogil:
    # 2 for a single, 4 for a pair, 2^(k+1) for a tractor of k pairs: the lead's largest unit.
    return 1 << (f.upairs[0] + 1)


cdef int unit_beaten(const Table* t, const Format* f, int u,
                     const unsigned char* other) noexcept nogil:
    # Whether `other` holds, in the lead's suit, a higher unit of the same shape as unit u
    # (only the suit's cards above the unit's top level are read).
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef int c, i, k, lvl, nr, pairs = f.upairs[u], top = f.utop[u]
    if pairs < 2:
        for lvl in range(top + 1, 16):
            for i in range(t.lvl_n[f.cat][lvl]):
                c = t.lvl_cards[f.cat][lvl][i]
                if (other[c] == 2 if pairs == 1 else other[c] > 0):
                    return 1
        return 0
    nr = runs_c(t, other, f.cat, rstart, rlen, reps)
    for k in range(nr):
        if rlen[k] >= pairs and rstart[k] + rlen[k] - 1 > top:
            return 1
    return 0


cdef int beaten_units_c(const Table* t, const Format* f, const unsigned char* others, int nothers,
                        int* out) noexcept nogil:
    # The units (indexes, in the format's order) some other hand could beat; returns how many.
    cdef int u, h, n = 0
    for u in range(f.nunits):
        for h in range(nothers):
            if unit_beaten(t, f, u, others + h * NCARD):
                out[n] = u
                n += 1
                break
    return n


cdef int throw_check_c(const Table* t, const unsigned char* lead, const Format* f,
                       const unsigned char* others, int nothers,
                       unsigned char* out) noexcept nogil:
    # Writes into `out` what the lead plays: all of it when it is one unit or a throw no other
    # hand can beat, else its smallest beaten unit (fewest cards, then lowest; the first in
    # the format's order among equals). Returns the number of cards taken back.
    cdef int failing[55]
    cdef int nf, i, u, best = -1, k, c, n = 0
    memcpy(out, lead, NCARD)
    if f.nunits <= 1:
        return 0
    nf = beaten_units_c(t, f, others, nothers, failing)
    if nf == 0:
        return 0
    for i in range(nf):
        u = failing[i]
        if best < 0 or f.upairs[u] < f.upairs[best] or (f.upairs[u] == f.upairs[best]
                                                         and f.utop[u] < f.utop[best]):
            best = u
    memset(out, 0, NCARD)
    for k in range(f.ustart[best], unit_end(f, best)):
        c = f.ucards[k]
        out[c] = 2 if f.upairs[best] >= 1 else 1
        n += out[c]
    return f.n - n


cdef int load_lead(const Table* t, const unsigned char[::1] src, unsigned char* dst,
                   Format* f) except -1:
    load(src, dst)
    lead_format_c(t, dst, f)
    if f.n == 0 or f.cat < 0:
        raise ValueError("the lead is not one or more cards of one suit")
    return 0


cdef list units_list(const Format* f):
    cdef int u, k
    out = []
    for u in range(f.nunits):
        cards = []
        for k in range(f.ustart[u], unit_end(f, u)):
            cards.append(f.ucards[k])
            if f.upairs[u] >= 1:
                cards.append(f.ucards[k])
        out.append((f.upairs[u], f.utop[u], tuple(cards)))
    return out


def lead_kind(int trump_rank, int trump_suit, const unsigned char[::1] play):
    """(kind, cat, n, pairs, low) of a play: kind 1 single, 2 pair, 3 tractor, 0 not a unit."""
    cdef Table t
    cdef unsigned char p[NCARD]
    cdef Lead u
    build_table(&t, trump_rank, trump_suit)
    load(play, p)
    classify(&t, p, &u)
    return (u.kind, u.cat if u.n else -1, u.n, u.pairs, u.low if u.kind else -1)


def play_error(int trump_rank, int trump_suit, const unsigned char[::1] hand, lead,
               const unsigned char[::1] play):
    """The error code of `play` from `hand` (lead None = the seat leads); 0 when legal."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char p[NCARD]
    cdef unsigned char l[NCARD]
    cdef Lead u
    cdef int c, n = 0
    build_table(&t, trump_rank, trump_suit)
    load(hand, h)
    load(play, p)
    if lead is None:
        for c in range(NCARD):
            if p[c] > h[c]:
                return NOT_IN_HAND
            n += p[c]
        if n == 0:
            return WRONG_COUNT
        return OK if classify(&t, p, &u) else NOT_A_UNIT
    load(lead, l)
    if not classify(&t, l, &u):
        raise ValueError("the lead is not a single, a pair or a tractor")
    return follow_error(&t, h, &u, p)


def winner_of(int trump_rank, int trump_suit, list plays):
    """Index of the winning play among count vectors, 0 = the lead."""
    cdef Table t
    cdef unsigned char buf[4 * NCARD]
    cdef int i
    if not 1 <= len(plays) <= 4:
        raise ValueError("a trick has one to four plays")
    build_table(&t, trump_rank, trump_suit)
    for i in range(len(plays)):
        load(plays[i], buf + i * NCARD)
    return trick_winner_c(&t, buf, len(plays))


def classic_format(int trump_rank, int trump_suit, const unsigned char[::1] play):
    """(cat, n, tractors, pairs, units) of a play: its category (-1 mixed), cards, pairs per
    tractor (longest first), pairs in all and its units as (pairs, top level, card ids),
    largest first."""
    cdef Table t
    cdef unsigned char p[NCARD]
    cdef Format f
    classic_setup(&t, trump_rank, trump_suit)
    load(play, p)
    lead_format_c(&t, p, &f)
    return (f.cat if f.cat >= 0 else -1, f.n, tuple(f.tractors[i] for i in range(f.ntractors)),
            f.pairs, units_list(&f))


def classic_pair_runs(int trump_rank, int trump_suit, const unsigned char[::1] vector):
    """The maximal runs of consecutive levels holding a pair, category by category, each
    level as one pair's card id (the highest id at a level with two pairs)."""
    cdef Table t
    cdef unsigned char v[NCARD]
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef int cat, k, nr
    classic_setup(&t, trump_rank, trump_suit)
    load(vector, v)
    out = []
    for cat in range(5):
        nr = runs_c(&t, v, cat, rstart, rlen, reps)
        for k in range(nr):
            out.append([reps[lvl] for lvl in range(rstart[k], rstart[k] + rlen[k])])
    return out


def classic_play_error(int trump_rank, int trump_suit, const unsigned char[::1] hand, lead,
                       const unsigned char[::1] play):
    """The error code of `play` from `hand` (lead None = the seat leads); 0 when legal."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char p[NCARD]
    cdef unsigned char l[NCARD]
    cdef Format f
    classic_setup(&t, trump_rank, trump_suit)
    load(hand, h)
    load(play, p)
    if lead is None:
        return classic_lead_error(&t, h, p)
    load_lead(&t, lead, l, &f)
    return classic_follow_error(&t, h, &f, p)


def classic_throw(int trump_rank, int trump_suit, const unsigned char[::1] lead, others):
    """What a lead plays against the other hands: (played card ids, units beaten as indexes in
    the lead's unit order). The lead itself and [] when it is one unit or stands; its smallest
    beaten unit otherwise."""
    cdef Table t
    cdef unsigned char l[NCARD]
    cdef unsigned char o[3 * NCARD]
    cdef unsigned char out[NCARD]
    cdef int failing[55]
    cdef Format f
    cdef int i, nf, n = len(others)
    classic_setup(&t, trump_rank, trump_suit)
    if not 0 <= n <= 3:
        raise ValueError("at most three other hands")
    load_lead(&t, lead, l, &f)
    for i in range(n):
        load(others[i], o + i * NCARD)
    throw_check_c(&t, l, &f, o, n, out)
    nf = beaten_units_c(&t, &f, o, n, failing) if f.nunits > 1 else 0
    return (tuple(c for c in range(NCARD) for _ in range(out[c])),
            [failing[i] for i in range(nf)])


def classic_beaten_units(int trump_rank, int trump_suit, const unsigned char[::1] lead, others):
    """The indexes (in the lead's unit order) of the units some hand of `others` could beat
    with a higher unit of the same shape in the same suit."""
    cdef Table t
    cdef unsigned char l[NCARD]
    cdef unsigned char o[3 * NCARD]
    cdef int failing[55]
    cdef Format f
    cdef int i, nf, n = len(others)
    classic_setup(&t, trump_rank, trump_suit)
    if not 0 <= n <= 3:
        raise ValueError("at most three other hands")
    load_lead(&t, lead, l, &f)
    for i in range(n):
        load(others[i], o + i * NCARD)
    nf = beaten_units_c(&t, &f, o, n, failing)
    return [failing[i] for i in range(nf)]


def classic_winner(int trump_rank, int trump_suit, list plays):
    """Index of the winning play among count vectors, 0 = the lead."""
    cdef Table t
    cdef unsigned char buf[4 * NCARD]
    cdef Format f
    cdef int i
    if not 1 <= len(plays) <= 4:
        raise ValueError("a trick has one to four plays")
    classic_setup(&t, trump_rank, trump_suit)
    load_lead(&t, plays[0], buf, &f)
    for i in range(1, len(plays)):
        load(plays[i], buf + i * NCARD)
    return trick_winner_c(&t, buf, len(plays))


def classic_kitty_multiplier(int trump_rank, int trump_suit, const unsigned char[::1] lead):
    """2, 4 or 2^(k+1) by the largest unit of the last trick's lead."""
    cdef Table t
    cdef unsigned char l[NCARD]
    cdef Format f
    classic_setup(&t, trump_rank, trump_suit)
    load_lead(&t, lead, l, &f)
    return kitty_multiplier_c(&f)
