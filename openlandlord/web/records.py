"""Game records: what `play`, `eval` and the web table keep of a game so that it can be
replayed move by move.

A record is one JSON file: the game, its options and seed (the deal is rebuilt from them by
the game's spec), the agent spec of every seat, every move as the spec's move text, and for
each move the scores the mover gave its legal moves when it had any (`null` for a forced
move or a person). Replaying rebuilds the state from the seed and plays the moves through
the referee, so every seat's hand at every step comes from the referee itself and a record
stays small. `frames(record)` is that replay, one frame a move.

Default folder: `data/runs/records/` beside the ledger (`OPENLANDLORD_RECORDS` points it
elsewhere); the web table lists what is there.
"""
from __future__ import annotations

import json
import os
import time

from ..errors import UserError
from ..games import spec as game_spec

VERSION = 1
# A mover's scores are kept for its best moves only: a Dou Dizhu lead can have hundreds.
TOP_SCORES = 12


def default_folder() -> str:
    if os.environ.get("OPENLANDLORD_RECORDS"):
        return os.environ["OPENLANDLORD_RECORDS"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "data", "runs", "records")


def top_scores(game: str, legal, scores) -> list | None:
    """[[move text, score], ...] of the best `TOP_SCORES` moves, best first."""
    if scores is None or legal is None:
        return None
    g = game_spec(game)
    order = sorted(range(len(legal)), key=lambda i: -float(scores[i]))[:TOP_SCORES]
    return [[g.move_text(legal[i]), round(float(scores[i]), 4)] for i in order]


class Recorder:
    """Collects one game's moves as it is played (`on_move` of the decision loop) and the
    mover's scores (`on_scores`, just before its move; `watched(agent)` reports an agent's
    scores of every listed decision, told apart by `on_decision` of `play_deal`)."""

    def __init__(self, game: str, options: dict, seed: int, seats: list[str], source: str):
        self.game, self.options, self.seed = game, dict(options), int(seed)
        self.seats, self.source = list(seats), source
        self.moves: list[str] = []
        self.movers: list[int] = []
        self.scores: list = []
        self._pending = None
        self.listed = False

    def on_decision(self, decision) -> None:
        # A card-by-card build scores prefixes, not moves: those scores are not kept.
        self.listed = decision.legal is not None and decision.prefix is None

    def watched(self, agent):
        return _Watched(agent, self)

    def on_scores(self, legal, scores) -> None:
        self._pending = top_scores(self.game, legal, scores)

    def on_move(self, seat: int, move) -> None:
        self.moves.append(game_spec(self.game).move_text(move))
        self.movers.append(int(seat))
        self.scores.append(self._pending)
        self._pending = None

    def record(self, state, **extra) -> dict:
        out = {"version": VERSION, "game": self.game, "options": self.options, "seed": self.seed,
               "seats": self.seats, "source": self.source, "moves": self.moves,
               "movers": self.movers, "scores": self.scores,
               "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if state.done:
            out.update(result=_plain(state.result()), payoffs=[float(p) for p in state.payoffs()])
        out.update(extra)
        return out


class _Watched:
    """An agent whose scores of listed decisions go to a Recorder."""

    def __init__(self, agent, recorder: Recorder):
        self.agent, self.recorder, self.name = agent, recorder, agent.name
        if hasattr(agent, "choose_play"):
            self.choose_play = agent.choose_play

    def scores(self, obs, legal):
        scores = self.agent.scores(obs, legal)
        if self.recorder.listed:
            self.recorder.on_scores(legal, scores)
        return scores


def _plain(value):
    return json.loads(json.dumps(value, default=lambda x: x.item() if hasattr(x, "item") else str(x)))


def save(record: dict, folder: str | None = None, name: str | None = None) -> str:
    """Write `record` as FOLDER/NAME.json (atomically; a fresh name by default)."""
    from .. import artefacts
    folder = folder or default_folder()
    os.makedirs(folder, exist_ok=True)
    if name is None:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        name = f"{stamp}-{record['source']}-{record['game']}-{record['seed']}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
    path = os.path.join(folder, name + ".json")
    artefacts.write_json(path, record, indent=None, separators=(",", ":"))
    return path


def load(path: str) -> dict:
    """A record file, checked: a UserError naming what is wrong with it."""
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read the game record {path}: {exc}") from None
    if not isinstance(record, dict) or record.get("version") != VERSION or "moves" not in record:
        raise UserError(f"{path} is not a game record of this version")
    return record


def listing(folder: str | None = None, limit: int = 200) -> list[dict]:
    """The records of `folder`, newest first: name, game, seats, source, result."""
    folder = folder or default_folder()
    if not os.path.isdir(folder):
        return []
    out = []
    for root, _, files in os.walk(folder):
        for f in files:
            if f.endswith(".json"):
                path = os.path.join(root, f)
                out.append((os.path.getmtime(path), os.path.relpath(path, folder)))
    out.sort(reverse=True)
    rows = []
    for _, rel in out[:limit]:
        try:
            r = load(os.path.join(folder, rel))
        except UserError:
            continue
        rows.append({"name": rel[:-5], "game": r["game"], "seats": r["seats"], "source": r.get("source"),
                     "seed": r["seed"], "moves": len(r["moves"]), "payoffs": r.get("payoffs"),
                     "created_utc": r.get("created_utc")})
    return rows


def frames(record: dict) -> list[dict]:
    """The replay: the table before every move (every seat's hand), the move and the mover's
    scores, then the final table. Replayed through the referee from the record's seed."""
    from . import views
    g = game_spec(record["game"])
    try:
        state = g.new_game(int(record["seed"]), **g.check_options(dict(record["options"])))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"a game record that cannot be replayed: {exc}") from None
    names = list(record["seats"])
    narrator = views.narrator(state, names)
    out = []
    for step, text in enumerate(record["moves"]):
        seat = state.current_seat
        frame = views.view(state, seat, names, all_hands=True)
        move = g.move_from_text(text)
        frame.update(step=step, to_move=seat, move=g.describe_move(move) or "pass",
                     scores=record["scores"][step] if step < len(record["scores"]) else None)
        try:
            state.play(move)
        except Exception as exc:      # a record from another version of the rules
            raise UserError(f"move {step} ({text!r}) of the record does not replay: {exc}") from None
        frame["events"] = narrator.update(state, seat, move)
        out.append(frame)
    final = views.view(state, max(state.current_seat, 0), names, all_hands=True)
    final.update(step=len(record["moves"]), to_move=None, move=None, scores=None, events=[])
    if state.done:
        final["result"] = g.describe_end(state)
    out.append(final)
    return out
