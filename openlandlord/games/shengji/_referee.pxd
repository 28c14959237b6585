# The C-level entries of the Shengji referee, for other Cython modules (a PIMC teacher) to
# cimport from one place. They live in _cards.pxd (card ids, the Table, the random stream),
# _trick.pxd (leads, formats, follows, the trick winner, throws) and _round.pxd (deals,
# policies, round loops, the world sampler); this header re-exports them.
from openlandlord.games.shengji._cards cimport (
    NCARD, NCAT, TRUMP, SMALL_JOKER, BIG_JOKER, Table, next_random, build_table,
    build_classic_table, clear_word)
from openlandlord.games.shengji._trick cimport (
    Lead, Format, classify, follow_error, trick_winner_c, lead_format_c, classic_lead_error,
    classic_follow_error, classic_trick_winner_c, throw_check_c, kitty_multiplier_c,
    classic_play_key, runs_c, match_rec, beaten_units_c, place_tractors)
from openlandlord.games.shengji._round cimport (
    Policy, random_policy, deal_c, play_round_c, sample_world_c, classic_random_lead,
    classic_random_follow)
