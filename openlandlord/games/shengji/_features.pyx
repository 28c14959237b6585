# cython: language_level=3
"""The Shengji featurizer in C, both rulesets: `featurize(obs, legal)` gives exactly the
arrays of `features.featurize_python` (same dtypes, shapes and values, bit for bit;
tests/test_native_features.py checks it on random `tractor` and `classic` rounds, the
declaration and burial steps and the card-by-card follows included).

The layout is not restated here: the offsets, scales, slot tables and the per-trump card
tables (`features._table`) are read from `features.py`, the one definition; the trick winner
is the referee's own (`trick_winner_c`, as `features._winner_seat` calls it). This module
does the same arithmetic on count vectors in C: each value is computed in double and stored
as float32, as numpy does.
"""
cimport numpy as cnp
from libc.string cimport memcpy, memset

from openlandlord.games.shengji._cards cimport NCARD, Table, build_table, classic_setup
from openlandlord.games.shengji._trick cimport trick_winner_c

import numpy as np

from . import features as _py
from .rules import CATS

cnp.import_array()

if _py.NUM_SLOTS != NS or NCARD != NS or _py.NUM_SEATS != NSEAT:
    raise ImportError("the Shengji native featurizer was built for 54 cards and 4 seats")

cdef int FS = _py.FS
cdef int FA = _py.FA
cdef int MAX_TOKENS = _py.MAX_TOKENS
cdef int TRUMP = _py.TRUMP
cdef int BJ = _py._BJ
cdef int SJ = _py._SJ
cdef int V = _py._V
cdef int TOK_SLOT = _py.TOK_SLOT
cdef int TOK_SEAT = _py.TOK_SEAT
cdef int TOK_CONTEXT = _py.TOK_CONTEXT
cdef int S_GROUP = _py._S_GROUP
cdef int S_TRUMP = _py._S_TRUMP
cdef int S_STRENGTH = _py._S_STRENGTH
cdef int S_RANK = _py._S_RANK
cdef int S_POINTS = _py._S_POINTS
cdef int S_MINE = _py._S_MINE
cdef int S_UNSEEN = _py._S_UNSEEN
cdef int S_PLAYED = _py._S_PLAYED
cdef int S_TRICK = _py._S_TRICK
cdef int S_LED = _py._S_LED
cdef int S_VOID = _py._S_VOID
cdef int S_POS = _py._S_POS
cdef int S_CHAIN = _py._S_CHAIN
cdef int S_KITTY = _py._S_KITTY
cdef int S_DECLARED = _py._S_DECLARED
cdef int SEAT_CLASSIC = _py._SEAT_CLASSIC
cdef int CTX_CLASSIC = _py._CTX_CLASSIC
cdef int A_CNT = _py._A_CNT
cdef int A_N = _py._A_N
cdef int A_KIND = _py._A_KIND
cdef int A_PAIRS = _py._A_PAIRS
cdef int A_CAT = _py._A_CAT
cdef int A_PARTIAL = _py._A_PARTIAL
cdef int A_NEED = _py._A_NEED
cdef int A_WINS = _py._A_WINS
cdef int A_POINTS = _py._A_POINTS
cdef int A_GAIN = _py._A_GAIN
cdef int A_TRUMPS = _py._A_TRUMPS
cdef int A_STRENGTH = _py._A_STRENGTH
cdef int A_LED = _py._A_LED
cdef int A_BEATERS = _py._A_BEATERS
cdef int A_SAFE = _py._A_SAFE
cdef int A_OPP_VOID = _py._A_OPP_VOID
cdef int A_PARTNER_VOID = _py._A_PARTNER_VOID
cdef str RANKS = _py.RANKS
cdef tuple SUITS = tuple(_py.SUITS)

# Slot tables (by slot), as features.featurize_python uses them: the group column, the
# position value, the rank value scaled as numpy scales it.
cdef int GROUP[NS]
cdef float POSITION[NS]
cdef float RANK_SCALED[NS]
_rank_scaled = _py._RANK_OF / 14.0
cdef int _i
for _i in range(NS):
    GROUP[_i] = int(_py._GROUP[_i])
    POSITION[_i] = float(_py._POSITION[_i])
    RANK_SCALED[_i] = float(_rank_scaled[_i])

# Card names -> ids through two character classes, built from features.CARD_IDS.
cdef dict CARD_IDS = _py.CARD_IDS
cdef int FIRST[128]
cdef int SECOND[128]
cdef int ID_OF[16][8]
cdef int CAT_OF_CHAR[128]
for _i in range(128):
    FIRST[_i] = SECOND[_i] = CAT_OF_CHAR[_i] = -1
_firsts = sorted({name[0] for name in CARD_IDS})
_seconds = sorted({name[1] for name in CARD_IDS})
if len(_firsts) > 16 or len(_seconds) > 8 or any(len(name) != 2 for name in CARD_IDS):
    raise ImportError("the Shengji card names are not two characters of few kinds")
for _i, _c in enumerate(_firsts):
    FIRST[ord(_c)] = _i
for _i, _c in enumerate(_seconds):
    SECOND[ord(_c)] = _i
for _a in range(16):
    for _b in range(8):
        ID_OF[_a][_b] = -1
for _name, _id in CARD_IDS.items():
    ID_OF[FIRST[ord(_name[0])]][SECOND[ord(_name[1])]] = _id
for _i, _c in enumerate(CATS):
    CAT_OF_CHAR[ord(_c)] = _i


cdef inline int card_id(str name) except -1:
    cdef Py_UCS4 a, b
    cdef int i = -1
    if len(name) == 2:
        a = name[0]
        b = name[1]
        if a < 128 and b < 128 and FIRST[a] >= 0 and SECOND[b] >= 0:
            i = ID_OF[FIRST[a]][SECOND[b]]
    if i < 0:
        i = CARD_IDS[name]      # the KeyError the Python featurizer raises
    return i


cdef class _Trump:
    """The card tables of one (ruleset, trump rank, trump suit), by card id: read from
    `features._table`, with the referee's table for the trick winner."""

    def __init__(self, str rules, str trump_rank, str trump_suit):
        cdef int c, x
        cdef Trump* t = &self.tab
        cat, strength, points, chains = _py._table(rules, trump_rank, trump_suit)
        for c in range(NS):
            t.cat[c] = cat[c]
            t.strength[c] = strength[c]
            t.points[c] = points[c]
            t.chains[c] = chains[c]
        for c in range(NS):
            t.strength_scaled[c] = <float>(t.strength[c] / 23.0)
            t.points_scaled[c] = <float>(t.points[c] / 10.0)
        for x in range(5):
            t.cat_n[x] = 0
        for c in range(NS):
            x = t.cat[c]
            t.cat_cards[x][t.cat_n[x]] = c
            t.cat_n[x] += 1
        t.trump_suit = SUITS.index(trump_suit) if trump_suit in SUITS else -1
        t.rank = RANKS.index(trump_rank)
        t.classic = rules == "classic"
        self.rules, self.trump_rank, self.trump_suit_name = rules, trump_rank, trump_suit
        # The arguments of features._winner_seat's calls into the referee.
        if t.classic:
            from .rules import Rules
            r = Rules.classic(trump_rank, trump_suit or "N")
            classic_setup(&t.table, r.rank_index, r.suit_index)
        else:
            build_table(&t.table, RANKS.index(trump_rank), SUITS.index(trump_suit))


cdef dict _TRUMPS = {}


cdef _Trump trump_tables(str rules, str trump_rank, str trump_suit):
    key = (rules, trump_rank, trump_suit)
    t = _TRUMPS.get(key)
    if t is None:
        t = _TRUMPS[key] = _Trump(*key)
    return <_Trump>t


cdef int add_cards(cards, int* out, const int* points) except -1:
    """Counts the named cards into out[NS] by card id; returns their points."""
    cdef int total = 0, c
    if type(cards) is tuple:
        for name in <tuple>cards:
            c = card_id(name)
            out[c] += 1
            total += points[c]
    else:
        for name in cards:
            c = card_id(name)
            out[c] += 1
            total += points[c]
    return total


cdef int load_play(cards, Play* p, const int* points) except -1:
    """The named cards into an empty `p`."""
    cdef int c, j
    if type(cards) is not tuple:
        cards = tuple(cards)
    for name in <tuple>cards:
        c = card_id(name)
        if p.by_card[c] == 0:
            j = p.nheld
            while j > 0 and p.held[j - 1] > c:
                p.held[j] = p.held[j - 1]
                j -= 1
            p.held[j] = c
            p.nheld += 1
        p.by_card[c] += 1
        p.n += 1
        p.points += points[c]
    return 0


cdef inline void clear_play(Play* p) noexcept nogil:
    cdef int j
    for j in range(p.nheld):
        p.by_card[p.held[j]] = 0
    p.nheld = p.n = p.points = 0


cdef int kind_of(const Play* p, const Trump* tr) noexcept nogil:
    """features._kind: 0 single, 1 pair, 2 tractor, 3 anything else."""
    cdef int j, c, cat
    if p.n == 1:
        return 0
    if p.n == 2 and p.nheld == 1:
        return 1
    if p.n < 4:
        return 3
    cat = tr.cat[p.held[0]]
    if cat == TRUMP:
        return 3
    for j in range(p.nheld):
        c = p.held[j]
        if p.by_card[c] != 2 or tr.cat[c] != cat:
            return 3
        if j > 0 and tr.chains[p.held[j - 1]] != c:
            return 3
    return 2


cdef void play_of_counts(const Trump* tr, const unsigned char* counts, Play* p) noexcept nogil:
    """A play given as a count vector, into `p` (any prior content replaced)."""
    cdef int c
    p.nheld = p.n = p.points = 0
    for c in range(NS):
        p.by_card[c] = counts[c]
        if counts[c]:
            p.held[p.nheld] = c
            p.nheld += 1
            p.n += counts[c]
            p.points += counts[c] * tr.points[c]


cdef int lead_kind_c(const Trump* tr, const unsigned char* lead) noexcept nogil:
    """features._kind of a play given as a count vector."""
    cdef Play p
    play_of_counts(tr, lead, &p)
    return kind_of(&p, tr)


cdef inline int seat_of(x) except -1:
    # A seat number from the observation, refused outside 0-3 rather than indexing past an
    # array (the Python featurizer's numpy indexing raises IndexError there too).
    cdef int s = x
    if not 0 <= s < NSEAT:
        raise IndexError(f"seat {x!r} is not one of the 4 seats")
    return s


cdef int block_key_cmp(const int* a, const int* b, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] != b[i]:
            return 1 if a[i] > b[i] else -1
    return 0


cdef int classic_view(obs, View* v, const Trump* tr) except -1:
    """The `classic` fields of the view from the observation (features._classic_planes)."""
    cdef int s, n
    v.declare_phase = obs.phase == "declare"
    v.bury_phase = obs.phase == "bury"
    kitty = obs.kitty
    add_cards(kitty, v.kitty, tr.points)
    v.kitty_shown = bool(kitty)
    v.declarer = -1
    declaration = obs.declaration
    if declaration:
        v.declarer = seat_of(declaration[0])
        cards = declaration[1]
        add_cards(cards, v.declared, tr.points)
        v.declared_n = len(cards)
        v.declared_jokers = all(card in ("SJ", "BJ") for card in cards)
    for item in obs.failed_throws:
        s = seat_of(item[0])
        n = len(item[1]) - len(item[2])
        v.taken[s] += n
        v.penalty += (10 if s % 2 == v.decl else -10) * n
    return 0


cdef void write_classic(const View* v, const Trump* tr, float* t) noexcept nogil:
    """features._classic_planes: my buried kitty, the standing declaration still held and who
    made it, the cards taken back from failed throws and the penalty, the phase, whether a
    kitty is hidden from me."""
    cdef int i, c, k, held, kitty_points = 0
    cdef float* row
    for c in range(NS):
        kitty_points += v.kitty[c] * tr.points[c]
    for i in range(NS):
        c = v.order[i]
        row = t + i * FS
        row[V + S_KITTY] = <float>(v.kitty[c] / 2.0)
        held = 0
        if v.declarer >= 0:
            held = v.declared[c] - v.played[v.declarer][c] - v.in_trick[v.declarer][c]
            if held < 0:
                held = 0
        row[V + S_DECLARED] = <float>(held / 2.0)
    for k in range(NSEAT):
        row = t + (NS + k) * FS
        row[V + SEAT_CLASSIC] = v.rel[k] == v.declarer
        row[V + SEAT_CLASSIC + 1] = <float>(v.taken[v.rel[k]] / 8.0)
    row = t + (NS + NSEAT) * FS
    row[V + CTX_CLASSIC] = v.declare_phase
    row[V + CTX_CLASSIC + 1] = v.bury_phase
    row[V + CTX_CLASSIC + 2] = <float>(v.penalty / 100.0)
    row[V + CTX_CLASSIC + 3] = <float>(kitty_points / 100.0)
    if v.declarer >= 0:
        row[V + CTX_CLASSIC + 4] = <float>(v.declared_n / 2.0)
        row[V + CTX_CLASSIC + 5] = v.declared_jokers
    row[V + CTX_CLASSIC + 6] = not v.kitty_shown and not v.bury_phase


cdef void view_derive(View* v, const Trump* tr) noexcept nogil:
    """The view's derived fields: relative seats, unseen counts, the lead, the canonical suit
    blocks and slot order (features._View), the seat winning the current trick."""
    cdef int k, s, c, i, j, b, x, nplain = 0, nblocks = 0, nranks = 0, tmp_block
    cdef int keys[4][KEYLEN]
    cdef int tmp_key[KEYLEN]
    cdef int blocks[4]
    cdef int all_blocks[4]
    cdef int ranks[13]
    cdef int trump = tr.trump_suit, rank = tr.rank
    for k in range(NSEAT):
        v.rel[k] = (v.seat + k) % NSEAT
    for c in range(NS):
        v.unseen[c] = 2 - v.mine[c]
        for s in range(NSEAT):
            v.unseen[c] -= v.played[s][c] + v.in_trick[s][c]
    v.led_cat = -1
    v.lead_size = 0
    if v.ntrick:
        for c in range(NS):
            if v.trickv[c]:
                if v.led_cat < 0:
                    v.led_cat = tr.cat[c]
                v.lead_size += v.trickv[c]

    # Canonical suit blocks: the trump suit first, then the plain suits by the known counts
    # (features._View: descending key, ties keep the suit order).
    for x in range(13):
        if x != rank:
            ranks[nranks] = x
            nranks += 1
    for s in range(4):
        if s == trump:
            continue
        i = 1
        keys[nplain][0] = 0
        for j in range(13):
            c = s * 13 + (ranks[j] if j < 12 else rank)
            keys[nplain][0] += v.mine[c]
            keys[nplain][i] = v.mine[c]
            for k in range(NSEAT):
                keys[nplain][i + 1 + k] = v.played[v.rel[k]][c]
                keys[nplain][i + 5 + k] = v.in_trick[v.rel[k]][c]
            i += 9
        for k in range(NSEAT):
            keys[nplain][i + k] = v.voided[k][s]
        blocks[nplain] = s
        nplain += 1
    # Stable insertion sort, descending: a suit moves up only past a strictly smaller key.
    for i in range(1, nplain):
        j = i
        while j > 0 and block_key_cmp(keys[j], keys[j - 1], KEYLEN) > 0:
            memcpy(tmp_key, keys[j], sizeof(tmp_key))
            memcpy(keys[j], keys[j - 1], sizeof(tmp_key))
            memcpy(keys[j - 1], tmp_key, sizeof(tmp_key))
            tmp_block = blocks[j]
            blocks[j] = blocks[j - 1]
            blocks[j - 1] = tmp_block
            j -= 1
    if trump >= 0:
        all_blocks[0] = trump
        nblocks = 1
    for i in range(nplain):
        all_blocks[nblocks] = blocks[i]
        nblocks += 1
    v.order[0] = BJ
    v.order[1] = SJ
    for b in range(4):
        v.order[2 + b] = all_blocks[b] * 13 + rank
        v.cat_of_block[b] = TRUMP if (b == 0 and trump >= 0) else all_blocks[b]
    i = 6
    for b in range(4):
        for j in range(12):
            v.order[i] = all_blocks[b] * 13 + ranks[j]
            i += 1
    for i in range(NS):
        v.slot_of[v.order[i]] = i
    v.winner = -1
    if v.ntrick:
        v.winner = (v.trick_seats[0] + trick_winner_c(&tr.table, v.trickv, v.ntrick)) % NSEAT


cdef void write_state(const View* v, const Trump* tr, float* t) noexcept nogil:
    """The state tokens of a derived view into t[MAX_TOKENS * FS] (zeroed by the caller),
    ruleset `classic`'s planes aside (classic_planes)."""
    cdef int i, c, k, s, b, total
    cdef float* row
    cdef bint in_this_trick

    # Slot tokens.
    for i in range(NS):
        c = v.order[i]
        row = t + i * FS
        row[TOK_SLOT] = 1.0
        row[V + S_GROUP + GROUP[i]] = 1.0
        row[V + S_TRUMP] = tr.cat[c] == TRUMP
        row[V + S_STRENGTH] = tr.strength_scaled[c]
        row[V + S_RANK] = RANK_SCALED[c]
        row[V + S_POINTS] = tr.points_scaled[c]
        row[V + S_MINE] = <float>(v.mine[c] / 2.0)
        row[V + S_UNSEEN] = <float>(v.unseen[c] / 2.0)
        for k in range(NSEAT):
            row[V + S_PLAYED + k] = <float>(v.played[v.rel[k]][c] / 2.0)
            row[V + S_TRICK + k] = <float>(v.in_trick[v.rel[k]][c] / 2.0)
        row[V + S_LED] = tr.cat[c] == v.led_cat
        for k in range(3):
            row[V + S_VOID + k] = v.voided[k + 1][tr.cat[c]]
        row[V + S_POS] = POSITION[i]
        row[V + S_CHAIN] = tr.chains[c] >= 0

    # Seat tokens.
    for k in range(NSEAT):
        s = v.rel[k]
        row = t + (NS + k) * FS
        row[TOK_SEAT] = 1.0
        row[V + k] = 1.0
        row[V + 4] = k % 2 == 0
        row[V + 5] = s % 2 == v.decl
        row[V + 6] = s == v.dealer
        row[V + 7] = <float>(v.cards_left[s] / 27.0)
        for b in range(4):
            if v.cat_of_block[b] != TRUMP:
                row[V + 8 + b] = v.voided[k][v.cat_of_block[b]]
        row[V + 12] = v.voided[k][TRUMP]
        in_this_trick = False
        for i in range(v.ntrick):
            if v.trick_seats[i] == s:
                in_this_trick = True
        row[V + 13] = v.ntrick > 0 and v.trick_seats[0] == s
        row[V + 14] = in_this_trick
        row[V + 15] = s == v.winner
        row[V + 16] = k > 0 and not in_this_trick and v.ntrick > 0
        row[V + 17] = <float>(v.won_points[s] / 100.0)
        row[V + 18] = <float>(v.won_tricks[s] / 27.0)

    # Context token.
    row = t + (NS + NSEAT) * FS
    row[TOK_CONTEXT] = 1.0
    cdef int team = v.seat % 2
    row[V + 0] = <float>(v.levels[team] / 14.0)
    row[V + 1] = <float>(v.levels[1 - team] / 14.0)
    row[V + 2] = <float>(tr.rank / 12.0)
    row[V + 3] = tr.trump_suit < 0
    row[V + 4] = team == v.decl
    row[V + 5] = <float>(v.attacker_points / 200.0)
    total = 0
    for s in range(NSEAT):
        if s % 2 == v.decl:
            total += v.won_points[s]
    row[V + 6] = <float>(total / 200.0)
    row[V + 7] = <float>(v.ntricks / 27.0)
    row[V + 8] = <float>(v.ntrick / 4.0)
    row[V + 9] = <float>(v.table_points / 100.0)
    row[V + 10] = <float>(v.lead_size / 8.0)
    if v.ntrick:
        row[V + 11 + v.lead_kind] = 1.0
    row[V + 15] = v.ntrick == 0
    row[V + 16] = tr.classic
    total = 0
    for c in range(NS):
        total += v.unseen[c] * tr.points[c]
    row[V + 17] = <float>(total / 200.0)
    row[V + 18] = v.play_phase


cdef void write_action(View* v, const Trump* tr, const Play* p, float* row) noexcept nogil:
    """The action row of one play (zeroed by the caller) against a derived view; the trick's
    scratch slot (v.trickv after its plays) is used and left clear."""
    cdef int i, j, c, b, x, n, winner
    cdef int shift = 0 if v.cat_of_block[0] == TRUMP else 1
    cdef int ntrick = v.ntrick, led_cat = v.led_cat, lead_size = v.lead_size
    cdef int seat = v.seat, team = v.seat % 2
    cdef int safe_n, trumps, pts, strength_sum, pairs, kind, cat_a, weakest, strongest
    cdef int top, beaters, first_slot
    cdef int per_cat[5]
    pts = p.points
    n = 0
    strength_sum = 0
    pairs = 0
    memset(per_cat, 0, sizeof(per_cat))
    first_slot = -1
    weakest = 32767
    strongest = -1
    for j in range(p.nheld):
        c = p.held[j]
        x = p.by_card[c]
        i = v.slot_of[c]
        row[A_CNT + i] = <float>(x / 2.0)
        n += x
        per_cat[tr.cat[c]] += x
        strength_sum += x * tr.strength[c]
        if x == 2:
            pairs += 1
        if first_slot < 0 or i < first_slot:
            first_slot = i
        if tr.strength[c] < weakest:
            weakest = tr.strength[c]
        if tr.strength[c] > strongest:
            strongest = tr.strength[c]
    trumps = per_cat[TRUMP]
    safe_n = n if n > 1 else 1
    row[A_N] = <float>(n / 8.0)
    row[A_CAT] = <float>(trumps / <double>safe_n)
    for b in range(4):
        if v.cat_of_block[b] != TRUMP:
            row[A_CAT + b + shift] = <float>(per_cat[v.cat_of_block[b]] / <double>safe_n)
    row[A_POINTS] = <float>(pts / 20.0)
    row[A_TRUMPS] = <float>(trumps / 8.0)
    row[A_STRENGTH] = <float>(strength_sum / <double>safe_n / 23.0)
    if ntrick:
        row[A_LED] = <float>((per_cat[led_cat] if led_cat >= 0 else 0) / <double>lead_size)
    kind = kind_of(p, tr)
    row[A_KIND + kind] = 1.0
    if not ntrick:
        # features._lead_safety for this lead.
        if n > 0:
            cat_a = tr.cat[v.order[first_slot]]
            top = strongest if kind == 2 else weakest
            beaters = 0
            for j in range(tr.cat_n[cat_a]):
                c = tr.cat_cards[cat_a][j]
                if tr.strength[c] > top:
                    if kind == 1 or kind == 2:
                        beaters += v.unseen[c] >= 2
                    else:
                        beaters += v.unseen[c]
            row[A_BEATERS] = <float>((beaters if beaters < 8 else 8) / 8.0)
            row[A_SAFE] = beaters == 0
            if cat_a != TRUMP:
                row[A_OPP_VOID] = v.voided[1][cat_a] or v.voided[3][cat_a]
                row[A_PARTNER_VOID] = v.voided[2][cat_a]
    row[A_PAIRS] = <float>(pairs / 4.0)
    if ntrick and n < lead_size:
        row[A_PARTIAL] = 1.0
        row[A_NEED] = <float>((lead_size - n) / <double>lead_size)
    elif ntrick and n == lead_size:
        if per_cat[led_cat] == n or per_cat[TRUMP] == n:
            for j in range(p.nheld):
                c = p.held[j]
                v.trickv[ntrick * NS + c] = <unsigned char>p.by_card[c]
            winner = (v.trick_seats[0] + trick_winner_c(&tr.table, v.trickv, ntrick + 1)) % NSEAT
            for j in range(p.nheld):
                v.trickv[ntrick * NS + p.held[j]] = 0
        else:
            # Neither all of the led category nor all trumps: in both rulesets such a play
            # never takes the trick (the referee's play keys give it -1), so the trick's
            # winner stands; the equality test holds this shortcut to the referee's answer.
            winner = v.winner
        if winner == seat:
            row[A_WINS] = 1.0
        if winner % 2 == team:
            row[A_GAIN] = <float>((v.table_points + pts) / 50.0)


cdef void write_belief(const View* v, const Trump* tr, int* unseen, int* capacity,
                       float* voids) noexcept nogil:
    """The belief arrays of a derived view: unseen[54] per slot (at least 0), capacity[3] (the
    cards left of relative seats 1-3), voids[3 * 54] (seat h has shown void in slot r's
    category)."""
    cdef int i, k, x
    for i in range(NS):
        x = v.unseen[v.order[i]]
        unseen[i] = x if x > 0 else 0
    for k in range(3):
        capacity[k] = v.cards_left[v.rel[k + 1]]
        for i in range(NS):
            voids[k * NS + i] = v.voided[k + 1][tr.cat[v.order[i]]]


def featurize(obs, legal):
    """One decision as unpadded arrays; see features.py for the layout."""
    cdef _Trump trump = trump_tables(obs.rules, obs.trump_rank, obs.trump_suit)
    cdef const Trump* tr = &trump.tab
    cdef View v
    cdef int k, s, c, i, j, a, x, total, nlegal
    cdef Play lead                      # the trick's lead
    cdef Play p                         # a play being featurized
    cdef Play* q
    cdef float* out
    cdef cnp.npy_intp dims[2]
    cdef tuple item

    memset(&v, 0, sizeof(v))
    v.seat = seat_of(obs.seat)
    v.dealer = seat_of(obs.dealer)
    for k in range(NSEAT):
        v.rel[k] = (v.seat + k) % NSEAT
    add_cards(obs.hand, v.mine, tr.points)
    tricks = obs.tricks
    for done in tricks:
        item = done if type(done) is tuple else tuple(done)
        _, plays, w = item
        total = 0
        for seat_cards in plays:
            item = seat_cards if type(seat_cards) is tuple else tuple(seat_cards)
            s, cards = item
            total += add_cards(cards, v.played[seat_of(s)], tr.points)
        s = seat_of(w)
        v.won_points[s] += total
        v.won_tricks[s] += 1
    v.ntricks = len(tricks)
    trick = obs.trick
    cdef int ntrick = len(trick)
    if ntrick >= NSEAT:
        raise ValueError(f"a trick still being played has at most 3 plays, not {ntrick}")
    v.ntrick = ntrick
    memset(&lead, 0, sizeof(lead))
    memset(&p, 0, sizeof(p))
    for i in range(ntrick):
        s, cards = trick[i]
        s = seat_of(s)
        v.trick_seats[i] = s
        load_play(cards, &lead if i == 0 else &p, tr.points)
        q = &lead if i == 0 else &p
        v.table_points += q.points
        for j in range(q.nheld):
            c = q.held[j]
            v.in_trick[s][c] += q.by_card[c]
            v.trickv[i * NS + c] = <unsigned char>q.by_card[c]
        if i > 0:
            clear_play(&p)
    voids = obs.voids
    for k in range(NSEAT):
        for ch in voids[v.rel[k]]:
            x = CAT_OF_CHAR[ord(ch)] if len(ch) == 1 and ord(ch) < 128 else -1
            if x < 0:
                CATS.index(ch)      # the ValueError the Python featurizer raises
            v.voided[k][x] = 1
    v.lead_kind = kind_of(&lead, tr) if ntrick else -1
    declarers = obs.declarers
    v.decl = declarers if declarers is not None else -1
    cards_left = obs.cards_left
    for s in range(NSEAT):
        v.cards_left[s] = cards_left[s]
    levels = obs.levels
    v.levels[0] = levels[0]
    v.levels[1] = levels[1]
    v.attacker_points = obs.attacker_points
    v.play_phase = obs.phase == "play"
    if tr.classic:
        classic_view(obs, &v, tr)
    view_derive(&v, tr)
    if ntrick:
        v.led_cat = tr.cat[card_id(trick[0][1][0])]     # the first card named, as numpy reads it

    dims[0] = MAX_TOKENS
    dims[1] = FS
    tokens = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    cdef float* t = <float*>cnp.PyArray_DATA(tokens)
    write_state(&v, tr, t)
    if tr.classic:
        write_classic(&v, tr, t)

    # Actions.
    cdef list moves = legal if type(legal) is list else list(legal)
    nlegal = len(moves)
    dims[0] = nlegal
    dims[1] = FA
    actions = cnp.PyArray_ZEROS(2, dims, cnp.NPY_FLOAT32, 0)
    out = <float*>cnp.PyArray_DATA(actions)
    for a in range(nlegal):
        load_play(moves[a], &p, tr.points)
        write_action(&v, tr, &p, out + a * FA)
        clear_play(&p)

    dims[0] = NS
    unseen_arr = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    dims[0] = 3
    capacity = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    dims[1] = NS
    void_arr = cnp.PyArray_EMPTY(2, dims, cnp.NPY_FLOAT32, 0)
    write_belief(&v, tr, <int*>cnp.PyArray_DATA(unseen_arr), <int*>cnp.PyArray_DATA(capacity),
                 <float*>cnp.PyArray_DATA(void_arr))
    return {"state_tokens": tokens, "actions": actions,
            "role": (v.seat - v.dealer + NSEAT) % NSEAT,
            "unseen": unseen_arr, "capacity": capacity, "void": void_arr}
