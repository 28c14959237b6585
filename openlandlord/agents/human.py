"""`human`: a person at the terminal, behind the same protocol as every other agent.

The seat's view is drawn with the game's `render`, the person types a move, and a move the
rules refuse is explained and asked for again. Scores are one-hot on the chosen move.
"""
from __future__ import annotations

import sys

import numpy as np

from ..errors import UserError
from ..games import spec as game_spec
from . import Spec, check_options


def parse_move(obs, text: str, legal):
    """The legal move a person meant by `text`, or raise ValueError saying why it is refused
    (the game's spec reads it: Dou Dizhu cards as rank characters in any order, `pass`, or a
    bidding word; Shengji cards separated by spaces, e.g. `7H 7H`)."""
    return game_spec(obs.game).parse_human_move(obs, text, legal)


class HumanAgent:
    def __init__(self, stdin=None, stdout=None):
        self.name = "human"
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def _ask(self, obs, legal):
        print(game_spec(obs.game).render(obs), file=self.stdout)
        while True:
            print("your move> ", end="", file=self.stdout, flush=True)
            line = self.stdin.readline()
            if line == "":
                raise UserError("the human player closed the input; game abandoned")
            try:
                return parse_move(obs, line, legal)
            except ValueError as exc:
                print(f"refused: {exc}", file=self.stdout)

    def scores(self, obs, legal) -> np.ndarray:
        out = np.zeros(len(legal))
        out[list(legal).index(self._ask(obs, legal))] = 1.0
        return out

    def choose_play(self, obs):
        """A play from a legal set too large to list: typed, checked by the rules."""
        return self._ask(obs, None)


def make_human(spec: Spec, seed: int | None) -> HumanAgent:
    check_options(spec, set(), positional=False)
    return HumanAgent()
