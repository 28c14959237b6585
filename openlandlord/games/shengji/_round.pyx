# cython: language_level=3
"""Whole Shengji rounds, natively: the deals (27 a seat for `tractor`; 25 a seat and an
8-card kitty for `classic`), the random policies (a legal play built directly, never by
listing), the round loops of both rulesets (with `check`, every rule and invariant asserted
on the way), a recorded `classic` round to replay elsewhere, and the world sampler of the
PIMC teacher (unseen cards dealt to the hidden seats under known voids).
"""
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, free

from openlandlord.games.shengji._cards cimport (
    NCARD, Table, below, build_table, build_classic_table, load)
from openlandlord.games.shengji._trick cimport (
    OK, Lead, Format, classify, follow_error, trick_winner_c, lead_format_c,
    classic_lead_error, classic_follow_error, kitty_multiplier_c, throw_check_c, place_tractors)
from openlandlord.games.shengji._legal cimport count_follows, classic_count_follows_c

cdef enum:
    THROW_PENALTY = 10        # points a card of a failed throw taken back


cdef void shuffle_deck(int* deck, unsigned long long* rng) noexcept nogil:
    # The double deck (108 card ids) in a uniformly random order; both rulesets deal from it.
    cdef int i, j, tmp
    for i in range(108):
        deck[i] = i >> 1
    for i in range(107, 0, -1):
        j = below(rng, i + 1)
        tmp = deck[i]; deck[i] = deck[j]; deck[j] = tmp


cdef void deal_c(unsigned char* hands, unsigned long long* rng) noexcept nogil:
    # 27 cards a seat, in blocks of the shuffled deck.
    cdef int deck[108]
    cdef int i
    shuffle_deck(deck, rng)
    memset(hands, 0, 4 * NCARD)
    for i in range(108):
        hands[(i // 27) * NCARD + deck[i]] += 1


cdef void deal_classic_c(unsigned char* hands, unsigned char* kitty, int dealer,
                         unsigned long long* rng) noexcept nogil:
    # 25 cards a seat and 8 for the kitty from a shuffled double deck.
    cdef int deck[108]
    cdef int i
    shuffle_deck(deck, rng)
    memset(hands, 0, 4 * NCARD)
    memset(kitty, 0, NCARD)
    for i in range(100):
        hands[((dealer + i) & 3) * NCARD + deck[i]] += 1
    for i in range(100, 108):
        kitty[deck[i]] += 1


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


cdef int conservation_error(const Table* t, const unsigned char* hands, const unsigned char* seen,
                            const unsigned char* kitty, int scored) noexcept nogil:
    # The invariants every checked round asserts after a trick, both rulesets: the 108 cards
    # are in the hands, the played cards `seen` or the kitty (NULL when there is none), and the
    # 200 card points are in the hands or `scored` (taken in tricks, the buried kitty's
    # included). 0, -3 when cards are not conserved, -4 when points are not.
    cdef int c, cards = 0, points = scored
    for c in range(4 * NCARD):
        cards += hands[c]
        points += hands[c] * t.points[c % NCARD]
    for c in range(NCARD):
        cards += seen[c] + (kitty[c] if kitty != NULL else 0)
    if cards != 108:
        return -3
    if points != 200:
        return -4
    return 0


cdef int checked_round(const Table* t, unsigned char* hands, int leader, int declarers,
                       unsigned long long* rng) except -1:
    # The native loop again, with every invariant of the rules page asserted along the way.
    cdef unsigned char plays[4 * NCARD]
    cdef unsigned char seen[NCARD]
    cdef Lead lead, u
    cdef int i, c, seat, winner, points, attacker_points = 0, defender_points = 0
    cdef int err, left = 27
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
        err = conservation_error(t, hands, seen, NULL, attacker_points + defender_points)
        if err == -3:
            raise AssertionError("cards not conserved")
        if err == -4:
            raise AssertionError("points not conserved")
    for c in range(4 * NCARD):
        if hands[c]:
            raise AssertionError("a hand is not empty at the end")
    for c in range(NCARD):
        if seen[c] != 2:
            raise AssertionError("a card was not played exactly twice")
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
    cdef int pairs_list[NCARD]
    cdef int c, i, j, nheld = 0, pheld = 0, need, have, taken, np = 0
    cdef int tmp
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
    have = place_tractors(t, held, f, out)
    taken = 2 * have
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
    cdef int points, attackers = 0, defenders = 0, penalty = 0, bonus = 0, taken, total
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
            total = conservation_error(t, hands, seen, kitty, attackers + defenders + kitty_points)
            if total:
                return total
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
