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
from libc.math cimport log

from openlandlord.games.doudizhu._referee cimport (
    PlayState, policy_fn, apply_action, rollout, random_policy, payoff,
    action_packed, action_type, action_rank, action_cards, holds, packed_count, splitmix64,
    MAX_LEGAL, T_BOMB, T_ROCKET, Bidding, bid_init, bid_legal, bid_apply, bid_start_play,
    init_play_state, landlord_takes_kitty, ST_POINTS, ST_CALL, ST_DOUBLE, W_PASS, W_BID1, W_CALL,
    W_ROB, W_DOUBLE,
    W_NODOUBLE, EV_NONE, EV_VOID, EV_LANDLORD, EV_LANDLORD_PLAY, EV_PLAY, legal_actions)
from openlandlord.games.doudizhu._solve cimport Solver, solver_init, solver_free, solve_state, \
    solved_payoff

cdef enum:
    ACE = 11
    TWO = 12
    BLACK = 13
    RED = 14
    ROLLOUT_RANDOM = 0
    ROLLOUT_RULE = 1

ROLLOUTS = {"random": ROLLOUT_RANDOM, "rule": ROLLOUT_RULE}

# `solve=K`: the nodes one exact solve of a world may visit before that world is rolled out
# instead (docs/solve.md: what a solve costs by cards left), and the solver's table size.
SOLVE_BUDGET = 200000
SOLVE_TABLE_BITS = 18

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


cdef int deal_weighted(PlayState* s, int seat, int landlord, uint64_t loose, int n_loose,
                       uint64_t lord_keeps, uint64_t* rng, uint8_t* cards, const double* lw,
                       int draws) noexcept nogil:
    # One world: `deal_world`'s, or with log-weights `lw` (15 ranks x 5 x 5: the rank's count
    # in the first hidden seat, in the second) `draws` of them, one kept with probability
    # proportional to exp(its weight) (the Gumbel-max trick). Returns deal_world's status.
    # Each draw rewrites the two hidden hands whole, so they are drawn in place.
    cdef uint64_t best_first = 0, best_second = 0, bits
    cdef int j, r, first = (seat + 1) % 3, second = (seat + 2) % 3
    cdef double score, best = -1e300, u
    if lw == NULL or draws <= 1:
        return deal_world(s, seat, landlord, loose, n_loose, lord_keeps, rng, cards)
    for j in range(draws):
        if deal_world(s, seat, landlord, loose, n_loose, lord_keeps, rng, cards):
            return -1
        score = 0.0
        for r in range(15):
            score += lw[r * 25 + count_of(s.hand[first], r) * 5 + count_of(s.hand[second], r)]
        bits = splitmix64(rng) >> 11
        u = (<double>bits + 0.5) * (1.0 / 9007199254740992.0)
        score -= log(-log(u))
        if score > best:
            best, best_first, best_second = score, s.hand[first], s.hand[second]
    s.hand[first] = best_first
    s.hand[second] = best_second
    return 0


cdef const double* load_belief(object belief, double* lw) except *:
    # A belief as 15 x 25 log-weights (rank, split a * 5 + b) into lw[375], returned; no
    # belief (None) is NULL, the plain sampler.
    if belief is None:
        return NULL
    cdef const double[:, ::1] view = belief
    cdef int k
    if view.shape[0] != 15 or view.shape[1] != 25:
        raise ValueError("a belief is 15 x 25 log-weights (rank, split)")
    for k in range(375):
        lw[k] = view[k // 25, k % 25]
    return lw


cdef struct SolveCounts:
    long long solved
    long long over_budget
    long long nodes


cdef double play_and_solve(PlayState* s, int seat, int cards, policy_fn policy, void* ctx,
                           int32_t* buf, Solver* sv, SolveCounts* counts) noexcept nogil:
    # The seat's payoff from `s`: the rollout policy plays while more than `cards` cards are
    # left in all hands, then the exact solver takes over; a world over the solver's budget is
    # rolled out to the end (and counted).
    cdef double v
    cdef int32_t best
    while s.winner < 0 and s.n_cards[0] + s.n_cards[1] + s.n_cards[2] > cards:
        apply_action(s, buf[policy(s, buf, legal_actions(s, buf), ctx)])
    if s.winner >= 0:
        return payoff(s, seat)
    if solve_state(sv, s, &v, &best) == 0:
        counts.solved += 1
        counts.nodes += sv.nodes
        return solved_payoff(s, v, seat)
    counts.over_budget += 1
    counts.nodes += sv.nodes
    rollout(s, policy, ctx, buf)
    return payoff(s, seat)


cdef inline uint64_t move_rng(uint64_t seed, int world, int32_t move) noexcept nogil:
    # The random stream of one move's rollout in one world: (seed, world, move) alone, so
    # `search` and `leaf_inputs` play the same rollouts.
    return seed ^ (<uint64_t>world * 0xA24BAED4963EE407ULL) ^ (<uint64_t>move * 0x9FB21C651E98DF25ULL)


def search(uint64_t hand, int seat, int landlord, cards_left, plays, int to_beat,
           int to_beat_seat, int bombs, int rockets, int base_stake, seat_factor,
           uint64_t unseen, uint64_t lord_keeps, moves, int skip, int worlds,
           str rollout_policy, unsigned long long seed, int solve=0,
           long long solve_budget=SOLVE_BUDGET, stats=None, belief=None, int draws=1):
    """Mean final payoff of `seat` for each move (action ids) over worlds skip .. skip +
    worlds - 1 of the sequence `seed` draws, every move in every world (common random
    numbers), each world played out natively. A world and the random rollout of a move in
    it depend only on (seed, world index, move), not on which other moves are searched.

    `unseen` is every card the seat has not seen (its hand and all plays excluded);
    `lord_keeps` the kitty cards the landlord has not played (0 when the seat is the
    landlord), which stay in the landlord's hand in every world. The rest of the unseen cards
    go uniformly to the two hidden seats with their hand sizes (in a drawn position with
    partial hands, the unseen cards beyond those places stay out of play). Raises ValueError
    when there are too few unseen cards for the hidden hands.

    `solve` > 0: in each world, once `solve` or fewer cards are left in all hands, the rest
    is solved exactly (`_solve.pyx`) instead of rolled out, within `solve_budget` nodes a
    solve (over that, the world is rolled out). `stats`, a dict, gets the counts: worlds
    "solved", "over_budget", and the "nodes" the solves visited. `solve` 0 is the plain
    search, bit for bit.

    `belief` (float64 [15, 25]: per rank, the log-weight of each split (a, b) of its unseen
    cards, a in the first hidden seat after `seat` and b in the second, at column a * 5 + b)
    with `draws` = K > 1: each world is the one of K drawn worlds kept in proportion to its
    weight, the sum of its ranks' (`deal_weighted`); without, or with K = 1, the plain
    search, bit for bit."""
    cdef Solver sv
    cdef SolveCounts counts
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
    cdef double lw[375]
    cdef const double* lwp
    if rollout_policy not in ROLLOUTS:
        raise ValueError(f"unknown rollout policy {rollout_policy!r}")
    kind = ROLLOUTS[rollout_policy]
    policy = rule_policy if kind == ROLLOUT_RULE else policy_random
    lwp = load_belief(belief, lw)
    if not holds(unseen, lord_keeps):
        raise ValueError("the landlord's kept kitty cards are not among the unseen cards")
    if not 0 <= solve <= 108 or solve_budget < 1:
        raise ValueError(f"solve must be 0..108 cards and its budget positive, got {solve} "
                         f"and {solve_budget}")
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
    sv.table = NULL
    sv.stack = NULL
    counts.solved = counts.over_budget = counts.nodes = 0
    try:
        if solve and solver_init(&sv, SOLVE_TABLE_BITS, solve_budget):
            raise MemoryError()
        for k in range(n):
            ids[k] = moves[k]
            total[k] = 0.0
        with nogil:
            for w in range(skip + worlds):
                if deal_weighted(&root, seat, landlord, loose, n_loose, lord_keeps, &rng, cards,
                                 lwp, draws):
                    break
                if w < skip:
                    continue
                for k in range(n):
                    s = root
                    apply_action(&s, ids[k])
                    rollout_rng = move_rng(seed, w, ids[k])
                    if solve:
                        total[k] += play_and_solve(&s, seat, solve, policy, &rollout_rng, buf,
                                                   &sv, &counts)
                    else:
                        rollout(&s, policy, &rollout_rng, buf)
                        total[k] += payoff(&s, seat)
            else:
                w = skip + worlds
        if w < skip + worlds:
            raise ValueError("too few unseen cards for the hidden seats' hand sizes")
        if stats is not None:
            stats["solved"] = stats.get("solved", 0) + counts.solved
            stats["over_budget"] = stats.get("over_budget", 0) + counts.over_budget
            stats["nodes"] = stats.get("nodes", 0) + counts.nodes
        return [total[k] / worlds for k in range(n)]
    finally:
        solver_free(&sv)
        free(buf)
        free(ids)
        free(total)


def sample_worlds(uint64_t unseen, uint64_t lord_keeps, int seat, int landlord, cards_left,
                  int count, unsigned long long seed, belief=None, int draws=1):
    """The hidden hands (packed, seats in order) of the first `count` worlds `search` would
    play from the same seed and counts (and `belief`, `draws` as there): for checking the
    sampler."""
    cdef PlayState s
    cdef uint64_t rng = seed
    cdef uint8_t cards[54]
    cdef int i
    cdef double lw[375]
    cdef const double* lwp
    lwp = load_belief(belief, lw)
    fill_state(&s, 0, seat, landlord, cards_left, (0, 0, 0), 0, -1, 0, 0, 1, (1, 1, 1))
    out = []
    for i in range(count):
        if deal_weighted(&s, seat, landlord, unseen - lord_keeps,
                         packed_count(unseen - lord_keeps), lord_keeps, &rng, cards, lwp, draws):
            raise ValueError("too few unseen cards for the hidden seats' hand sizes")
        out.append(tuple(s.hand[j] for j in range(3)))
    return out


# ---------------------------------------------------------------------------------------
# Bidding: the rollout bidder and the search of a bid.
# ---------------------------------------------------------------------------------------
# The rule bot's bidding (`DouDizhuRuleBot.bid_scores`, level normal): a hand's strength
# against the bot's thresholds, read from the bot (one definition). The native strength uses
# the native hand cost above (no chain search), so a hand rich in chains reads weaker here.
from .rule import DouDizhuRuleBot as _Bot
cdef double BID_T[3]
for _r in range(3):
    BID_T[_r] = _Bot.BID_THRESHOLDS[_r]
cdef double T_CALL = _Bot.CALL
cdef double T_ROB = _Bot.ROB
cdef double T_DOUBLE = _Bot.DOUBLE
BID_WORDS = ("pass", "bid1", "bid2", "bid3", "call", "rob", "double", "nodouble")


cdef double hand_strength(uint64_t hand) noexcept nogil:
    cdef double strength = (1.2 * count_of(hand, RED) + 1.0 * count_of(hand, BLACK)
                            + 0.7 * count_of(hand, TWO) + 0.25 * count_of(hand, ACE))
    cdef int r, bombs = 0
    if count_of(hand, BLACK) and count_of(hand, RED):
        strength += 1.0
    for r in range(13):
        if count_of(hand, r) == 4:
            bombs += 1
    strength += 1.5 * bombs
    return strength - 0.4 * hand_cost(hand)


cdef double bid_score(int word, double strength, int wanted) noexcept nogil:
    # The rule bot's score of a word (bid_scores).
    cdef int level
    if W_BID1 <= word <= W_BID1 + 2:
        level = word - W_BID1 + 1
        return 1.0 + 0.1 * level if level <= wanted else -<double>(level - wanted)
    if word == W_CALL:
        return strength - T_CALL
    if word == W_ROB:
        return strength - T_ROB
    if word == W_DOUBLE:
        return strength - T_DOUBLE
    if word == W_PASS and wanted >= 0:
        return 0.5          # the points flow's pass
    return 0.0


cdef int rule_bid(const Bidding* b, uint64_t hand) noexcept nogil:
    """The rollout bidder's word for the seat to bid holding `hand`: the best-scored legal
    word, the first of equals (as the decision loop's argmax)."""
    cdef int words[8]
    cdef int n = bid_legal(b, words), k, best = 0, wanted = -1
    cdef double strength = hand_strength(hand), score, best_score = -1e300
    if b.stage == ST_POINTS:
        wanted = 0
        for k in range(3):
            if strength >= BID_T[k]:
                wanted += 1
    for k in range(n):
        score = bid_score(words[k], strength, wanted)
        if score > best_score:
            best_score = score
            best = k
    return words[best]


cdef int replay_bids(Bidding* b, int flow, object bids) except -2:
    """The flow's state after the public bids [(seat, word)], and the landlord it made (-1)."""
    cdef int lord = -1, event
    bid_init(b, flow)
    for seat, word in bids:
        event = bid_apply(b, seat, BID_WORDS.index(word))
        if event == EV_LANDLORD or event == EV_LANDLORD_PLAY:
            lord = b.best_seat
        if event != EV_NONE and event != EV_LANDLORD:
            raise ValueError("the bids given end the bidding")
    return lord


def rule_bid_word(uint64_t hand, int flow, bids):
    """The rollout bidder's word (a string) for the seat to bid after `bids`, holding `hand`
    (packed): for tests against the Python rule bot."""
    cdef Bidding b
    replay_bids(&b, flow, bids)
    return BID_WORDS[rule_bid(&b, hand)]


cdef double bid_rollout(const Bidding* start, int seat, int word, const uint64_t* dealt,
                        uint64_t kitty, int lord, policy_fn policy, uint64_t* rng,
                        int32_t* buf, double landlord_bias, double farmer_bias) noexcept nogil:
    # The seat says `word`; the rest of the bidding by the rollout bidder, then the play by
    # the rollout policy, to the end: the seat's payoff (0 for a void deal), less the
    # rollouts' bias: the landlord's `landlord_bias` per unit of the farmers' stakes (base
    # stake x each farmer's factor), a farmer's `farmer_bias` per unit of its own.
    cdef Bidding b = start[0]
    cdef PlayState st
    cdef int event = bid_apply(&b, seat, word), s, i
    while True:
        if event == EV_VOID:
            return 0.0
        if event == EV_LANDLORD or event == EV_LANDLORD_PLAY:
            lord = b.best_seat
        if event == EV_LANDLORD_PLAY or event == EV_PLAY:
            break
        s = b.seat
        event = bid_apply(&b, s, rule_bid(&b, dealt[s] + (kitty if s == lord else 0)))
    landlord_takes_kitty(&st, dealt, kitty, lord)
    bid_start_play(&st, &b)
    cdef double farmers = 0.0
    for i in range(3):
        if i != lord:
            farmers += <double>st.base_stake * st.seat_factor[i]
    cdef double shift = (-landlord_bias * farmers if seat == lord
                         else -farmer_bias * st.base_stake * st.seat_factor[seat])
    rollout(&st, policy, rng, buf)
    return payoff(&st, seat) + shift


def search_bid(uint64_t hand, int seat, int flow, bids, int landlord, uint64_t kitty, words,
               int skip, int worlds, str rollout_policy, unsigned long long seed,
               double landlord_bias=0.0, farmer_bias=None):
    """Mean final payoff of `seat` for each bidding word of `words` (strings) over worlds skip
    .. skip + worlds - 1 of the sequence `seed` draws, every word in every world (common
    random numbers): the rest of the bidding by the rollout bidder (`rule_bid`), the play by
    the rollout policy, doubles and robs settled by the referee, less the rollouts' bias: the
    landlord's `landlord_bias` per unit of the farmers' stakes, a farmer's `farmer_bias` per
    unit of its own (default -landlord_bias: `pimc.LANDLORD_BIAS` moved from the landlord to
    the farmers, zero-sum).

    `hand` is the seat's hand as it sees it (with the kitty once it is the landlord);
    `landlord` and `kitty` are known once the bidding has a landlord (call-rob's doubles),
    else -1 and 0. A world deals every card the seat has not seen uniformly: 17 to each other
    seat and, while the kitty is hidden, 3 to the kitty."""
    cdef Bidding b
    cdef int lord = replay_bids(&b, flow, bids)
    cdef int n = len(words), w, k, i, j, r, c, ncards = 0
    cdef int first = (seat + 1) % 3, second = (seat + 2) % 3
    cdef uint64_t rng = seed, rollout_rng, mine, unknown
    cdef uint64_t dealt[3]
    cdef uint64_t world_kitty
    cdef uint8_t cards[54]
    cdef uint8_t tmp
    cdef int word_ids[8]
    cdef double total[8]
    cdef int32_t* buf
    cdef policy_fn policy
    cdef double fbias = -landlord_bias if farmer_bias is None else <double>farmer_bias
    if rollout_policy not in ROLLOUTS:
        raise ValueError(f"unknown rollout policy {rollout_policy!r}")
    policy = rule_policy if ROLLOUTS[rollout_policy] == ROLLOUT_RULE else policy_random
    if lord != landlord:
        raise ValueError("the bids and the landlord given disagree")
    if n > 8:
        raise ValueError("at most 8 bidding words")
    for k in range(n):
        word_ids[k] = BID_WORDS.index(words[k])
        total[k] = 0.0
    mine = hand - (kitty if lord == seat else 0)
    if lord >= 0 and not holds(FULL_DECK - mine, kitty):
        raise ValueError("the kitty and the hand overlap")
    unknown = FULL_DECK - mine - (kitty if lord >= 0 else 0)
    for r in range(15):
        for c in range(count_of(unknown, r)):
            cards[ncards] = r
            ncards += 1
    if packed_count(mine) != 17 or ncards != (34 if lord >= 0 else 37):
        raise ValueError("a bidding decision needs the seat's 17 dealt cards")
    buf = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
    if buf == NULL:
        raise MemoryError()
    try:
        with nogil:
            for w in range(skip + worlds):
                for i in range(ncards - 1, 0, -1):
                    j = <int>(splitmix64(&rng) % <uint64_t>(i + 1))
                    tmp = cards[i]
                    cards[i] = cards[j]
                    cards[j] = tmp
                if w < skip:
                    continue
                dealt[seat] = mine
                dealt[first] = 0
                dealt[second] = 0
                for i in range(34):
                    dealt[first if i < 17 else second] += (<uint64_t>1) << (4 * cards[i])
                world_kitty = kitty
                if lord < 0:
                    world_kitty = 0
                    for i in range(34, 37):
                        world_kitty += (<uint64_t>1) << (4 * cards[i])
                for k in range(n):
                    rollout_rng = move_rng(seed, w, word_ids[k] + 1)
                    total[k] += bid_rollout(&b, seat, word_ids[k], dealt, world_kitty, lord,
                                            policy, &rollout_rng, buf, landlord_bias, fbias)
        return [total[k] / worlds for k in range(n)]
    finally:
        free(buf)


# ---------------------------------------------------------------------------------------
# Leaf evaluation (`pimc:leaf=student:DIR,depth=D`, docs/pimc.md): each world of a play
# decision is played `depth` moves past the candidate by the rollout policy, and the position
# reached is handed to a value function (the student's value head) instead of being rolled
# out to the end. `leaf_inputs` does the native half: the worlds and moves exactly as `search`
# draws them, and the featurizer's inputs of every leaf.
# ---------------------------------------------------------------------------------------
cimport numpy as cnp
import numpy as np
from libc.string cimport memcpy
from openlandlord.games.doudizhu._features cimport (
    DdzView, V_RANKS, fill_view, view_tokens, view_role, write_state, write_unseen, stake_scale)
from openlandlord.games.doudizhu import features as _feat

cnp.import_array()
cdef int LEAF_FS = _feat.FS
cdef int LEAF_HISTORY = _feat.MAX_HISTORY
cdef int LEAF_TOKENS = _feat.MAX_TOKENS
# `depth` above this is a rollout to the end (a game has fewer moves than this).
MAX_DEPTH = 200


cdef inline int rel3(int s, int seat) noexcept nogil:
    return ((s - seat) % 3 + 3) % 3


cdef inline void add_cards(int* counts, uint64_t packed, int sign) noexcept nogil:
    cdef int r
    for r in range(15):
        counts[r] += sign * count_of(packed, r)


cdef void leaf_view(const DdzView* root, const PlayState* s, int nx, const int32_t* xseat,
                    const int32_t* xact, long long root_stake, DdzView* v) noexcept nogil:
    # The view of the seat to move in `s`, reached from the root's view `root` by the nx
    # moves xact (by seats xseat, oldest first): what `Game.observation(s.turn)` would show
    # in that world (the VecEnv's `view_of`, from a root view instead of a whole history).
    cdef int seat = s.turn, k, kr, r, j, a, extra_bombs = 0
    cdef uint64_t cards
    memcpy(v, root, sizeof(DdzView))
    v.seat = seat
    for r in range(V_RANKS):
        v.hand[r] = 0
    add_cards(v.hand, s.hand[seat], 1)
    for k in range(3):
        kr = rel3(seat + k, root.seat)
        memcpy(v.played[k], root.played[kr], V_RANKS * sizeof(int))
        v.passes[k] = root.passes[kr]
        v.bombs[k] = root.bombs[kr]
    for j in range(nx):
        a = xact[j]
        k = rel3(xseat[j], seat)
        if a == 0:
            v.passes[k] += 1
            continue
        cards = action_packed(a)
        add_cards(v.played[k], cards, 1)
        if action_type(a) == T_BOMB or action_type(a) == T_ROCKET:
            v.bombs[k] += 1
            extra_bombs += 1
        if xseat[j] == root.lord and v.kitty_shown:
            add_cards(v.kitty_left, cards, -1)
    v.nplays = root.nplays + nx
    v.nrecent = v.nplays if v.nplays < LEAF_HISTORY else LEAF_HISTORY
    for j in range(v.nrecent):
        if j < nx:
            a = xact[nx - 1 - j]
            v.recent_seat[j] = xseat[nx - 1 - j]
            for r in range(V_RANKS):
                v.recent[j][r] = 0
            add_cards(v.recent[j], action_packed(a), 1)
            v.recent_len[j] = packed_count(action_packed(a))
        else:
            v.recent_seat[j] = root.recent_seat[j - nx]
            v.recent_len[j] = root.recent_len[j - nx]
            memcpy(v.recent[j], root.recent[j - nx], V_RANKS * sizeof(int))
    for r in range(V_RANKS):
        v.to_beat[r] = 0
    v.to_beat_seat = -1
    v.to_beat_len = 0
    if s.to_beat != 0 and s.to_beat_seat != seat:
        v.to_beat_seat = s.to_beat_seat
        add_cards(v.to_beat, action_packed(s.to_beat), 1)
        v.to_beat_len = packed_count(action_packed(s.to_beat))
    for k in range(3):
        v.cards_left[k] = s.n_cards[k]
    v.stake_scaled = stake_scale(root_stake << extra_bombs)
    v.bombs_played = s.bombs + s.rockets


cdef double seat_share(const PlayState* s, int from_seat, int to_seat) noexcept nogil:
    # What one unit of from_seat's payoff is worth to to_seat (zero-sum, stakes by the seats'
    # factors): the landlord's payoff is the sum of the farmers' stakes.
    cdef int lord = s.landlord, f
    cdef double farmers = 0.0
    for f in range(3):
        if f != lord:
            farmers += s.seat_factor[f]
    if from_seat == to_seat:
        return 1.0
    if from_seat == lord:
        return -s.seat_factor[to_seat] / farmers
    if to_seat == lord:
        return -farmers / s.seat_factor[from_seat]
    return s.seat_factor[to_seat] / <double>s.seat_factor[from_seat]


def leaf_inputs(obs, uint64_t hand, int seat, int landlord, cards_left, plays, int to_beat,
                int to_beat_seat, int bombs, int rockets, int base_stake, seat_factor,
                uint64_t unseen, uint64_t lord_keeps, moves, int skip, int worlds,
                str rollout_policy, unsigned long long seed, int depth):
    """The leaves of `search`'s worlds skip .. skip + worlds - 1 for each move (action ids):
    the same worlds and the same rollout moves as `search` with the same arguments, but each
    rollout stops `depth` moves after the candidate. `obs` is the seat's Observation (the
    public history of every leaf's view). Returns a dict:
    "payoff" float64 [worlds, moves] (the seat's payoff where the world ended, else 0),
    "leaf" int64 [worlds, moves] (the leaf's row, -1 where the world ended),
    and per leaf L: "state_tokens" float32 [sum T, FS] with "token_offsets" int64 [L + 1],
    "role" int32 [L], "unseen" int32 [L, 15], "capacity" int32 [L, 2] (the featurizer's
    arrays of the seat to move there), "share" float64 [L] (one unit of that seat's payoff
    for the searching seat), "path" int32 [L, depth + 1] (the moves from the root to it, the
    candidate first, -1 after the last)."""
    cdef DdzView root_view, v
    cdef PlayState root, s
    cdef int n = len(moves), w, k, d, nx, nl, L = 0, T, i
    cdef uint64_t rng = seed, rollout_rng, loose
    cdef uint8_t cards[54]
    cdef int32_t* buf
    cdef int32_t* ids
    cdef int32_t* xseat
    cdef int32_t* xact
    cdef policy_fn policy
    cdef long long stake = obs.stake
    cdef long long rows = 0
    if rollout_policy not in ROLLOUTS:
        raise ValueError(f"unknown rollout policy {rollout_policy!r}")
    policy = rule_policy if ROLLOUTS[rollout_policy] == ROLLOUT_RULE else policy_random
    if not holds(unseen, lord_keeps):
        raise ValueError("the landlord's kept kitty cards are not among the unseen cards")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 0..{MAX_DEPTH}, got {depth}")
    fill_view(obs, &root_view)
    loose = unseen - lord_keeps
    fill_state(&root, hand, seat, landlord, cards_left, plays, to_beat, to_beat_seat, bombs,
               rockets, base_stake, seat_factor)
    payoff_arr = np.zeros((worlds, n), np.float64)
    leaf_arr = np.full((worlds, n), -1, np.int64)
    tokens = np.zeros((max(1, worlds * n) * LEAF_TOKENS, LEAF_FS), np.float32)
    offsets = np.zeros(worlds * n + 1, np.int64)
    role = np.zeros(worlds * n, np.int32)
    unseen_arr = np.zeros((worlds * n, 15), np.int32)
    capacity = np.zeros((worlds * n, 2), np.int32)
    share = np.zeros(worlds * n, np.float64)
    path = np.full((worlds * n, depth + 1), -1, np.int32)
    cdef int[:, ::1] path_v = path
    cdef double[:, ::1] pay_v = payoff_arr
    cdef long long[:, ::1] leaf_v = leaf_arr
    cdef float[:, ::1] tok_v = tokens
    cdef long long[::1] off_v = offsets
    cdef int[::1] role_v = role
    cdef int[:, ::1] unseen_v = unseen_arr
    cdef int[:, ::1] cap_v = capacity
    cdef double[::1] share_v = share
    buf = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
    ids = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    xseat = <int32_t*>malloc((depth + 1) * sizeof(int32_t))
    xact = <int32_t*>malloc((depth + 1) * sizeof(int32_t))
    try:
        if buf == NULL or ids == NULL or xseat == NULL or xact == NULL:
            raise MemoryError()
        for k in range(n):
            ids[k] = moves[k]
        with nogil:
            for w in range(skip + worlds):
                if deal_world(&root, seat, landlord, loose, packed_count(loose), lord_keeps,
                              &rng, cards):
                    break
                if w < skip:
                    continue
                for k in range(n):
                    s = root
                    apply_action(&s, ids[k])
                    xseat[0] = seat
                    xact[0] = ids[k]
                    nx = 1
                    rollout_rng = move_rng(seed, w, ids[k])
                    for d in range(depth):
                        if s.winner >= 0:
                            break
                        xseat[nx] = s.turn
                        nl = legal_actions(&s, buf)
                        xact[nx] = buf[policy(&s, buf, nl, &rollout_rng)]
                        apply_action(&s, xact[nx])
                        nx += 1
                    if s.winner >= 0:
                        pay_v[w - skip, k] = payoff(&s, seat)
                        continue
                    leaf_view(&root_view, &s, nx, xseat, xact, stake, &v)
                    T = view_tokens(&v)
                    write_state(&v, &tok_v[rows, 0])
                    rows += T
                    off_v[L + 1] = rows
                    role_v[L] = view_role(&v)
                    write_unseen(&v, &unseen_v[L, 0])
                    cap_v[L, 0] = v.cards_left[(v.seat + 1) % 3]
                    cap_v[L, 1] = v.cards_left[(v.seat + 2) % 3]
                    share_v[L] = seat_share(&s, s.turn, seat)
                    for i in range(nx):
                        path_v[L, i] = xact[i]
                    leaf_v[w - skip, k] = L
                    L += 1
            else:
                w = skip + worlds
        if w < skip + worlds:
            raise ValueError("too few unseen cards for the hidden seats' hand sizes")
        return {"payoff": payoff_arr, "leaf": leaf_arr, "state_tokens": tokens[:rows],
                "token_offsets": offsets[:L + 1], "role": role[:L], "unseen": unseen_arr[:L],
                "capacity": capacity[:L], "share": share[:L], "path": path[:L]}
    finally:
        free(buf)
        free(ids)
        free(xseat)
        free(xact)
