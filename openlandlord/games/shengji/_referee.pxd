# C-level entries of the Shengji referee, for other Cython modules (a PIMC teacher) to cimport.
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

cdef struct Format:
    # A `classic` lead (any cards of one suit) decomposed into units: longest tractors first,
    # then pairs, then singles; units sorted by pairs then top level, both descending.
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

ctypedef int (*Policy)(void* ctx, const Table* t, const unsigned char* hand, const Lead* lead,
                       unsigned long long* rng, unsigned char* out) noexcept nogil
# A policy writes its play (a count vector) into `out` and returns the number of cards.
# `lead` is NULL when the seat leads.

# Ruleset `tractor` (the Table built by build_table); trick_winner_c serves both rulesets.
cdef unsigned long long next_random(unsigned long long* state) noexcept nogil
cdef void build_table(Table* t, int trump_rank, int trump_suit) noexcept nogil
cdef int classify(const Table* t, const unsigned char* play, Lead* out) noexcept nogil
cdef int follow_error(const Table* t, const unsigned char* hand, const Lead* lead,
                      const unsigned char* play) noexcept nogil
cdef int trick_winner_c(const Table* t, const unsigned char* plays, int nplays) noexcept nogil
cdef int random_policy(void* ctx, const Table* t, const unsigned char* hand, const Lead* lead,
                       unsigned long long* rng, unsigned char* out) noexcept nogil
cdef void deal_c(unsigned char* hands, unsigned long long* rng) noexcept nogil
cdef int play_round_c(const Table* t, unsigned char* hands, int leader, int declarers,
                      Policy policy, void* ctx, unsigned long long* rng) noexcept nogil
cdef int sample_world_c(const Table* t, const unsigned char* unseen, const int* sizes,
                        const int* void_masks, unsigned long long* rng,
                        unsigned char* out) noexcept nogil

# Ruleset `classic` (the Table built by build_classic_table; error codes as in _referee.pyx).
cdef void build_classic_table(Table* t, int trump_rank, int trump_suit) noexcept nogil
cdef int lead_format_c(const Table* t, const unsigned char* lead, Format* f) noexcept nogil
cdef int classic_lead_error(const Table* t, const unsigned char* hand,
                            const unsigned char* play) noexcept nogil
cdef int classic_follow_error(const Table* t, const unsigned char* hand, const Format* f,
                              const unsigned char* play) noexcept nogil
cdef int classic_trick_winner_c(const Table* t, const unsigned char* plays,
                                int nplays) noexcept nogil
cdef int throw_check_c(const Table* t, const unsigned char* lead, const Format* f,
                       const unsigned char* others, int nothers,
                       unsigned char* out) noexcept nogil
cdef int classic_random_lead(const Table* t, const unsigned char* hand,
                             unsigned long long* rng, unsigned char* out) noexcept nogil
cdef int classic_random_follow(const Table* t, const unsigned char* hand, const Format* f,
                               unsigned long long* rng, unsigned char* out) noexcept nogil
cdef int kitty_multiplier_c(const Format* f) noexcept nogil
