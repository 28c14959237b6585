# cython: language_level=3
"""Legal plays of both rulesets, listed constructively and counted exactly (never by
filtering candidates): `tractor` leads and follows by a cut multiset walk, `classic` follows
by a constructive walk over the led suit's card types (the pairs and tractors a follow owes
checked on the way), `classic` leads by an odometer over one suit's cards, and the prefix
questions of the factored decision (`follow_options`, `classic_lead_options`).
"""
from libc.string cimport memset, memcpy
from libc.stdlib cimport realloc, free

from openlandlord.games.shengji._cards cimport (
    NCARD, Table, build_table, load, load_hand, classic_setup)
from openlandlord.games.shengji._trick cimport (
    Lead, Format, classify, follow_demands, single_cat, tractors_matched_c, load_lead)


cdef list leads_of(const Table* t, const unsigned char* hand):
    cdef list out = []
    cdef int c, d, k
    for c in range(NCARD):
        if hand[c]:
            out.append((c,))
        if hand[c] == 2:
            out.append((c, c))
            d = c
            run = [c, c]
            while t.nxt[d] >= 0 and hand[t.nxt[d]] == 2:
                d = t.nxt[d]
                run = run + [d, d]
                out.append(tuple(run))
    return out


cdef void follow_suffix(int* types, int ntypes, const unsigned char* hand, int* cards_after,
                        int* pairs_after):
    cdef int i
    cards_after[ntypes] = 0
    pairs_after[ntypes] = 0
    for i in range(ntypes - 1, -1, -1):
        cards_after[i] = cards_after[i + 1] + hand[types[i]]
        pairs_after[i] = pairs_after[i + 1] + (1 if hand[types[i]] == 2 else 0)


cdef void enumerate_multisets(list out, list prefix, int* types, int ntypes, int i,
                              const unsigned char* hand, int left, int pairs, int need,
                              int* cards_after, int* pairs_after, long long limit):
    # Every multiset of `left` more cards from types[i:], with at least `need` pairs overall;
    # branches that cannot reach a legal play are cut, so the work is proportional to the output.
    cdef int k, c, half
    if limit >= 0 and len(out) > limit:
        return
    if left == 0:
        if pairs >= need:
            out.append(tuple(prefix))
        return
    if i == ntypes or cards_after[i] < left:
        return
    half = left // 2
    if pairs + (pairs_after[i] if pairs_after[i] < half else half) < need:
        return
    c = types[i]
    for k in range(min(hand[c], left), -1, -1):
        for _ in range(k):
            prefix.append(c)
        enumerate_multisets(out, prefix, types, ntypes, i + 1, hand, left - k,
                            pairs + (1 if k == 2 else 0), need, cards_after, pairs_after, limit)
        for _ in range(k):
            prefix.pop()


cdef list follows(const Table* t, const unsigned char* hand, const Lead* lead, long long limit):
    cdef int led[54]
    cdef int other[54]
    cdef int cards_after[55]
    cdef int pairs_after[55]
    cdef int nled = 0, nother = 0, held = 0, pairs_held = 0, c, need
    cdef list out = []
    cdef list fixed = []
    for c in range(NCARD):
        if not hand[c]:
            continue
        if t.cat[c] == lead.cat:
            led[nled] = c
            nled += 1
            held += hand[c]
            if hand[c] == 2:
                pairs_held += 1
        else:
            other[nother] = c
            nother += 1
    if held >= lead.n:
        need = lead.pairs if lead.pairs < pairs_held else pairs_held
        follow_suffix(led, nled, hand, cards_after, pairs_after)
        enumerate_multisets(out, [], led, nled, 0, hand, lead.n, 0, need, cards_after,
                            pairs_after, limit)
        return out
    for c in range(nled):
        for _ in range(hand[led[c]]):
            fixed.append(led[c])
    follow_suffix(other, nother, hand, cards_after, pairs_after)
    enumerate_multisets(out, fixed, other, nother, 0, hand, lead.n - held, 0, 0, cards_after,
                        pairs_after, limit)
    return out


cdef long long count_follows(const Table* t, const unsigned char* hand,
                             const Lead* lead) noexcept nogil:
    # The exact number of legal follows: a `tractor` lead's demands counted by the one counter.
    cdef Format f
    follow_demands(lead, &f)
    return classic_count_follows_c(t, hand, &f)


cdef struct Tally:
    # A follow prefix against a `tractor` lead: `size` cards, `outside` of them not of the led
    # suit; of the led suit's pairs in the hand (`pairs_held`, of `held` led-suit cards) those
    # in the prefix twice (`pairs_now`), once (`started`) or not at all (`fresh`).
    int size
    int held
    int pairs_held
    int outside
    int pairs_now
    int started
    int fresh


cdef inline void tally_prefix(const Table* t, const unsigned char* hand, const Lead* lead,
                              const unsigned char* prefix, Tally* k) noexcept nogil:
    cdef int c
    k.size = k.held = k.pairs_held = k.outside = k.pairs_now = k.started = k.fresh = 0
    for c in range(NCARD):
        k.size += prefix[c]
        if t.cat[c] == lead.cat:
            k.held += hand[c]
            if hand[c] == 2:
                k.pairs_held += 1
                if prefix[c] == 2:
                    k.pairs_now += 1
                elif prefix[c] == 1:
                    k.started += 1
                else:
                    k.fresh += 1
        else:
            k.outside += prefix[c]


cdef inline bint completable_from(const Lead* lead, int size, int held, int pairs_held,
                                  int outside, int pairs_now, int started, int fresh) noexcept nogil:
    # Whether a prefix of these tallies (see Tally) has a legal follow.
    cdef int left, from_singles, need
    if size > lead.n:
        return False
    if held < lead.n:
        # Void (or short): all led-suit cards go in, the rest may be anything.
        return outside <= lead.n - held
    if outside:
        return False
    need = lead.pairs if lead.pairs < pairs_held else pairs_held
    left = lead.n - size
    from_singles = started if started < left else left
    # Completing a started pair costs one card, a fresh pair two: cheapest first is optimal.
    return pairs_now + from_singles + min(fresh, (left - from_singles) // 2) >= need


cdef bint follow_completable(const Table* t, const unsigned char* hand, const Lead* lead,
                             const unsigned char* prefix) noexcept nogil:
    # Whether some legal follow contains `prefix` (a multiset already inside the hand).
    cdef Tally k
    tally_prefix(t, hand, lead, prefix, &k)
    return completable_from(lead, k.size, k.held, k.pairs_held, k.outside, k.pairs_now,
                            k.started, k.fresh)


cdef int follow_options_c(const Table* t, const unsigned char* hand, const Lead* lead,
                          unsigned char* prefix, unsigned char* out) noexcept nogil:
    # out[c] = 1 for the cards that extend `prefix` with a legal follow still reachable (0
    # elsewhere); returns how many, or -1 when `prefix` itself has none or is not inside the
    # hand. The prefix's tallies are taken once; each card changes them by one.
    cdef int c, n = 0, ok
    cdef Tally k
    for c in range(NCARD):
        out[c] = 0
        if prefix[c] > hand[c]:
            return -1
    tally_prefix(t, hand, lead, prefix, &k)
    if not completable_from(lead, k.size, k.held, k.pairs_held, k.outside, k.pairs_now,
                            k.started, k.fresh):
        return -1
    for c in range(NCARD):
        if prefix[c] >= hand[c]:
            continue
        if t.cat[c] != lead.cat:
            ok = completable_from(lead, k.size + 1, k.held, k.pairs_held, k.outside + 1,
                                  k.pairs_now, k.started, k.fresh)
        elif hand[c] != 2:
            ok = completable_from(lead, k.size + 1, k.held, k.pairs_held, k.outside,
                                  k.pairs_now, k.started, k.fresh)
        elif prefix[c] == 0:
            ok = completable_from(lead, k.size + 1, k.held, k.pairs_held, k.outside,
                                  k.pairs_now, k.started + 1, k.fresh - 1)
        else:
            ok = completable_from(lead, k.size + 1, k.held, k.pairs_held, k.outside,
                                  k.pairs_now + 1, k.started - 1, k.fresh)
        if ok:
            out[c] = 1
            n += 1
    return n


cdef int lead_options_c(const Table* t, const unsigned char* hand, const unsigned char* prefix,
                        unsigned char* out, int* complete) noexcept nogil:
    # The `tractor` lead's prefix question, over the leads `leads_of` lists (every single,
    # pair and tractor): out[c] = 1 for the cards some lead containing `prefix` still adds,
    # *complete = 1 when `prefix` is itself a lead. Returns how many cards, or -1 when no
    # lead contains `prefix`.
    cdef int c, d, k, e, j, n = 0, size = 0, types = 0, covered
    complete[0] = 0
    for c in range(NCARD):
        out[c] = 0
        if prefix[c] > hand[c]:
            return -1
        if prefix[c]:
            size += prefix[c]
            types += 1
    for c in range(NCARD):
        if not hand[c]:
            continue
        # The single c.
        if size == 0:
            out[c] = 1
        elif size == 1 and prefix[c] == 1:
            complete[0] = 1
        if hand[c] != 2:
            continue
        # The pair c and the tractors up from c: the run c, nxt[c], ... while held twice.
        covered = 0
        d = c
        k = 1
        while True:
            if prefix[d]:
                covered += 1
            if covered == types:
                e = c
                for j in range(k):
                    if prefix[e] < 2:
                        out[e] = 1
                    e = t.nxt[e]
                if size == 2 * k:
                    complete[0] = 1
            d = t.nxt[d]
            if d < 0 or hand[d] != 2:
                break
            k += 1
    for c in range(NCARD):
        n += out[c]
    if n == 0 and not complete[0]:
        return -1
    return n


cdef struct Walk:
    const Table* t
    const Format* f
    int types[NCARD]
    int ntypes
    unsigned char held[NCARD]
    unsigned char floor[NCARD]
    unsigned char part[NCARD]
    int cards_after[NCARD + 1]
    int pairs_after[NCARD + 1]
    int floor_after[NCARD + 1]
    int need_pairs
    int need_tractors
    int mode                  # WALK_COUNT, WALK_EXISTS or WALK_COLLECT
    long long found
    long long limit           # WALK_COLLECT stops once more than `limit` are found (-1: never)
    int* buf                  # WALK_COLLECT: f.n card ids per play found
    long long cap             # plays the buffer holds
    int failed                # out of memory


cdef enum:
    WALK_COUNT = 0
    WALK_EXISTS = 1
    WALK_COLLECT = 2


cdef void walk_setup(Walk* w, const Table* t, const Format* f, const unsigned char* hand,
                     const unsigned char* floor, int mode, long long limit) noexcept nogil:
    # The led suit's types (ascending ids), the suffix sums the cuts use, and what a part must
    # hold: min(lead pairs, pairs held) pairs and as many lead tractors as the held suit answers.
    cdef int c, i, pheld = 0
    w.t = t
    w.f = f
    w.ntypes = 0
    for c in range(NCARD):
        w.part[c] = 0
        if t.cat[c] == f.cat:
            w.held[c] = hand[c]
            w.floor[c] = floor[c] if floor != NULL else 0
            if hand[c]:
                w.types[w.ntypes] = c
                w.ntypes += 1
                if hand[c] == 2:
                    pheld += 1
        else:
            w.held[c] = 0
            w.floor[c] = 0
    w.cards_after[w.ntypes] = 0
    w.pairs_after[w.ntypes] = 0
    w.floor_after[w.ntypes] = 0
    for i in range(w.ntypes - 1, -1, -1):
        c = w.types[i]
        w.cards_after[i] = w.cards_after[i + 1] + hand[c]
        w.pairs_after[i] = w.pairs_after[i + 1] + (1 if hand[c] == 2 else 0)
        w.floor_after[i] = w.floor_after[i + 1] + w.floor[c]
    w.need_pairs = f.pairs if f.pairs < pheld else pheld
    w.need_tractors = tractors_matched_c(t, w.held, f.cat, f.tractors, f.ntractors)
    w.mode = mode
    w.found = 0
    w.limit = limit
    w.buf = NULL
    w.cap = 0
    w.failed = 0


cdef int walk_leaf(Walk* w) noexcept nogil:
    cdef int i, k, c, j = 0
    cdef int* grown
    if w.mode == WALK_EXISTS:
        w.found = 1
        return 1
    if w.mode == WALK_COLLECT:
        if w.found == w.cap:
            w.cap = 64 if w.cap == 0 else 2 * w.cap
            grown = <int*>realloc(w.buf, w.cap * (w.f.n if w.f.n > 0 else 1) * sizeof(int))
            if grown == NULL:
                w.failed = 1
                return 1
            w.buf = grown
        for i in range(w.ntypes):
            c = w.types[i]
            for k in range(w.part[c]):
                w.buf[w.found * w.f.n + j] = c
                j += 1
    w.found += 1
    return w.mode == WALK_COLLECT and w.limit >= 0 and w.found > w.limit


cdef int walk_c(Walk* w, int i, int left, int pairs) noexcept nogil:
    # Every led-suit part of `left` more cards from types[i:], above the floor, with the pairs
    # the follow needs (branches that cannot reach the size, the floor or the pairs are cut;
    # the tractor condition is checked on the parts that remain). Returns 1 to stop.
    cdef int c, k, kmax, half, room
    cdef unsigned char ub[NCARD]
    if left == 0:
        if w.floor_after[i] or pairs < w.need_pairs:
            return 0
        if w.need_tractors and tractors_matched_c(w.t, w.part, w.f.cat, w.f.tractors,
                                                  w.f.ntractors) < w.need_tractors:
            return 0
        return walk_leaf(w)
    if i == w.ntypes or w.cards_after[i] < left or w.floor_after[i] > left:
        return 0
    half = left // 2
    room = w.pairs_after[i] if w.pairs_after[i] < half else half
    if pairs + room < w.need_pairs:
        return 0
    if w.need_tractors and i > 0 and w.part[w.types[i - 1]] < 2:
        # Cut when even every card still choosable cannot answer the tractors required (a
        # completion is a subset of it, and answering tractors is monotone in the cards).
        memcpy(ub, w.part, NCARD)
        for k in range(i, w.ntypes):
            ub[w.types[k]] = w.held[w.types[k]]
        if tractors_matched_c(w.t, ub, w.f.cat, w.f.tractors, w.f.ntractors) < w.need_tractors:
            return 0
    c = w.types[i]
    kmax = w.held[c] if w.held[c] < left else left
    for k in range(kmax, w.floor[c] - 1, -1):
        w.part[c] = k
        if walk_c(w, i + 1, left - k, pairs + (1 if k == 2 else 0)):
            w.part[c] = 0
            return 1
    w.part[c] = 0
    return 0


cdef long long multisets_count_c(const int* types, int ntypes, const unsigned char* counts,
                                 int size, int need) noexcept nogil:
    # Multisets of `size` cards from `types` with at least `need` pairs (a DP over the types
    # with the pair count capped at `need`). Exact while the result fits 63 bits.
    cdef long long ways[110 * 56]
    cdef long long nxt[110 * 56]
    cdef int i, r, p, k, c, p2, w = need + 1
    if size < 0 or size > 108 or need > 54:
        return 0
    memset(ways, 0, (size + 1) * w * sizeof(long long))
    ways[0] = 1
    for i in range(ntypes):
        c = types[i]
        memset(nxt, 0, (size + 1) * w * sizeof(long long))
        for r in range(size + 1):
            for p in range(w):
                if not ways[r * w + p]:
                    continue
                for k in range(counts[c] + 1):
                    if r + k > size:
                        break
                    p2 = p + (1 if k == 2 else 0)
                    if p2 > need:
                        p2 = need
                    nxt[(r + k) * w + p2] += ways[r * w + p]
        memcpy(ways, nxt, (size + 1) * w * sizeof(long long))
    return ways[size * w + need]


cdef long long classic_count_follows_c(const Table* t, const unsigned char* hand,
                                       const Format* f) noexcept nogil:
    # The exact number of distinct legal follows, without listing them.
    cdef Walk w
    cdef int other[NCARD]
    cdef int c, nother = 0, held = 0
    for c in range(NCARD):
        if t.cat[c] == f.cat:
            held += hand[c]
        elif hand[c]:
            other[nother] = c
            nother += 1
    if held < f.n:
        return multisets_count_c(other, nother, hand, f.n - held, 0)
    walk_setup(&w, t, f, hand, NULL, WALK_COUNT, -1)
    if w.need_tractors == 0:
        return multisets_count_c(w.types, w.ntypes, hand, f.n, w.need_pairs)
    walk_c(&w, 0, f.n, 0)
    return w.found


cdef bint classic_follow_completable(const Table* t, const unsigned char* hand, const Format* f,
                                     const unsigned char* prefix) noexcept nogil:
    # Whether some legal follow contains `prefix`.
    cdef Walk w
    cdef int c, size = 0, held = 0, outside = 0
    for c in range(NCARD):
        if prefix[c] > hand[c]:
            return False
        size += prefix[c]
        if t.cat[c] == f.cat:
            held += hand[c]
        else:
            outside += prefix[c]
    if size > f.n:
        return False
    if held < f.n:
        return outside <= f.n - held
    if outside:
        return False
    walk_setup(&w, t, f, hand, prefix, WALK_EXISTS, -1)
    walk_c(&w, 0, f.n, 0)
    return w.found > 0


cdef int classic_follow_options_c(const Table* t, const unsigned char* hand, const Format* f,
                                  unsigned char* prefix, unsigned char* out) noexcept nogil:
    # out[c] = 1 for the cards that extend `prefix` with a legal follow still reachable (0
    # elsewhere); returns how many, or -1 when `prefix` itself has none. `prefix` is left as
    # it came.
    cdef int c, n = 0
    for c in range(NCARD):
        out[c] = 0
    if not classic_follow_completable(t, hand, f, prefix):
        return -1
    for c in range(NCARD):
        if prefix[c] < hand[c]:
            prefix[c] += 1
            if classic_follow_completable(t, hand, f, prefix):
                out[c] = 1
                n += 1
            prefix[c] -= 1
    return n


cdef long long classic_count_leads_c(const Table* t, const unsigned char* hand) noexcept nogil:
    # Every non-empty set of cards of one category is a lead (a unit or a throw).
    cdef long long total = 0, product
    cdef int cat, c
    for cat in range(5):
        product = 1
        for c in range(NCARD):
            if hand[c] and t.cat[c] == cat:
                product *= hand[c] + 1
        total += product - 1
    return total


cdef list classic_leads_of(const Table* t, const unsigned char* hand, long long limit):
    # Every non-empty set of one category's cards, by an odometer over its card types.
    cdef int types[NCARD]
    cdef int ks[NCARD]
    cdef int cat, c, n, i, j
    cdef list out = []
    for cat in range(5):
        n = 0
        for c in range(NCARD):
            if hand[c] and t.cat[c] == cat:
                types[n] = c
                ks[n] = 0
                n += 1
        if n == 0:
            continue
        while True:
            i = 0
            while i < n and ks[i] == hand[types[i]]:
                ks[i] = 0
                i += 1
            if i == n:
                break
            ks[i] += 1
            play = []
            for j in range(n):
                for _ in range(ks[j]):
                    play.append(types[j])
            out.append(tuple(play))
            if limit >= 0 and len(out) > limit:
                return out
    return out


cdef int multisets_into(list out, list prefix, int* types, int ntypes,
                        const unsigned char* hand, int left, long long limit) except -1:
    # `prefix` plus every multiset of `left` cards from `types`, each as a sorted id tuple
    # (the tractor ruleset's enumeration without a pair requirement).
    cdef int cards_after[NCARD + 1]
    cdef int pairs_after[NCARD + 1]
    cdef Py_ssize_t start = len(out)
    follow_suffix(types, ntypes, hand, cards_after, pairs_after)
    enumerate_multisets(out, prefix, types, ntypes, 0, hand, left, 0, 0, cards_after,
                        pairs_after, limit)
    out[start:] = [tuple(sorted(p)) for p in out[start:]]
    return 0


def legal_play_ids(int trump_rank, int trump_suit, const unsigned char[::1] hand, lead,
                   long long limit=-1):
    """Every distinct legal play as a tuple of card ids (lead None = the seat leads). With
    limit >= 0, stops once more than `limit` plays are found."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef Lead u
    build_table(&t, trump_rank, trump_suit)
    load(hand, h)
    if lead is None:
        return leads_of(&t, h)
    load(lead, l)
    if not classify(&t, l, &u):
        raise ValueError("the lead is not a single, a pair or a tractor")
    return follows(&t, h, &u, limit)


def count_legal_ids(int trump_rank, int trump_suit, const unsigned char[::1] hand, lead):
    """The exact number of distinct legal plays, counted without listing them."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef Lead u
    build_table(&t, trump_rank, trump_suit)
    load(hand, h)
    if lead is None:
        return len(leads_of(&t, h))
    load(lead, l)
    if not classify(&t, l, &u):
        raise ValueError("the lead is not a single, a pair or a tractor")
    return count_follows(&t, h, &u)


def follow_options(int trump_rank, int trump_suit, const unsigned char[::1] hand,
                   const unsigned char[::1] lead, const unsigned char[::1] prefix):
    """The card ids that extend `prefix` and still have a legal completion; None when `prefix`
    itself has none (or is not inside the hand)."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef unsigned char p[NCARD]
    cdef unsigned char ok[NCARD]
    cdef Lead u
    cdef int c
    build_table(&t, trump_rank, trump_suit)
    load(hand, h)
    load(lead, l)
    load(prefix, p)
    if not classify(&t, l, &u):
        raise ValueError("the lead is not a single, a pair or a tractor")
    if follow_options_c(&t, h, &u, p, ok) < 0:
        return None
    return [c for c in range(NCARD) if ok[c]]


def classic_legal_play_ids(int trump_rank, int trump_suit, const unsigned char[::1] hand, lead,
                           long long limit=-1):
    """Every distinct legal play as a tuple of card ids (lead None = the seat leads), built
    constructively. With limit >= 0, stops once more than `limit` plays are found."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef unsigned char fixed[NCARD]
    cdef Format f
    cdef Walk w
    cdef int other[NCARD]
    cdef int c, nother = 0, held = 0, i, j, n
    cdef long long k
    classic_setup(&t, trump_rank, trump_suit)
    load_hand(hand, h)
    if lead is None:
        return classic_leads_of(&t, h, limit)
    load_lead(&t, lead, l, &f)
    for c in range(NCARD):
        if t.cat[c] == f.cat:
            held += h[c]
            fixed[c] = h[c]
        else:
            fixed[c] = 0
            if h[c]:
                other[nother] = c
                nother += 1
    if held >= f.n:
        walk_setup(&w, &t, &f, h, NULL, WALK_COLLECT, limit)
        with nogil:
            walk_c(&w, 0, f.n, 0)
        try:
            if w.failed:
                raise MemoryError()
            n = f.n
            return [tuple(w.buf[k * n + i] for i in range(n)) for k in range(w.found)]
        finally:
            free(w.buf)
    # Short of the led suit: all of it, plus any multiset of the other cards.
    base = [c for c in range(NCARD) for _ in range(fixed[c])]
    out = []
    multisets_into(out, base, other, nother, h, f.n - held, limit)
    return out


def classic_count_legal(int trump_rank, int trump_suit, const unsigned char[::1] hand, lead):
    """The exact number of distinct legal plays, counted without listing them."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef Format f
    classic_setup(&t, trump_rank, trump_suit)
    load_hand(hand, h)
    if lead is None:
        return classic_count_leads_c(&t, h)
    load_lead(&t, lead, l, &f)
    return classic_count_follows_c(&t, h, &f)


def multiset_ids(const unsigned char[::1] hand, int size, long long limit=-1):
    """Every multiset of `size` cards of a count vector (a `classic` burial), as id tuples."""
    cdef unsigned char h[NCARD]
    cdef int types[NCARD]
    cdef int c, n = 0
    load_hand(hand, h)
    for c in range(NCARD):
        if h[c]:
            types[n] = c
            n += 1
    out = []
    multisets_into(out, [], types, n, h, size, limit)
    return out


def count_multiset_ids(const unsigned char[::1] hand, int size):
    """How many multisets of `size` cards a count vector holds."""
    cdef unsigned char h[NCARD]
    cdef int types[NCARD]
    cdef int c, n = 0
    load_hand(hand, h)
    for c in range(NCARD):
        if h[c]:
            types[n] = c
            n += 1
    return multisets_count_c(types, n, h, size, 0)


def classic_follow_options(int trump_rank, int trump_suit, const unsigned char[::1] hand,
                           const unsigned char[::1] lead, const unsigned char[::1] prefix):
    """The card ids that extend `prefix` with a legal follow still reachable; None when
    `prefix` itself has none (or is not inside the hand)."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef unsigned char p[NCARD]
    cdef unsigned char ok[NCARD]
    cdef Format f
    cdef int c, n
    classic_setup(&t, trump_rank, trump_suit)
    load_hand(hand, h)
    load(prefix, p)
    load_lead(&t, lead, l, &f)
    with nogil:
        n = classic_follow_options_c(&t, h, &f, p, ok)
    if n < 0:
        return None
    return [c for c in range(NCARD) if ok[c]]


def classic_lead_options(int trump_rank, int trump_suit, const unsigned char[::1] hand,
                         const unsigned char[::1] prefix):
    """(card ids that extend the lead prefix, whether END may close it); None when no lead
    contains `prefix`. A lead is any non-empty set of one suit's cards."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char p[NCARD]
    cdef int c, cat, n = 0
    classic_setup(&t, trump_rank, trump_suit)
    load_hand(hand, h)
    load(prefix, p)
    for c in range(NCARD):
        if p[c] > h[c]:
            return None
        n += p[c]
    cat = single_cat(&t, p)
    if cat == -1:
        return None
    options = [c for c in range(NCARD) if h[c] > p[c] and (n == 0 or t.cat[c] == cat)]
    return options, bool(options) and n > 0
