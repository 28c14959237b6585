"""Ranking points, as in the seed's Tractor app: a game a person wins against Easy bots is
worth 10 points, against Normal 30, against Expert 100; a lost or void game is worth 0.

The level of a game is the weakest of the person's opponents: `rule:easy` is Easy, `rule`
(`rule:normal`) Normal, `rule:expert`, `pimc` and the students Expert; a game with any
other opponent (`random`, another person) earns nothing. Points are kept in one local JSON
file, `data/runs/ranking.json` by default (`OPENLANDLORD_RANKING` points it elsewhere).
"""
from __future__ import annotations

import json
import os
import threading
import time

from ..agents import parse_spec
from ..errors import UserError

POINTS = {"easy": 10, "normal": 30, "expert": 100}
LEVELS = tuple(POINTS)
_LOCK = threading.Lock()


def default_path() -> str:
    if os.environ.get("OPENLANDLORD_RANKING"):
        return os.environ["OPENLANDLORD_RANKING"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "data", "runs", "ranking.json")


def level_of(spec: str) -> str | None:
    """The ranking level of a bot spec, or None for a seat that earns no points."""
    parsed = parse_spec(spec)
    if parsed.name == "rule":
        level = (parsed.arg or "normal").strip().lower()
        return level if level in POINTS else None
    if parsed.name in ("pimc", "student", "coreml", "onnx", "douzero"):
        return "expert"
    return None


def game_level(seats: list[str], opponents: list[int]) -> str | None:
    """The weakest opponent's level (None if any opponent earns nothing)."""
    levels = []
    for seat in opponents:
        if seats[seat] == "human":
            return None
        level = level_of(seats[seat])
        if level is None:
            return None
        levels.append(level)
    return min(levels, key=LEVELS.index) if levels else None


def load(path: str | None = None) -> dict:
    path = path or default_path()
    if not os.path.exists(path):
        return {"players": {}, "games": []}
    try:
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data.get("players"), dict):
            raise ValueError("no players table")
        return data
    except (OSError, ValueError, AttributeError) as exc:
        raise UserError(f"the ranking file {path} cannot be read ({exc}); move it away to start "
                        "a new one") from None


def award(player: str, game: str, level: str | None, won: bool | None, record: str | None = None,
          path: str | None = None) -> int:
    """Add one finished game to `player`'s line; returns the points it earned."""
    from .. import artefacts
    points = POINTS[level] if (won and level) else 0
    path = path or default_path()
    with _LOCK:
        data = load(path)
        line = data["players"].setdefault(player, {"points": 0, "games": 0, "wins": 0})
        line["points"] += points
        line["games"] += 1
        line["wins"] += int(bool(won))
        data["games"].append({"player": player, "game": game, "level": level, "won": won,
                              "points": points, "record": record,
                              "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        data["games"] = data["games"][-1000:]
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        artefacts.write_json(path, data)
    return points


def leaderboard(path: str | None = None) -> list[dict]:
    """Players by points, most first."""
    players = load(path)["players"]
    rows = [{"player": name, **line} for name, line in players.items()]
    return sorted(rows, key=lambda r: (-r["points"], r["player"]))
