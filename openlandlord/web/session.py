"""One game served by the web table: people and agents at one table, driven by the one
decision loop (`openlandlord.agents.loop.decisions`).

A `Table` holds the loop paused at the decision it waits on. Bots answer their decisions
at once (their scores recorded for the replay); the loop stops at a person's decision until
`move(text)` brings one. A typed move is read by the game's spec (`parse_human_move`, the
referee's own explanation when it is refused) and tried on a copy of the state before the
loop sees it, so a refused move never changes the game. Forced moves (one legal move) are
played by the loop, and the log says so.

`advice(obs, legal)` is the hint: the shipped student's score for every legal move
(`student:data/models/GAME`, falling back to `rule:expert` where the student cannot load) and
its belief, the expected number of cards of each rank each other seat holds.
"""
from __future__ import annotations

import itertools
import os
import threading

import numpy as np

from ..agents import answer, checked_choice, decisions, make, parse_spec
from ..errors import UserError
from ..games import GAMES, all_options, spec as game_spec
from . import ranking, records, views

HUMAN = "human"
MAX_TABLES = 200
LOG_LINES = 400
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shipped_student(game: str) -> str:
    return "student:" + os.path.join(ROOT, "data", "models", game)


_ADVISERS: dict = {}
_ADVISER_LOCK = threading.Lock()


def adviser(game: str):
    """The hint agent of `game` (built once): the shipped student, else `rule:expert`."""
    with _ADVISER_LOCK:
        if game not in _ADVISERS:
            try:
                _ADVISERS[game] = (make(shipped_student(game)), f"student:data/models/{game}")
            except UserError:
                _ADVISERS[game] = (make("rule:expert", 0), "rule:expert")
        return _ADVISERS[game]


def _belief(agent, obs, legal) -> dict | None:
    """Expected cards per rank in each other seat's hand, from the student's belief head."""
    native = getattr(agent, "native", None)
    if native is None or not getattr(native, "belief", False):
        return None
    from .. import features
    sample = features.featurize_all([(obs, legal)], obs.game, agent.tokens, "hint")[0]
    expect = np.asarray(native.forward(sample)["belief_expect"], np.float64)   # [slots, holders]
    seats = [(obs.seat + k) % len(obs.cards_left) for k in range(1, expect.shape[1] + 1)]
    labels, per_rank = views.view_of(obs.game).belief_by_rank(obs, expect)
    return {"labels": labels, "seats": seats,
            "expected": [[round(float(v), 3) for v in per_rank[:, h]] for h in range(len(seats))]}


def advice(state, obs, legal) -> dict:
    """The hint for a position: the adviser's move, its scores and its belief (a legal set
    too large to list: the move the adviser builds, no scores)."""
    g = game_spec(obs.game)
    agent, name = adviser(obs.game)
    if legal is None:
        from ..agents import build_play
        return {"agent": name, "move": g.move_text(build_play(agent, state)), "scores": None,
                "belief": None}
    scores = np.asarray(agent.scores(obs, legal), np.float64) if len(legal) > 1 else np.zeros(1)
    best = checked_choice(agent, scores, legal)
    try:
        belief = _belief(agent, obs, legal) if len(legal) > 1 else None
    except (UserError, KeyError, ValueError):
        belief = None
    return {"agent": name, "move": g.move_text(legal[best]),
            "scores": [[g.move_text(legal[i]), round(float(scores[i]), 4)]
                       for i in np.argsort(-scores, kind="stable")],
            "belief": belief}


def check_request(body) -> tuple[str, dict, list[str], int, str]:
    """(game, options, seat specs, seed, player) of a new-game request, or a UserError."""
    if not isinstance(body, dict):
        raise UserError("the request body must be a JSON object such as "
                        '{"game": "doudizhu", "seats": ["human", "rule", "rule"]}')
    fields = {"game", "seats", "seed", "player", "record"}
    unknown = set(body) - fields - set(all_options())
    if unknown:
        raise UserError(f"unknown field(s) {', '.join(sorted(unknown))}; the fields are "
                        + ", ".join(sorted(fields | set(all_options()))))
    game = body.get("game", "doudizhu")
    if game not in GAMES:
        raise UserError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    g = game_spec(game)
    given = {k: body[k] for k in all_options() if body.get(k) is not None}
    for key, value in given.items():
        if not isinstance(value, str):
            raise UserError(f"{key} must be a string, got {value!r}")
    options = g.check_options(given)
    seats = body.get("seats")
    if (not isinstance(seats, list) or len(seats) != g.num_seats
            or not all(isinstance(s, str) and s.strip() for s in seats)):
        raise UserError(f"seats must be a list of {g.num_seats} agent specs for {game} "
                        f'("human" for a person), got {seats!r}')
    seats = [s.strip() for s in seats]
    for s in seats:
        parse_spec(s)
    seed = body.get("seed")
    if seed is None:
        seed = int(np.random.default_rng().integers(2**31))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise UserError(f"seed must be a non-negative integer, got {seed!r}")
    player = body.get("player", "you")
    if not isinstance(player, str) or not player.strip() or len(player) > 40:
        raise UserError("player must be a name of 1 to 40 characters")
    return game, options, seats, seed, player.strip()


class Table:
    """One game in progress (see the module docstring)."""

    def __init__(self, table_id: str, game: str, options: dict, seats: list[str], seed: int,
                 player: str = "you", keep_record: bool = True):
        self.id, self.game, self.options, self.seats, self.seed = table_id, game, options, seats, seed
        self.player, self.keep_record = player, keep_record
        self.spec = game_spec(game)
        self.humans = [i for i, s in enumerate(seats) if s == HUMAN]
        self.agents = [None if s == HUMAN else make(s, seed * 10 + i) for i, s in enumerate(seats)]
        self.names = [("you" if len(self.humans) == 1 else f"human {i}") if s == HUMAN else s
                      for i, s in enumerate(seats)]
        self.state = self.spec.new_game(seed, **options)
        self.recorder = records.Recorder(game, options, seed, seats, "serve")
        self.narrator = views.narrator(self.state, self.names)
        self.log: list[dict] = []
        self.lock = threading.Lock()
        self.finished = None          # what the end of the game gave: result, outcome, points
        self._answered = False
        self.loop = decisions(self.state, self.spec.legal_cap, on_move=self._on_move)
        self.decision = None
        self._run(first=True)

    # -- the loop ----------------------------------------------------------------------------
    def _on_move(self, seat: int, move) -> None:
        forced = not self._answered      # the loop played it: the only legal move
        self._answered = False
        self.recorder.on_move(seat, move)
        text = self.spec.describe_move(move) or "pass"
        self.log.append({"seat": seat, "move": text, "forced": forced,
                         "text": f"{self.narrator.who(seat)}: {text}"
                                 + (" (forced: the only legal move)" if forced else "")})
        for line in self.narrator.update(self.state, seat, move):
            self.log.append({"seat": None, "text": line})
        del self.log[:-LOG_LINES]

    def _send(self, value, first: bool = False):
        try:
            if first:
                return next(self.loop)
            self._answered = True
            return self.loop.send(value)
        except StopIteration:
            return None

    def _run(self, value=None, first: bool = False) -> None:
        """Send `value` (or start), then let the bots answer until a person is to move."""
        decision = self._send(value, first)
        while decision is not None and decision.seat not in self.humans:
            agent = self.agents[decision.seat]
            if decision.legal is not None and decision.prefix is None:
                scores = agent.scores(decision.obs, decision.legal)
                self.recorder.on_scores(decision.legal, scores)
                decision = self._send(checked_choice(agent, scores, decision.legal))
            else:
                decision = self._send(answer(agent, decision))
        self.decision = decision
        if decision is None and self.finished is None:
            self._finish()

    def _finish(self) -> None:
        record_name = None
        if self.keep_record:
            path = records.save(self.recorder.record(self.state), name=None)
            record_name = os.path.splitext(os.path.relpath(path, records.default_folder()))[0]
        outcome, points = None, None
        if self.humans:
            seat = self.humans[0]
            won, outcome = views.end_result(self.state, seat)
            level = ranking.game_level(self.seats, views.opponents(self.state, seat))
            if len(self.humans) == 1:
                points = ranking.award(self.player, self.game, level, won, record_name)
        self.finished = {"result": _plain(self.state.result()), "payoffs": list(map(float, self.state.payoffs())),
                         "outcome": outcome, "points": points, "record": record_name,
                         "text": self.spec.describe_end(self.state)}

    # -- a person's move -----------------------------------------------------------------------
    def move(self, text) -> None:
        if not isinstance(text, str):
            raise UserError('the move must be a string, e.g. {"move": "33"} or {"move": "pass"}')
        if self.decision is None:
            raise UserError("the game is over: start a new one")
        d = self.decision
        try:
            move = self.spec.parse_human_move(d.obs, text, d.legal)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if d.legal is not None:
            self._run(list(d.legal).index(move))
            return
        trial = self.state.clone()
        trial.play(move)          # the referee's IllegalMove (a UserError) says why not
        self._run(move)

    # -- what the page and the API see -------------------------------------------------------
    def to_json(self, hint: bool = False) -> dict:
        d = self.decision
        human = d is not None and d.seat in self.humans
        viewer = d.seat if human else (self.humans[0] if self.humans else 0)
        legal = None
        if d is not None:
            legal = None if d.legal is None else [self.spec.move_text(m) for m in d.legal]
        out = {"id": self.id, "game": self.game, "options": self.options, "seed": self.seed,
               "seats": self.seats, "names": self.names, "human_seats": self.humans,
               "player": self.player, "done": d is None,
               "to_move": None if d is None else d.seat, "human_to_move": human,
               "legal": legal, "legal_count": None if d is None else self.state.count_legal(),
               "view": views.view(self.state, viewer, self.names, all_hands=d is None),
               "log": self.log[-60:], "rounds": self.narrator.summaries, "hint": None}
        if human:
            a = advice(self.state, d.obs, d.legal)
            out["hint"] = a["move"] if a else None
            if hint:
                out["advice"] = a
        if d is None:
            out.update(self.finished or {})
        return out


def _plain(value):
    return records._plain(value)


class Tables:
    """The games this server holds, by id (the oldest forgotten past `MAX_TABLES`)."""

    def __init__(self, keep_records: bool = True):
        self.tables: dict[str, Table] = {}
        self.counter = itertools.count(1)
        self.lock = threading.Lock()
        self.keep_records = keep_records

    def create(self, body) -> Table:
        game, options, seats, seed, player = check_request(body)
        keep = body.get("record", self.keep_records) if isinstance(body, dict) else self.keep_records
        with self.lock:
            table_id = f"g{next(self.counter)}"
        table = Table(table_id, game, options, seats, seed, player, keep_record=bool(keep))
        with self.lock:
            self.tables[table_id] = table
            while len(self.tables) > MAX_TABLES:
                self.tables.pop(next(iter(self.tables)))
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise KeyError(table_id)
        return table
