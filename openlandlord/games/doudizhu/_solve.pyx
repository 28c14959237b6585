# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The exact Dou Dizhu endgame solver: with every hand known, the play is a two-team
zero-sum game (the landlord against both farmers), and this finds its minimax value in the
referee's settled score (`payoff`: bombs, rocket, spring, anti-spring, call-rob factors).

Alpha-beta over the referee's own moves (`legal_actions`, `apply_action`), with a
transposition table and move ordering, native and nogil; `_solve.pxd` is its C API (the PIMC
teacher solves its sampled worlds with it, `pimc:solve=K`), `solve` and `Solver` here are the
Python wrappers for tests and benches.

The value and why the table is exact
    At the end the landlord settles payoff = sign * base * 2^(bombs + rockets + spring +
    anti_spring) * (factor[f1] + factor[f2]); each farmer f settles -sign * base * 2^(...) *
    factor[f]. Within one position's subtree base and the factors are constant and both
    farmers' payoffs are the landlord's times a negative constant, so the farmers are one
    team minimizing, and the game is the one of the *normalized value* v = sign *
    2^(bombs and rockets played from here on + spring + anti_spring), in {+-1, +-2, +-4, ...}:
    the payoff is v * base * 2^(bombs + rockets so far) * (factor sum, or -factor[f]).
    v is a function of what the future depends on: the three hands, the standing move and
    who played it, whose turn it is, the landlord, whether a farmer has played yet (a spring
    needs neither farmer ever to play; plays only grow) and how often the landlord has played,
    capped at 2 (an anti-spring needs it to have played exactly once at the end). The bombs
    already played scale every outcome alike and so never enter v. That tuple is the table
    key, stored whole (no hash collisions can mix positions), so an entry holds for any
    position with that key, whatever bombs, base stake or factors it came with, in any world
    and any search: the table is kept across calls. Entries are exact values, or lower /
    upper bounds from cut-off searches (fail-soft alpha-beta), stored only once a subtree is
    finished; a bomb or rocket doubles the child's value, so its window is halved on the way
    down. All values are small powers of two: exact in float.

Move ordering: the table's best move, then moves that empty the hand (bombs first), a pass
under the partner's move, then by cards shed, lower ranks first; other passes last.

Budget: a solve visits at most `budget` nodes (and as many moves as its move stack holds);
past that it stops and says so (-1, `over_budget`), and the caller falls back (the PIMC
search rolls the world out as before and counts it), so no decision can hang.
"""
from libc.stdint cimport uint64_t, uint32_t, int32_t
from libc.stdlib cimport calloc, malloc, free, qsort

from openlandlord.games.doudizhu._referee cimport (
    PlayState, legal_from_hand, apply_action, action_type, action_cards, action_rank,
    is_spring, is_anti_spring, packed_count, MAX_LEGAL, T_BOMB)
from openlandlord.games.doudizhu._moves cimport _parse, _action_of
from ...errors import UserError

cdef enum:
    EXACT = 0
    LOWER = 1
    UPPER = 2
    STACK_SIZE = 1 << 22        # move stack entries (16 MiB)
    PRIO_TABLE = 30000
    PRIO_EMPTIES = 20000
    PRIO_PARTNER_PASS = 10000

DEFAULT_TABLE_BITS = 18
DEFAULT_BUDGET = 200000


cdef inline uint32_t rest_of(const PlayState* s) noexcept nogil:
    # Everything in the key besides the hands (see the module docstring); bit 31 marks use.
    cdef int lord = s.landlord
    cdef uint32_t farmers_played = (s.plays[(lord + 1) % 3] + s.plays[(lord + 2) % 3]) > 0
    cdef uint32_t lord_plays = s.plays[lord] if s.plays[lord] < 2 else 2
    return (<uint32_t>s.to_beat | (<uint32_t>(s.to_beat_seat + 1) << 15)
            | (<uint32_t>s.turn << 17) | (<uint32_t>lord << 19) | (farmers_played << 21)
            | (lord_plays << 22) | (<uint32_t>1 << 31))


cdef inline uint64_t slot_of(const PlayState* s, uint32_t rest, uint64_t mask) noexcept nogil:
    cdef uint64_t h = (s.hand[0] * 0x9E3779B97F4A7C15ULL) ^ (s.hand[1] * 0xC2B2AE3D27D4EB4FULL) \
        ^ (s.hand[2] * 0x165667B19E3779F9ULL) ^ (<uint64_t>rest * 0xD6E8FEB86659FD93ULL)
    h ^= h >> 31
    h *= 0xBF58476D1CE4E5B9ULL
    h ^= h >> 29
    return h & mask


cdef int by_priority(const void* a, const void* b) noexcept nogil:
    # Descending priority (the high bits of each packed move).
    return (<const int32_t*>b)[0] - (<const int32_t*>a)[0]


cdef inline double leaf_value(const PlayState* s) noexcept nogil:
    # The normalized value of a finished game from the position before its last move.
    cdef double v = <double>(1 << (is_spring(s) + is_anti_spring(s)))
    return v if s.winner == s.landlord else -v


cdef double search(Solver* sv, const PlayState* s, long long sp, double alpha,
                   double beta, int32_t* best_out) noexcept nogil:
    # The normalized value of `s` (not finished) for the landlord, fail-soft in (alpha, beta).
    cdef uint32_t rest = rest_of(s)
    cdef uint64_t slot = slot_of(s, rest, sv.mask)
    cdef TableEntry* e = &sv.table[slot]
    cdef int32_t hint = -1, a, best_move = -1, child_best
    cdef int n, k, t, partner_pass
    cdef bint maximizing = s.turn == s.landlord
    cdef double orig_alpha = alpha, orig_beta = beta, v, m, best
    cdef int32_t* moves
    cdef PlayState child
    sv.nodes += 1
    if sv.nodes > sv.budget or sp + MAX_LEGAL > sv.stack_size:
        sv.over_budget = True
        return 0.0
    if e.rest == rest and e.hand[0] == s.hand[0] and e.hand[1] == s.hand[1] \
            and e.hand[2] == s.hand[2]:
        hint = e.best
        if e.bound == EXACT or (e.bound == LOWER and e.value >= beta) \
                or (e.bound == UPPER and e.value <= alpha):
            best_out[0] = e.best
            return e.value
        if e.bound == LOWER and e.value > alpha:
            alpha = e.value
        elif e.bound == UPPER and e.value < beta:
            beta = e.value
    moves = sv.stack + sp
    n = legal_from_hand(s.hand[s.turn], s.to_beat, moves)
    # A pass under the partner's move keeps the team's lead: tried early.
    partner_pass = s.to_beat != 0 and s.turn != s.landlord and s.to_beat_seat != s.landlord
    for k in range(n):
        a = moves[k]
        if a == hint:
            t = PRIO_TABLE
        elif a == 0:
            t = PRIO_PARTNER_PASS if partner_pass else 0
        elif action_cards(a) == s.n_cards[s.turn]:
            t = PRIO_EMPTIES + (100 if action_type(a) >= T_BOMB else 0)
        else:
            t = 200 + 10 * action_cards(a) - action_rank(a)
        moves[k] = (t << 16) | a
    qsort(moves, n, sizeof(int32_t), by_priority)
    best = -1e30 if maximizing else 1e30
    for k in range(n):
        a = moves[k] & 0xFFFF
        child = s[0]
        apply_action(&child, a)
        m = 2.0 if a != 0 and action_type(a) >= T_BOMB else 1.0
        if child.winner >= 0:
            v = m * leaf_value(&child)
        else:
            v = m * search(sv, &child, sp + n, alpha / m, beta / m, &child_best)
            if sv.over_budget:
                return 0.0
        if maximizing:
            if v > best:
                best = v
                best_move = a
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                best_move = a
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    e.rest = rest
    e.hand[0] = s.hand[0]
    e.hand[1] = s.hand[1]
    e.hand[2] = s.hand[2]
    e.best = best_move
    e.value = <float>best
    if best <= orig_alpha:
        e.bound = UPPER
    elif best >= orig_beta:
        e.bound = LOWER
    else:
        e.bound = EXACT
    best_out[0] = best_move
    return best


cdef int solver_init(Solver* sv, int table_bits, long long budget) noexcept nogil:
    sv.table = <TableEntry*>calloc((<size_t>1) << table_bits, sizeof(TableEntry))
    sv.stack = <int32_t*>malloc(STACK_SIZE * sizeof(int32_t))
    sv.mask = ((<uint64_t>1) << table_bits) - 1
    sv.stack_size = STACK_SIZE
    sv.budget = budget
    sv.nodes = 0
    sv.over_budget = False
    if sv.table == NULL or sv.stack == NULL:
        solver_free(sv)
        return -1
    return 0


cdef void solver_free(Solver* sv) noexcept nogil:
    free(sv.table)
    free(sv.stack)
    sv.table = NULL
    sv.stack = NULL


cdef int solve_state(Solver* sv, const PlayState* s, double* value, int32_t* best) noexcept nogil:
    # The normalized value of `s` (a live position) and a move that reaches it; 0, or -1 when
    # the budget ran out (value and best are then meaningless).
    sv.nodes = 0
    sv.over_budget = False
    best[0] = -1
    value[0] = search(sv, s, 0, -1e30, 1e30, best)
    return -1 if sv.over_budget else 0


cdef double solved_payoff(const PlayState* s, double value, int seat) noexcept nogil:
    # What `seat` settles when the game from `s` ends with normalized value `value`.
    cdef double scale = <double>s.base_stake * <double>((<uint64_t>1) << (s.bombs + s.rockets))
    cdef int lord = s.landlord
    if seat == lord:
        return value * scale * (s.seat_factor[(lord + 1) % 3] + s.seat_factor[(lord + 2) % 3])
    return -value * scale * s.seat_factor[seat]


cdef object _index(object x, str what, int low, int high):
    if isinstance(x, (bool, str)) or not hasattr(x, "__index__") or not low <= x <= high:
        raise UserError(f"{what} must be an integer {low}..{high}, got {x!r}")
    return int(x)


cdef class EndgameSolver:
    """An exact solver with its own table (kept across `solve` calls, see the module
    docstring) and node budget per solve."""
    cdef Solver sv

    def __cinit__(self, int table_bits=DEFAULT_TABLE_BITS, long long budget=DEFAULT_BUDGET):
        if not 4 <= table_bits <= 28:
            raise UserError(f"table_bits must be 4..28, got {table_bits}")
        if budget < 1:
            raise UserError(f"the node budget must be at least 1, got {budget}")
        if solver_init(&self.sv, table_bits, budget):
            raise MemoryError()

    def __dealloc__(self):
        solver_free(&self.sv)

    def solve(self, hands, turn, landlord, to_beat="", to_beat_seat=-1, plays=(1, 0, 0),
              bombs=0, rockets=0, base_stake=1, seat_factor=(1, 1, 1)):
        """(landlord's payoff under perfect play, a best move as a card string, nodes
        visited) from a position given as the three hands (card strings), the seat to move,
        the landlord, the standing move and who played it ("" and -1 when the seat leads),
        the non-pass moves each seat has made (spring / anti-spring), the bombs and rockets
        played, the base stake and the call-rob seat factors. Over the node budget:
        (None, None, nodes)."""
        cdef PlayState s
        cdef double v
        cdef int32_t best
        cdef int i, rc
        if not isinstance(hands, (list, tuple)) or len(hands) != 3 \
                or not all(isinstance(h, str) for h in hands):
            raise UserError(f"hands must be three card strings, got {hands!r}")
        s.turn = _index(turn, "turn", 0, 2)
        s.landlord = _index(landlord, "landlord", 0, 2)
        for i in range(3):
            s.hand[i] = _parse(hands[i], f"hand of seat {i}")
            s.n_cards[i] = packed_count(s.hand[i])
            if s.n_cards[i] == 0:
                raise UserError(f"hand of seat {i} is empty: a finished game has no value "
                                "to solve")
        _parse("".join(hands), "the three hands together")
        if not isinstance(to_beat, str):
            raise UserError(f"to_beat must be a move string, got {to_beat!r}")
        s.to_beat = _action_of(to_beat, "to_beat") if to_beat else 0
        if s.to_beat:
            s.to_beat_seat = _index(to_beat_seat, "to_beat_seat", 0, 2)
            if s.to_beat_seat == s.turn:
                raise UserError(f"seat {s.turn} cannot face its own move {to_beat!r}: "
                                "to_beat_seat must be another seat")
        elif to_beat_seat != -1:
            raise UserError(f"to_beat_seat must be -1 when the seat leads, got {to_beat_seat!r}")
        else:
            s.to_beat_seat = -1
        if not isinstance(plays, (list, tuple)) or len(plays) != 3:
            raise UserError(f"plays must be three counts, got {plays!r}")
        if not isinstance(seat_factor, (list, tuple)) or len(seat_factor) != 3:
            raise UserError(f"seat_factor must be three factors, got {seat_factor!r}")
        for i in range(3):
            s.plays[i] = _index(plays[i], f"plays of seat {i}", 0, 54)
            s.seat_factor[i] = _index(seat_factor[i], f"seat_factor of seat {i}", 1, 4)
        s.bombs = _index(bombs, "bombs", 0, 13)
        s.rockets = _index(rockets, "rockets", 0, 1)
        s.base_stake = _index(base_stake, "base_stake", 1, 64)
        s.winner = -1
        with nogil:
            rc = solve_state(&self.sv, &s, &v, &best)
        if rc:
            return None, None, self.sv.nodes
        from ._referee import ACTIONS
        return solved_payoff(&s, v, s.landlord), ACTIONS[best], self.sv.nodes


def solve(hands, turn, landlord, to_beat="", to_beat_seat=-1, plays=(1, 0, 0), bombs=0,
          rockets=0, base_stake=1, seat_factor=(1, 1, 1), budget=DEFAULT_BUDGET,
          table_bits=DEFAULT_TABLE_BITS):
    """`EndgameSolver(table_bits, budget).solve(...)` with a fresh table: see there."""
    return EndgameSolver(table_bits, budget).solve(hands, turn, landlord, to_beat, to_beat_seat,
                                                   plays, bombs, rockets, base_stake,
                                                   seat_factor)
