"""The ledger: every evaluation and league result, appended as one JSON line, so that a
number quoted anywhere can be traced to the code, agents, deals and seeds that made it.

Default path `data/runs/ledger.jsonl` (git-ignored); the environment variable
`OPENLANDLORD_LEDGER` points it elsewhere, and a command's `--ledger FILE` (where the
command line offers one) wins over both. Every line holds at least `LEDGER_KEYS`.
"""
from __future__ import annotations

import json
import os

from openlandlord import artefacts
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
    # Atomically, under a short lock (openlandlord.artefacts.append_line): concurrent runs
    # never interleave or lose lines, and a killed writer never leaves half a line.
    artefacts.append_line(path, json.dumps(entry, sort_keys=True))
    return entry


def read(path: str | None = None) -> list[dict]:
    """Every entry of the ledger, oldest first. A last line without its newline (torn by a
    writer killed mid-line before writes were atomic) is not an entry and is left out."""
    path = path or ledger_path()
    if not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read()
    lines = text.split("\n")
    return [json.loads(line) for line in lines[:-1] if line.strip()]
