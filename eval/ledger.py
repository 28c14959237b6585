"""The ledger: every evaluation and league result, appended as one JSON line, so that a
number quoted anywhere can be traced to the code, agents, deals and seeds that made it.

Default path `data/runs/ledger.jsonl` (git-ignored); the environment variable
`OPENLANDLORD_LEDGER` points it elsewhere, and a command's `--ledger FILE` (where the
command line offers one) wins over both. Every line holds at least `LEDGER_KEYS`.
"""
from __future__ import annotations

import json
import os

from openlandlord.provenance import stamp

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "data", "runs", "ledger.jsonl")
LEDGER_KEYS = ("kind", "git_sha", "openlandlord_version", "created_utc", "seeds", "game",
               "agents", "deal_set", "counts", "result")


def ledger_path() -> str:
    return os.environ.get("OPENLANDLORD_LEDGER") or DEFAULT_PATH


def append(kind: str, *, game: str, agents: list[str], deal_set: dict, counts: dict,
           result: dict, seeds: dict, path: str | None = None) -> dict:
    """Append one result (`kind` "eval" or "league") and return the line written."""
    entry = stamp(**seeds)
    entry.update(kind=kind, game=game, agents=list(agents), deal_set=deal_set, counts=counts,
                 result=result)
    path = path or ledger_path()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    line = json.dumps(entry, sort_keys=True) + "\n"
    # One write of one line on an O_APPEND file: concurrent runs never interleave lines.
    with open(path, "a") as f:
        f.write(line)
    return entry


def read(path: str | None = None) -> list[dict]:
    """Every entry of the ledger, oldest first."""
    path = path or ledger_path()
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
