# The Shengji featurizer at C level, for native callers (the VecEnv): a decision's view as plain
# counts (`View`), the per-trump card tables (`Trump`), the state tokens, action rows and belief
# arrays written from them.
# `featurize(obs, legal)` in _features.pyx fills the same view from an Observation, so the one
# featurizer has one body whoever calls it.
from openlandlord.games.shengji._cards cimport Table

cdef enum:
    NS = 54           # slots = card ids (features.NUM_SLOTS, checked on import)
    NSEAT = 4
    KEYLEN = 122      # a plain suit's sort key: its count, 13 cards x 9 counts, 4 void flags

cdef struct Trump:
    # The card tables of one (ruleset, trump rank, trump suit), by card id (features._table),
    # with the referee's table for the trick winner.
    int cat[NS]
    int strength[NS]
    int points[NS]
    int chains[NS]
    int cat_cards[5][NS]      # the cards of each category, ascending ids
    int cat_n[5]
    float strength_scaled[NS]
    float points_scaled[NS]
    int trump_suit            # features._trump_suit: 0..3, -1 without a trump suit
    int rank                  # the trump rank's index
    int classic
    Table table

cdef struct View:
    # What the state tokens read of one seat's observation (seats absolute unless named).
    int seat
    int dealer
    int decl                  # the declaring team, -1 when none
    int mine[NS]
    int played[NSEAT][NS]     # completed tricks' cards, per seat
    int in_trick[NSEAT][NS]   # the current trick's cards, per seat
    int won_points[NSEAT]
    int won_tricks[NSEAT]
    int ntricks               # completed tricks
    int ntrick                # plays in the current trick (at most 3)
    int trick_seats[NSEAT]
    unsigned char trickv[5 * NS]  # the current trick's plays as count vectors (and one more)
    int lead_kind             # features._kind of the lead (0 single .. 3 other), -1 none
    int table_points
    int voided[NSEAT][5]      # per relative seat, per category
    int cards_left[NSEAT]
    int levels[2]
    int attacker_points
    int play_phase
    # Ruleset `classic` (write_classic; features._classic_planes).
    int declare_phase
    int bury_phase
    int kitty[NS]             # the buried cards the seat sees (the dealer's, once buried)
    int kitty_shown           # the seat sees a kitty (obs.kitty is not empty)
    int declarer              # the standing declaration's seat, -1 none
    int declared[NS]          # its cards
    int declared_n
    int declared_jokers       # a joker pair (no trump)
    int taken[NSEAT]          # cards each seat took back from failed throws
    int penalty               # their penalty, signed to the attackers
    # Derived by view_derive: relative seats, unseen counts, the lead, the canonical slots.
    int rel[NSEAT]
    int unseen[NS]
    int led_cat
    int lead_size
    int order[NS]             # slot -> card id
    int slot_of[NS]
    int cat_of_block[4]
    int winner                # the seat winning the current trick, -1 when none

cdef struct Play:
    # One play as counts by card id (`by_card`, zero elsewhere) and its distinct cards
    # ascending (`held[:nheld]`), so that a play costs its own size, not 54.
    int by_card[NS]
    int held[NS]
    int nheld
    int n
    int points

cdef void view_derive(View* v, const Trump* tr) noexcept nogil
cdef void write_state(const View* v, const Trump* tr, float* t) noexcept nogil
cdef void write_classic(const View* v, const Trump* tr, float* t) noexcept nogil
cdef int lead_kind_c(const Trump* tr, const unsigned char* lead) noexcept nogil
cdef void play_of_counts(const Trump* tr, const unsigned char* counts, Play* p) noexcept nogil
cdef void write_action(View* v, const Trump* tr, const Play* p, float* row) noexcept nogil
cdef void write_belief(const View* v, const Trump* tr, int* unseen, int* capacity,
                       float* voids) noexcept nogil

cdef class _Trump:
    cdef Trump tab
    cdef str rules, trump_rank, trump_suit_name

cdef _Trump trump_tables(str rules, str trump_rank, str trump_suit)
