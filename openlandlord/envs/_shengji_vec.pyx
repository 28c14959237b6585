# cython: language_level=3
"""The batched native Shengji environment (`VecEnv("shengji", ...)`), both rulesets: every
game's state in C, one call steps them all (see `openlandlord.envs` for the contract).

Actions are `ShengjiActions`: a move is built card by card through the referee's factored
options, each step adding one card (0..53) to the seat's partial play, or closing a lead that
could still grow (END, 54); the play is made once no card can extend it or END is chosen,
tricks are settled and a finished round pays `Round.payoffs()` (the winning side's seats +
levels up, the others -). Ruleset `classic` adds its phases (`ClassicRound`): the deal card by
card, stopping where the receiving seat may declare (that card alone, 55 its pair, 56 pass);
the dealer's burial of 8 cards card by card; leads of any cards of one suit, a throw checked
against the other hands (its smallest beaten unit played, 10 points a card taken back), the
kitty multiplied when the attackers take the last trick. The rules are the referee's own C
(`_legal`'s option cores, `throw_check_c`, `trick_winner_c`, `kitty_multiplier_c`), never
restated; tests/test_vecenv_shengji.py replays every step on the Python rounds.

Deals are `Round.new(deal_seed, ...)`'s deals, drawn the same way (numpy's generator), so
`spec("shengji").new_game(env.deal_seed(i, k), **env.deal_options(i, k))` replays episode k
of env i; that draw is the one piece of Python per game, once a deal. With features="full" the
observation's state tokens and belief arrays are written by the one featurizer's C body
(`_features.write_state`, `write_classic`, `write_belief`) from a view filled from this state,
in the same native loop; `action_features(i)` writes the action rows (`write_action`) of the
candidates env i's legal actions make.
"""
cimport numpy as cnp
from libc.stdlib cimport calloc, free
from libc.string cimport memset, memcpy

from openlandlord.games.shengji._cards cimport (
    NCARD, Table, build_table, build_classic_table, next_random, below)
from openlandlord.games.shengji._trick cimport (
    Lead, Format, classify, trick_winner_c, lead_format_c, throw_check_c, kitty_multiplier_c)
from openlandlord.games.shengji._legal cimport (
    follow_options_c, lead_options_c, classic_follow_options_c)
from openlandlord.games.shengji._features cimport (
    View, Trump, Play, _Trump, trump_tables, view_derive, write_state, write_classic,
    write_action, write_belief, play_of_counts, lead_kind_c)

import numpy as np

from ..errors import IllegalMove, UserError
from .actions import ShengjiActions

cnp.import_array()

from ..games.shengji import features as _features_py

cdef int MAX_TOKENS = _features_py.MAX_TOKENS
cdef int FS = _features_py.FS

cdef enum:
    NSEAT = 4
    NACT = 57
    END = 54
    DECLARE_PAIR = 55
    DECLARE_PASS = 56
    HAND = 27                 # `tractor`: cards a seat
    DEAL = 100                # `classic`: cards dealt to the seats, then the kitty
    KITTY = 8
    THROW_PENALTY = 10        # `classic`: points per card a failed throw takes back
    DECLARE = 0               # `classic` phases; `tractor` is always in PLAY
    BURY = 1
    PLAY = 2

# The action space and the `classic` constants are defined in Python; the C here must agree.
from ..games.shengji import classic_round as _classic_round
if ((ShengjiActions.n, ShengjiActions.END, ShengjiActions.DECLARE_PAIR,
     ShengjiActions.DECLARE_PASS) != (NACT, END, DECLARE_PAIR, DECLARE_PASS)
        or (_classic_round.DEAL, _classic_round.KITTY, _classic_round.THROW_PENALTY)
        != (DEAL, KITTY, THROW_PENALTY)):
    raise ImportError("the Shengji VecEnv was built for another action space or classic deal")


cdef struct Game:
    Table t
    int classic
    int phase
    unsigned char hands[NSEAT][NCARD]
    unsigned char trick[NSEAT][NCARD]     # the current trick's plays, in play order
    int ntrick
    unsigned char prefix[NCARD]           # the move being built
    int nprefix
    Lead lead                             # `tractor`: the current trick's lead (ntrick > 0)
    Format fmt                            # `classic`: its format
    int led_cat, led_n
    int leader, current, dealer, declarers
    int attacker_points
    int score                             # the attackers' score at the end (payoffs_of)
    int tricks_done
    int voids[NSEAT]                      # per seat, a bit per category shown void
    long long episode
    # Ruleset `classic`: the deal card by card with declarations, the kitty, throws.
    int rank                              # the trump rank (0..12)
    int deck[108]
    int dealt
    int declared                          # the standing declaration's strength: 0 none,
    int decl_seat                         # 1 single, 2 pair, 3 SJ pair, 4 BJ pair
    unsigned char decl_cards[NCARD]
    int decl_n
    unsigned char kitty[NCARD]            # buried
    int penalty                           # signed to the attackers
    int taken[NSEAT]                      # cards taken back from failed throws, per seat
    # What the featurizer's view reads besides.
    const Trump* features                 # the featurizer's tables of this trump
    const Trump* suit_features[5]         # `classic`: those of each trump the kitty may set
                                          # (no trump, S, H, D, C)
    unsigned char played[NSEAT][NCARD]    # completed tricks' cards, per seat
    int won_points[NSEAT]
    int won_tricks[NSEAT]
    int levels[2]


cdef unsigned long long mix_seed(unsigned long long seed, unsigned long long index,
                                 unsigned long long episode) noexcept nogil:
    # One deal seed per (env seed, env index, episode): splitmix64 over the three in turn.
    cdef unsigned long long s = seed
    s = next_random(&s) ^ index
    s = next_random(&s) ^ episode
    return next_random(&s)


cdef int declarations_of(const Game* g, unsigned char* mask) noexcept nogil:
    # The declarations open to the seat that just received deck[dealt - 1]
    # (ClassicRound._declarations): with a trump-rank card alone while nobody has declared,
    # with its pair over a single, with a joker pair over any rank declaration (BJ over SJ).
    # Marks them (and the pass) in `mask` when given; returns how many declarations.
    cdef int card = g.deck[g.dealt - 1]
    cdef int held = g.hands[(g.dealer + g.dealt - 1) % NSEAT][card]
    cdef int single = 0, pair = 0
    if card < 52 and card % 13 == g.rank:
        single = g.declared == 0
        pair = held == 2 and g.declared < 2
    elif card >= 52:
        pair = held == 2 and g.declared < (3 if card == 52 else 4)
    if mask != NULL:
        mask[DECLARE_PASS] = 1
        if single:
            mask[card] = 1
        if pair:
            mask[DECLARE_PAIR] = 1
    return single + pair


cdef int options_of(Game* g, unsigned char* mask) noexcept nogil:
    # The seat's options into mask[0..56]; returns how many (0: the prefix is a whole move).
    cdef int n = 0, c, cat, complete = 0
    cdef unsigned char out[NCARD]
    memset(mask, 0, NACT)
    if g.phase == DECLARE:
        return declarations_of(g, mask) + 1
    if g.phase == BURY:
        if g.nprefix == KITTY:
            return 0
        for c in range(NCARD):
            if g.hands[g.dealer][c] > g.prefix[c]:
                mask[c] = 1
                n += 1
        return n
    if g.ntrick == 0 and g.classic:
        # A lead is any cards of one suit (classic_lead_options): stay in the prefix's.
        cat = -1
        for c in range(NCARD):
            if g.prefix[c]:
                cat = g.t.cat[c]
                break
        for c in range(NCARD):
            if g.hands[g.current][c] > g.prefix[c] and (cat < 0 or g.t.cat[c] == cat):
                mask[c] = 1
                n += 1
        if n and cat >= 0:
            mask[END] = 1
        return n + mask[END]
    if g.ntrick == 0:
        n = lead_options_c(&g.t, g.hands[g.current], g.prefix, out, &complete)
        if n > 0 and complete:
            mask[END] = 1
    elif g.classic:
        n = classic_follow_options_c(&g.t, g.hands[g.current], &g.fmt, g.prefix, out)
    else:
        n = follow_options_c(&g.t, g.hands[g.current], &g.lead, g.prefix, out)
    if n < 0:
        return 0
    for c in range(NCARD):
        mask[c] = out[c]
    return n + mask[END]


cdef void deal_on(Game* g) noexcept nogil:
    # ClassicRound._deal_on: deal until a card lets its receiver declare, else take the kitty.
    cdef int card, seat, suit, c
    while g.dealt < DEAL:
        card = g.deck[g.dealt]
        seat = (g.dealer + g.dealt) % NSEAT
        g.hands[seat][card] += 1
        g.dealt += 1
        if declarations_of(g, NULL):
            g.current = seat
            return
    # The trump suit: the declaration's, else the kitty's first card's; a joker: no trump.
    card = g.deck[DEAL]
    if g.decl_seat >= 0:
        for c in range(NCARD):
            if g.decl_cards[c]:
                card = c
                break
    suit = -1 if card >= 52 else card // 13
    build_classic_table(&g.t, g.rank, suit)
    g.features = g.suit_features[suit + 1]
    for c in range(DEAL, 108):
        g.hands[g.dealer][g.deck[c]] += 1
    g.phase = BURY
    g.current = g.dealer


cdef void declare(Game* g, int a) noexcept nogil:
    cdef int card = g.deck[g.dealt - 1]
    memset(g.decl_cards, 0, NCARD)
    g.decl_seat = g.current
    if a == DECLARE_PAIR:
        g.decl_cards[card] = 2
        g.decl_n = 2
        g.declared = 2 if card < 52 else (3 if card == 52 else 4)
    else:
        g.decl_cards[card] = 1
        g.decl_n = 1
        g.declared = 1


cdef int act(Game* g, int a, unsigned char* mask) noexcept nogil:
    # One legal action: 0 when the same seat goes on building its move (the mask is its next
    # options), 1 when a move was made (the mask is the next decision's), 2 when the round is
    # over.
    cdef int c
    if g.phase == DECLARE:
        if a != DECLARE_PASS:
            declare(g, a)
        deal_on(g)
        options_of(g, mask)
        return 1
    if a != END:
        g.prefix[a] += 1
        g.nprefix += 1
        if options_of(g, mask):
            return 0
    if g.phase == BURY:
        for c in range(NCARD):
            g.hands[g.dealer][c] -= g.prefix[c]
            g.kitty[c] = g.prefix[c]
            g.prefix[c] = 0
        g.nprefix = 0
        g.phase = PLAY
        g.leader = g.current = g.dealer
        options_of(g, mask)
        return 1
    if play_prefix(g):
        return 2
    options_of(g, mask)
    return 1


cdef int play_prefix(Game* g) noexcept nogil:
    # The partial play is complete: play it, settle the trick when it is the fourth. Returns 1
    # when the round is over.
    cdef int seat = g.current, c, led, i, winner, taken, kitty_points = 0, points = 0
    cdef unsigned char others[3 * NCARD]
    cdef unsigned char played[NCARD]
    if g.ntrick == 0 and g.classic:
        lead_format_c(&g.t, g.prefix, &g.fmt)
        if g.fmt.nunits > 1:
            # A throw stands when no other hand beats a unit of it; else its smallest beaten
            # unit is played and the thrower's side pays for the cards taken back.
            for i in range(3):
                memcpy(others + i * NCARD, g.hands[(seat + 1 + i) % NSEAT], NCARD)
            taken = throw_check_c(&g.t, g.prefix, &g.fmt, others, 3, played)
            if taken:
                g.penalty += (THROW_PENALTY if seat % 2 == g.declarers else -THROW_PENALTY) * taken
                g.taken[seat] += taken
                memcpy(g.prefix, played, NCARD)
                lead_format_c(&g.t, g.prefix, &g.fmt)
        g.led_cat = g.fmt.cat
        g.led_n = g.fmt.n
    elif g.ntrick == 0:
        classify(&g.t, g.prefix, &g.lead)
        g.led_cat = g.lead.cat
        g.led_n = g.lead.n
    else:
        led = 0
        for c in range(NCARD):
            if g.t.cat[c] == g.led_cat:
                led += g.prefix[c]
        if led < g.led_n:
            g.voids[seat] |= 1 << g.led_cat
    memcpy(g.trick[g.ntrick], g.prefix, NCARD)
    for c in range(NCARD):
        g.hands[seat][c] -= g.prefix[c]
        g.prefix[c] = 0
    g.nprefix = 0
    g.ntrick += 1
    if g.ntrick < NSEAT:
        g.current = (seat + 1) % NSEAT
        return 0
    winner = (g.leader + trick_winner_c(&g.t, &g.trick[0][0], NSEAT)) % NSEAT
    for i in range(NSEAT):
        for c in range(NCARD):
            points += g.trick[i][c] * g.t.points[c]
            g.played[(g.leader + i) % NSEAT][c] += g.trick[i][c]
    g.won_points[winner] += points
    g.won_tricks[winner] += 1
    if winner % 2 != g.declarers:
        g.attacker_points += points
    g.tricks_done += 1
    g.ntrick = 0
    g.leader = g.current = winner
    for c in range(NCARD):
        if g.hands[winner][c]:
            return 0
    # Every hand is empty (all four are the same size after a trick): the round is over.
    g.score = g.attacker_points
    if g.classic:
        # The attackers' score (ClassicRound.score): the kitty multiplied by the last lead's
        # largest unit when they won the last trick, and the throw penalties.
        if winner % 2 != g.declarers:
            for c in range(NCARD):
                kitty_points += g.kitty[c] * g.t.points[c]
            g.score += kitty_points * kitty_multiplier_c(&g.fmt)
        g.score += g.penalty
        if g.score < 0:
            g.score = 0
    return 1


cdef void fill_view(const Game* g, View* view) noexcept nogil:
    # The seat to move's view, as `_features.featurize` fills it from an Observation, derived.
    cdef View* v = view
    cdef const Trump* tr = g.features
    cdef int k, s, c, bits
    memset(v, 0, sizeof(View))
    v.seat = g.current
    v.dealer = g.dealer
    v.decl = g.declarers
    for c in range(NCARD):
        v.mine[c] = g.hands[g.current][c]
    for s in range(NSEAT):
        for c in range(NCARD):
            v.played[s][c] = g.played[s][c]
            v.cards_left[s] += g.hands[s][c]
        v.won_points[s] = g.won_points[s]
        v.won_tricks[s] = g.won_tricks[s]
    v.ntricks = g.tricks_done
    v.ntrick = g.ntrick
    for k in range(g.ntrick):
        s = (g.leader + k) % NSEAT
        v.trick_seats[k] = s
        for c in range(NCARD):
            v.in_trick[s][c] = g.trick[k][c]
            v.trickv[k * NCARD + c] = g.trick[k][c]
            v.table_points += g.trick[k][c] * tr.points[c]
    v.lead_kind = lead_kind_c(tr, g.trick[0]) if g.ntrick else -1
    for k in range(NSEAT):
        bits = g.voids[(g.current + k) % NSEAT]
        for c in range(5):
            v.voided[k][c] = bits >> c & 1
    v.levels[0] = g.levels[0]
    v.levels[1] = g.levels[1]
    v.attacker_points = g.attacker_points
    v.play_phase = g.phase == PLAY
    if g.classic:
        v.declare_phase = g.phase == DECLARE
        v.bury_phase = g.phase == BURY
        if g.current == g.dealer:
            for c in range(NCARD):
                v.kitty[c] = g.kitty[c]
                v.kitty_shown |= g.kitty[c] > 0
        v.declarer = g.decl_seat
        v.declared_n = g.decl_n
        v.declared_jokers = g.decl_seat >= 0
        for c in range(NCARD):
            v.declared[c] = g.decl_cards[c]
            if g.decl_cards[c] and c < 52:
                v.declared_jokers = 0
        for s in range(NSEAT):
            v.taken[s] = g.taken[s]
        v.penalty = g.penalty
    view_derive(v, tr)


cdef void write_features(const Game* g, float* tokens, int* role, unsigned char* slot_order,
                         int* unseen, int* capacity, float* voids) noexcept nogil:
    # The seat to move's state tokens (zeroed here) and belief arrays, written by the
    # featurizer's own body.
    cdef View v
    fill_view(g, &v)
    memset(tokens, 0, MAX_TOKENS * FS * sizeof(float))
    write_state(&v, g.features, tokens)
    if g.classic:
        write_classic(&v, g.features, tokens)
    write_belief(&v, g.features, unseen, capacity, voids)
    role[0] = (g.current - g.dealer + NSEAT) % NSEAT
    for c in range(NCARD):
        slot_order[c] = v.order[c]


cdef void payoffs_of(const Game* g, float* out) noexcept nogil:
    # Round.payoffs through rules.round_result: the declarers go up 3 / 2 / 1 levels for 0,
    # under 40, under 80 attacker points; from 80 the attackers go up (points - 80) // 40.
    cdef int p = g.score, up, team, s
    if p == 0:
        up, team = 3, g.declarers
    elif p < 40:
        up, team = 2, g.declarers
    elif p < 80:
        up, team = 1, g.declarers
    else:
        up, team = (p - 80) // 40, 1 - g.declarers
    for s in range(NSEAT):
        out[s] = up if s % 2 == team else -up


def deal_seed(unsigned long long seed, int index, long long episode):
    """The deal seed of episode `episode` (0, 1, ...) of env `index` of a VecEnv seeded `seed`."""
    return int(mix_seed(seed, index, episode))


def deal_settings(dict options):
    """(dealer, levels, trump_rank) of a VecEnv's deal options, checked as `new_deal` checks
    them: the dealer seat or None, two levels or None, a trump rank or "any"."""
    from ..games.shengji.spec import TRUMP_RANKS
    from ..games.shengji.state import seat_value
    dealer, levels = options.get("dealer"), options.get("levels")
    trump_rank = options.get("trump_rank", "2")
    if levels is not None:
        if trump_rank != "2":
            raise UserError("a deal takes --trump-rank or levels, not both")
        try:
            checked = tuple(int(v) for v in levels)
        except (TypeError, ValueError):
            checked = ()
        if len(checked) != 2 or not all(2 <= v <= 14 for v in checked):
            raise UserError(f"levels must be two levels in 2..14 (14 = A), got {levels!r}")
        levels = checked
    elif trump_rank not in tuple(TRUMP_RANKS) + ("any",):
        raise UserError(f"--trump-rank {trump_rank!r} is not a rank; choose one of "
                        f"{', '.join(TRUMP_RANKS)} or any")
    if dealer is not None:
        dealer = seat_value(dealer, "dealer")
    return dealer, levels, trump_rank


def deal_options(dealer, levels, trump_rank, int index, long long episode):
    """The options `spec("shengji").new_game(deal_seed, **options)` replays a deal with: the
    dealer (the option, else rotating with index + episode, as the arena rotates it with the
    deal) and the levels or the trump rank."""
    out = {"dealer": dealer if dealer is not None else (index + episode) % NSEAT}
    if levels is not None:
        out["levels"] = levels
    else:
        out["trump_rank"] = trump_rank
    return out


def action_name(int a):
    """An action in words: a card, END, or a declaration's pair or pass."""
    if a == DECLARE_PAIR:
        return "declare-pair"
    if a == DECLARE_PASS:
        return "pass"
    return ShengjiActions().option(a)


def check_actions(actions, int num_envs):
    """`actions` as an int64 array of one action index per env; a UserError naming the shape or
    the dtype wanted otherwise."""
    try:
        arr = np.asarray(actions)
    except Exception:
        raise UserError(f"actions must be an integer array of {num_envs}, got "
                        f"{type(actions).__name__}") from None
    if arr.shape != (num_envs,):
        raise UserError(f"actions must have shape ({num_envs},), one per env; got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise UserError(f"actions must be integers (action indices), got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, np.int64)


cdef class ShengjiVecEnv:
    """`num_envs` rounds of one ruleset stepped together (see the module docstring)."""
    cdef Game* games
    cdef readonly int num_envs
    cdef readonly int num_actions
    cdef readonly int num_seats
    cdef readonly unsigned long long seed
    cdef readonly str features
    cdef object dealer_option, levels_option, trump_rank
    cdef readonly str rules
    cdef bint classic
    cdef unsigned long long sample_rng
    cdef object mask_arr, seat_arr, prefix_arr, rewards_arr, dones_arr, points_arr
    cdef unsigned char[:, ::1] mask
    cdef int[::1] seat
    cdef unsigned char[:, ::1] prefix
    cdef float[:, ::1] rewards
    cdef unsigned char[::1] dones
    cdef int[::1] points
    cdef bint full
    cdef object tokens_arr, ntokens_arr, role_arr, slots_arr, unseen_arr, capacity_arr, void_arr
    cdef float[:, :, ::1] tokens
    cdef int[::1] role
    cdef unsigned char[:, ::1] slots
    cdef int[:, ::1] unseen
    cdef int[:, ::1] capacity
    cdef float[:, :, ::1] voids
    cdef list trumps                      # the featurizer's tables the games point into
    cdef dict obs
    cdef bint started

    def __cinit__(self, int num_envs, seed, str features, dict options):
        self.games = <Game*>calloc(num_envs, sizeof(Game))
        if self.games == NULL:
            raise MemoryError()

    def __init__(self, int num_envs, seed, str features, dict options):
        from ..games.shengji.state import seed_value
        self.num_envs, self.seed, self.features = num_envs, seed_value(seed), features
        self.num_actions, self.num_seats = NACT, NSEAT
        self.dealer_option, self.levels_option, self.trump_rank = deal_settings(options)
        self.rules = options.get("rules", "tractor")
        self.classic = self.rules == "classic"
        self.sample_rng = mix_seed(self.seed, 0xA17105, 0x5A3D1E)
        self.mask_arr = np.zeros((num_envs, NACT), np.uint8)
        self.seat_arr = np.zeros(num_envs, np.int32)
        self.prefix_arr = np.zeros((num_envs, NCARD), np.uint8)
        self.rewards_arr = np.zeros((num_envs, NSEAT), np.float32)
        self.dones_arr = np.zeros(num_envs, np.bool_)
        self.points_arr = np.zeros(num_envs, np.int32)
        self.mask, self.seat, self.prefix = self.mask_arr, self.seat_arr, self.prefix_arr
        self.rewards, self.points = self.rewards_arr, self.points_arr
        self.dones = self.dones_arr.view(np.uint8)
        self.obs = {"mask": self.mask_arr, "seat": self.seat_arr, "prefix": self.prefix_arr}
        self.full = features == "full"
        self.trumps = []
        if self.full:
            self.tokens_arr = np.zeros((num_envs, MAX_TOKENS, FS), np.float32)
            self.ntokens_arr = np.full(num_envs, MAX_TOKENS, np.int32)
            self.role_arr = np.zeros(num_envs, np.int32)
            self.slots_arr = np.zeros((num_envs, NCARD), np.uint8)
            self.unseen_arr = np.zeros((num_envs, NCARD), np.int32)
            self.capacity_arr = np.zeros((num_envs, 3), np.int32)
            self.void_arr = np.zeros((num_envs, 3, NCARD), np.float32)
            self.tokens, self.role, self.slots = self.tokens_arr, self.role_arr, self.slots_arr
            self.unseen, self.capacity = self.unseen_arr, self.capacity_arr
            self.voids = self.void_arr
            self.obs.update(state_tokens=self.tokens_arr, n_tokens=self.ntokens_arr,
                            role=self.role_arr, slot_order=self.slots_arr,
                            unseen=self.unseen_arr, capacity=self.capacity_arr,
                            void=self.void_arr)
        self.started = False

    def __dealloc__(self):
        free(self.games)

    # -- deals ----------------------------------------------------------------------------------
    def deal_seed(self, int index, long long episode):
        """The seed of episode `episode` (0, 1, ...) of env `index`: `Round.new(deal_seed, ...)`
        deals the same cards."""
        return deal_seed(self.seed, index, episode)

    def deal_options(self, int index, long long episode):
        """What `spec("shengji").new_game(deal_seed, **deal_options)` takes to replay that deal."""
        out = deal_options(self.dealer_option, self.levels_option, self.trump_rank, index,
                           episode)
        if self.classic:
            out["rules"] = "classic"
        return out

    cdef int new_deal(self, int i, long long episode) except -1:
        from ..games.shengji.spec import deal_trump_rank
        cdef Game* g = &self.games[i]
        cdef int dealer, level, seat, k
        cdef long long[::1] deck
        seed = self.deal_seed(i, episode)
        dealer = self.deal_options(i, episode)["dealer"]
        if self.levels_option is not None:
            level = self.levels_option[dealer % 2]
        else:
            level = deal_trump_rank(seed, self.trump_rank)
        rng = np.random.default_rng(seed)
        memset(g, 0, sizeof(Game))
        g.dealer = dealer
        g.declarers = dealer % 2
        g.leader = g.current = dealer
        g.episode = episode
        g.decl_seat = -1
        if self.levels_option is not None:
            g.levels[0], g.levels[1] = self.levels_option
        else:
            g.levels[0] = g.levels[1] = level
        rank = "23456789TJQKA"[level - 2]
        if self.classic:
            # ClassicRound.create's draw: the deck, dealt card by card from the dealer; no
            # trump suit until the declarations and the kitty settle it.
            deck = (rng.permutation(108) // 2).astype(np.int64)
            g.classic = 1
            g.phase = DECLARE
            g.rank = level - 2
            for k in range(108):
                g.deck[k] = deck[k]
            build_classic_table(&g.t, g.rank, -1)
            g.features = self.tables("classic", rank, "")
            for k, suit_name in enumerate(("N", "S", "H", "D", "C")):
                g.suit_features[k] = self.tables("classic", rank, suit_name)
            deal_on(g)
            return 0
        # Round.new's draws, in its order: the trump suit, then the deck.
        suit = int(rng.integers(4))
        deck = (rng.permutation(108) // 2).astype(np.int64)
        g.phase = PLAY
        build_table(&g.t, level - 2, suit)
        for seat in range(NSEAT):
            for k in range(HAND):
                g.hands[seat][deck[HAND * seat + k]] += 1
        g.features = self.tables("tractor", rank, "SHDC"[suit])
        return 0

    cdef const Trump* tables(self, str rules, str rank, str suit) except NULL:
        # The featurizer's tables of a trump, kept alive as long as the games point into them.
        tables = trump_tables(rules, rank, suit)
        if tables not in self.trumps:
            self.trumps.append(tables)
        return &(<_Trump>tables).tab

    # -- the contract ---------------------------------------------------------------------------
    def reset(self):
        """Every env at the first decision of its first deal (episode 0)."""
        cdef int i
        for i in range(self.num_envs):
            self.new_deal(i, 0)
            self.write_row(i)
        self.rewards_arr[:] = 0
        self.dones_arr[:] = False
        self.started = True
        return self.obs

    cdef int write_row(self, int i) except -1:
        cdef Game* g = &self.games[i]
        options_of(g, &self.mask[i, 0])
        self.seat[i] = g.current
        memcpy(&self.prefix[i, 0], g.prefix, NCARD)
        if self.full:
            self.features_row(i)
        return 0

    cdef inline void features_row(self, int i) noexcept nogil:
        write_features(&self.games[i], &self.tokens[i, 0, 0], &self.role[i], &self.slots[i, 0],
                       &self.unseen[i, 0], &self.capacity[i, 0], &self.voids[i, 0, 0])

    def step(self, actions):
        """Applies one action per env; returns (obs, rewards, dones, info). info["attacker_points"]
        holds a finished round's attacker points (with `classic`, its score: kitty and
        penalties counted) where its row's done is True."""
        cdef int i, a, done
        cdef long long[::1] acts
        cdef Game* g
        if not self.started:
            raise UserError("call reset() before step()")
        acts = self.checked(actions)
        self.rewards_arr[:] = 0
        self.dones_arr[:] = False
        self.points_arr[:] = 0
        with nogil:
            for i in range(self.num_envs):
                g = &self.games[i]
                a = <int>acts[i]
                done = act(g, a, &self.mask[i, 0])
                if done == 0:
                    self.prefix[i, a] += 1      # the same seat goes on building its move
                    continue                    # (the state features do not change)
                if done == 2:
                    payoffs_of(g, &self.rewards[i, 0])
                    self.points[i] = g.score
                    self.dones[i] = True
                    continue
                self.seat[i] = g.current
                memset(&self.prefix[i, 0], 0, NCARD)
                if self.full:
                    self.features_row(i)
        # A finished env's next deal (numpy's draw: Python once a deal).
        for i in range(self.num_envs):
            if self.dones[i]:
                self.new_deal(i, self.games[i].episode + 1)
                self.write_row(i)
        return self.obs, self.rewards_arr, self.dones_arr, {"attacker_points": self.points_arr}

    cdef long long[::1] checked(self, actions) except *:
        cdef long long[::1] acts = check_actions(actions, self.num_envs)
        cdef int i
        for i in range(self.num_envs):
            if not 0 <= acts[i] < NACT or not self.mask[i, acts[i]]:
                raise IllegalMove(self.illegal(i, int(acts[i])))
        return acts

    def illegal(self, int i, int a):
        legal = ", ".join(action_name(int(x)) for x in np.flatnonzero(self.mask_arr[i]))
        if not 0 <= a < NACT:
            what = f"action {a} is outside the Shengji action space 0..{NACT - 1}"
        else:
            what = f"action {a} ({action_name(a)}) is not legal"
        return f"env {i}: {what}; seat {self.seat[i]} may choose {legal} (nothing was stepped)"

    def sample_actions(self):
        """A uniformly random legal action per env, from the environment's own seeded stream."""
        cdef int i, c, n, k
        out = np.zeros(self.num_envs, np.int64)
        cdef long long[::1] o = out
        with nogil:
            for i in range(self.num_envs):
                n = 0
                for c in range(NACT):
                    n += self.mask[i, c]
                k = below(&self.sample_rng, n)
                for c in range(NACT):
                    if self.mask[i, c]:
                        if k == 0:
                            o[i] = c
                            break
                        k -= 1
        return out

    def legal_actions(self, int i):
        """The legal actions of env `i` now, ascending."""
        self.check_env(i)
        return np.flatnonzero(self.mask_arr[i]).astype(np.int64)

    def phase(self, int i):
        """Env `i`'s phase now: "declare" (`classic`: a seat may declare on the card it just
        received), "bury" (`classic`: the dealer's burial), else "play"."""
        self.check_env(i)
        cdef int ph = self.games[i].phase
        return "declare" if ph == DECLARE else ("bury" if ph == BURY else "play")

    def action_features(self, int i):
        """The student's action rows (the featurizer's `actions`) of env `i`'s legal actions, in
        the order of legal_actions: each the candidate it makes, as `agents.loop` builds one
        (the prefix and the card, the prefix itself for END, a declaration's move)."""
        from ..games.shengji.features import FA
        self.check_env(i)
        cdef Game* g = &self.games[i]
        cdef View v
        cdef Play p
        cdef unsigned char counts[NCARD]
        cdef long long[::1] legal = self.legal_actions(i)
        cdef int k, a, card
        out = np.zeros((legal.shape[0], FA), np.float32)
        cdef float[:, ::1] rows = out
        fill_view(g, &v)
        for k in range(legal.shape[0]):
            a = <int>legal[k]
            if g.phase == DECLARE:
                memset(counts, 0, NCARD)
                card = g.deck[g.dealt - 1]
                if a == DECLARE_PAIR:
                    counts[card] = 2
                elif a != DECLARE_PASS:
                    counts[card] = 1
            else:
                memcpy(counts, g.prefix, NCARD)
                if a != END:
                    counts[a] += 1
            play_of_counts(g.features, counts, &p)
            write_action(&v, g.features, &p, &rows[k, 0])
        return out

    def deal_seeds(self):
        """The deal seed of every env's current deal."""
        return np.array([self.deal_seed(i, self.games[i].episode) for i in range(self.num_envs)],
                        np.uint64)

    def episodes(self):
        """How many deals each env has finished."""
        return np.array([self.games[i].episode for i in range(self.num_envs)], np.int64)

    cdef int check_env(self, int i) except -1:
        if not self.started:
            raise UserError("call reset() first")
        if not 0 <= i < self.num_envs:
            raise UserError(f"env {i} is not one of 0..{self.num_envs - 1}")
        return 0
