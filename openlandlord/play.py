"""`openlandlord play`: a game in the terminal between any agents, people included.

Dou Dizhu plays one deal (`--rounds N`: N deals in a row, seeds S, S+1, ...); Shengji plays
a whole match (levels 2 to past Ace) unless `--mode deal` or `--rounds 1` (a single round;
`--rounds N`: the first N rounds of a match). Seats are agent specs, one per seat; `human`
is a person at this terminal (Shengji: seat 0 is South, the partner North is seat 2). The
game options (`--bidding`, `--rules`) are the game spec's; every deal is driven by the one
decision loop.

The table says what happens: every move (a forced one, the only legal move, is shown with
that reason, and to a person with the position first), who won each trick, the landlord
chosen, each Shengji round's summary (points, who goes up how many levels, the next trump
and dealer), and at the end what each person won or lost. The card letters are explained
once; a person can type `help` or `hint` instead of a move. Every game is recorded for the
web table's replays (`openlandlord serve`) unless `--no-record`.
"""
from __future__ import annotations

import numpy as np

from .agents import make, play_deal, split_specs
from .errors import UserError
from .games import game_options, spec as game_spec
from .web import records, views

# What `play` plays when no --mode is given: a person wants the whole Shengji campaign.
PLAY_DEFAULTS = {"mode": "match"}


class _EnoughRounds(Exception):
    """The `--rounds N` rounds of a match are played."""


class _Table:
    """One deal (or match) at the terminal: the printing around the decision loop."""

    def __init__(self, game: str, options: dict, seed: int, specs: list[str], rounds: int | None,
                 keep_record: bool):
        self.game, self.spec, self.options, self.seed = game, game_spec(game), options, seed
        self.specs, self.rounds, self.keep_record = specs, rounds, keep_record
        self.humans = [i for i, s in enumerate(specs) if s == "human"]
        self.names = [("you" if len(self.humans) == 1 else f"human {i}") if s == "human" else s
                      for i, s in enumerate(specs)]
        self.state = self.spec.new_game(seed, **options)
        self.recorder = records.Recorder(game, options, seed, specs, "play")
        self.narrator = views.narrator(self.state, self.names)
        self._answered = False
        agents = [make(spec, seed=seed * 10 + i) for i, spec in enumerate(specs)]
        self.agents = [a if s == "human" else self.recorder.watched(a) for a, s in zip(agents, specs)]

    def on_decision(self, decision) -> None:
        self._answered = True
        self.recorder.on_decision(decision)

    def on_move(self, seat: int, move) -> None:
        forced = not self._answered
        self._answered = False
        if forced and seat in self.humans:
            print(self.spec.render(self.position))
        self.recorder.on_move(seat, move)
        text = self.spec.describe_move(move) or "pass"
        print(f"seat {seat} ({self.names[seat]}): {text}"
              + (" (forced: the only legal move)" if forced else ""))
        for line in self.narrator.update(self.state, seat, move):
            print(f"  >> {line}")
        self.position = self._position()
        played = len(getattr(self.state, "results", ()))
        if self.rounds is not None and played >= self.rounds and not self.state.done:
            raise _EnoughRounds

    def play(self) -> None:
        self.position = self._position()
        try:
            play_deal(self.state, self.spec.legal_cap, self.agents, on_decision=self.on_decision,
                      on_move=self.on_move)
        except _EnoughRounds:
            pass

    def _position(self):
        """The observation of the seat to move (what a forced move is shown with)."""
        state = self.state
        return None if state.done else state.observation(state.current_seat)

    def save(self) -> str | None:
        if not self.keep_record:
            return None
        return records.save(self.recorder.record(self.state))


def run(args) -> int:
    game = game_spec(args.game)
    specs = split_specs(args.seats)
    if len(specs) != game.num_seats:
        raise UserError(f"--seats needs {game.num_seats} agent specs for {args.game}, got {len(specs)}")
    options = game_options(args.game, args)
    rounds = getattr(args, "rounds", None)
    if "mode" in options:
        if rounds == 1:
            if getattr(args, "mode", None) == "match":
                raise UserError("--rounds 1 plays a single round: leave out --mode match")
            options["mode"] = "deal"
        elif rounds is not None and getattr(args, "mode", None) == "deal":
            raise UserError(f"--rounds {rounds} plays the first {rounds} rounds of a match: "
                            "leave out --mode deal")
    for name, value in PLAY_DEFAULTS.items():
        if name in options and getattr(args, name, None) is None and rounds != 1:
            options[name] = value
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    print(f"{args.game}, seed {seed}: " + ", ".join(f"seat {i} {s}" for i, s in enumerate(specs)))
    humans = [i for i, s in enumerate(specs) if s == "human"]
    if humans:
        print(views.card_help(args.game))
        print("type `help` for how to play, `hint` for a suggested move")
    deals = rounds if (rounds and "mode" not in options) else 1
    tally = []
    for deal in range(deals):
        deal_seed = seed + deal
        if deals > 1:
            print(f"--- deal {deal + 1} of {deals} (seed {deal_seed}) ---")
        table = _Table(args.game, options, deal_seed, specs, rounds if "mode" in options else None,
                       keep_record=not getattr(args, "no_record", False))
        for seat in humans:
            for line in views.introduce(table.state, seat, table.names):
                print(line)
        table.play()
        state = table.state
        if state.done:
            print(game.describe_end(state))
        else:
            print(views.standing(state, table.rounds))
        for seat in humans:
            if state.done:
                won, sentence = views.end_result(state, seat)
                tally.append(won)
                who = "you" if len(humans) == 1 else f"seat {seat}"
                print(f"result for {who}: {'WIN' if won else 'LOSS' if won is False else 'VOID'}: "
                      f"{sentence}")
        path = table.save()
        if path:
            print(f"record: {path} (replay it with `openlandlord serve`, page /replays)")
    if deals > 1 and humans:
        print(f"over {deals} deals: {sum(1 for w in tally if w)} won, "
              f"{sum(1 for w in tally if w is False)} lost")
    return 0
