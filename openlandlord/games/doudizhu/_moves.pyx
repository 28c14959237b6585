# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The moves of Dou Dizhu: hands as packed rank counts, the 27,472-action table, legal move
generation (a lead, or what beats the standing move), and what a move does to the play state.

The Python API here (`legal_moves`, `classify`, `action_id`, `canonical`) is re-exported by
`openlandlord.games.doudizhu`, whose docstring states the rules and conventions; the C API is
declared in `_moves.pxd`.
"""
from itertools import combinations, combinations_with_replacement

from libc.stdint cimport uint64_t, uint32_t, int32_t, uint8_t

from ...errors import IllegalMove

RANKS = "3456789TJQKA2BR"
TYPE_NAMES = ("pass", "single", "pair", "trio", "trio_single", "trio_pair", "straight",
              "pair_chain", "plane", "plane_single", "plane_pair", "four_two_singles",
              "four_two_pairs", "bomb", "rocket")

cdef extern from *:
    """
    #define DDZ_GUARD 0x888888888888888ULL  /* bit 3 of each of the 15 rank nibbles */
    """
    const uint64_t GUARD "DDZ_GUARD"

cdef enum:   # the shape a hand needs before a group's moves are worth scanning
    NEED_NOTHING = 0
    NEED_TRIO = 1
    NEED_FOUR = 2
    NEED_RUN5 = 3       # five consecutive ranks 3..A (straights)
    NEED_PAIR_RUN3 = 4  # three consecutive pairs (pair chains)
    NEED_TRIO_RUN2 = 5  # two consecutive trios (planes)

cdef enum:
    MAX_BLOCKS = 512
    MAX_GROUPS = 64
    ACE = 11
    TWO = 12

# ---------------------------------------------------------------------------------------
# The action table. A *group* is (type, length); a *block* is (type, length, main rank),
# the kicker-free core of a move plus its kicker variants. Actions are numbered group by
# group, block by ascending main rank, variants in ascending kicker order, so legal moves
# come out in ascending id order and a follow only scans its own group, bombs and rocket.
# ---------------------------------------------------------------------------------------
cdef uint64_t _act_packed[N_ACTIONS]
cdef uint8_t _act_type[N_ACTIONS]
cdef uint8_t _act_rank[N_ACTIONS]
cdef uint8_t _act_len[N_ACTIONS]
cdef uint8_t _act_ncards[N_ACTIONS]
cdef int32_t _act_group[N_ACTIONS]
cdef uint64_t _blk_core[MAX_BLOCKS]
cdef int32_t _blk_first[MAX_BLOCKS + 1]
cdef int32_t _blk_rank[MAX_BLOCKS]
cdef int32_t _grp_first[MAX_GROUPS + 1]
cdef uint8_t _grp_need[MAX_GROUPS]  # what a hand must have for any move of the group (NEED_*)
cdef int _n_blocks = 0
cdef int _n_groups = 0
cdef int _bomb_group = 0
cdef int _rocket = 0
cdef int32_t _buf[MAX_LEGAL]     # scratch for calls made with the GIL held
cdef const char* RANKS_C = b"3456789TJQKA2BR"
cdef int _rank_of[128]           # character -> rank, -1 for anything else


def _fill_rank_of():
    for i in range(128):
        _rank_of[i] = -1
    for r, ch in enumerate(RANKS):
        _rank_of[ord(ch)] = r


_fill_rank_of()


def _single_kickers(core, int k, bint chain):
    """Multisets of k single kickers for `core`: never a core rank, never both jokers, never
    four of a rank (a bomb), and for a plane never three of a rank next to it (that would
    be a longer plane), the 2 excepted since planes stop at the ace."""
    lo, hi = min(core), max(core)
    cap = {}
    for r in range(15):
        if r in core:
            continue
        cap[r] = 1 if r >= BLACK else 3
        if chain and r != TWO and (r == lo - 1 or r == hi + 1):
            cap[r] = 2
    out = []
    for combo in combinations_with_replacement(sorted(cap), k):
        if BLACK in combo and RED in combo:
            continue
        if all(combo.count(r) <= cap[r] for r in set(combo)):
            out.append({r: combo.count(r) for r in combo})
    return out


def _pair_kickers(core, int k):
    """k pair kickers of distinct ranks (3..2, jokers cannot pair) outside the core."""
    return [{r: 2 for r in combo} for combo in combinations([r for r in range(13) if r not in core], k)]


def _action_groups():
    """(type, length, [(main rank, core counts, kicker variants)]) in ACTIONS order."""
    groups = [(T_SINGLE, 1, [(r, {r: 1}, None) for r in range(15)]),
              (T_PAIR, 1, [(r, {r: 2}, None) for r in range(13)]),
              (T_TRIO, 1, [(r, {r: 3}, None) for r in range(13)]),
              (T_TRIO_SINGLE, 1, [(r, {r: 3}, _single_kickers({r}, 1, False)) for r in range(13)]),
              (T_TRIO_PAIR, 1, [(r, {r: 3}, _pair_kickers({r}, 1)) for r in range(13)])]
    for typ, width, shortest, longest in ((T_STRAIGHT, 1, 5, 12), (T_PAIR_CHAIN, 2, 3, 10),
                                          (T_PLANE, 3, 2, 6)):
        for n in range(shortest, longest + 1):
            groups.append((typ, n, [(s, {r: width for r in range(s, s + n)}, None)
                                    for s in range(0, ACE - n + 2)]))
    for n in range(2, 6):
        groups.append((T_PLANE_SINGLE, n, [(s, {r: 3 for r in range(s, s + n)},
                                            _single_kickers(set(range(s, s + n)), n, True))
                                           for s in range(0, ACE - n + 2)]))
    for n in range(2, 5):
        groups.append((T_PLANE_PAIR, n, [(s, {r: 3 for r in range(s, s + n)},
                                          _pair_kickers(set(range(s, s + n)), n))
                                         for s in range(0, ACE - n + 2)]))
    groups.append((T_FOUR_TWO_SINGLES, 1, [(r, {r: 4}, _single_kickers({r}, 2, False)) for r in range(13)]))
    groups.append((T_FOUR_TWO_PAIRS, 1, [(r, {r: 4}, _pair_kickers({r}, 2)) for r in range(13)]))
    groups.append((T_BOMB, 1, [(r, {r: 4}, None) for r in range(13)]))
    groups.append((T_ROCKET, 1, [(BLACK, {BLACK: 1, RED: 1}, None)]))
    return groups


cdef uint64_t _pack(dict counts):
    cdef uint64_t p = 0
    for r, c in counts.items():
        p += (<uint64_t>c) << (4 * <int>r)
    return p


cdef str _packed_str(uint64_t p):
    cdef char buf[64]
    cdef int n = 0, r, c
    for r in range(15):
        for c in range((p >> (4 * r)) & 0xF):
            buf[n] = RANKS_C[r]
            n += 1
    return buf[:n].decode("ascii")


def _build_table():
    global _n_blocks, _n_groups, _bomb_group, _rocket
    cdef int a = 1, b = 0, g = 0
    strings = [""]
    _act_packed[0] = 0
    _act_type[0] = T_PASS
    _act_rank[0] = 0
    _act_len[0] = 0
    _act_ncards[0] = 0
    _act_group[0] = -1
    need = {T_TRIO: NEED_TRIO, T_TRIO_SINGLE: NEED_TRIO, T_TRIO_PAIR: NEED_TRIO,
            T_STRAIGHT: NEED_RUN5, T_PAIR_CHAIN: NEED_PAIR_RUN3, T_PLANE: NEED_TRIO_RUN2,
            T_PLANE_SINGLE: NEED_TRIO_RUN2, T_PLANE_PAIR: NEED_TRIO_RUN2,
            T_FOUR_TWO_SINGLES: NEED_FOUR, T_FOUR_TWO_PAIRS: NEED_FOUR, T_BOMB: NEED_FOUR}
    for typ, length, blocks in _action_groups():
        _grp_first[g] = b
        _grp_need[g] = need.get(typ, NEED_NOTHING)
        if typ == T_BOMB:
            _bomb_group = g
        for rank, core, variants in blocks:
            _blk_core[b] = _pack(core)
            _blk_first[b] = a
            _blk_rank[b] = rank
            for kick in (variants if variants is not None else [{}]):
                counts = dict(core)
                counts.update(kick)
                if a >= N_ACTIONS:
                    raise RuntimeError("Dou Dizhu action table overflows N_ACTIONS")
                _act_packed[a] = _pack(counts)
                _act_type[a] = typ
                _act_rank[a] = rank
                _act_len[a] = length
                _act_ncards[a] = sum(counts.values())
                _act_group[a] = g
                strings.append(_packed_str(_act_packed[a]))
                if typ == T_ROCKET:
                    _rocket = a
                a += 1
            b += 1
        g += 1
    _blk_first[b] = a
    _grp_first[g] = b
    _n_blocks = b
    _n_groups = g
    if a != N_ACTIONS:
        raise RuntimeError(f"Dou Dizhu action table has {a} actions, expected {N_ACTIONS}")
    return tuple(strings)


ACTIONS = _build_table()
ACTION_ID = {s: i for i, s in enumerate(ACTIONS)}
cdef dict _ACTION_ID = ACTION_ID
cdef dict _PACKED_ID = {_act_packed[i]: i for i in range(N_ACTIONS)}
cdef tuple _ACTIONS = ACTIONS

# ---------------------------------------------------------------------------------------
# C API (see _moves.pxd)
# ---------------------------------------------------------------------------------------
cdef uint64_t action_packed(int a) noexcept nogil:
    return _act_packed[a]

cdef int action_type(int a) noexcept nogil:
    return _act_type[a]

cdef int action_rank(int a) noexcept nogil:
    return _act_rank[a]

cdef int action_length(int a) noexcept nogil:
    return _act_len[a]

cdef int action_cards(int a) noexcept nogil:
    return _act_ncards[a]

cdef bint holds(uint64_t hand, uint64_t cards) noexcept nogil:
    # Each nibble computes 8 + held - wanted >= 4, so no borrow crosses nibbles and bit 3
    # survives exactly where held >= wanted.
    return (((hand | GUARD) - cards) & GUARD) == GUARD

cdef bint beats(int a, int standing) noexcept nogil:
    cdef int ta, ts
    if standing == 0:
        return a != 0
    if a == 0:
        return False
    ta = _act_type[a]
    ts = _act_type[standing]
    if ta == T_ROCKET:
        return True
    if ts == T_ROCKET:
        return False
    if ta == T_BOMB:
        return ts != T_BOMB or _act_rank[a] > _act_rank[standing]
    return _act_group[a] == _act_group[standing] and _act_rank[a] > _act_rank[standing]

cdef inline int _emit_blocks(uint64_t hand, int b0, int b1, int32_t* out, int n) noexcept nogil:
    cdef int b, a, end
    for b in range(b0, b1):
        if holds(hand, _blk_core[b]):
            end = _blk_first[b + 1]
            for a in range(_blk_first[b], end):
                if holds(hand, _act_packed[a]):
                    out[n] = a
                    n += 1
    return n

cdef int _lead(uint64_t hand, int32_t* out) noexcept nogil:
    # Rank masks of the hand (bit r: at least 1, 2, 3, 4 of rank r) let whole groups be
    # skipped: most hands have no bomb, few have a plane, and late hands have no straight.
    cdef uint32_t m1 = 0, m2 = 0, m3 = 0, m4 = 0, chain1, chain2, chain3
    cdef int r, c, g, n = 0
    cdef bint have[6]
    for r in range(15):
        c = (hand >> (4 * r)) & 0xF
        if c >= 1:
            m1 |= 1u << r
            if c >= 2:
                m2 |= 1u << r
                if c >= 3:
                    m3 |= 1u << r
                    if c == 4:
                        m4 |= 1u << r
    chain1 = m1 & 0xFFF
    chain2 = m2 & 0xFFF
    chain3 = m3 & 0xFFF
    have[NEED_NOTHING] = True
    have[NEED_TRIO] = m3 != 0
    have[NEED_FOUR] = m4 != 0
    have[NEED_RUN5] = (chain1 & (chain1 >> 1) & (chain1 >> 2) & (chain1 >> 3) & (chain1 >> 4)) != 0
    have[NEED_PAIR_RUN3] = (chain2 & (chain2 >> 1) & (chain2 >> 2)) != 0
    have[NEED_TRIO_RUN2] = (chain3 & (chain3 >> 1)) != 0
    for g in range(_n_groups):
        if have[_grp_need[g]]:
            n = _emit_blocks(hand, _grp_first[g], _grp_first[g + 1], out, n)
    return n

cdef int legal_from_hand(uint64_t hand, int to_beat, int32_t* out) noexcept nogil:
    cdef int n, t, g, b, end
    if to_beat == 0:
        return _lead(hand, out)
    out[0] = 0
    n = 1
    t = _act_type[to_beat]
    if t == T_ROCKET:
        return n
    g = _act_group[to_beat]
    b = _grp_first[g]
    end = _grp_first[g + 1]
    while b < end and _blk_rank[b] <= _act_rank[to_beat]:
        b += 1
    n = _emit_blocks(hand, b, end, out, n)
    if t != T_BOMB:
        n = _emit_blocks(hand, _grp_first[_bomb_group], _grp_first[_bomb_group + 1], out, n)
    if holds(hand, _act_packed[_rocket]):
        out[n] = _rocket
        n += 1
    return n

cdef int legal_actions(const PlayState* s, int32_t* out) noexcept nogil:
    if s.winner >= 0:
        return 0
    return legal_from_hand(s.hand[s.turn], s.to_beat, out)

cdef bint is_legal(const PlayState* s, int a) noexcept nogil:
    if s.winner >= 0 or a < 0 or a >= N_ACTIONS:
        return False
    if a == 0:
        return s.to_beat != 0
    return holds(s.hand[s.turn], _act_packed[a]) and beats(a, s.to_beat)

cdef void apply_action(PlayState* s, int a) noexcept nogil:
    cdef int seat = s.turn
    cdef int nxt = (seat + 1) % 3
    if a == 0:
        if nxt == s.to_beat_seat:
            s.to_beat = 0
            s.to_beat_seat = -1
        s.turn = nxt
        return
    s.hand[seat] -= _act_packed[a]
    s.n_cards[seat] -= _act_ncards[a]
    s.plays[seat] += 1
    if _act_type[a] == T_BOMB:
        s.bombs += 1
    elif _act_type[a] == T_ROCKET:
        s.rockets += 1
    if s.n_cards[seat] == 0:
        s.winner = seat
        s.to_beat = 0
        s.to_beat_seat = -1
        return
    s.to_beat = a
    s.to_beat_seat = seat
    s.turn = nxt

cdef int packed_count(uint64_t packed) noexcept nogil:
    cdef int n = 0, r
    for r in range(15):
        n += (packed >> (4 * r)) & 0xF
    return n

# ---------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------
cdef uint64_t _parse(str cards, str what) except? 0xFFFFFFFFFFFFFFFF:
    """Packed counts of a card string in any order; IllegalMove names a bad character or
    more copies of a rank than the deck has."""
    cdef uint64_t p = 0
    cdef Py_UCS4 ch
    cdef int r, c
    for ch in cards:
        r = _rank_of[ch] if ch < 128 else -1
        if r < 0:
            raise IllegalMove(f"unknown card {ch!r} in {what} {cards!r} (cards are {RANKS})")
        p += (<uint64_t>1) << (4 * r)
        c = (p >> (4 * r)) & 0xF
        if c > (1 if r >= BLACK else 4):
            raise IllegalMove(f"{what} {cards!r} has more {RANKS[r]!r} than the deck "
                              f"({'one' if r >= BLACK else 'four'})")
    return p


cdef int _action_of(str move, str what) except -1:
    """Action id of a move string in any order, or IllegalMove saying why not."""
    a = _ACTION_ID.get(move)
    if a is not None:
        return a
    p = _parse(move, what)
    a = _PACKED_ID.get(p)
    if a is None:
        raise IllegalMove(f"{what} {move!r} is not a Dou Dizhu move: no move type "
                          "(single, pair, trio, chain, plane, four-with-two, bomb, rocket) "
                          "matches these cards")
    return a


cdef list _move_list(int32_t* ids, int n):
    cdef list out = [None] * n
    cdef int i
    for i in range(n):
        out[i] = _ACTIONS[ids[i]]
    return out


def canonical(cards: str) -> str:
    """The card string sorted into canonical order (`RANKS`, ascending)."""
    return _packed_str(_parse(cards, "cards"))


def legal_moves(hand: str, to_beat: str = "") -> list:
    """Every distinct legal move from `hand` against the standing move `to_beat`, as
    canonical strings in ACTIONS order; pass ("") is first iff `to_beat` is not empty."""
    cdef uint64_t h = _parse(hand, "hand")
    cdef int t = 0
    if to_beat:
        t = _action_of(to_beat, "to_beat")
    return _move_list(_buf, legal_from_hand(h, t, _buf))


def classify(move: str) -> tuple:
    """(type, main rank, length) of a move: main rank indexes RANKS (the lowest rank of a
    chain or plane, the trio/four rank of a kickered move, 13 for the rocket; -1 for pass),
    length is the number of consecutive ranks of a chain or plane (1 otherwise, 0 for pass).
    Raises IllegalMove saying why when the cards are no move."""
    cdef int a = _action_of(move, "move")
    if a == 0:
        return ("pass", -1, 0)
    return (TYPE_NAMES[_act_type[a]], _act_rank[a], _act_len[a])


def action_id(move: str) -> int:
    """Index of a move (cards in any order) in ACTIONS; IllegalMove if it is no action."""
    return _action_of(move, "move")


cdef list state_legal_moves(const PlayState* s):
    return _move_list(_buf, legal_actions(s, _buf))
