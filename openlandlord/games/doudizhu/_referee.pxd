# The C-level Dou Dizhu referee, for native callers (the PIMC teacher's rollouts), from one
# place: the moves are declared in _moves.pxd, the game (deal, score, rollouts) in _game.pxd;
# this header re-exports them.
#
# Cards are ranks 0..14 = "3456789TJQKA2BR". A hand (or a move) is *packed*: 4 bits per
# rank, rank r in bits 4r..4r+3, so a whole hand is one uint64 and "move is in hand" is one
# subtraction (see `holds`). Moves are action ids into the 27,472 canonical actions
# (0 = pass); `ACTIONS` in the Python package lists them in id order.
#
# Use from Cython:
#     from openlandlord.games.doudizhu._referee cimport (PlayState, legal_actions, apply_action,
#                                                       rollout, policy_fn, MAX_LEGAL, ...)
#     cdef PlayState s
#     cdef int32_t moves[MAX_LEGAL]
#     deal_play_state(&s, seed, 0)                # or fill s.hand/n_cards yourself (init_play_state)
#     n = legal_actions(&s, moves)              # ids, ascending; pass (0) first when following
#     apply_action(&s, moves[k])                # caller guarantees legality (see is_legal)
#     if s.winner >= 0: score = payoff(&s, seat)
#
# A rollout policy is a plain C function; `rollout` owns the game loop, so a new policy
# (a rule bot, a network) plugs in without copying it:
#     cdef int my_policy(const PlayState* s, const int32_t* moves, int n, void* ctx) noexcept nogil:
#         return index_into_moves
#     winner = rollout(&s, my_policy, ctx_ptr, moves_buffer)
# Everything here is nogil and allocation-free; buffers belong to the caller.
from openlandlord.games.doudizhu._moves cimport (
    N_RANKS, N_ACTIONS, MAX_LEGAL, MoveType, T_PASS, T_SINGLE, T_PAIR, T_TRIO, T_TRIO_SINGLE,
    T_TRIO_PAIR, T_STRAIGHT, T_PAIR_CHAIN, T_PLANE, T_PLANE_SINGLE, T_PLANE_PAIR,
    T_FOUR_TWO_SINGLES, T_FOUR_TWO_PAIRS, T_BOMB, T_ROCKET, PlayState, action_packed, action_type,
    action_rank, action_length, action_cards, holds, beats, packed_count, legal_from_hand,
    legal_actions, is_legal, apply_action)
from openlandlord.games.doudizhu._game cimport (
    policy_fn, splitmix64, deal_packed, init_play_state, landlord_takes_kitty, deal_play_state,
    is_spring,
    is_anti_spring, stake_exponent, payoff, random_policy, rollout, rollout_random, Bidding,
    bid_init, bid_legal, bid_apply, bid_start_play, BF_NONE, BF_POINTS, BF_CALL_ROB, ST_POINTS,
    ST_CALL, ST_ROB, ST_ROB_BACK, ST_DOUBLE, W_PASS, W_BID1, W_BID3, W_CALL, W_ROB, W_DOUBLE,
    W_NODOUBLE, EV_NONE, EV_VOID, EV_LANDLORD, EV_LANDLORD_PLAY, EV_PLAY)
