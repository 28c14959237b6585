"""The fixed-size action spaces of the RL environments: one integer per decision, the same in the
native VecEnv and the PettingZoo environments.

Dou Dizhu (`DoudizhuActions`, 27,480 actions): index a < 27,472 is the canonical action
`ACTIONS[a]` of the referee (DouZero's and rlcard's table; 0 is the play-phase pass ""), and
27,472 + k is the bidding word `BID_WORDS[k]` ("pass", "bid1", "bid2", "bid3", "call", "rob",
"double", "nodouble"), so a bid's "pass" and a play's pass are different actions.

Shengji (`ShengjiActions`, 57 actions): a move is built card by card through the referee's
factored options, so every legal play is reachable with a fixed-size mask. Index c < 54 is card
id c (suit * 13 + rank for suits S H D C and ranks 2..A; 52 the small joker, 53 the big): add
that card to the partial play, to the burial, or declare with it alone. 54 is END (close a lead
that could still grow), 55 declares with the pair of the card just dealt, 56 passes a
declaration.

Each codec also says what the seat to move may do now, as a `Step` (`codec.step(state, obs,
prefix)`): the legal actions, each with the move it makes (Dou Dizhu, a Shengji declaration) or
the one-card-longer prefix it builds, the candidates of `agents.loop`'s card-by-card decisions;
`codec.completes(state, step, action)` says whether that action finishes the move. The
PettingZoo environments (`openlandlord.envs.aec`) are written against these two methods only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import IllegalMove, UserError

N_DDZ_PLAY = 27472


@dataclass(frozen=True)
class Step:
    """One decision of the seat to move: `options` maps each legal action to the move it plays
    or, when `built` (a Shengji play or burial made card by card), the prefix it builds."""
    options: dict
    built: bool = False

    def mask(self, n: int) -> np.ndarray:
        """int8 [n], 1 for the legal actions."""
        out = np.zeros(n, np.int8)
        out[list(self.options)] = 1
        return out


class DoudizhuActions:
    game = "doudizhu"

    def __init__(self):
        from ..games.doudizhu import ACTIONS, ACTION_ID
        from ..games.doudizhu.features import BID_WORDS
        self._actions, self._ids = ACTIONS, ACTION_ID
        self.bid_words = tuple(BID_WORDS)
        self.bid_offset = N_DDZ_PLAY
        self.n = N_DDZ_PLAY + len(self.bid_words)
        self._bid_index = {w: self.bid_offset + i for i, w in enumerate(self.bid_words)}

    def index(self, move: str, bidding: bool) -> int:
        """The action of a move (a play as cards, "" to pass, or a bid word)."""
        if bidding:
            if move not in self._bid_index:
                raise IllegalMove(f"{move!r} is not a bid")
            return self._bid_index[move]
        from ..games.doudizhu import action_id
        return int(self._ids[move]) if move in self._ids else int(action_id(move))

    def move(self, index: int) -> str:
        """The move text of an action: a play's canonical cards or a bid word."""
        index = int(index)
        if 0 <= index < self.bid_offset:
            return self._actions[index]
        if self.bid_offset <= index < self.n:
            return self.bid_words[index - self.bid_offset]
        raise UserError(f"action {index} is outside the Dou Dizhu action space 0..{self.n - 1}")

    def is_bid(self, index: int) -> bool:
        return self.bid_offset <= int(index) < self.n

    # Observation entries beyond the state features and the mask: none.
    extras: dict = {}

    def extra_values(self, obs, prefix: tuple) -> dict:
        return {}

    def stand_in(self, obs) -> list:
        """A legal list to featurize the observation of a seat that is not to move with (the
        state tokens do not depend on it)."""
        return ["pass" if obs.phase == "bidding" else ""]

    def step(self, state, obs, prefix: tuple = ()) -> Step:
        """Every legal move of the seat to move, by its action (a Dou Dizhu move is one action)."""
        bidding = state.phase == "bidding"
        return Step({self.index(move, bidding): move for move in state.legal_moves()})

    def completes(self, state, step: Step, index: int) -> bool:
        return True


class ShengjiActions:
    game = "shengji"
    END = 54
    DECLARE_PAIR = 55
    DECLARE_PASS = 56
    n = 57

    def __init__(self):
        from ..games.shengji.rules import CARD_IDS, CARD_NAMES
        self.card_names, self.card_ids = CARD_NAMES, CARD_IDS

    def option_index(self, option: str) -> int:
        """The action of a factored option (a card name or END)."""
        from ..games import END
        if option == END:
            return self.END
        if option not in self.card_ids:
            raise UserError(f"{option!r} is not a Shengji card")
        return self.card_ids[option]

    def option(self, index: int) -> str:
        """The factored option of a card or END action."""
        from ..games import END
        index = int(index)
        if index == self.END:
            return END
        if 0 <= index < 54:
            return self.card_names[index]
        raise UserError(f"action {index} is not a card or END")

    def declaration_index(self, move: tuple) -> int:
        """The action of a declaration move: () passes, (card,) declares alone, (card, card)
        the pair."""
        if len(move) == 0:
            return self.DECLARE_PASS
        if len(move) == 2:
            return self.DECLARE_PAIR
        return self.card_ids[move[0]]

    def declaration(self, index: int, legal: list) -> tuple:
        """The declaration move of an action, among the legal declarations."""
        index = int(index)
        for move in legal:
            if self.declaration_index(tuple(move)) == index:
                return tuple(move)
        raise IllegalMove(f"action {index} is not a legal declaration now")

    # Observation entries beyond the state features and the mask, name -> (length, highest
    # value), uint8: the play built so far (counts per card id: the state features do not show
    # it), and the featurizer's slot order (the card id of each of the 54 canonical slots the
    # state tokens describe), which ties the tokens to the card actions.
    extras = {"prefix": (54, 2), "slot_order": (54, 53)}

    def extra_values(self, obs, prefix: tuple) -> dict:
        from ..games.shengji.features import slot_order
        counts = np.zeros(54, np.uint8)
        for card in prefix:
            counts[self.card_ids[card]] += 1
        return {"prefix": counts, "slot_order": slot_order(obs).astype(np.uint8)}

    def stand_in(self, obs) -> list:
        """A legal list to featurize the observation of a seat that is not to move with (the
        state tokens do not depend on it)."""
        return [()]

    def step(self, state, obs, prefix: tuple = ()) -> Step:
        """The declarations open now (whole moves), or in the bury and play phases the cards
        that extend `prefix` (and END), each with the prefix it makes, as `agents.loop` builds a
        play. `obs` is the mover's observation: its phase, not the state's (a match is always
        in phase "play"), says whether a declaration is due."""
        if obs.phase == "declare":
            return Step({self.declaration_index(tuple(m)): tuple(m) for m in state.legal_moves()})
        from ..games import END
        return Step({self.option_index(o): prefix if o == END else prefix + (o,)
                     for o in state.factored_options(prefix)}, built=True)

    def completes(self, state, step: Step, index: int) -> bool:
        """Whether the action finishes the move: a declaration, END, or a card after which no
        card can extend the prefix."""
        return (not step.built or index == self.END
                or not state.factored_options(step.options[index]))


def actions_of(game: str):
    """The action space of a game, as its spec gives it (`spec.env_actions()`)."""
    from ..games import spec
    return spec(game).env_actions()
