# cython: language_level=3
"""The cards of Shengji: the card order of a round in both rulesets (`build_table` for
`tractor`, `build_classic_table` for `classic`) and the Python-facing loaders of count vectors.

Card levels of ruleset `classic`: a plain suit is its ranks without the trump rank, numbered
0..11 (the gap left by the trump rank joins its neighbours); trumps are the trump suit's other
ranks 0..11, the off-suit trump-rank cards 12 (equal), the on-suit trump-rank card 13, SJ 14,
BJ 15; with no trump suit the four trump-rank cards are all 13. Pairs on consecutive levels of
one category form tractors. Ruleset `tractor` ranks by `strength` and joins tractors through
`nxt`, in plain suits only. The rules are those of docs/rules-shengji.md.
"""
from libc.string cimport memset, memcpy


cdef void card_categories(Table* t, int trump_rank, int trump_suit) noexcept nogil:
    # What both rulesets agree on: the card points, and which cards are trumps (the trump rank,
    # the trump suit and the jokers); every other card stays in its suit.
    cdef int c, suit, rank
    t.trump_rank = trump_rank
    t.trump_suit = trump_suit
    for c in range(52):
        suit = c // 13
        rank = c % 13
        t.points[c] = 5 if rank == 3 else (10 if rank == 8 or rank == 11 else 0)
        t.cat[c] = TRUMP if rank == trump_rank or suit == trump_suit else suit
    for c in range(52, 54):
        t.points[c] = 0
        t.cat[c] = TRUMP


cdef void build_table(Table* t, int trump_rank, int trump_suit) noexcept nogil:
    cdef int c, suit, rank
    card_categories(t, trump_rank, trump_suit)
    t.classic = 0
    for c in range(52):
        suit = c // 13
        rank = c % 13
        if rank == trump_rank:
            t.strength[c] = 21 if suit == trump_suit else 20
        else:
            t.strength[c] = rank
    for c in range(52, 54):
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


cdef void build_classic_table(Table* t, int trump_rank, int trump_suit) noexcept nogil:
    cdef int c, s, r, cat, lvl
    card_categories(t, trump_rank, trump_suit)
    t.classic = 1
    memset(t.lvl_n, 0, sizeof(t.lvl_n))
    for c in range(52):
        s = c // 13
        r = c % 13
        if r == trump_rank:
            t.level[c] = ON_RANK if (s == trump_suit or trump_suit < 0) else OFF_RANK
        else:
            t.level[c] = r if r < trump_rank else r - 1
    for c in range(52, 54):
        t.level[c] = 14 if c == SMALL_JOKER else 15
    for c in range(NCARD):
        t.nxt[c] = -1
        t.strength[c] = t.level[c]
        cat = t.cat[c]
        lvl = t.level[c]
        t.lvl_cards[cat][lvl][t.lvl_n[cat][lvl]] = c
        t.lvl_n[cat][lvl] += 1


cdef int load(const unsigned char[::1] src, unsigned char* dst) except -1:
    if src.shape[0] != NCARD:
        raise ValueError("a count vector has 54 entries")
    memcpy(dst, &src[0], NCARD)
    return 0


cdef int load_hand(const unsigned char[::1] src, unsigned char* dst) except -1:
    cdef int c, n = 0
    load(src, dst)
    for c in range(NCARD):
        n += dst[c]
    if n > 60:
        raise ValueError("a hand holds at most 60 cards here")
    return n


cdef int classic_setup(Table* t, int trump_rank, int trump_suit) except -1:
    if not (0 <= trump_rank < 13 and -1 <= trump_suit < 4):
        raise ValueError("trump rank 0..12 and trump suit -1..3")
    build_classic_table(t, trump_rank, trump_suit)
    return 0


def card_order(int trump_rank, int trump_suit):
    """(cat, strength, points) per card id for this trump: the table the Python side sorts by."""
    cdef Table t
    build_table(&t, trump_rank, trump_suit)
    return ([t.cat[c] for c in range(NCARD)], [t.strength[c] for c in range(NCARD)],
            [t.points[c] for c in range(NCARD)])


def classic_table(int trump_rank, int trump_suit):
    """(cat, level, points) per card id of the `classic` card order for this trump
    (suit -1 = no trump)."""
    cdef Table t
    classic_setup(&t, trump_rank, trump_suit)
    return ([t.cat[c] for c in range(NCARD)], [t.level[c] for c in range(NCARD)],
            [t.points[c] for c in range(NCARD)])
