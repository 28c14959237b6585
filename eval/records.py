"""Game records of an evaluation, kept beside its ledger entry for the web table's replays
(`openlandlord serve`, page /replays; the format is `openlandlord.web.records`).

Every game is recorded as the arena plays it (`arena.play_games(..., keep=True)`): every move,
and for each listed decision the mover's scores of its best moves. The records travel back
from the worker processes with the outcomes and are written here, one file a game.
`openlandlord eval --no-records` skips them, for runs too big to keep.

Where: `records/eval-<UTC time>-<pid>/` in the ledger's folder (by default
data/runs/records/, the folder the web table lists).
"""
from __future__ import annotations

import os
import time

from openlandlord.web import records

from . import ledger


def folder_beside(ledger_file: str | None) -> str:
    """A fresh records folder in the ledger's folder."""
    base = os.path.dirname(os.path.abspath(ledger_file or ledger.ledger_path()))
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return os.path.join(base, "records", f"eval-{stamp}-{os.getpid()}")


def save_games(games: list[dict], ledger_file: str | None = None) -> str:
    """Write the replayable record of every game of an evaluation (`games`: the arena's game
    records, played with `keep`, in deal-set order) into a fresh folder beside the ledger;
    returns the folder."""
    folder = folder_beside(ledger_file)
    for index, game in enumerate(games):
        record = game.get("game_record")
        if record is None:
            continue
        records.save(record, folder, name=f"game-{index:04d}-deal{game['deal']}-copy{game['copy']}")
    return folder
