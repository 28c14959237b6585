"""Game records of an evaluation, kept beside its ledger entry for the web table's replays
(`openlandlord serve`, page /replays; the format is `openlandlord.web.records`).

The arena plays its games many at a time in worker processes and keeps only their outcomes.
Recording every move there would cost memory and time on big runs, so the first `RECORDED`
games of the run (in deal-set order) are played again here, one at a time, with exactly the
arena's seating and agent seeds (`arena.agent_seed`; an agent that batches is built with its
per-run seed, as the arena shares it), each decision's scores kept. A record says whether
its outcome is the one the arena counted (`reproduced`): it is, for every agent that follows
the arena's contract (a batching agent scores a position the same whatever it scored
before). `openlandlord eval --no-records` skips this.

Where: `records/eval-<UTC time>-<pid>/` in the ledger's folder (by default
data/runs/records/, the folder the web table lists).
"""
from __future__ import annotations

import os
import time

from openlandlord.agents import make, play_deal
from openlandlord.games import spec as game_spec
from openlandlord.web import records

from . import dealsets, ledger

# Games recorded per evaluation: enough to watch, cheap beside the evaluation itself.
RECORDED = 8


def folder_beside(ledger_file: str | None) -> str:
    """A fresh records folder in the ledger's folder."""
    base = os.path.dirname(os.path.abspath(ledger_file or ledger.ledger_path()))
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return os.path.join(base, "records", f"eval-{stamp}-{os.getpid()}")


def record_games(deal_set: dealsets.DealSet, agent: str, opponent: str, seed: int,
                 outcomes: list[dict], ledger_file: str | None = None, limit: int = RECORDED,
                 protocol: str = "mirror") -> str:
    """Replay and record the first `limit` games of an evaluation (`outcomes`: the arena's
    game records, in deal-set order); returns the folder written."""
    from .arena import agent_seed

    game = game_spec(deal_set.game)
    seatings = [s for d, sd in enumerate(deal_set.seeds)
                for s in game.protocol_seatings(protocol, d, sd, deal_set.options)]
    folder = folder_beside(ledger_file)
    specs = (agent, opponent)
    protos = {side: make(spec, seed + side) for side, spec in enumerate(specs)}
    for index, (seating, outcome) in enumerate(zip(seatings[:limit], outcomes)):
        state = game.new_game(seating.seed, **dict(seating.options))
        sides = [0 if s in seating.agent_seats else 1 for s in range(state.num_seats)]
        built = {side: protos[side] if hasattr(protos[side], "scores_batch")
                 else make(spec, agent_seed(seed, seating, side)) for side, spec in enumerate(specs)}
        recorder = records.Recorder(deal_set.game, dict(seating.options), seating.seed,
                                    [specs[side] for side in sides], "eval")
        agents = [recorder.watched(built[side]) for side in sides]
        play_deal(state, game.legal_cap, agents, on_decision=recorder.on_decision,
                  on_move=recorder.on_move)
        again = game.outcome(state, seating)
        record = recorder.record(state, deal=seating.deal, copy=seating.copy,
                                 agent_seats=list(seating.agent_seats), deal_set=deal_set.name,
                                 reproduced=again["score"] == outcome.get("score")
                                 and again["win"] == outcome.get("win"))
        records.save(record, folder, name=f"game-{index:03d}-deal{seating.deal}-copy{seating.copy}")
    return folder
