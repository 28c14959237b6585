# Trick formats of both rulesets: what a lead asks of the followers (a `Lead` unit in
# `tractor`, a `Format` of units in `classic`), whether a play answers it, who wins the trick,
# and a `classic` throw's check against the other hands.
from openlandlord.games.shengji._cards cimport NCARD, TRUMP, Table, clear_word

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

cdef struct Format:
    # A `classic` lead (any cards of one suit) decomposed into units: longest tractors first,
    # then pairs, then singles; units sorted by pairs then top level, both descending. The
    # follow rule reads only cat, n, pairs and the tractors; a `tractor` lead's demands
    # (follow_demands) fill just those.
    int cat                   # the category, -1 if the play mixes categories
    int n                     # cards
    int pairs                 # pairs in all, tractors included
    int ntractors
    int tractors[27]          # pairs per tractor, longest first
    int nunits
    int upairs[55]            # per unit: 0 single, 1 pair, k tractor of k pairs
    int utop[55]              # per unit: level of its highest card
    int ustart[55]            # per unit: its cards are ucards[ustart[u]:ustart[u + 1]], one id
    int ucards[55]            # per card of a single or per pair of a pair / tractor

cdef struct Lead:
    # The format of a led unit, which every follower must answer.
    int kind                  # 1 single, 2 pair, 3 tractor, 0 not a unit
    int cat
    int n                     # cards
    int pairs                 # 0 for a single, 1 for a pair, k for a tractor of k pairs
    int low                   # strength of the unit's lowest card

# Ruleset `tractor` (classify and trick_winner_c, which serves both rulesets by the table's
# `classic` flag, are defined at the end).
cdef void follow_demands(const Lead* lead, Format* f) noexcept nogil
cdef int follow_error(const Table* t, const unsigned char* hand, const Lead* lead,
                      const unsigned char* play) noexcept nogil

# Ruleset `classic`.
cdef int single_cat(const Table* t, const unsigned char* v) noexcept nogil
cdef int runs_c(const Table* t, const unsigned char* v, int cat, int* rstart, int* rlen,
                int* reps) noexcept nogil
cdef int lead_format_c(const Table* t, const unsigned char* lead, Format* f) noexcept nogil
cdef int match_rec(const int* wanted, int nw, int i, int* room, int nroom, int cur, int best,
                   int* assign, int* best_assign) noexcept nogil
cdef int place_tractors(const Table* t, const unsigned char* held, const Format* f,
                       unsigned char* out) noexcept nogil
cdef int tractors_matched_c(const Table* t, const unsigned char* v, int cat, const int* wanted,
                            int nw) noexcept nogil
cdef int classic_lead_error(const Table* t, const unsigned char* hand,
                            const unsigned char* play) noexcept nogil
cdef int classic_follow_error(const Table* t, const unsigned char* hand, const Format* f,
                              const unsigned char* play) noexcept nogil
cdef int classic_play_key(const Table* t, const Format* f,
                          const unsigned char* play) noexcept nogil
cdef int classic_trick_winner_c(const Table* t, const unsigned char* plays,
                                int nplays) noexcept nogil
cdef int kitty_multiplier_c(const Format* f) noexcept nogil
cdef int beaten_units_c(const Table* t, const Format* f, const unsigned char* others, int nothers,
                        int* out) noexcept nogil
cdef int throw_check_c(const Table* t, const unsigned char* lead, const Format* f,
                       const unsigned char* others, int nothers,
                       unsigned char* out) noexcept nogil

# Python-facing helper: a `classic` lead copied in and decomposed; ValueError unless one suit.
cdef int load_lead(const Table* t, const unsigned char[::1] src, unsigned char* dst,
                   Format* f) except -1


# The `tractor` unit and the trick winner run in every round loop (_round, _pimc): defined
# here, inline, they compile into each module that cimports them, where a call across
# modules (through a pointer table) could not be inlined.
cdef inline int classify(const Table* t, const unsigned char* play, Lead* out) noexcept nogil:
    cdef int c, w, n = 0, first = -1, types = 0, lowest = -1, cat = -1, k
    for w in range(7):
        if w < 6 and clear_word(play, w):
            continue
        for c in range(8 * w, 8 * w + 8 if w < 6 else NCARD):
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


cdef inline int trick_winner_c(const Table* t, const unsigned char* plays, int nplays) noexcept nogil:
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
