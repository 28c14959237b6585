# The Dou Dizhu featurizer at C level, for native callers (the VecEnv): a decision's view as
# plain counts (`DdzView`), the state tokens written from it, and the student's action rows.
# `featurize(obs, legal)` in _features.pyx fills the same view from an Observation, so the one
# featurizer has one body whoever calls it.
from libc.stdint cimport int32_t

cdef enum:
    V_RANKS = 32          # rank slots of a view (NUM_RANKS is 15)
    V_HISTORY = 64        # history slots of a view (MAX_HISTORY is 15)

cdef struct DdzView:
    int seat                        # the seat to move
    int hand[V_RANKS]               # my cards per rank
    int played[3][V_RANKS]          # per relative seat k (0 = me): its cards played per rank
    int lord                        # the landlord's seat, -1 before there is one
    int kitty_shown                 # 1 when the kitty is public (a landlord and a kitty)
    int kitty_left[V_RANKS]         # the kitty's cards the landlord has not played, per rank
    int nplays                      # play-phase moves so far (passes included)
    int nrecent                     # history tokens: min(nplays, MAX_HISTORY)
    int recent_seat[V_HISTORY]      # newest first: the absolute seat of each recent move
    int recent_len[V_HISTORY]       # its card count (0 = pass)
    int recent[V_HISTORY][V_RANKS]  # its cards per rank
    int passes[3]                   # per relative seat: passes so far
    int bombs[3]                    # per relative seat: bombs and rockets so far
    int to_beat_seat                # absolute seat of the standing move, -1 when none
    int cards_left[3]               # per absolute seat
    int to_beat[V_RANKS]            # the standing move per rank
    int to_beat_len
    int bidding                     # 1 in the bidding phase
    double stake_scaled             # log2(max(stake, 1)) / 5, as numpy computes it
    int bombs_played
    int nbids                       # the last (at most 8) bids' words: index into BID_WORDS,
    int bid_word[8]                 # -1 for a word outside it

cdef int view_tokens(const DdzView* v) noexcept nogil
cdef int view_role(const DdzView* v) noexcept nogil
cdef void write_state(const DdzView* v, float* tokens) noexcept nogil
cdef void write_unseen(const DdzView* v, int* unseen) noexcept nogil
cdef int table_ready() except -1
cdef int fill_view(obs, DdzView* v) except -1
cdef double stake_scale(long long stake) noexcept nogil
cdef void write_play_action(const int* hand, int action, float* row) noexcept nogil
cdef void write_bid_action(int word, float* row) noexcept nogil
