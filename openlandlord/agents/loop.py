"""The one decision loop: how a deal is driven from its first move to its last, for every
caller (the arena, dataset generation, `play`, the latency bench, the PIMC bench).

`decisions(state, cap)` is a generator over the real choices of a deal. Forced moves (one
legal move) are played without asking anyone. At every other point it yields a `Decision`
and the caller sends back its answer:

- `decision.legal` is a list: send the index of the move to play.
- `decision.legal` is None: the legal set is larger than the game's listing cap (`cap`, the
  spec's `legal_cap`; a Shengji void seat answering a long tractor). Send a whole move (an
  agent's own `choose_play(obs)`), or None to have it built card by card: the loop then
  yields one decision per card (`decision.prefix` is the play so far, `decision.legal` the
  one-card-longer prefixes, and for a lead that could stop here the prefix itself: the
  referee's END option), each answered with an index, until the play is complete.

`decision.step` counts the moves played before it; the generator returns the number of moves
played in all. `on_move(seat, move)`, when given, sees every move as it is played.

On top of it: `decide(agent, state, cap)` (the move an agent makes, argmax of its scores),
`build_play(agent, state)` (a move from a set too large to list) and `play_deal(state, cap,
agents)` (a whole deal, one agent per seat). The arena drives many
generators at once to batch a network's decisions (eval/arena.py); generation answers with
the teacher's scores and records them (distill/generate.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..games import END


@dataclass(frozen=True)
class Decision:
    seat: int
    obs: object
    legal: list | None          # the moves (or candidate prefixes) to choose from
    step: int                   # moves played before this decision
    prefix: tuple | None = None  # building card by card: the play so far


def listed_legal(state, cap: int | None):
    """The legal moves of the seat to move, or None when there are more than `cap` (then the
    play is built card by card)."""
    if cap is not None and state.count_legal() > cap:
        return None
    return state.legal_moves()


def decisions(state, cap: int | None, on_move=None):
    """The decision loop over `state` (see the module docstring). Returns the moves played."""
    moves = 0
    while not state.done:
        seat = state.current_seat
        legal = listed_legal(state, cap)
        if legal is not None and len(legal) == 1:
            move = legal[0]
        elif legal is not None:
            move = legal[(yield Decision(seat, state.observation(seat), legal, moves))]
        else:
            obs = state.observation(seat)
            move = yield Decision(seat, obs, None, moves)
            if move is None:
                move = yield from _card_by_card(state, seat, obs, moves)
        state.play(move)
        moves += 1
        if on_move is not None:
            on_move(seat, move)
    return moves


def _card_by_card(state, seat: int, obs, step: int):
    prefix: tuple = ()
    while options := state.factored_options(prefix):
        candidates = [prefix if card == END else prefix + (card,) for card in options]
        pick = yield Decision(seat, obs, candidates, step, prefix)
        if options[pick] == END:
            break
        prefix = candidates[pick]
    return prefix


def scores_by_completion(score, plays: list) -> np.ndarray:
    """Each candidate of a card-by-card step scored by the full play it completes to
    (`plays[i]`), each distinct play scored once by `score(distinct plays)`: how dataset
    generation and the `pimc` player's burial score a step."""
    distinct = sorted(set(plays))
    at = {play: i for i, play in enumerate(distinct)}
    return np.asarray(score(distinct))[[at[play] for play in plays]]


def answer(agent, decision: Decision):
    """What `agent` sends back to `decision`: its argmax over its scores of the legal moves,
    or for a set too large to list its own `choose_play(obs)` when it has one (else None:
    build it card by card, the agent scoring each step's candidates as moves)."""
    from . import checked_choice
    if decision.legal is None:
        return agent.choose_play(decision.obs) if hasattr(agent, "choose_play") else None
    return checked_choice(agent, agent.scores(decision.obs, decision.legal), decision.legal)


def drive(loop, choose) -> int:
    """Run a decision loop to the end, `choose(decision)` answering each decision."""
    try:
        decision = next(loop)
        while True:
            decision = loop.send(choose(decision))
    except StopIteration as stop:
        return stop.value


def play_deal(state, cap: int | None, agents, on_decision=None, on_move=None) -> int:
    """Play `state` to the end, the agent of each seat (`agents[seat]`) answering its
    decisions; `on_decision(decision)` sees each decision before it is answered. Returns the
    moves played."""
    def choose(decision):
        if on_decision is not None:
            on_decision(decision)
        return answer(agents[decision.seat], decision)
    return drive(decisions(state, cap, on_move), choose)


def build_play(agent, state):
    """The whole move `agent` makes from a legal set too large to list: its own
    `choose_play(obs)`, or card by card, the agent scoring each step's candidates (also where
    its `choose_play` answers None, as `answer` allows)."""
    seat = state.current_seat
    obs = state.observation(seat)
    if hasattr(agent, "choose_play"):
        move = agent.choose_play(obs)
        if move is not None:
            return move
    return drive(_card_by_card(state, seat, obs, 0), lambda d: answer(agent, d))


def decide(agent, state, cap: int | None):
    """The move `agent` makes for the seat to move in `state` (argmax of its scores), without
    playing it: the loop's first decision, answered."""
    legal = listed_legal(state, cap)
    if legal is None:
        return build_play(agent, state)
    if len(legal) == 1:
        return legal[0]
    seat = state.current_seat
    return legal[answer(agent, Decision(seat, state.observation(seat), legal, 0))]
