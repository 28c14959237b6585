# cython: language_level=3
"""The native core of the Shengji referee, both rulesets: card order, units, legal leads and
follows, trick winner, the native random round loops and the world sampler.

Everything here works on count vectors (see `_referee.pxd`); the Python package turns card
strings into count vectors and back. The rules are those of docs/rules-shengji.md: the first
part is ruleset `tractor` (`build_table`), the second ruleset `classic` (`build_classic_table`
and the `classic_*` functions); `trick_winner_c` serves both, by the table's `classic` flag.
"""
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, realloc, free

# Error codes of a play, mapped to messages by the Python package.
cdef enum:
    OK = 0
    WRONG_COUNT = 1
    NOT_IN_HAND = 2
    MUST_FOLLOW_SUIT = 3
    MUST_PLAY_PAIRS = 4
    NOT_A_UNIT = 5
    MUST_PLAY_TRACTORS = 6
    MIXED_SUITS = 7


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
    t.classic = 0
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
    for c in range(54):
        t.level[c] = t.strength[c]


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
    if t.classic:
        return classic_trick_winner_c(t, plays, nplays)
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


cdef inline int settle_trick(const Table* t, unsigned char* hands, const unsigned char* plays,
                             int leader, unsigned char* seen, int* points) noexcept nogil:
    # Takes a finished trick's four plays (in play order from `leader`) out of the hands, adds
    # them to `seen` (unless NULL), sets `points` to the card points on the table and returns
    # the winning seat. Every round loop (rollouts, checked rounds, `classic`) settles this way.
    cdef int i, c, seat, total = 0
    for i in range(4):
        seat = (leader + i) & 3
        for c in range(NCARD):
            if plays[i * NCARD + c]:
                hands[seat * NCARD + c] -= plays[i * NCARD + c]
                if seen != NULL:
                    seen[c] += plays[i * NCARD + c]
                total += plays[i * NCARD + c] * t.points[c]
    points[0] = total
    return (leader + trick_winner_c(t, plays, 4)) & 3


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
        winner = settle_trick(t, hands, plays, leader, NULL, &points)
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
            return multisets_count_c(led, nled, hand, lead.n, need)
        follow_suffix(led, nled, hand, cards_after, pairs_after)
        enumerate_multisets(out, [], led, nled, 0, hand, lead.n, 0, need, cards_after,
                            pairs_after, limit)
        return out
    if count_only:
        return multisets_count_c(other, nother, hand, lead.n - held, 0)
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
        winner = settle_trick(t, hands, plays, leader, seen, &points)
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


# =============================================================================================
# Ruleset `classic`: card levels with trump tractors and no-trump rounds, unit decomposition,
# throws and their failure, format-matching follows, the trick winner, the kitty multiplier,
# constructive enumeration and exact counting of legal plays, the factored decision, and a
# native random round loop. The semantics are those of docs/rules-shengji.md (`classic`);
# tests/shengji_classic_reference.py keeps the former pure-Python rules as the test oracle.
#
# Card levels: a plain suit is its ranks without the trump rank, numbered 0..11 (the gap left by
# the trump rank joins its neighbours); trumps are the trump suit's other ranks 0..11, the
# off-suit trump-rank cards 12 (equal), the on-suit trump-rank card 13, SJ 14, BJ 15; with no
# trump suit the four trump-rank cards are all 13. Pairs on consecutive levels of one category
# form tractors.

cdef enum:
    OFF_RANK = 12
    ON_RANK = 13
    THROW_PENALTY = 10


cdef void build_classic_table(Table* t, int trump_rank, int trump_suit) noexcept nogil:
    cdef int c, s, r, cat, lvl
    t.trump_rank = trump_rank
    t.trump_suit = trump_suit
    t.classic = 1
    memset(t.lvl_n, 0, sizeof(t.lvl_n))
    for c in range(52):
        s = c // 13
        r = c % 13
        t.points[c] = 5 if r == 3 else (10 if r == 8 or r == 11 else 0)
        if r == trump_rank:
            t.cat[c] = TRUMP
            t.level[c] = ON_RANK if (s == trump_suit or trump_suit < 0) else OFF_RANK
        else:
            t.cat[c] = TRUMP if s == trump_suit else s
            t.level[c] = r if r < trump_rank else r - 1
    for c in range(52, 54):
        t.points[c] = 0
        t.cat[c] = TRUMP
        t.level[c] = 14 if c == SMALL_JOKER else 15
    for c in range(NCARD):
        t.nxt[c] = -1
        t.strength[c] = t.level[c]
        cat = t.cat[c]
        lvl = t.level[c]
        t.lvl_cards[cat][lvl][t.lvl_n[cat][lvl]] = c
        t.lvl_n[cat][lvl] += 1


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
    cdef int cat, k, nr, lvl, c, nu = 0, nc = 0, i, j, u, tmp
    memcpy(rest, v, NCARD)
    for cat in range(5):
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
    cdef int c, u
    decompose_c(t, lead, f)
    f.n = 0
    for c in range(NCARD):
        f.n += lead[c]
    f.cat = single_cat(t, lead)
    f.pairs = 0
    f.ntractors = 0
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


cdef int tractors_matched_c(const Table* t, const unsigned char* v, int cat, const int* wanted,
                            int nw) noexcept nogil:
    # How many of the lead's tractors (pairs each) disjoint tractors of `v` (cards of `cat`)
    # can answer, each by a tractor of exactly its length cut from one run (best assignment).
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef int room[16]
    cdef int assign[27]
    cdef int nr, k, nroom = 0
    if nw == 0 or cat < 0:
        return 0
    nr = runs_c(t, v, cat, rstart, rlen, reps)
    for k in range(nr):
        if rlen[k] >= 2:
            room[nroom] = rlen[k]
            nroom += 1
    if nroom == 0:
        return 0
    return match_rec(wanted, nw, 0, room, nroom, 0, -1, assign, NULL)


cdef inline int pairs_in(const unsigned char* v) noexcept nogil:
    cdef int c, n = 0
    for c in range(NCARD):
        if v[c] == 2:
            n += 1
    return n


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
    cdef int cat = single_cat(t, play), shape = f.upairs[0], top = -1, c, k, nr
    if cat == f.cat:
        decompose_c(t, play, &g)
        if f.nunits > 1 or g.nunits != 1 or g.upairs[0] != shape:
            return -1
        return g.utop[0]
    if cat != TRUMP:
        return -1
    if pairs_in(play) < f.pairs or (f.ntractors and tractors_matched_c(
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
    # Whether `other` holds, in the lead's suit, a higher unit of the same shape as unit u.
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef unsigned char held[NCARD]
    cdef int c, k, nr, pairs = f.upairs[u], top = f.utop[u]
    if pairs < 2:
        for c in range(NCARD):
            if t.cat[c] == f.cat and t.level[c] > top and (
                    other[c] == 2 if pairs == 1 else other[c] > 0):
                return 1
        return 0
    for c in range(NCARD):
        held[c] = other[c] if t.cat[c] == f.cat else 0
    nr = runs_c(t, held, f.cat, rstart, rlen, reps)
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


# --- legal follows: a constructive walk over the led suit's card types ------------------------

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


# --- the native random `classic` round ----------------------------------------------------------

cdef int classic_random_lead(const Table* t, const unsigned char* hand,
                             unsigned long long* rng, unsigned char* out) noexcept nogil:
    # A random lead: a random card, grown into a pair and a tractor up the levels with
    # probability 1/2 a step, then (probability 1/4 a card) more cards of its suit: a throw,
    # which may fail against the other hands.
    cdef int cards[108]
    cdef int c, d, i, n = 0, m, cat, lvl, found
    memset(out, 0, NCARD)
    for c in range(NCARD):
        for i in range(hand[c]):
            cards[n] = c
            n += 1
    if n == 0:
        return 0
    c = cards[below(rng, n)]
    cat = t.cat[c]
    out[c] = 1
    m = 1
    if hand[c] == 2 and below(rng, 2):
        out[c] = 2
        m = 2
        lvl = t.level[c]
        while lvl < 15 and below(rng, 2):
            lvl += 1
            found = -1
            for i in range(t.lvl_n[cat][lvl]):
                d = t.lvl_cards[cat][lvl][i]
                if hand[d] == 2:
                    found = d
            if found < 0:
                break
            out[found] = 2
            m += 2
    while below(rng, 4) == 0:
        n = 0
        for d in range(NCARD):
            if t.cat[d] == cat:
                for i in range(hand[d] - out[d]):
                    cards[n] = d
                    n += 1
        if n == 0:
            break
        out[cards[below(rng, n)]] += 1
        m += 1
    return m


cdef void random_fill(const unsigned char* hand, unsigned char* out, int want, int cat,
                      const Table* t, unsigned long long* rng) noexcept nogil:
    # Adds `want` random cards of the hand not yet in `out`: of category `cat`, or of any other
    # category when cat < 0 (-1 - cat is then the category to avoid).
    cdef int cards[108]
    cdef int c, i, j, tmp, n = 0
    for c in range(NCARD):
        if (t.cat[c] == cat) if cat >= 0 else (t.cat[c] != -1 - cat):
            for i in range(hand[c] - out[c]):
                cards[n] = c
                n += 1
    for i in range(want):
        j = i + below(rng, n - i)
        tmp = cards[i]; cards[i] = cards[j]; cards[j] = tmp
        out[cards[i]] += 1


cdef int classic_random_follow(const Table* t, const unsigned char* hand, const Format* f,
                               unsigned long long* rng, unsigned char* out) noexcept nogil:
    # A legal follow built directly, never by listing: short of the led suit, all of it plus
    # random other cards; otherwise the lead's tractors the suit can answer (an optimal
    # assignment, each cut from the bottom of its run), random pairs up to the pairs required,
    # then random cards of the suit.
    cdef unsigned char held[NCARD]
    cdef int reps[16]
    cdef int rstart[16]
    cdef int rlen[16]
    cdef int room[16]
    cdef int runof[16]
    cdef int used[16]
    cdef int assign[27]
    cdef int best_assign[27]
    cdef int pairs_list[NCARD]
    cdef int c, i, j, k, nr, nroom = 0, nheld = 0, pheld = 0, need, have = 0, taken = 0, np = 0
    cdef int tmp, lvl
    memset(out, 0, NCARD)
    for c in range(NCARD):
        held[c] = hand[c] if t.cat[c] == f.cat else 0
        nheld += held[c]
        if held[c] == 2:
            pheld += 1
    if nheld <= f.n:
        memcpy(out, held, NCARD)
        random_fill(hand, out, f.n - nheld, -1 - f.cat, t, rng)
        return f.n
    if f.ntractors:
        nr = runs_c(t, held, f.cat, rstart, rlen, reps)
        for k in range(nr):
            if rlen[k] >= 2:
                room[nroom] = rlen[k]
                runof[nroom] = k
                used[nroom] = 0
                nroom += 1
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
                    have += 1
                    taken += 2
                used[j] += f.tractors[i]
    need = f.pairs if f.pairs < pheld else pheld
    if have < need:
        for c in range(NCARD):
            if held[c] == 2 and out[c] == 0:
                pairs_list[np] = c
                np += 1
        for i in range(need - have):
            j = i + below(rng, np - i)
            tmp = pairs_list[i]; pairs_list[i] = pairs_list[j]; pairs_list[j] = tmp
            out[pairs_list[i]] = 2
            taken += 2
    random_fill(hand, out, f.n - taken, f.cat, t, rng)
    return f.n


cdef void deal_classic_c(unsigned char* hands, unsigned char* kitty, int dealer,
                         unsigned long long* rng) noexcept nogil:
    # 25 cards a seat and 8 for the kitty from a shuffled double deck.
    cdef int deck[108]
    cdef int i, j, tmp
    for i in range(108):
        deck[i] = i >> 1
    for i in range(107, 0, -1):
        j = below(rng, i + 1)
        tmp = deck[i]; deck[i] = deck[j]; deck[j] = tmp
    memset(hands, 0, 4 * NCARD)
    memset(kitty, 0, NCARD)
    for i in range(100):
        hands[((dealer + i) & 3) * NCARD + deck[i]] += 1
    for i in range(100, 108):
        kitty[deck[i]] += 1


cdef int classic_round_c(const Table* t, unsigned char* hands, unsigned char* kitty, int dealer,
                         unsigned long long* rng, int check, int* stats,
                         unsigned char* log) noexcept nogil:
    # One random `classic` round from the deal (`hands` 25 each, `kitty` 8; both consumed): the
    # dealer takes the kitty and buries 8 random cards, then random play with throws that may
    # fail (penalty 10 points a card taken back), the kitty multiplied when the attackers win
    # the last trick. Returns the attackers' score, or with `check` a negative code when an
    # invariant breaks: -1 an illegal random play, -2 no legal follow, -3 cards not conserved,
    # -4 points not conserved, -5 hands not empty or a card not played twice.
    # stats: [throws, failed throws, kitty bonus, penalty] added to. With `log` (not NULL):
    # the hands after the burial (4 x 54), then every move as a count vector (the attempted
    # throw for a lead), 100 moves at most.
    cdef unsigned char plays[4 * NCARD]
    cdef unsigned char attempt[NCARD]
    cdef unsigned char others[3 * NCARD]
    cdef unsigned char seen[NCARD]
    cdef Format f
    cdef int i, c, s, seat, leader = dealer, declarers = dealer & 1, winner = dealer, left
    cdef int points, attackers = 0, defenders = 0, penalty = 0, bonus = 0, taken, total, n
    cdef int kitty_points = 0
    # The burial: the dealer holds 33 cards and puts back 8 at random.
    for c in range(NCARD):
        hands[dealer * NCARD + c] += kitty[c]
    memset(kitty, 0, NCARD)
    random_fill(hands + dealer * NCARD, kitty, 8, -1 - 5, t, rng)
    for c in range(NCARD):
        hands[dealer * NCARD + c] -= kitty[c]
        kitty_points += kitty[c] * t.points[c]
    memset(seen, 0, NCARD)
    if log != NULL:
        memcpy(log, hands, 4 * NCARD)
        log += 4 * NCARD
    left = 25
    while left > 0:
        classic_random_lead(t, hands + leader * NCARD, rng, attempt)
        if log != NULL:
            memcpy(log, attempt, NCARD)
            log += NCARD
        if check and classic_lead_error(t, hands + leader * NCARD, attempt) != OK:
            return -1
        lead_format_c(t, attempt, &f)
        if f.nunits > 1:
            stats[0] += 1
            for i in range(3):
                memcpy(others + i * NCARD, hands + ((leader + 1 + i) & 3) * NCARD, NCARD)
            taken = throw_check_c(t, attempt, &f, others, 3, plays)
            if taken:
                stats[1] += 1
                penalty += (THROW_PENALTY if (leader & 1) == declarers else -THROW_PENALTY) * taken
                lead_format_c(t, plays, &f)
        else:
            memcpy(plays, attempt, NCARD)
        for i in range(1, 4):
            seat = (leader + i) & 3
            if check and classic_count_follows_c(t, hands + seat * NCARD, &f) < 1:
                return -2
            classic_random_follow(t, hands + seat * NCARD, &f, rng, plays + i * NCARD)
            if log != NULL:
                memcpy(log, plays + i * NCARD, NCARD)
                log += NCARD
            if check and classic_follow_error(t, hands + seat * NCARD, &f,
                                              plays + i * NCARD) != OK:
                return -1
        winner = settle_trick(t, hands, plays, leader, seen, &points)
        if (winner & 1) != declarers:
            attackers += points
        else:
            defenders += points
        leader = winner
        left -= f.n
        if check:
            total = 0
            n = 0
            for c in range(4 * NCARD):
                total += hands[c]
                n += hands[c] * t.points[c % NCARD]
            for c in range(NCARD):
                total += seen[c] + kitty[c]
            if total != 108:
                return -3
            if attackers + defenders + n + kitty_points != 200:
                return -4
            for s in range(4):
                total = 0
                for c in range(NCARD):
                    total += hands[s * NCARD + c]
                if total != left:
                    return -3
    if check:
        for c in range(NCARD):
            if seen[c] + kitty[c] != 2:
                return -5
    if (winner & 1) != declarers:
        bonus = kitty_points * kitty_multiplier_c(&f)
    stats[2] += bonus
    stats[3] += penalty
    total = attackers + bonus + penalty
    return total if total > 0 else 0


# --- Python-facing `classic` functions (count vectors in, card ids out) ------------------------

cdef inline void classic_setup(Table* t, int trump_rank, int trump_suit):
    if not (0 <= trump_rank < 13 and -1 <= trump_suit < 4):
        raise ValueError("trump rank 0..12 and trump suit -1..3")
    build_classic_table(t, trump_rank, trump_suit)


cdef inline int load_hand(const unsigned char[::1] src, unsigned char* dst) except -1:
    cdef int c, n = 0
    load(src, dst)
    for c in range(NCARD):
        n += dst[c]
    if n > 60:
        raise ValueError("a hand holds at most 60 cards here")
    return n


cdef int load_lead(const Table* t, const unsigned char[::1] src, unsigned char* dst,
                   Format* f) except -1:
    load(src, dst)
    lead_format_c(t, dst, f)
    if f.n == 0 or f.cat < 0:
        raise ValueError("the lead is not one or more cards of one suit")
    return 0


def classic_table(int trump_rank, int trump_suit):
    """(cat, level, points) per card id of the `classic` card order for this trump
    (suit -1 = no trump)."""
    cdef Table t
    classic_setup(&t, trump_rank, trump_suit)
    return ([t.cat[c] for c in range(NCARD)], [t.level[c] for c in range(NCARD)],
            [t.points[c] for c in range(NCARD)])


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
    cdef Format f
    cdef int c
    cdef int ok[NCARD]
    classic_setup(&t, trump_rank, trump_suit)
    load_hand(hand, h)
    load(prefix, p)
    load_lead(&t, lead, l, &f)
    with nogil:
        if not classic_follow_completable(&t, h, &f, p):
            ok[0] = -1
        else:
            for c in range(NCARD):
                ok[c] = 0
                if p[c] < h[c]:
                    p[c] += 1
                    ok[c] = classic_follow_completable(&t, h, &f, p)
                    p[c] -= 1
    if ok[0] == -1:
        return None
    return [c for c in range(NCARD) if ok[c] == 1]


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


def classic_simulate(long long rounds, unsigned long long seed, bint check=False,
                     bint stats=False):
    """Plays `rounds` random `classic` rounds natively: deal 25 each and an 8-card kitty, trump
    rank and suit drawn per round (no trump one round in five; declarations skipped), a random
    dealer who buries 8 random cards, random leads including throws that may fail (penalty),
    random legal follows, the kitty multiplied on the last trick. Returns the attackers' scores
    (with stats, also {throws, failed_throws, kitty_bonus, penalty} summed). With check, every
    play is verified against the rules and the invariants (cards and points conserved, a legal
    follow exists, hands empty at the end), raising AssertionError on a violation."""
    cdef unsigned long long rng = seed
    cdef unsigned char hands[4 * NCARD]
    cdef unsigned char kitty[NCARD]
    cdef Table t
    cdef long long r
    cdef int score, dealer
    cdef int st[4]
    cdef int* scores = <int*>malloc((rounds if rounds > 0 else 1) * sizeof(int))
    if scores == NULL:
        raise MemoryError()
    memset(st, 0, sizeof(st))
    try:
        with nogil:
            for r in range(rounds):
                build_classic_table(&t, below(&rng, 13), below(&rng, 5) - 1)
                dealer = below(&rng, 4)
                deal_classic_c(hands, kitty, dealer, &rng)
                score = classic_round_c(&t, hands, kitty, dealer, &rng, check, st, NULL)
                scores[r] = score
                if score < 0:
                    break
        out = []
        for r in range(rounds):
            if scores[r] < 0:
                raise AssertionError(
                    f"classic round {r}: " + {-1: "a random play is illegal",
                                              -2: "no legal follow exists",
                                              -3: "cards not conserved",
                                              -4: "points not conserved",
                                              -5: "a hand not empty or a card not played twice"}
                    [scores[r]])
            out.append(scores[r])
    finally:
        free(scores)
    if stats:
        return out, {"throws": st[0], "failed_throws": st[1], "kitty_bonus": st[2],
                     "penalty": st[3]}
    return out


def classic_recorded_round(unsigned long long seed):
    """One native random `classic` round with its record, to replay elsewhere: (trump rank, trump
    suit, dealer, the four hands after the burial as count-vector bytes, the buried kitty, the
    moves in order as card-id tuples (a lead as attempted), the attackers' score, the penalty)."""
    cdef unsigned long long rng = seed
    cdef unsigned char hands[4 * NCARD]
    cdef unsigned char kitty[NCARD]
    cdef unsigned char log[104 * NCARD]
    cdef Table t
    cdef int st[4]
    cdef int rank, suit, dealer, score, i, c, moves = 0
    memset(st, 0, sizeof(st))
    memset(log, 0, sizeof(log))
    rank = below(&rng, 13)
    suit = below(&rng, 5) - 1
    build_classic_table(&t, rank, suit)
    dealer = below(&rng, 4)
    deal_classic_c(hands, kitty, dealer, &rng)
    score = classic_round_c(&t, hands, kitty, dealer, &rng, 1, st, log)
    if score < 0:
        raise AssertionError(f"recorded classic round: invariant code {score}")
    start = [bytes(log[s * NCARD:(s + 1) * NCARD]) for s in range(4)]
    out = []
    for i in range(4, 104):
        play = tuple(c for c in range(NCARD) for _ in range(log[i * NCARD + c]))
        if not play:
            break
        out.append(play)
    return rank, suit, dealer, start, bytes(kitty[:NCARD]), out, score, st[3]
