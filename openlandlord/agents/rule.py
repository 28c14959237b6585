"""`rule` / `rule:LEVEL`: our own heuristic player for both games.

One agent whose `scores` goes to the rule bot of the observation's game (its spec's
`rule_bot`: `games/doudizhu/rule.py`, `games/shengji/rule.py`, built on first use). Levels are
`easy`, `normal` (the default: `rule` = `rule:normal`) and `expert`; for Dou Dizhu, `expert` is
the normal bot plus unseen-card tracking.
"""
from __future__ import annotations

import numpy as np

from . import Spec, check_options
from ..errors import UserError
from ..games import spec as game_spec

LEVELS = ("easy", "normal", "expert")


class RuleAgent:
    """The rule bot of whichever game the observation comes from."""

    def __init__(self, level: str = "normal", seed: int | None = None):
        if level not in LEVELS:
            raise UserError(f"unknown rule level {level!r}; choose one of {', '.join(LEVELS)}")
        self.name = "rule" if level == "normal" else f"rule:{level}"
        self.level = level
        self.seed = seed
        self._bots: dict = {}

    def _bot(self, game: str):
        bot = self._bots.get(game)
        if bot is None:
            bot = self._bots[game] = game_spec(game).rule_bot(self.level, self.seed)
        return bot

    def scores(self, obs, legal) -> np.ndarray:
        return self._bot(obs.game).scores(obs, legal)


def make_rule(spec: Spec, seed: int | None) -> RuleAgent:
    check_options(spec, set())
    return RuleAgent((spec.arg or "normal").strip().lower(), seed)
