"""`rlcard`: the external yardstick, rlcard's own Dou Dizhu rule agent (`doudizhu-rule-v1`,
`rlcard.models.doudizhu_rule_models.DouDizhuRuleAgentV1`) playing from our observation.

It is a baseline to measure against, never a teacher. The wrapper builds the raw state that
agent reads (`current_hand`, `trace`, `actions`, `landlord`, `self`) from our `Observation`:
rlcard uses our rank characters and our seat numbering (a seat's next player is seat + 1),
with 'pass' for the empty move. The agent's choice gets score 1, every other move 0.

rlcard's agent draws from numpy's global generator when it has no rule for a position; the
wrapper seeds that draw from its own seed and puts the global state back, so games are
reproducible and nothing else sees the change. If the agent ever picks a move outside our
legal list, that is a conversion bug: with `strict=True` (the tests) it raises, otherwise
it plays the first legal move, counts it in `fallbacks` and warns.

rlcard has no bidding model: in a bidding phase this agent bids with the `rule` bot.
"""
from __future__ import annotations

import warnings

import numpy as np

from ...agents import Spec, check_options
from .rule import BidsByRule
from ...errors import NotAvailable


def rlcard_state(obs, legal) -> dict:
    """The raw state rlcard's rule agent reads, from our observation and legal list (kept in
    the given order: the agent breaks ties by it)."""
    return {
        "raw_obs": {
            "current_hand": obs.hand,
            "trace": [(seat, move or "pass") for seat, move in obs.plays],
            "actions": [move or "pass" for move in legal],
            "landlord": obs.landlord,
            "self": obs.seat,
        }
    }


def _rule_agent_class():
    """rlcard's rule agent class (importing rlcard, which unpacks its data on first import)."""
    try:
        from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
    except ModuleNotFoundError:
        raise NotAvailable("agent 'rlcard' needs the package 'rlcard' "
                           "(pip install rlcard)") from None
    return DouDizhuRuleAgentV1


class RLCardAgent(BidsByRule):
    """rlcard's `DouDizhuRuleAgentV1`, scoring 1 for its choice and 0 elsewhere."""

    def __init__(self, seed: int | None = None, strict: bool = False):
        self.name = "rlcard"
        self.agent = _rule_agent_class()()
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.strict = strict
        self.fallbacks = 0

    def choice(self, obs, legal) -> str:
        """The move rlcard's agent picks, in our notation ('' for pass)."""
        saved = np.random.get_state()
        np.random.seed(int(self.rng.integers(2**32)))
        try:
            action = self.agent.step(rlcard_state(obs, legal))
        finally:
            np.random.set_state(saved)
        return "" if action == "pass" else action

    def play_scores(self, obs, legal) -> np.ndarray:
        out = np.zeros(len(legal))
        move = self.choice(obs, legal)
        try:
            out[legal.index(move)] = 1.0
        except ValueError:
            message = (f"rlcard's agent chose {move!r}, not a legal move (hand {obs.hand!r}, "
                       f"to_beat {obs.to_beat!r})")
            if self.strict:
                raise RuntimeError(message) from None
            self.fallbacks += 1
            warnings.warn(f"{message}; playing the first legal move instead "
                          f"({self.fallbacks} so far)", RuntimeWarning, stacklevel=2)
            out[0] = 1.0
        return out


def prepare(spec: Spec) -> None:
    """Import rlcard once in the parent process, before the arena's workers start: its first
    import unpacks `games/doudizhu/jsondata.zip` into its package, and two workers doing so
    at once fail with `File exists` (`openlandlord.agents.prepare`)."""
    check_options(spec, set(), positional=False)
    _rule_agent_class()


def make_rlcard(spec: Spec, seed: int | None) -> RLCardAgent:
    check_options(spec, set(), positional=False)
    return RLCardAgent(seed)
