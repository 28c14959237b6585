# cython: language_level=3
"""The Dou Dizhu VecEnv: `num_envs` games stepped in one call, natively (no Python per game).

Each game is the referee's C state (`PlayState`, _referee.pxd) plus its history; a step checks
every action against its game's legal set, applies it, settles a finished game and deals the
next one (auto-reset), lists the new legal actions and updates the mask rows incrementally (the
previous legal actions cleared, the new ones set: a step costs the legal set, not the 27,480
columns). With features="full" it writes the student's state tokens through the one
featurizer's C body (`_features.pxd`: the same `write_state` that `featurize(obs, legal)` runs).

Actions are the indices of openlandlord/envs/actions.py. The deal of game i's e-th episode is
`Game.new(deal_seed)` with deal_seed = `deal_seed_of(seed, i, e)` (`deal_seeds()` lists the
current ones), so any game can be replayed on the Python referee.
"""
cimport numpy as cnp
from libc.stdint cimport uint64_t, int32_t, uint8_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset

import numpy as np

from ..errors import IllegalMove, UserError
from openlandlord.games.doudizhu._referee cimport (
    PlayState, MAX_LEGAL, N_ACTIONS, T_BOMB, T_ROCKET, legal_actions, apply_action, payoff,
    splitmix64, deal_packed, init_play_state, landlord_takes_kitty, action_packed, action_type,
    packed_count, Bidding,
    bid_init, bid_legal, bid_apply, bid_start_play, BF_NONE, BF_POINTS, EV_VOID, EV_LANDLORD,
    EV_LANDLORD_PLAY, EV_PLAY, ST_DOUBLE)
from openlandlord.games.doudizhu._features cimport (
    DdzView, V_RANKS, write_state, view_tokens, view_role, write_unseen, table_ready,
    write_play_action, write_bid_action, stake_scale)
from openlandlord.games.doudizhu import features as _py
from openlandlord.games.doudizhu._referee import BIDDING_FLOWS
from .actions import N_DDZ_PLAY, DoudizhuActions

cnp.import_array()

cdef int NR = _py.NUM_RANKS
cdef int FS = _py.FS
cdef int FA = _py.FA
cdef int MAX_TOKENS = _py.MAX_TOKENS
cdef int MAX_HISTORY = _py.MAX_HISTORY
cdef int N_BIDS = len(_py.BID_WORDS)
cdef int BID_OFFSET = N_DDZ_PLAY
cdef int NUM_ACTIONS = N_DDZ_PLAY + len(_py.BID_WORDS)
if N_DDZ_PLAY != N_ACTIONS:
    raise ImportError("the VecEnv's action space and the referee's action table disagree")

cdef enum:
    MAX_PLAYS = 192     # a game has at most 54 plays and two passes after each
    MAX_BIDS = 16       # a flow has at most 9 bids


cdef struct Env:
    PlayState st
    Bidding bid
    int bidding             # 1 while the flow's bids are being made
    uint64_t dealt[3]
    uint64_t start[3]       # each seat's cards when the play began (the landlord's with the kitty)
    uint64_t kitty
    int lord                # -1 until the bidding gives a landlord
    int nbids
    int32_t bid_word[MAX_BIDS]
    uint64_t deal_seed
    long long episode
    int nplays
    int32_t play_seat[MAX_PLAYS]
    int32_t play_act[MAX_PLAYS]
    int passes[3]           # per absolute seat
    int bombs[3]
    int nlegal
    int cap
    int32_t* legal          # the legal actions, ascending (indices of the action space)


cdef uint64_t deal_seed_c(uint64_t seed, uint64_t env, uint64_t episode) noexcept nogil:
    cdef uint64_t z = seed * 0x9E3779B97F4A7C15ULL
    z ^= (env + 1) * 0xBF58476D1CE4E5B9ULL
    z = splitmix64(&z)
    z ^= episode * 0x94D049BB133111EBULL
    return splitmix64(&z)


def deal_seed_of(seed, env, episode):
    """The referee seed (`Game.new(seed)`) of env `env`'s `episode`-th deal."""
    return int(deal_seed_c(<uint64_t>seed, <uint64_t>env, <uint64_t>episode))


cdef inline void unpack(uint64_t packed, int* out) noexcept nogil:
    cdef int r
    for r in range(NR):
        out[r] = (packed >> (4 * r)) & 0xF


cdef inline int rel_seat(int s, int seat) noexcept nogil:
    return ((s - seat) % 3 + 3) % 3


cdef class DoudizhuVecEnv:
    """See the module docstring and openlandlord/envs/__init__.py for the contract."""
    cdef Env* envs
    cdef readonly int num_envs
    cdef readonly int num_actions
    cdef readonly int num_seats
    cdef readonly str features
    cdef readonly str bidding
    cdef int flow
    cdef uint64_t seed
    cdef uint64_t rng
    cdef bint full
    cdef bint started
    cdef int32_t* scratch
    cdef object _mask, _seat, _rewards, _dones, _tokens, _ntokens, _role, _unseen, _capacity
    cdef uint8_t[:, ::1] mask_v
    cdef int32_t[::1] seat_v
    cdef float[:, ::1] rewards_v
    cdef uint8_t[::1] dones_v
    cdef float[:, :, ::1] tokens_v
    cdef int32_t[::1] ntokens_v
    cdef int32_t[::1] role_v
    cdef int32_t[:, ::1] unseen_v
    cdef int32_t[:, ::1] capacity_v
    cdef object _obs

    def __cinit__(self):
        self.envs = NULL
        self.scratch = NULL

    def __init__(self, int num_envs, seed=0, str features="full", str bidding="none"):
        if num_envs < 1:
            raise UserError(f"num_envs must be positive, got {num_envs}")
        if bidding not in BIDDING_FLOWS:
            raise UserError(f"unknown bidding flow {bidding!r}; choose one of "
                            f"{', '.join(BIDDING_FLOWS)}")
        self.flow = BIDDING_FLOWS.index(bidding)
        self.num_envs = num_envs
        self.num_actions = NUM_ACTIONS
        self.num_seats = 3
        self.features = features
        self.bidding = bidding
        self.full = features == "full"
        self.seed = <uint64_t>seed
        self.envs = <Env*>malloc(num_envs * sizeof(Env))
        self.scratch = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
        if self.envs == NULL or self.scratch == NULL:
            raise MemoryError()
        memset(self.envs, 0, num_envs * sizeof(Env))
        self._mask = np.zeros((num_envs, NUM_ACTIONS), np.uint8)
        self._seat = np.zeros(num_envs, np.int32)
        self._rewards = np.zeros((num_envs, 3), np.float32)
        self._dones = np.zeros(num_envs, np.bool_)
        self.mask_v = self._mask
        self.seat_v = self._seat
        self.rewards_v = self._rewards
        self.dones_v = self._dones.view(np.uint8)
        self._obs = {"mask": self._mask, "seat": self._seat}
        if self.full:
            table_ready()
            self._tokens = np.zeros((num_envs, MAX_TOKENS, FS), np.float32)
            self._ntokens = np.zeros(num_envs, np.int32)
            self._role = np.zeros(num_envs, np.int32)
            self._unseen = np.zeros((num_envs, NR), np.int32)
            self._capacity = np.zeros((num_envs, 2), np.int32)
            self.tokens_v = self._tokens
            self.ntokens_v = self._ntokens
            self.role_v = self._role
            self.unseen_v = self._unseen
            self.capacity_v = self._capacity
            self._obs.update(state_tokens=self._tokens, n_tokens=self._ntokens, role=self._role,
                             unseen=self._unseen, capacity=self._capacity)
        self.started = False

    def __dealloc__(self):
        cdef int i
        if self.envs != NULL:
            for i in range(self.num_envs):
                free(self.envs[i].legal)
            free(self.envs)
        free(self.scratch)

    # -- the C body ------------------------------------------------------------------------
    cdef int deal(self, int i) noexcept nogil:
        cdef Env* e = &self.envs[i]
        cdef uint64_t hands[3]
        cdef uint64_t kitty
        cdef int s
        e.deal_seed = deal_seed_c(self.seed, i, e.episode)
        deal_packed(e.deal_seed, hands, &kitty)
        for s in range(3):
            e.dealt[s] = hands[s]
            e.passes[s] = 0
            e.bombs[s] = 0
        e.kitty = kitty
        e.nplays = 0
        e.nbids = 0
        e.lord = -1
        init_play_state(&e.st, hands, 0)
        for s in range(3):
            e.start[s] = hands[s]
        bid_init(&e.bid, self.flow)
        if self.flow == BF_NONE:
            e.bidding = 0
            self.take_kitty(e, 0)
            bid_start_play(&e.st, &e.bid)
        else:
            e.bidding = 1
        return 0

    cdef void take_kitty(self, Env* e, int lord) noexcept nogil:
        cdef int s
        landlord_takes_kitty(&e.st, e.dealt, e.kitty, lord)
        for s in range(3):
            e.start[s] = e.st.hand[s]
        e.lord = lord

    cdef int relist(self, int i) noexcept nogil:
        """Lists env i's legal actions and rewrites its mask row (clear old, set new)."""
        cdef Env* e = &self.envs[i]
        cdef int k, n
        cdef uint8_t* row = &self.mask_v[i, 0]
        cdef int32_t* grown
        cdef int words[8]
        for k in range(e.nlegal):
            row[e.legal[k]] = 0
        if e.bidding:
            n = bid_legal(&e.bid, words)
            for k in range(n):
                self.scratch[k] = BID_OFFSET + words[k]
        else:
            n = legal_actions(&e.st, self.scratch)
        if n > e.cap:
            grown = <int32_t*>realloc(e.legal, n * sizeof(int32_t))
            if grown == NULL:
                return -1
            e.legal = grown
            e.cap = n
        for k in range(n):
            e.legal[k] = self.scratch[k]
            row[self.scratch[k]] = 1
        e.nlegal = n
        self.seat_v[i] = e.bid.seat if e.bidding else e.st.turn
        return 0

    cdef void view_of(self, int i, DdzView* v) noexcept nogil:
        """Env i's decision as the featurizer's view (what `Game.observation(seat)` shows)."""
        cdef Env* e = &self.envs[i]
        cdef PlayState* st = &e.st
        cdef int seat = e.bid.seat if e.bidding else st.turn
        cdef int k, j, r, s, a, lord = e.lord
        cdef long long stake
        v.seat = seat
        unpack(st.hand[seat], v.hand)
        for k in range(3):
            s = (seat + k) % 3
            unpack(e.start[s] - st.hand[s], v.played[k])
            v.passes[k] = e.passes[s]
            v.bombs[k] = e.bombs[s]
            v.cards_left[k] = st.n_cards[k]
        v.lord = lord
        v.kitty_shown = 1 if lord >= 0 and e.kitty != 0 else 0
        if v.kitty_shown:
            unpack(e.kitty, v.kitty_left)
            k = rel_seat(lord, seat)
            for r in range(NR):
                v.kitty_left[r] -= v.played[k][r]
        v.nplays = e.nplays
        v.nrecent = e.nplays if e.nplays < MAX_HISTORY else MAX_HISTORY
        for j in range(v.nrecent):
            a = e.play_act[e.nplays - 1 - j]
            v.recent_seat[j] = e.play_seat[e.nplays - 1 - j]
            unpack(action_packed(a), v.recent[j])
            v.recent_len[j] = packed_count(action_packed(a))
        if not e.bidding and st.to_beat != 0 and st.to_beat_seat != seat:
            v.to_beat_seat = st.to_beat_seat
            unpack(action_packed(st.to_beat), v.to_beat)
            v.to_beat_len = packed_count(action_packed(st.to_beat))
        else:
            v.to_beat_seat = -1
            for r in range(NR):
                v.to_beat[r] = 0
            v.to_beat_len = 0
        v.bidding = e.bidding
        if e.bidding and self.flow == BF_POINTS:
            stake = e.bid.best_bid
        elif e.bidding:
            stake = (<long long>1) << e.bid.robs
        else:
            stake = (<long long>st.base_stake) << (st.bombs + st.rockets)
        if lord >= 0 and e.bid.doubled[lord] and not (e.bidding and self.flow == BF_POINTS):
            stake *= 2
        v.stake_scaled = stake_scale(stake)
        v.bombs_played = st.bombs + st.rockets
        k = e.nbids - 8 if e.nbids > 8 else 0
        v.nbids = e.nbids - k
        for j in range(v.nbids):
            v.bid_word[j] = e.bid_word[k + j]

    cdef void featurize_env(self, int i) noexcept nogil:
        cdef DdzView v
        cdef int n, r, k
        cdef float* t = &self.tokens_v[i, 0, 0]
        self.view_of(i, &v)
        n = view_tokens(&v)
        memset(t, 0, MAX_TOKENS * FS * sizeof(float))
        write_state(&v, t)
        self.ntokens_v[i] = n
        self.role_v[i] = view_role(&v)
        write_unseen(&v, <int*>&self.unseen_v[i, 0])
        self.capacity_v[i, 0] = v.cards_left[(v.seat + 1) % 3]
        self.capacity_v[i, 1] = v.cards_left[(v.seat + 2) % 3]

    cdef int apply(self, int i, int a) noexcept nogil:
        """Env i plays action a (legal); returns 1 when its game ended (2 when void)."""
        cdef Env* e = &self.envs[i]
        cdef int s, t, event
        if e.bidding:
            s = e.bid.seat
            e.bid_word[e.nbids] = a - BID_OFFSET
            e.nbids += 1
            event = bid_apply(&e.bid, s, a - BID_OFFSET)
            if event == EV_VOID:
                return 2
            if event == EV_LANDLORD or event == EV_LANDLORD_PLAY:
                self.take_kitty(e, e.bid.best_seat)
            if event == EV_LANDLORD_PLAY or event == EV_PLAY:
                e.bidding = 0
                bid_start_play(&e.st, &e.bid)
            return 0
        s = e.st.turn
        apply_action(&e.st, a)
        e.play_seat[e.nplays] = s
        e.play_act[e.nplays] = a
        e.nplays += 1
        if a == 0:
            e.passes[s] += 1
        else:
            t = action_type(a)
            if t == T_BOMB or t == T_ROCKET:
                e.bombs[s] += 1
        return 1 if e.st.winner >= 0 else 0

    # -- Python API ------------------------------------------------------------------------
    def reset(self):
        """Deals every game afresh (episode counters from 0) and returns the observation."""
        cdef int i
        with nogil:
            for i in range(self.num_envs):
                self.envs[i].episode = 0
                self.deal(i)
                if self.relist(i) < 0:
                    with gil:
                        raise MemoryError()
                if self.full:
                    self.featurize_env(i)
        self.rng = splitmix64(&self.seed) ^ 0xD1B54A32D192ED03ULL
        self.started = True
        self._rewards[:] = 0
        self._dones[:] = False
        return self._obs

    def step(self, actions):
        """Plays one action in every game: (obs, rewards, dones, info)."""
        if not self.started:
            raise UserError("step() before reset()")
        cdef const long long[::1] acts
        try:
            arr = np.ascontiguousarray(actions, dtype=np.int64)
        except (TypeError, ValueError) as exc:
            raise UserError(f"actions must be {self.num_envs} integers: {exc}") from None
        if arr.shape != (self.num_envs,):
            raise UserError(f"actions must have shape ({self.num_envs},), got {arr.shape}")
        acts = arr
        cdef int i, bad = -1, ended
        cdef long long a
        cdef int s
        with nogil:
            for i in range(self.num_envs):
                a = acts[i]
                if a < 0 or a >= NUM_ACTIONS or not self.mask_v[i, a]:
                    bad = i
                    break
        if bad >= 0:
            raise IllegalMove(f"env {bad}: action {acts[bad]} is not legal for seat "
                              f"{self.seat_v[bad]} (legal: {self.legal_actions(bad)[:12].tolist()}"
                              f"{'...' if self.envs[bad].nlegal > 12 else ''})")
        with nogil:
            for i in range(self.num_envs):
                ended = self.apply(i, <int>acts[i])
                if ended:
                    for s in range(3):
                        self.rewards_v[i, s] = <float>payoff(&self.envs[i].st, s) if ended == 1 else 0.0
                    self.dones_v[i] = 1
                    self.envs[i].episode += 1
                    self.deal(i)
                else:
                    if self.dones_v[i]:
                        for s in range(3):
                            self.rewards_v[i, s] = 0.0
                    self.dones_v[i] = 0
                if self.relist(i) < 0:
                    with gil:
                        raise MemoryError()
                if self.full:
                    self.featurize_env(i)
        return self._obs, self._rewards, self._dones, {}

    def sample_actions(self):
        """A uniformly random legal action per game, from the environment's own stream."""
        out = np.empty(self.num_envs, np.int64)
        cdef long long[::1] o = out
        cdef int i
        with nogil:
            for i in range(self.num_envs):
                o[i] = self.envs[i].legal[<int>(splitmix64(&self.rng) % <uint64_t>self.envs[i].nlegal)]
        return out

    def legal_actions(self, int i):
        """Env i's legal actions (plays ascending; bids in the order the referee lists them)."""
        self._check(i)
        cdef Env* e = &self.envs[i]
        return np.array([e.legal[k] for k in range(e.nlegal)], np.int64)

    def phase(self, int i):
        """Env i's phase now, as the spec's `bidding_kind` names it: "bid" (a call, rob or
        points bid), "double" (call-rob's doubling), else "play"."""
        self._check(i)
        cdef Env* e = &self.envs[i]
        return "play" if not e.bidding else ("double" if e.bid.stage == ST_DOUBLE else "bid")

    def action_features(self, int i):
        """The student's action rows of env i's legal actions (the order of legal_actions)."""
        self._check(i)
        table_ready()
        cdef Env* e = &self.envs[i]
        cdef int hand[V_RANKS]
        cdef int k
        unpack(e.st.hand[e.st.turn], hand)
        out = np.zeros((e.nlegal, FA), np.float32)
        cdef float[:, ::1] o = out
        for k in range(e.nlegal):
            if e.bidding:
                write_bid_action(e.legal[k] - BID_OFFSET, &o[k, 0])
            else:
                write_play_action(hand, e.legal[k], &o[k, 0])
        return out

    def deal_seeds(self):
        """The referee seed of every game now being played."""
        return np.array([self.envs[i].deal_seed for i in range(self.num_envs)], np.uint64)

    def episodes(self):
        """How many games each env has finished."""
        return np.array([self.envs[i].episode for i in range(self.num_envs)], np.int64)

    cdef _check(self, int i):
        if not self.started:
            raise UserError("reset() first")
        if not 0 <= i < self.num_envs:
            raise UserError(f"env {i} is outside 0..{self.num_envs - 1}")
