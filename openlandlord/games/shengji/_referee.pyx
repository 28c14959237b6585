# cython: language_level=3
"""The Shengji referee, both rulesets, under one import: card order, units, legal leads and
follows, the trick winner, the native random round loops and the world sampler.

The work is split by concept: `_cards` (card ids, the card order of a round), `_trick` (leads,
formats, follow errors, the trick winner, throws), `_legal` (legal plays listed and counted)
and `_round` (deals, random policies, round loops, the world sampler). This module re-exports
their Python-facing functions, and `_referee.pxd` their C-level entries, so callers keep one
name. Everything works on count vectors (see `_cards.pxd`); the Python package turns card
strings into count vectors and back. The rules are those of docs/rules-shengji.md.
"""
from ._cards import card_order, classic_table
from ._trick import (lead_kind, play_error, winner_of, classic_format, classic_pair_runs,
                     classic_play_error, classic_throw, classic_beaten_units, classic_winner,
                     classic_kitty_multiplier)
from ._legal import (legal_play_ids, count_legal_ids, follow_options, classic_legal_play_ids,
                     classic_count_legal, multiset_ids, count_multiset_ids,
                     classic_follow_options, classic_lead_options)
from ._round import (simulate, sample_worlds, bench_worlds, classic_simulate,
                     classic_recorded_round)
