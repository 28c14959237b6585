# cython: language_level=3
"""The native core of the Shengji referee: card order, units, legal leads and follows, trick
winner, the native random round loop and the world sampler.

Everything here works on count vectors (see `_referee.pxd`); the Python package turns card
strings into count vectors and back. The rules are those of the `tractor` ruleset as written
in docs/rules-shengji.md.
"""
from libc.string cimport memset, memcpy

# Error codes of a play, mapped to messages by the Python package.
cdef enum:
    OK = 0
    WRONG_COUNT = 1
    NOT_IN_HAND = 2
    MUST_FOLLOW_SUIT = 3
    MUST_PLAY_PAIRS = 4
    NOT_A_UNIT = 5


cdef inline unsigned long long next_random(unsigned long long* state) noexcept nogil:
    # splitmix64: fast, seedable, good enough for dealing and random play.
    cdef unsigned long long z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int below(unsigned long long* state, int n) noexcept nogil:
    # A uniform integer in [0, n) (multiply-shift: no modulo bias worth noticing for n < 200).
    return <int>(((next_random(state) >> 32) * <unsigned long long>n) >> 32)


cdef void build_table(Table* t, int trump_rank, int trump_suit) noexcept nogil:
    cdef int c, suit, rank
    t.trump_rank = trump_rank
    t.trump_suit = trump_suit
    for c in range(52):
        suit = c // 13
        rank = c % 13
        t.points[c] = 5 if rank == 3 else (10 if rank == 8 or rank == 11 else 0)
        if rank == trump_rank:
            t.cat[c] = TRUMP
            t.strength[c] = 21 if suit == trump_suit else 20
        elif suit == trump_suit:
            t.cat[c] = TRUMP
            t.strength[c] = rank
        else:
            t.cat[c] = suit
            t.strength[c] = rank
    for c in range(52, 54):
        t.points[c] = 0
        t.cat[c] = TRUMP
        t.strength[c] = 22 if c == SMALL_JOKER else 23
    for c in range(54):
        t.nxt[c] = -1
    # Tractors only in plain suits; the gap left by the trump rank does not join its neighbours.
    for c in range(52):
        rank = c % 13
        if t.cat[c] != TRUMP and rank < 12 and rank + 1 != trump_rank:
            t.nxt[c] = c + 1


cdef int classify(const Table* t, const unsigned char* play, Lead* out) noexcept nogil:
    cdef int c, n = 0, first = -1, types = 0, lowest = -1, cat = -1, k
    for c in range(NCARD):
        if play[c]:
            n += play[c]
            types += 1
            if first < 0:
                first = c
    out.kind = 0
    out.n = n
    out.pairs = 0
    if n == 0:
        return 0
    out.cat = t.cat[first]
    if n == 1:
        out.kind = 1
        out.low = t.strength[first]
        return 1
    if n == 2 and types == 1:
        out.kind = 2
        out.pairs = 1
        out.low = t.strength[first]
        return 2
    if n % 2 or t.cat[first] == TRUMP:
        return 0
    # A tractor: every card twice, one plain suit, a chain through `nxt` from the lowest.
    k = n // 2
    for c in range(NCARD):
        if play[c] and play[c] != 2:
            return 0
    lowest = first
    c = lowest
    for _ in range(k - 1):
        c = t.nxt[c]
        if c < 0 or play[c] != 2:
            return 0
    out.kind = 3
    out.pairs = k
    out.low = t.strength[lowest]
    return 3


cdef int follow_error(const Table* t, const unsigned char* hand, const Lead* lead,
                      const unsigned char* play) noexcept nogil:
    cdef int c, n = 0, held = 0, played = 0, pairs_held = 0, pairs_played = 0, need
    for c in range(NCARD):
        if play[c] > hand[c]:
            return NOT_IN_HAND
        n += play[c]
        if t.cat[c] == lead.cat:
            held += hand[c]
            played += play[c]
            if hand[c] == 2:
                pairs_held += 1
            if play[c] == 2:
                pairs_played += 1
    if n != lead.n:
        return WRONG_COUNT
    if played < (held if held < n else n):
        return MUST_FOLLOW_SUIT
    need = lead.pairs if lead.pairs < pairs_held else pairs_held
    if pairs_played < need:
        return MUST_PLAY_PAIRS
    return OK


cdef inline int play_key(const Table* t, const Lead* lead, const unsigned char* play) noexcept nogil:
    # How strongly a play answers the lead: -1 when it cannot win; higher wins; ties go to the
    # earlier play. Trumps rank above every plain card.
    cdef Lead u
    cdef int kind = classify(t, play, &u)
    if lead.kind == 3:
        if kind != 3 or u.cat != lead.cat or u.pairs != lead.pairs:
            return -1
        return u.low
    if kind != lead.kind:
        return -1
    if u.cat == TRUMP:
        return 100 + u.low
    if u.cat == lead.cat:
        return u.low
    return -1


cdef int trick_winner_c(const Table* t, const unsigned char* plays, int nplays) noexcept nogil:
    cdef Lead lead
    cdef int i, key, best = 0, best_key
    classify(t, plays, &lead)
    best_key = play_key(t, &lead, plays)
    for i in range(1, nplays):
        key = play_key(t, &lead, plays + i * NCARD)
        if key > best_key:
            best_key = key
            best = i
    return best


cdef int random_policy(void* ctx, const Table* t, const unsigned char* hand, const Lead* lead,
                       unsigned long long* rng, unsigned char* out) noexcept nogil:
    # A legal play built directly, never by listing: a random unit when leading; when
    # following, the pairs the rules require, then random cards of the led suit, then (void)
    # random cards from elsewhere.
    cdef int cards[27]
    cdef int pair_types[27]
    cdef int c, n = 0, m = 0, np = 0, i, j, tmp, need
    memset(out, 0, NCARD)
    if lead == NULL:
        for c in range(NCARD):
            for _ in range(hand[c]):
                cards[n] = c
                n += 1
        c = cards[below(rng, n)]
        out[c] = 1
        if hand[c] == 2 and below(rng, 2):
            out[c] = 2
            m = 2
            while t.nxt[c] >= 0 and hand[t.nxt[c]] == 2 and below(rng, 2):
                c = t.nxt[c]
                out[c] = 2
                m += 2
            return m
        return 1
    for c in range(NCARD):
        if t.cat[c] == lead.cat:
            for _ in range(hand[c]):
                cards[m] = c
                m += 1
            if hand[c] == 2:
                pair_types[np] = c
                np += 1
    if m <= lead.n:
        for i in range(m):
            out[cards[i]] += 1
        n = 0
        for c in range(NCARD):
            if t.cat[c] != lead.cat:
                for _ in range(hand[c]):
                    cards[n] = c
                    n += 1
        for i in range(lead.n - m):
            j = i + below(rng, n - i)
            tmp = cards[i]; cards[i] = cards[j]; cards[j] = tmp
            out[cards[i]] += 1
        return lead.n
    need = lead.pairs if lead.pairs < np else np
    for i in range(need):
        j = i + below(rng, np - i)
        tmp = pair_types[i]; pair_types[i] = pair_types[j]; pair_types[j] = tmp
        out[pair_types[i]] = 2
    # The rest from the led-suit cards not yet taken.
    n = 0
    for c in range(NCARD):
        if t.cat[c] == lead.cat:
            for _ in range(hand[c] - out[c]):
                cards[n] = c
                n += 1
    for i in range(lead.n - 2 * need):
        j = i + below(rng, n - i)
        tmp = cards[i]; cards[i] = cards[j]; cards[j] = tmp
        out[cards[i]] += 1
    return lead.n


cdef void deal_c(unsigned char* hands, unsigned long long* rng) noexcept nogil:
    cdef int deck[108]
    cdef int i, j, tmp
    for i in range(108):
        deck[i] = i >> 1
    for i in range(107, 0, -1):
        j = below(rng, i + 1)
        tmp = deck[i]; deck[i] = deck[j]; deck[j] = tmp
    memset(hands, 0, 4 * NCARD)
    for i in range(108):
        hands[(i // 27) * NCARD + deck[i]] += 1


cdef int play_round_c(const Table* t, unsigned char* hands, int leader, int declarers,
                      Policy policy, void* ctx, unsigned long long* rng) noexcept nogil:
    # Plays one round to the end from `hands` (consumed) and returns the attacker points.
    cdef unsigned char plays[4 * NCARD]
    cdef Lead lead
    cdef int i, c, seat, winner, points, attacker_points = 0
    cdef int left = 0
    # Every hand holds the same number of cards, so the leader's count says when it is over.
    for c in range(NCARD):
        left += hands[leader * NCARD + c]
    while left > 0:
        left -= policy(ctx, t, hands + leader * NCARD, NULL, rng, plays)
        classify(t, plays, &lead)
        for i in range(1, 4):
            seat = (leader + i) & 3
            policy(ctx, t, hands + seat * NCARD, &lead, rng, plays + i * NCARD)
        points = 0
        for i in range(4):
            seat = (leader + i) & 3
            for c in range(NCARD):
                if plays[i * NCARD + c]:
                    hands[seat * NCARD + c] -= plays[i * NCARD + c]
                    points += plays[i * NCARD + c] * t.points[c]
        winner = (leader + trick_winner_c(t, plays, 4)) & 3
        if (winner & 1) != declarers:
            attacker_points += points
        leader = winner
    return attacker_points


cdef inline int hall_ok(const int* remaining, const int* cap) noexcept nogil:
    # Hall's condition for three seats: the cards that can only go to a set of seats fit in
    # those seats' free places. remaining[mask] = cards whose allowed seats are `mask`.
    cdef int s, m, need, room
    for s in range(1, 8):
        need = 0
        for m in range(1, 8):
            if (m & s) == m:
                need += remaining[m]
        room = (cap[0] if s & 1 else 0) + (cap[1] if s & 2 else 0) + (cap[2] if s & 4 else 0)
        if need > room:
            return 0
    return 1


cdef int sample_world_c(const Table* t, const unsigned char* unseen, const int* sizes,
                        const int* void_masks, unsigned long long* rng,
                        unsigned char* out) noexcept nogil:
    # Deals the unseen cards to three hidden seats with the given hand sizes, never giving a
    # seat a card of a suit it has shown void in (void_masks: bit cat set = void). Cards with a
    # restricted set of seats are placed first, one by one, each to a seat drawn in proportion
    # to its free places among those that keep the rest dealable (Hall's condition); the free
    # cards are then shuffled into the places left. Without voids this is a uniform deal.
    # Returns 0, or -1 when no deal is consistent.
    cdef int free_cards[108]
    cdef int tight[108]
    cdef int tight_mask[108]
    cdef int remaining[8]
    cdef int cap[3]
    cdef int nfree = 0, ntight = 0, c, k, s, i, j, tmp, mask, total = 0, w, pick
    cdef int weights[3]
    memset(remaining, 0, sizeof(remaining))
    memset(out, 0, 3 * NCARD)
    for s in range(3):
        cap[s] = sizes[s]
        total -= sizes[s]
    for c in range(NCARD):
        if not unseen[c]:
            continue
        mask = 0
        for s in range(3):
            if not (void_masks[s] >> t.cat[c]) & 1:
                mask |= 1 << s
        for k in range(unseen[c]):
            total += 1
            if mask == 7:
                free_cards[nfree] = c
                nfree += 1
            else:
                tight[ntight] = c
                tight_mask[ntight] = mask
                ntight += 1
                remaining[mask] += 1
    remaining[7] = nfree
    if total != 0 or remaining[0] or not hall_ok(remaining, cap):
        return -1
    for i in range(ntight):
        j = i + below(rng, ntight - i)
        tmp = tight[i]; tight[i] = tight[j]; tight[j] = tmp
        tmp = tight_mask[i]; tight_mask[i] = tight_mask[j]; tight_mask[j] = tmp
    for i in range(ntight):
        mask = tight_mask[i]
        remaining[mask] -= 1
        w = 0
        for s in range(3):
            weights[s] = 0
            if (mask >> s) & 1 and cap[s] > 0:
                cap[s] -= 1
                if hall_ok(remaining, cap):
                    weights[s] = cap[s] + 1
                cap[s] += 1
            w += weights[s]
        pick = below(rng, w)
        for s in range(3):
            if pick < weights[s]:
                break
            pick -= weights[s]
        cap[s] -= 1
        out[s * NCARD + tight[i]] += 1
    for i in range(nfree):
        j = i + below(rng, nfree - i)
        tmp = free_cards[i]; free_cards[i] = free_cards[j]; free_cards[j] = tmp
    k = 0
    for s in range(3):
        for i in range(cap[s]):
            out[s * NCARD + free_cards[k]] += 1
            k += 1
    return 0


# ---------------------------------------------------------------------------------------------
# Python-facing functions. Hands, leads and plays are count vectors (bytes or uint8 arrays of
# length 54); plays come back as tuples of card ids.

cdef inline void load(const unsigned char[::1] src, unsigned char* dst):
    if src.shape[0] != NCARD:
        raise ValueError("a count vector has 54 entries")
    memcpy(dst, &src[0], NCARD)


def card_order(int trump_rank, int trump_suit):
    """(cat, strength, points) per card id for this trump: the table the Python side sorts by."""
    cdef Table t
    build_table(&t, trump_rank, trump_suit)
    return ([t.cat[c] for c in range(NCARD)], [t.strength[c] for c in range(NCARD)],
            [t.points[c] for c in range(NCARD)])


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


cdef long long count_multisets(int* types, int ntypes, const unsigned char* hand, int size,
                               int need):
    # Multisets of `size` cards from `types` with at least `need` pairs: a DP over types with
    # the pair count capped at `need`.
    cdef long long ways[28][28]
    cdef long long nxt[28][28]
    cdef int i, r, p, k, c, p2
    memset(ways, 0, sizeof(ways))
    ways[0][0] = 1
    for i in range(ntypes):
        c = types[i]
        memset(nxt, 0, sizeof(nxt))
        for r in range(size + 1):
            for p in range(need + 1):
                if not ways[r][p]:
                    continue
                for k in range(hand[c] + 1):
                    if r + k > size:
                        break
                    p2 = p + (1 if k == 2 else 0)
                    if p2 > need:
                        p2 = need
                    nxt[r + k][p2] += ways[r][p]
        memcpy(ways, nxt, sizeof(ways))
    return ways[size][need]


cdef object follows(const Table* t, const unsigned char* hand, const Lead* lead, bint count_only,
                    long long limit):
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
        if count_only:
            return count_multisets(led, nled, hand, lead.n, need)
        follow_suffix(led, nled, hand, cards_after, pairs_after)
        enumerate_multisets(out, [], led, nled, 0, hand, lead.n, 0, need, cards_after,
                            pairs_after, limit)
        return out
    if count_only:
        return count_multisets(other, nother, hand, lead.n - held, 0)
    for c in range(nled):
        for _ in range(hand[led[c]]):
            fixed.append(led[c])
    follow_suffix(other, nother, hand, cards_after, pairs_after)
    enumerate_multisets(out, fixed, other, nother, 0, hand, lead.n - held, 0, 0, cards_after,
                        pairs_after, limit)
    return out


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
    return follows(&t, h, &u, False, limit)


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
    return follows(&t, h, &u, True, -1)


cdef bint follow_completable(const Table* t, const unsigned char* hand, const Lead* lead,
                             const unsigned char* prefix):
    # Whether some legal follow contains `prefix` (a multiset already inside the hand).
    cdef int c, size = 0, held = 0, pairs_held = 0, outside = 0, pairs_now = 0
    cdef int completable = 0, fresh = 0, left, from_singles, need
    for c in range(NCARD):
        size += prefix[c]
        if t.cat[c] == lead.cat:
            held += hand[c]
            if hand[c] == 2:
                pairs_held += 1
                if prefix[c] == 2:
                    pairs_now += 1
                elif prefix[c] == 1:
                    completable += 1
                else:
                    fresh += 1
        else:
            outside += prefix[c]
    if size > lead.n:
        return False
    if held < lead.n:
        # Void (or short): all led-suit cards go in, the rest may be anything.
        return outside <= lead.n - held
    if outside:
        return False
    need = lead.pairs if lead.pairs < pairs_held else pairs_held
    left = lead.n - size
    from_singles = completable if completable < left else left
    # Completing a started pair costs one card, a fresh pair two: cheapest first is optimal.
    return pairs_now + from_singles + min(fresh, (left - from_singles) // 2) >= need


def follow_options(int trump_rank, int trump_suit, const unsigned char[::1] hand,
                   const unsigned char[::1] lead, const unsigned char[::1] prefix):
    """The card ids that extend `prefix` and still have a legal completion; None when `prefix`
    itself has none (or is not inside the hand)."""
    cdef Table t
    cdef unsigned char h[NCARD]
    cdef unsigned char l[NCARD]
    cdef unsigned char p[NCARD]
    cdef Lead u
    cdef int c
    build_table(&t, trump_rank, trump_suit)
    load(hand, h)
    load(lead, l)
    load(prefix, p)
    if not classify(&t, l, &u):
        raise ValueError("the lead is not a single, a pair or a tractor")
    for c in range(NCARD):
        if p[c] > h[c]:
            return None
    if not follow_completable(&t, h, &u, p):
        return None
    out = []
    for c in range(NCARD):
        if p[c] < h[c]:
            p[c] += 1
            if follow_completable(&t, h, &u, p):
                out.append(c)
            p[c] -= 1
    return out


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


def simulate(long long rounds, unsigned long long seed, int trump_rank=-1, int trump_suit=-2,
             bint check=False):
    """Plays `rounds` random rounds natively (trump rank and suit drawn per round when not
    given). Returns the list of attacker points. With check, every play is verified against
    the rules and the conservation invariants, raising AssertionError on a violation."""
    cdef unsigned long long rng = seed
    cdef unsigned char hands[4 * NCARD]
    cdef Table t
    cdef long long r
    cdef int points, declarers, leader
    out = []
    for r in range(rounds):
        build_table(&t, trump_rank if trump_rank >= 0 else below(&rng, 13),
                    trump_suit if trump_suit >= -1 else below(&rng, 4))
        deal_c(hands, &rng)
        leader = below(&rng, 4)
        declarers = leader & 1
        if check:
            points = checked_round(&t, hands, leader, declarers, &rng)
        else:
            points = play_round_c(&t, hands, leader, declarers, random_policy, NULL, &rng)
        out.append(points)
    return out


cdef int checked_round(const Table* t, unsigned char* hands, int leader, int declarers,
                       unsigned long long* rng) except -1:
    # The native loop again, with every invariant of the rules page asserted along the way.
    cdef unsigned char plays[4 * NCARD]
    cdef unsigned char seen[NCARD]
    cdef Lead lead, u
    cdef int i, c, seat, winner, points, attacker_points = 0, defender_points = 0
    cdef int in_hands, n, left = 27
    memset(seen, 0, NCARD)
    while left > 0:
        left -= random_policy(NULL, t, hands + leader * NCARD, NULL, rng, plays)
        if not classify(t, plays, &lead):
            raise AssertionError("random lead is not a unit")
        for i in range(1, 4):
            seat = (leader + i) & 3
            if count_follows(t, hands + seat * NCARD, &lead) < 1:
                raise AssertionError("no legal follow exists")
            random_policy(NULL, t, hands + seat * NCARD, &lead, rng, plays + i * NCARD)
            if follow_error(t, hands + seat * NCARD, &lead, plays + i * NCARD) != OK:
                raise AssertionError("random follow is illegal")
        points = 0
        for i in range(4):
            seat = (leader + i) & 3
            for c in range(NCARD):
                hands[seat * NCARD + c] -= plays[i * NCARD + c]
                seen[c] += plays[i * NCARD + c]
                points += plays[i * NCARD + c] * t.points[c]
        winner = (leader + trick_winner_c(t, plays, 4)) & 3
        if (winner & 1) != declarers:
            attacker_points += points
        else:
            defender_points += points
        leader = winner
        in_hands = 0
        n = 0
        for c in range(4 * NCARD):
            in_hands += hands[c]
            n += hands[c] * t.points[c % NCARD]
        for c in range(NCARD):
            in_hands += seen[c]
        if in_hands != 108:
            raise AssertionError("cards not conserved")
        if attacker_points + defender_points + n != 200:
            raise AssertionError("points not conserved")
    for c in range(4 * NCARD):
        if hands[c]:
            raise AssertionError("a hand is not empty at the end")
    for c in range(NCARD):
        if seen[c] != 2:
            raise AssertionError("a card was not played exactly twice")
    return attacker_points


cdef long long count_follows(const Table* t, const unsigned char* hand, const Lead* lead):
    return follows(t, hand, lead, True, -1)


def sample_worlds(int trump_rank, int trump_suit, const unsigned char[::1] unseen, sizes,
                  void_masks, int count, unsigned long long seed):
    """`count` deals of the unseen cards to the three hidden seats (sizes, void bit masks over
    cats 0..4), as a list of three count-vector bytes per world. Raises ValueError when no
    deal is consistent."""
    cdef Table t
    cdef unsigned char u[NCARD]
    cdef unsigned char out[3 * NCARD]
    cdef int sz[3]
    cdef int vm[3]
    cdef unsigned long long rng = seed
    cdef int i, s
    build_table(&t, trump_rank, trump_suit)
    load(unseen, u)
    for s in range(3):
        sz[s] = sizes[s]
        vm[s] = void_masks[s]
    worlds = []
    for i in range(count):
        if sample_world_c(&t, u, sz, vm, &rng, out) != 0:
            raise ValueError("no deal of the unseen cards fits the hand sizes and known voids")
        worlds.append([bytes(out[s * NCARD:(s + 1) * NCARD]) for s in range(3)])
    return worlds


def bench_worlds(int trump_rank, int trump_suit, const unsigned char[::1] unseen, sizes,
                 void_masks, long long count, unsigned long long seed):
    """Samples `count` worlds natively without returning them (for the benchmark)."""
    cdef Table t
    cdef unsigned char u[NCARD]
    cdef unsigned char out[3 * NCARD]
    cdef int sz[3]
    cdef int vm[3]
    cdef unsigned long long rng = seed
    cdef long long i
    cdef int s, bad = 0
    build_table(&t, trump_rank, trump_suit)
    load(unseen, u)
    for s in range(3):
        sz[s] = sizes[s]
        vm[s] = void_masks[s]
    with nogil:
        for i in range(count):
            bad += sample_world_c(&t, u, sz, vm, &rng, out)
    if bad:
        raise ValueError("no deal of the unseen cards fits the hand sizes and known voids")
    return count
