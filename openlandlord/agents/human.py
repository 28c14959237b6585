"""`human`: a person at the terminal, behind the same protocol as every other agent.

The seat's view is drawn with the game's `render`, the person types a move, and a move the
rules refuse is explained and asked for again. Instead of a move the person may type `help`
(how cards are written and moves typed, and the legal moves when there are few) or `hint`
(the shipped student's choice and its best few scores). Scores are one-hot on the chosen
move.
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


# Past this many legal moves `help` does not list them.
LIST_LEGAL = 24


def help_text(obs, legal) -> str:
    """How to play this position: card letters, how moves are typed, the legal moves."""
    from ..web.views import card_help
    g = game_spec(obs.game)
    lines = [card_help(obs.game), "commands: help (this), hint (a suggested move)"]
    if legal is None:
        lines.append("there are too many legal moves to list here: type your play")
    elif len(legal) <= LIST_LEGAL:
        lines.append("legal moves: " + ", ".join(g.describe_move(m) or "pass" for m in legal))
    else:
        lines.append(f"{len(legal)} legal moves, e.g. "
                     + ", ".join(g.describe_move(m) or "pass" for m in legal[:8]) + ", ...")
    return "\n".join(lines)


def hint_text(obs, legal) -> str:
    """The shipped student's suggestion (`rule:expert` where the student cannot load)."""
    if legal is None:
        return "hint: too many legal moves to score here; play the cards you would follow with"
    from ..web.session import adviser
    agent, name = adviser(obs.game)
    g = game_spec(obs.game)
    scores = np.asarray(agent.scores(obs, legal), np.float64)
    order = np.argsort(-scores, kind="stable")[:3]
    best = ", ".join(f"{g.describe_move(legal[i]) or 'pass'} ({scores[i]:+.2f})" for i in order)
    return f"hint from {name}: {g.describe_move(legal[order[0]]) or 'pass'}   (best scores: {best})"


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
            command = line.strip().lower()
            if command in ("help", "?", "hint"):
                print(help_text(obs, legal) if command != "hint" else hint_text(obs, legal),
                      file=self.stdout)
                continue
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
