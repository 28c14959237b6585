"""`human`: a person at the terminal, behind the same protocol as every other agent.

The seat's view is drawn with the game's `render`, the person types a move, and a move the
rules refuse is explained and asked for again. Scores are one-hot on the chosen move.
"""
from __future__ import annotations

import sys

import numpy as np

from ..errors import UserError
from . import Spec, check_options


def _render(obs) -> str:
    if obs.game == "doudizhu":
        from ..games.doudizhu import render
    else:
        from ..games.shengji import render
    return render(obs)


def parse_move(obs, text: str, legal):
    """The legal move a person meant by `text`, or raise ValueError saying why it is refused.

    Dou Dizhu: cards as rank characters in any order (`pass` or empty for a pass), or a
    bidding word during bidding. Shengji: cards separated by spaces, e.g. `7H 7H`."""
    text = text.strip()
    if obs.game == "doudizhu":
        from ..games.doudizhu import explain_move
        if obs.phase == "bidding":
            word = text.lower() or "pass"
            if word in legal:
                return word
            raise ValueError(f"{word!r} is not a bid you can make now; choose one of: {', '.join(legal)}")
        typed = "".join(text.upper().split())
        move = "" if typed in ("", "PASS", "P") else "".join(sorted(typed, key="3456789TJQKA2BR".find))
        if move in legal:
            return move
        raise ValueError(explain_move(obs.hand, obs.to_beat, typed) or f"{typed!r} is not a legal move here")
    from ..games.shengji import Rules, explain_illegal, is_legal
    cards = tuple(sorted(text.upper().split()))
    if legal is not None:
        for play in legal:
            if tuple(sorted(play)) == cards:
                return play
    rules = getattr(Rules, obs.rules)(obs.trump_rank, obs.trump_suit)
    lead = list(obs.trick[0][1]) if obs.trick else None
    try:
        if legal is None and is_legal(rules, list(obs.hand), lead, list(cards)):
            return cards
        reason = explain_illegal(rules, list(obs.hand), lead, list(cards))
    except ValueError as exc:
        reason = str(exc)
    raise ValueError(reason or f"{' '.join(cards)} is not a legal play here")


class HumanAgent:
    def __init__(self, stdin=None, stdout=None):
        self.name = "human"
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def _ask(self, obs, legal):
        print(_render(obs), file=self.stdout)
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
        """A Shengji play from a legal set too large to list: typed, checked by the rules."""
        return self._ask(obs, None)


def make_human(spec: Spec, seed: int | None) -> HumanAgent:
    check_options(spec, set())
    return HumanAgent()
