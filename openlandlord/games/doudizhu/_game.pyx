# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""One game of Dou Dizhu: the deal, the three bidding flows, play to the end, the stakes and
the payoffs (`Game`), and the native random rollouts the PIMC teacher builds on.

The moves themselves (the action table, legal moves, applying a move) are `_moves`; the C API
here is declared in `_game.pxd`.
"""
import json

from libc.stdint cimport uint64_t, int32_t, uint8_t
from libc.stdlib cimport malloc, free

from ...errors import IllegalMove, UserError
from .observation import Observation
from ._moves import ACTIONS, TYPE_NAMES
from openlandlord.games.doudizhu._moves cimport (
    MAX_LEGAL, BLACK, RED, PlayState, action_packed, action_type, holds, beats, legal_actions,
    apply_action, packed_count, _parse, _action_of, _packed_str, state_legal_moves)

BIDDING_FLOWS = ("none", "points", "call-rob")
ROLES = ("landlord", "landlord_down", "landlord_up")

cdef tuple _ACTIONS = ACTIONS


cdef uint64_t splitmix64(uint64_t* state) noexcept nogil:
    cdef uint64_t z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)

cdef void deal_packed(uint64_t seed, uint64_t* hands, uint64_t* kitty) noexcept nogil:
    cdef uint8_t deck[54]
    cdef uint8_t tmp
    cdef int i, j
    cdef uint64_t st = seed
    for i in range(52):
        deck[i] = i // 4
    deck[52] = BLACK
    deck[53] = RED
    for i in range(53, 0, -1):
        j = <int>(splitmix64(&st) % <uint64_t>(i + 1))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    hands[0] = 0
    hands[1] = 0
    hands[2] = 0
    kitty[0] = 0
    for i in range(51):
        hands[i // 17] += (<uint64_t>1) << (4 * deck[i])
    for i in range(51, 54):
        kitty[0] += (<uint64_t>1) << (4 * deck[i])

cdef void init_play_state(PlayState* s, const uint64_t* hands, int landlord) noexcept nogil:
    cdef int i
    for i in range(3):
        s.hand[i] = hands[i]
        s.n_cards[i] = packed_count(hands[i])
        s.plays[i] = 0
        s.seat_factor[i] = 1
    s.to_beat = 0
    s.to_beat_seat = -1
    s.turn = landlord
    s.landlord = landlord
    s.winner = -1
    s.bombs = 0
    s.rockets = 0
    s.base_stake = 1

cdef void landlord_takes_kitty(PlayState* s, const uint64_t* dealt, uint64_t kitty,
                               int landlord) noexcept nogil:
    """The play state of a deal once `landlord` has taken the kitty (its turn, stake 1)."""
    cdef uint64_t hands[3]
    cdef int i
    for i in range(3):
        hands[i] = dealt[i]
    hands[landlord] += kitty
    init_play_state(s, hands, landlord)

cdef void deal_play_state(PlayState* s, uint64_t seed, int landlord) noexcept nogil:
    cdef uint64_t hands[3]
    cdef uint64_t kitty
    deal_packed(seed, hands, &kitty)
    hands[landlord] += kitty
    init_play_state(s, hands, landlord)

cdef bint is_spring(const PlayState* s) noexcept nogil:
    return (s.winner == s.landlord and s.plays[(s.landlord + 1) % 3] == 0
            and s.plays[(s.landlord + 2) % 3] == 0)

cdef bint is_anti_spring(const PlayState* s) noexcept nogil:
    return s.winner >= 0 and s.winner != s.landlord and s.plays[s.landlord] == 1

cdef int stake_exponent(const PlayState* s) noexcept nogil:
    return s.bombs + s.rockets + is_spring(s) + is_anti_spring(s)

cdef double payoff(const PlayState* s, int seat) noexcept nogil:
    cdef double common, farmers = 0.0, amount
    cdef int f, sign
    if s.winner < 0:
        return 0.0
    common = <double>s.base_stake * <double>((<uint64_t>1) << stake_exponent(s))
    sign = 1 if s.winner == s.landlord else -1
    for f in range(3):
        if f == s.landlord:
            continue
        amount = common * s.seat_factor[f]
        if f == seat:
            return -sign * amount
        farmers += amount
    return sign * farmers

cdef int random_policy(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil:
    return <int>(splitmix64(<uint64_t*>ctx) % <uint64_t>n)

cdef int rollout(PlayState* s, policy_fn policy, void* ctx, int32_t* buf) noexcept nogil:
    cdef int n
    while s.winner < 0:
        n = legal_actions(s, buf)
        apply_action(s, buf[policy(s, buf, n, ctx)])
    return s.winner

cdef int rollout_random(PlayState* s, uint64_t* rng, int32_t* buf) noexcept nogil:
    return rollout(s, random_policy, rng, buf)


def random_rollouts(long long games, unsigned long long seed=0):
    """Play `games` fresh deals (deal seeds seed, seed+1, ...; seat 0 landlord, no bidding)
    to the end with uniformly random moves, entirely in C. Returns (landlord wins, sum of
    the landlord's payoffs, total moves). For benchmarks and as a smoke test of the C API."""
    cdef PlayState s
    cdef uint64_t rng = seed ^ 0xD1B54A32D192ED03ULL
    cdef long long i, wins = 0, moves = 0
    cdef double total = 0.0
    cdef int32_t* buf = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
    if buf == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(games):
                deal_play_state(&s, seed + <uint64_t>i, 0)
                while s.winner < 0:
                    apply_action(&s, buf[random_policy(&s, buf, legal_actions(&s, buf), &rng)])
                    moves += 1
                wins += s.winner == s.landlord
                total += payoff(&s, s.landlord)
    finally:
        free(buf)
    return wins, total, moves

def deal(seed: int) -> tuple:
    """The deal of a seed: ([hand of seat 0, 1, 2], kitty), canonical strings."""
    cdef uint64_t hands[3]
    cdef uint64_t kitty
    deal_packed(_seed64(seed), hands, &kitty)
    return [_packed_str(hands[i]) for i in range(3)], _packed_str(kitty)


cdef uint64_t _seed64(object seed) except? 0xFFFFFFFFFFFFFFFF:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise UserError(f"seed must be an integer, got {seed!r}")
    return <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)


# The bidding words, in the order of the stages' enums in _game.pxd (and of the featurizer's
# BID_WORDS).
BID_WORD_NAMES = ["pass", "bid1", "bid2", "bid3", "call", "rob", "double", "nodouble"]


cdef void bid_init(Bidding* b, int flow) noexcept nogil:
    cdef int i
    b.flow = flow
    b.stage = ST_POINTS if flow == BF_POINTS else ST_CALL
    b.seat = 0
    b.best_bid = 0
    b.best_seat = -1
    b.bids_made = 0
    b.caller = -1
    b.robs = 0
    b.nqueue = 0
    b.doubles_made = 0
    for i in range(3):
        b.doubled[i] = 0


cdef int bid_legal(const Bidding* b, int* words) noexcept nogil:
    cdef int n = 0, k
    if b.stage == ST_POINTS:
        words[0] = W_PASS
        n = 1
        for k in range(b.best_bid + 1, 4):
            words[n] = W_BID1 + k - 1
            n += 1
        return n
    if b.stage == ST_CALL:
        words[0] = W_PASS
        words[1] = W_CALL
        return 2
    if b.stage == ST_ROB or b.stage == ST_ROB_BACK:
        words[0] = W_PASS
        words[1] = W_ROB
        return 2
    words[0] = W_NODOUBLE
    words[1] = W_DOUBLE
    return 2


cdef void bid_start_play(PlayState* st, const Bidding* b) noexcept nogil:
    """The play begins (the landlord, st.landlord, holds the kitty): the landlord leads, at
    the stake the flow set."""
    cdef int f, lord = st.landlord
    st.turn = lord
    if b.flow == BF_POINTS:
        st.base_stake = b.best_bid
    elif b.flow == BF_CALL_ROB:
        st.base_stake = 1 << b.robs
        for f in range(3):
            st.seat_factor[f] = (2 if b.doubled[lord] else 1) * (2 if b.doubled[f] else 1)


cdef int bid_apply(Bidding* b, int s, int word) noexcept nogil:
    """Seat s says `word` (legal: see bid_legal); returns an EV_ event."""
    if b.stage == ST_POINTS:
        # bids_made counts the passes since the last bid here (OpenSpiel's flow)
        if word == W_PASS:
            b.bids_made += 1
        else:
            b.bids_made = 0
            b.best_bid = word - W_BID1 + 1
            b.best_seat = s
        if b.bids_made == 3:
            return EV_VOID
        if b.best_bid == 3 or (b.bids_made == 2 and b.best_bid > 0):
            return EV_LANDLORD_PLAY
        b.seat = (s + 1) % 3
        return EV_NONE
    if b.stage == ST_CALL:
        b.bids_made += 1
        if word == W_CALL:
            b.caller = s
            b.best_seat = s
            b.queue[0] = (s + 2) % 3
            b.nqueue = 1
            b.stage = ST_ROB
            b.seat = (s + 1) % 3
            return EV_NONE
        if b.bids_made == 3:
            return EV_VOID
        b.seat = (s + 1) % 3
        return EV_NONE
    if b.stage == ST_ROB or b.stage == ST_ROB_BACK:
        if word == W_ROB:
            b.robs += 1
            b.best_seat = s
        if b.stage == ST_ROB and b.nqueue:
            b.seat = b.queue[0]
            b.nqueue = 0
            return EV_NONE
        if b.stage == ST_ROB and b.robs > 0:
            b.stage = ST_ROB_BACK
            b.seat = b.caller
            return EV_NONE
        b.stage = ST_DOUBLE
        b.seat = b.best_seat
        return EV_LANDLORD
    b.doubled[s] = 1 if word == W_DOUBLE else 0
    b.doubles_made += 1
    if b.doubles_made == 3:
        return EV_PLAY
    b.seat = (s + 1) % 3
    return EV_NONE


cdef enum:   # phases
    PH_BIDDING = 0
    PH_PLAY = 1
    PH_DONE = 2
_PHASES = ("bidding", "play", "done")


cdef class Game:
    """One deal of Dou Dizhu from the deal through bidding and play to the payoffs.

    See the package docstring for the flows, the action strings and the scoring."""
    cdef PlayState st
    cdef readonly str bidding
    cdef object seed
    cdef uint64_t dealt[3]
    cdef uint64_t kitty_packed
    cdef int given_landlord
    cdef int phase_code
    cdef bint void
    cdef list _history
    cdef list _bids
    cdef list _plays
    cdef int landlord_seat
    cdef Bidding bid

    # -- construction ------------------------------------------------------------------
    @staticmethod
    def new(seed, bidding="none"):
        """A fresh deal from `seed` (see `deal`)."""
        cdef uint64_t hands[3]
        cdef uint64_t kitty
        cdef Game g
        deal_packed(_seed64(seed), hands, &kitty)
        g = Game._make(bidding, hands, kitty, 0)
        g.seed = seed
        return g

    @staticmethod
    def from_hands(hands, kitty="", bidding="none", landlord=0):
        """A deal given as the three dealt hands and the kitty (which goes to the landlord).
        Hands may be partial (drawn test positions) but may not hold more copies of a rank
        than the deck. `landlord` is used by the `none` flow only."""
        cdef uint64_t packed[3]
        cdef uint64_t k
        if not isinstance(hands, (list, tuple)) or len(hands) != 3:
            raise UserError(f"hands must be three card strings, got {hands!r}")
        if isinstance(landlord, (bool, str)) or not hasattr(landlord, "__index__") or landlord not in (0, 1, 2):
            raise UserError(f"landlord must be seat 0, 1 or 2, got {landlord!r}")
        for i in range(3):
            if not isinstance(hands[i], str):
                raise UserError(f"hand of seat {i} must be a card string, got {hands[i]!r}")
            packed[i] = _parse(hands[i], f"hand of seat {i}")
        if not isinstance(kitty, str):
            raise UserError(f"kitty must be a card string, got {kitty!r}")
        k = _parse(kitty, "kitty")
        _parse(_packed_str(packed[0]) + _packed_str(packed[1]) + _packed_str(packed[2])
               + _packed_str(k), "the deal (hands and kitty together)")
        for i in range(3):
            # A seat out of cards at the start: a live game with no legal move.
            if packed[i] == 0 and not (bidding == "none" and i == landlord and k != 0):
                raise UserError(f"hand of seat {i} is empty: every seat needs a card to start "
                                f"a game (the landlord's may come from the kitty)")
        return Game._make(bidding, packed, k, landlord)

    @staticmethod
    cdef Game _make(object bidding, uint64_t* hands, uint64_t kitty, int landlord):
        if bidding not in BIDDING_FLOWS:
            raise UserError(f"unknown bidding flow {bidding!r}; choose one of {', '.join(BIDDING_FLOWS)}")
        cdef Game g = Game.__new__(Game)
        cdef int i
        g.bidding = bidding
        g.seed = None
        for i in range(3):
            g.dealt[i] = hands[i]
        g.kitty_packed = kitty
        g.given_landlord = landlord
        g.void = False
        g._history = []
        g._bids = []
        g._plays = []
        g.landlord_seat = -1
        bid_init(&g.bid, BIDDING_FLOWS.index(bidding))
        init_play_state(&g.st, hands, 0)
        if bidding == "none":
            g._take_kitty(landlord)
            g._start_play()
        else:
            g.phase_code = PH_BIDDING
        return g

    cdef _take_kitty(self, int landlord):
        landlord_takes_kitty(&self.st, self.dealt, self.kitty_packed, landlord)
        self.landlord_seat = landlord

    cdef _start_play(self):
        self.phase_code = PH_PLAY
        bid_start_play(&self.st, &self.bid)

    cpdef Game clone(self):
        """An independent copy (same history, same future)."""
        cdef Game g = Game.__new__(Game)
        g.st = self.st
        g.bidding = self.bidding
        g.seed = self.seed
        g.dealt = self.dealt
        g.kitty_packed = self.kitty_packed
        g.given_landlord = self.given_landlord
        g.phase_code = self.phase_code
        g.void = self.void
        g._history = list(self._history)
        g._bids = list(self._bids)
        g._plays = list(self._plays)
        g.landlord_seat = self.landlord_seat
        g.bid = self.bid
        return g

    # -- state -------------------------------------------------------------------------
    @property
    def num_seats(self):
        return 3

    @property
    def phase(self):
        return _PHASES[self.phase_code]

    @property
    def done(self):
        return self.phase_code == PH_DONE

    @property
    def current_seat(self):
        """Seat to act; -1 once the game is done."""
        if self.phase_code == PH_BIDDING:
            return self.bid.seat
        if self.phase_code == PH_PLAY:
            return self.st.turn
        return -1

    @property
    def landlord(self):
        return None if self.landlord_seat < 0 else self.landlord_seat

    @property
    def history(self):
        """(seat, action) for every bid and play so far, in order; "" is a play-phase pass."""
        return list(self._history)

    @property
    def is_void(self):
        """True when bidding ended with no landlord (nobody bid or called): scores are 0."""
        return self.void

    def hands(self):
        """The true current hands of the three seats (not for agents)."""
        if self.landlord_seat < 0:
            return [_packed_str(self.dealt[i]) for i in range(3)]
        return [_packed_str(self.st.hand[i]) for i in range(3)]

    # -- moves -------------------------------------------------------------------------
    cpdef list legal_moves(self):
        """Legal actions of the seat to act: bids during bidding, moves during play."""
        if self.phase_code == PH_PLAY:
            return state_legal_moves(&self.st)
        if self.phase_code == PH_DONE:
            return []
        cdef int words[8]
        cdef int n = bid_legal(&self.bid, words)
        return [BID_WORD_NAMES[words[k]] for k in range(n)]

    def count_legal(self):
        """How many legal actions the seat to act has (the game interface: Dou Dizhu lists
        every legal set, so this is len(legal_moves()))."""
        return len(self.legal_moves())

    def factored_options(self, prefix=()):
        """The game interface's card-by-card building: never needed in Dou Dizhu, whose legal
        sets are always listed, so there is nothing to add to any prefix."""
        return []

    cpdef play(self, object move, seat=None):
        """Make the current seat's move (a play as cards in any order, "" to pass; or a bid).
        `seat`, when given, must be the seat to act. Raises IllegalMove naming the problem,
        leaving the game unchanged."""
        cdef int a, s
        if not isinstance(move, str):
            raise IllegalMove(f"a move must be a string (cards in any order, \"\" to pass, or a bid), "
                              f"got {move!r}")
        if self.phase_code == PH_DONE:
            raise IllegalMove(f"the game is over; no move {move!r} can be played")
        s = self.current_seat
        if seat is not None and (isinstance(seat, (bool, str)) or not hasattr(seat, "__index__")):
            raise IllegalMove(f"seat must be 0, 1 or 2, got {seat!r}")
        if seat is not None and seat != s:
            raise IllegalMove(f"seat {seat} moved out of turn: it is seat {s}'s turn")
        if self.phase_code == PH_BIDDING:
            self._bid(move, s)
            return
        a = _action_of(move, "move")
        if a == 0:
            if self.st.to_beat == 0:
                raise IllegalMove(f"seat {s} leads and cannot pass")
        elif not holds(self.st.hand[s], action_packed(a)):
            raise IllegalMove(f"seat {s} does not hold {_ACTIONS[a]!r} "
                              f"(hand {_packed_str(self.st.hand[s])!r})")
        elif not beats(a, self.st.to_beat):
            raise IllegalMove(f"{_ACTIONS[a]!r} ({TYPE_NAMES[action_type(a)]}) does not beat the "
                              f"standing {_ACTIONS[self.st.to_beat]!r} "
                              f"({TYPE_NAMES[action_type(self.st.to_beat)]})")
        apply_action(&self.st, a)
        mv = _ACTIONS[a]
        self._history.append((s, mv))
        self._plays.append((s, mv))
        if self.st.winner >= 0:
            self.phase_code = PH_DONE

    cdef _bid(self, str action, int s):
        legal = self.legal_moves()
        if action not in legal:
            raise IllegalMove(f"{action!r} is not a legal bid for seat {s} now in the "
                              f"{self.bidding} flow; legal: {', '.join(legal)}")
        self._history.append((s, action))
        self._bids.append((s, action))
        cdef int event = bid_apply(&self.bid, s, BID_WORD_NAMES.index(action))
        if event == EV_VOID:
            self._end_void()
        elif event == EV_LANDLORD:
            self._take_kitty(self.bid.best_seat)
        elif event == EV_LANDLORD_PLAY:
            self._take_kitty(self.bid.best_seat)
            self._start_play()
        elif event == EV_PLAY:
            self._start_play()

    cdef _end_void(self):
        self.void = True
        self.phase_code = PH_DONE

    # -- results -----------------------------------------------------------------------
    def payoffs(self):
        """Zero-sum signed score per seat (0 for a void deal). Raises if not done."""
        if self.phase_code != PH_DONE:
            raise UserError("payoffs() asked before the game is done")
        if self.void:
            return [0.0, 0.0, 0.0]
        return [payoff(&self.st, i) for i in range(3)]

    def result(self):
        """Winner side, landlord, stakes, the multiplier breakdown and the payoffs."""
        pay = self.payoffs()
        if self.void:
            return {"winner": None, "void": True, "landlord": None, "base_stake": 0,
                    "final_stake": 0, "farmer_stakes": {}, "breakdown": {"bombs": 0, "rockets": 0,
                    "spring": False, "anti_spring": False, "robs": self.bid.robs, "doubles": 0},
                    "payoffs": pay}
        common = self.st.base_stake << stake_exponent(&self.st)
        lord = self.landlord_seat
        return {"winner": "landlord" if self.st.winner == lord else "farmers", "void": False,
                "landlord": lord, "winner_seat": self.st.winner,
                "base_stake": self.st.base_stake,
                "final_stake": common * (2 if self.bid.doubled[lord] else 1),
                "farmer_stakes": {f: common * self.st.seat_factor[f] for f in range(3) if f != lord},
                "breakdown": {"bombs": self.st.bombs, "rockets": self.st.rockets,
                              "spring": bool(is_spring(&self.st)),
                              "anti_spring": bool(is_anti_spring(&self.st)),
                              "robs": self.bid.robs, "doubles": sum(self.bid.doubled[i] for i in range(3))},
                "payoffs": pay}

    # -- what a seat sees --------------------------------------------------------------
    def observation(self, seat):
        """What `seat` can see (an `Observation`)."""
        cdef uint64_t start, now
        if isinstance(seat, (bool, str)) or not hasattr(seat, "__index__") or not 0 <= seat <= 2:
            raise UserError(f"seat must be 0, 1 or 2, got {seat!r}")
        seat = int(seat)
        lord = self.landlord_seat
        played = []
        left = []
        for i in range(3):
            if lord < 0:
                played.append("")
                left.append(packed_count(self.dealt[i]))
            else:
                start = self.dealt[i] + (self.kitty_packed if i == lord else 0)
                now = self.st.hand[i]
                played.append(_packed_str(start - now))
                left.append(self.st.n_cards[i])
        hand = _packed_str(self.dealt[seat] if lord < 0 else self.st.hand[seat])
        if self.phase_code == PH_BIDDING:
            if self.bidding == "points":
                stake = self.bid.best_bid
            else:
                stake = (1 << self.bid.robs) * (2 if lord >= 0 and self.bid.doubled[lord] else 1)
        else:
            stake = ((self.st.base_stake << (self.st.bombs + self.st.rockets))
                     * (2 if lord >= 0 and self.bid.doubled[lord] else 1)) if not self.void else 0
        standing = self.phase_code == PH_PLAY and self.st.to_beat != 0 and self.st.to_beat_seat != seat
        return Observation(
            game="doudizhu", seat=seat, phase=_PHASES[self.phase_code], bidding=self.bidding,
            hand=hand, landlord=None if lord < 0 else lord,
            role=None if lord < 0 else ROLES[(seat - lord) % 3],
            kitty="" if lord < 0 else _packed_str(self.kitty_packed),
            cards_left=tuple(left), played=tuple(played), plays=tuple(self._plays),
            bids=tuple(self._bids),
            to_beat=_ACTIONS[self.st.to_beat] if standing else "",
            to_beat_seat=self.st.to_beat_seat if standing else None,
            stake=stake, bombs_played=self.st.bombs + self.st.rockets,
            current_seat=self.current_seat,
            doubled=tuple(bool(self.bid.doubled[i]) for i in range(3)), robs=self.bid.robs)

    # -- persistence -------------------------------------------------------------------
    def to_json(self):
        """The deal, the flow and the history: `Game.from_json` replays it exactly."""
        return json.dumps({"game": "doudizhu", "format": 1, "bidding": self.bidding,
                           "seed": self.seed,
                           "hands": [_packed_str(self.dealt[i]) for i in range(3)],
                           "kitty": _packed_str(self.kitty_packed),
                           "landlord": self.given_landlord,
                           "history": [[s, a] for s, a in self._history]},
                          separators=(",", ":"))

    @staticmethod
    def from_json(text):
        """Rebuild a game from `to_json` output by replaying its history."""
        try:
            d = json.loads(text)
            hands, kitty, history = d["hands"], d["kitty"], d["history"]
            bidding, landlord = d.get("bidding", "none"), d.get("landlord", 0)
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(f"not a Dou Dizhu game record: {exc}") from None
        if d.get("game", "doudizhu") != "doudizhu":
            raise UserError(f"not a Dou Dizhu game record: game is {d.get('game')!r}")
        if d.get("format", 1) != 1:
            raise UserError(f"Dou Dizhu game record format {d.get('format')!r} is not supported; "
                            f"this version reads format 1")
        if not isinstance(history, list) or not all(isinstance(e, list) and len(e) == 2 for e in history):
            raise UserError(f"not a Dou Dizhu game record: history must be a list of [seat, move] "
                            f"pairs, got {history!r}")
        cdef Game g = Game.from_hands(hands, kitty, bidding=bidding, landlord=landlord)
        g.seed = d.get("seed")
        if g.seed is not None:
            dealt, dealt_kitty = deal(g.seed)
            if dealt != list(hands) or dealt_kitty != kitty:
                raise UserError(f"game record's hands do not match the deal of seed {g.seed}")
        for i, entry in enumerate(history):
            seat, action = entry
            g.play(action, seat=seat)
        return g

    def __repr__(self):
        return (f"Game(bidding={self.bidding!r}, phase={self.phase!r}, "
                f"current_seat={self.current_seat}, hands={self.hands()!r})")
