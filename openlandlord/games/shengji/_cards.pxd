# The cards of Shengji: ids, the two rulesets' card orders (the `Table` of one round) and the
# random stream every deal and random play draws from.
#
# A card is an id 0..53: suit * 13 + rank for the plain cards (suits S H D C = 0..3, ranks
# 2..A = 0..12), 52 = small joker, 53 = big joker. A hand, a play or a set of unseen cards is a
# count vector `unsigned char[54]` (every card exists twice, so counts are 0, 1 or 2).

cdef enum:
    NCARD = 54
    NCAT = 5          # four plain suits, then the trump suit
    TRUMP = 4
    SMALL_JOKER = 52
    BIG_JOKER = 53
    OFF_RANK = 12     # `classic` trump levels of the trump-rank cards: off-suit, on-suit
    ON_RANK = 13

cdef struct Table:
    # The card order of one round: built once from the trump rank and trump suit.
    int trump_rank            # 0..12 (2..A)
    int trump_suit            # 0..3, or -1 for no trump suit
    int cat[54]               # 0..3 plain suit, 4 = trump
    int strength[54]          # order inside the card's own suit (equal for off-suit rank cards)
    int nxt[54]               # the card one rank above in a tractor run, or -1
    int points[54]
    # Ruleset `classic` (build_classic_table); build_table sets classic = 0 and level = strength.
    int classic               # 0 tractor, 1 classic
    int level[54]             # classic card level inside its category (see classic.py)
    int lvl_n[5][16]          # cards of each category at each level
    int lvl_cards[5][16][4]   # their ids, ascending


cdef extern from "string.h" nogil:
    void* memcpy(void* dst, const void* src, size_t n)


cdef inline bint clear_word(const unsigned char* v, int w) noexcept nogil:
    # Whether a count vector holds none of the cards 8w..8w+7 (w < 6; cards 48..53 are read
    # one by one): a loop over a sparse hand or play skips such words whole, e.g.
    #     for w in range(7):
    #         if w < 6 and clear_word(v, w): continue
    #         for c in range(8 * w, 8 * w + 8 if w < 6 else NCARD): ...
    cdef unsigned long long x
    memcpy(&x, v + 8 * w, 8)
    return x == 0


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


cdef void build_table(Table* t, int trump_rank, int trump_suit) noexcept nogil
cdef void build_classic_table(Table* t, int trump_rank, int trump_suit) noexcept nogil

# Python-facing helpers: a count vector (bytes or a uint8 array of 54) copied in, a `classic`
# table from checked arguments.
cdef int load(const unsigned char[::1] src, unsigned char* dst) except -1
cdef int load_hand(const unsigned char[::1] src, unsigned char* dst) except -1
cdef int classic_setup(Table* t, int trump_rank, int trump_suit) except -1
