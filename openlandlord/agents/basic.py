"""The simplest players: `random` (uniform over the distinct legal moves)."""
from __future__ import annotations

import numpy as np

from . import Spec, check_options, option


class RandomAgent:
    """Uniform over the distinct legal moves: every move gets an independent uniform score."""

    def __init__(self, seed: int | None = None):
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def scores(self, obs, legal) -> np.ndarray:
        return self.rng.random(len(legal))


def make_random(spec: Spec, seed: int | None) -> RandomAgent:
    check_options(spec, {"seed"}, positional=False)
    return RandomAgent(option(spec, "seed", seed, int, low=0))
