# cython: language_level=3
"""The Dou Dizhu referee under one import: the moves (`_moves`: packed hands, the 27,472-action
table, legal move generation) and the game (`_game`: the deal, the three bidding flows, play,
end and scoring).

The Python API (`legal_moves`, `classify`, `action_id`, `Game`) is re-exported by
`openlandlord.games.doudizhu`, whose docstring states the rules and conventions; the C API
for native callers is documented in `_referee.pxd`.
"""
from ._moves import ACTIONS, ACTION_ID, RANKS, TYPE_NAMES, action_id, canonical, classify, legal_moves
from ._game import BIDDING_FLOWS, ROLES, Game, deal, random_rollouts
