# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The native half of the Dou Dizhu PIMC teacher: world sampling, the native rule rollout
policy and the search loop, all on the referee's C API (`_referee.pxd`).

`search` is the whole decision: it samples worlds consistent with the seat's view, forces
each candidate move in every world (the same worlds for every move: common random numbers),
plays each world to the end with the rollout policy and returns the seat's mean final payoff
per move. `pimc.py` turns an observation into the arguments and back.

The rule rollout policy (`rule_policy`) is a native port of the main heuristics of
`games/doudizhu/rule.py` `DouDizhuRuleBot` (level normal), made cheap enough to run at every move of
thousands of rollouts. How it differs from the Python bot:
- its hand cost has no chain search: it counts the groups left by rank (bombs and the
  rocket as control, trios carrying the worst loose singles/pairs as kickers, pairs,
  singles) with the bot's per-rank costs, so a chain is valued only by the cards it sheds;
- inside a rollout it knows the (sampled) hands, so "nothing unseen is higher" and "an
  opponent on one or two cards" read the true hands of the world it plays out.
Leading: the move whose rest is cheapest (low and long moves break ties), no low single into
an opponent's last card, no low pair into its last two, the farmer before its one-card
partner feeds it its lowest single. Following: pass keeps the hand's cost, a move pays the
rest's cost plus a small bonus for taking the lead; a farmer never overtakes its partner;
facing an opponent on one or two cards it beats with its highest option, bombs included;
bombs are kept unless the rest then plays out fast. Any move that empties the hand is played.
"""
from libc.stdint cimport uint64_t, int32_t, uint8_t
from libc.stdlib cimport malloc, free

from openlandlord.games.doudizhu._referee cimport (
    PlayState, policy_fn, apply_action, rollout, random_policy, payoff,
    action_packed, action_type, action_rank, action_cards, holds, packed_count, splitmix64,
    MAX_LEGAL, T_BOMB, T_ROCKET)

cdef enum:
    TWO = 12
    BLACK = 13
    RED = 14
    ROLLOUT_RANDOM = 0
    ROLLOUT_RULE = 1

ROLLOUTS = {"random": ROLLOUT_RANDOM, "rule": ROLLOUT_RULE}

# What one single / pair costs to get rid of, by rank (the Python bot's table): low cards
# are the burden, a 2 or a joker takes its own trick.
cdef double SINGLE_COST[15]
cdef double PAIR_COST[15]
_single = (1.0,) * 8 + (0.95, 0.9, 0.8, 0.6, 0.3, 0.2, 0.1)
_pair = (1.0,) * 8 + (0.9, 0.85, 0.75, 0.5, 0.25, 0.0, 0.0)
for _r in range(15):
    SINGLE_COST[_r] = _single[_r]
    PAIR_COST[_r] = _pair[_r]

# A full deck, packed: four of each rank 3..2, one of each joker.
cdef uint64_t FULL_DECK = 0
for _r in range(13):
    FULL_DECK += (<uint64_t>4) << (4 * _r)
FULL_DECK += (<uint64_t>1) << (4 * BLACK)
FULL_DECK += (<uint64_t>1) << (4 * RED)


cdef inline int count_of(uint64_t packed, int r) noexcept nogil:
    return <int>((packed >> (4 * r)) & 0xF)


cdef double hand_cost(uint64_t hand) noexcept nogil:
    # About one per turn the cards need, less for control (see the module docstring). Ranks
    # are scanned low to high, so the loose burdens come roughly most expensive first and the
    # trios take the first of them as kickers.
    cdef double cost = 0.0, c
    cdef int r, n, slots = 0, absorbed = 0
    cdef double loose[15]
    cdef int nloose = 0
    if hand == 0:
        return -2.0
    for r in range(13):
        n = count_of(hand, r)
        if n == 4:
            cost -= 0.5
        elif n == 3:
            cost += 0.5 if r == TWO else 1.0
            slots += 1
        elif n == 2:
            loose[nloose] = PAIR_COST[r]
            nloose += 1
        elif n == 1:
            loose[nloose] = SINGLE_COST[r]
            nloose += 1
    if count_of(hand, BLACK) and count_of(hand, RED):
        cost -= 0.7
    else:
        if count_of(hand, BLACK):
            loose[nloose] = SINGLE_COST[BLACK]
            nloose += 1
        if count_of(hand, RED):
            loose[nloose] = SINGLE_COST[RED]
            nloose += 1
    for n in range(nloose):
        c = loose[n]
        if absorbed < slots and c >= 0.5:
            absorbed += 1
        else:
            cost += c
    return cost


cdef inline int top_rank(uint64_t packed, int copies) noexcept nogil:
    # The highest rank held at least `copies` times, -1 if none.
    cdef int r
    for r in range(14, -1, -1):
        if count_of(packed, r) >= copies:
            return r
    return -1


cdef struct Position:
    # What the rule policy reads off a position once, before scoring its moves.
    uint64_t hand
    int n_hand
    int danger              # fewest cards an opponent holds
    int top_single          # highest rank an opponent may hold, -1 if none
    int top_pair
    double base             # the hand's cost: what passing keeps
    bint leading
    bint threat             # following an opponent who is on one or two cards
    bint partner_winning
    bint feed_partner       # a farmer leading just before its one-card partner


cdef void read_position(const PlayState* s, uint64_t foes, Position* p) noexcept nogil:
    cdef int seat = s.turn, lord = s.landlord, partner, down = (s.turn + 1) % 3
    cdef int up = (s.turn + 2) % 3
    if seat == lord:
        partner = -1
        p.danger = s.n_cards[down] if s.n_cards[down] < s.n_cards[up] else s.n_cards[up]
    else:
        partner = 3 - seat - lord
        p.danger = s.n_cards[lord]
    p.hand = s.hand[seat]
    p.n_hand = s.n_cards[seat]
    p.top_single = top_rank(foes, 1)
    p.top_pair = top_rank(foes, 2)
    p.base = hand_cost(p.hand)
    p.leading = s.to_beat == 0
    p.threat = not p.leading and s.to_beat_seat != partner and p.danger <= 2
    p.partner_winning = not p.leading and s.to_beat_seat == partner
    p.feed_partner = p.leading and partner == down and s.n_cards[partner] == 1


cdef double move_score(const Position* p, int a) noexcept nogil:
    # The rule policy's preference for move `a` (higher is better; see the module docstring).
    cdef int size, t, main
    cdef double rest_cost, score
    cdef bint bomb
    if a == 0:
        return -p.base
    size = action_cards(a)
    if size == p.n_hand:
        return 100.0
    t = action_type(a)
    main = action_rank(a)
    rest_cost = hand_cost(p.hand - action_packed(a))
    score = -rest_cost
    bomb = t == T_BOMB or t == T_ROCKET
    if p.leading:
        score += 0.005 * size - 0.01 * main
        if size == 1:
            if p.danger == 1 and main < p.top_single:
                score -= 3.0
            if p.feed_partner:
                score += 5.0 - 0.1 * main
            elif p.danger == 1:
                score += 0.05 * main
        elif size == 2 and count_of(action_packed(a), main) == 2 and p.danger == 2 \
                and main < p.top_pair:
            score -= 2.0
        if bomb and rest_cost > 1.0:
            score -= 1.0
    else:
        score += 0.3
        if p.threat:
            score += 4.0 + 0.1 * main
        else:
            if bomb and rest_cost > 1.0:
                score -= 2.0
            if main >= TWO and size <= 2 and p.n_hand > 6 and p.danger > 4:
                score -= 0.4
        if p.partner_winning:
            score -= 3.0
    return score


cdef int rule_policy(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil:
    # Inside a world every hand is known: the opponents' cards are their true hands.
    cdef Position p
    cdef uint64_t foes
    cdef int j, best = 0
    cdef double score, best_score = -1e300
    if s.turn == s.landlord:
        foes = s.hand[(s.turn + 1) % 3] + s.hand[(s.turn + 2) % 3]
    else:
        foes = s.hand[s.landlord]
    read_position(s, foes, &p)
    for j in range(n):
        score = move_score(&p, moves[j])
        if score >= 100.0:
            return j
        if score > best_score:
            best_score = score
            best = j
    return best


cdef int policy_random(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil:
    return random_policy(s, moves, n, ctx)


cdef void fill_state(PlayState* s, uint64_t hand, int seat, int landlord, object cards_left,
                     object plays, int to_beat, int to_beat_seat, int bombs, int rockets,
                     int base_stake, object seat_factor):
    cdef int i
    for i in range(3):
        s.hand[i] = 0
        s.n_cards[i] = cards_left[i]
        s.plays[i] = plays[i]
        s.seat_factor[i] = seat_factor[i]
    s.hand[seat] = hand
    s.turn = seat
    s.landlord = landlord
    s.to_beat = to_beat
    s.to_beat_seat = to_beat_seat
    s.winner = -1
    s.bombs = bombs
    s.rockets = rockets
    s.base_stake = base_stake


def rule_scores(uint64_t hand, int seat, int landlord, cards_left, int to_beat,
                int to_beat_seat, uint64_t unseen, moves):
    """The rule policy's score of each move (action ids) from the seat's own view, where an
    opponent may hold any unseen card: the order in which the teacher picks candidates when
    there are too many moves to search them all."""
    cdef PlayState s
    cdef Position p
    fill_state(&s, hand, seat, landlord, cards_left, (0, 0, 0), to_beat, to_beat_seat, 0, 0,
               1, (1, 1, 1))
    read_position(&s, unseen, &p)
    return [move_score(&p, a) for a in moves]


cdef int deal_world(PlayState* s, int seat, int landlord, uint64_t loose, int n_loose,
                    uint64_t lord_keeps, uint64_t* rng, uint8_t* cards) noexcept nogil:
    # Deals the `loose` unseen cards (rank counts) to the two hidden seats with their exact
    # hand sizes, after the landlord's `lord_keeps` (kitty cards it has not played). Unseen
    # cards beyond the hidden places (a drawn position with partial hands) stay out of play,
    # a uniform choice per world. Returns 0, or -1 when there are too few unseen cards.
    cdef int i, j, r, k, n = 0, first = (seat + 1) % 3, second = (seat + 2) % 3, need
    cdef int need_second
    cdef uint8_t tmp
    for r in range(15):
        for k in range(count_of(loose, r)):
            cards[n] = r
            n += 1
    if n != n_loose:
        return -1
    for i in range(n - 1, 0, -1):
        j = <int>(splitmix64(rng) % <uint64_t>(i + 1))
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    s.hand[first] = lord_keeps if first == landlord else 0
    s.hand[second] = lord_keeps if second == landlord else 0
    need = s.n_cards[first] - packed_count(s.hand[first])
    need_second = s.n_cards[second] - packed_count(s.hand[second])
    if need < 0 or need_second < 0 or need + need_second > n:
        return -1
    for i in range(need + need_second):
        s.hand[first if i < need else second] += (<uint64_t>1) << (4 * cards[i])
    return 0


def search(uint64_t hand, int seat, int landlord, cards_left, plays, int to_beat,
           int to_beat_seat, int bombs, int rockets, int base_stake, seat_factor,
           uint64_t unseen, uint64_t lord_keeps, moves, int skip, int worlds,
           str rollout_policy, unsigned long long seed):
    """Mean final payoff of `seat` for each move (action ids) over worlds skip .. skip +
    worlds - 1 of the sequence `seed` draws, every move in every world (common random
    numbers), each world played out natively. A world and the random rollout of a move in
    it depend only on (seed, world index, move), not on which other moves are searched.

    `unseen` is every card the seat has not seen (its hand and all plays excluded);
    `lord_keeps` the kitty cards the landlord has not played (0 when the seat is the
    landlord), which stay in the landlord's hand in every world. The rest of the unseen cards
    go uniformly to the two hidden seats with their hand sizes (in a drawn position with
    partial hands, the unseen cards beyond those places stay out of play). Raises ValueError
    when there are too few unseen cards for the hidden hands."""
    cdef PlayState root, s
    cdef int n = len(moves), w, k, n_loose
    cdef uint64_t rng = seed, rollout_rng
    cdef uint64_t loose
    cdef uint8_t cards[54]
    cdef int32_t* buf
    cdef int32_t* ids
    cdef double* total
    cdef policy_fn policy
    cdef int kind
    if rollout_policy not in ROLLOUTS:
        raise ValueError(f"unknown rollout policy {rollout_policy!r}")
    kind = ROLLOUTS[rollout_policy]
    policy = rule_policy if kind == ROLLOUT_RULE else policy_random
    if not holds(unseen, lord_keeps):
        raise ValueError("the landlord's kept kitty cards are not among the unseen cards")
    loose = unseen - lord_keeps
    n_loose = packed_count(loose)
    fill_state(&root, hand, seat, landlord, cards_left, plays, to_beat, to_beat_seat, bombs,
               rockets, base_stake, seat_factor)
    buf = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
    ids = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    total = <double*>malloc((n + 1) * sizeof(double))
    if buf == NULL or ids == NULL or total == NULL:
        free(buf)
        free(ids)
        free(total)
        raise MemoryError()
    try:
        for k in range(n):
            ids[k] = moves[k]
            total[k] = 0.0
        with nogil:
            for w in range(skip + worlds):
                if deal_world(&root, seat, landlord, loose, n_loose, lord_keeps, &rng, cards):
                    break
                if w < skip:
                    continue
                for k in range(n):
                    s = root
                    apply_action(&s, ids[k])
                    rollout_rng = seed ^ (<uint64_t>w * 0xA24BAED4963EE407ULL) \
                        ^ (<uint64_t>ids[k] * 0x9FB21C651E98DF25ULL)
                    rollout(&s, policy, &rollout_rng, buf)
                    total[k] += payoff(&s, seat)
            else:
                w = skip + worlds
        if w < skip + worlds:
            raise ValueError("too few unseen cards for the hidden seats' hand sizes")
        return [total[k] / worlds for k in range(n)]
    finally:
        free(buf)
        free(ids)
        free(total)


def sample_worlds(uint64_t unseen, uint64_t lord_keeps, int seat, int landlord, cards_left,
                  int count, unsigned long long seed):
    """The hidden hands (packed, seats in order) of the first `count` worlds `search` would
    play from the same seed and counts: for checking the sampler."""
    cdef PlayState s
    cdef uint64_t rng = seed
    cdef uint8_t cards[54]
    cdef int i
    fill_state(&s, 0, seat, landlord, cards_left, (0, 0, 0), 0, -1, 0, 0, 1, (1, 1, 1))
    out = []
    for i in range(count):
        if deal_world(&s, seat, landlord, unseen - lord_keeps,
                      packed_count(unseen - lord_keeps), lord_keeps, &rng, cards):
            raise ValueError("too few unseen cards for the hidden seats' hand sizes")
        out.append(tuple(s.hand[j] for j in range(3)))
    return out
