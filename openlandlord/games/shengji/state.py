"""A Shengji round (one deal) and a match (the campaign of rounds), behind the uniform game
interface the arena uses, plus the seat's observation and its text picture."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ...errors import IllegalMove, UserError
from . import _referee
from .rules import (CARD_IDS, CARD_NAMES, CATS, RANKS, SUITS, Rules, card_table, counts, explain_illegal,
                    factored_options, names_of, play_of, round_result)

_NAMES = np.array(CARD_NAMES, dtype=object)   # card id -> name, for whole hands at once
DEFAULT_CAP = 256  # above this many legal plays, legal_moves() asks for limit=None or factoring


@dataclass(frozen=True)
class Observation:
    """What one seat sees. Cards are strings; plays are sorted tuples."""
    game: str
    seat: int
    phase: str
    rules: str
    trump_rank: str
    trump_suit: str
    hand: tuple
    declarers: int            # team 0 (seats 0, 2) or 1 (seats 1, 3)
    dealer: int
    levels: tuple             # (team 0, team 1), 2..14 (14 = A)
    current_seat: int
    leader: int
    trick: tuple              # ((seat, cards), ...) so far in the current trick
    tricks: tuple             # ((leader, ((seat, cards), ...), winner), ...) completed
    attacker_points: int
    cards_left: tuple
    voids: tuple              # per seat, the suits (S H D C, T = trumps) it has shown void in
    # Ruleset `classic` only:
    declaration: tuple = ()   # (seat, cards) of the standing trump declaration
    kitty: tuple = ()         # the buried cards, shown to the dealer only
    failed_throws: tuple = ()  # ((seat, cards attempted, cards played), ...) this round

    @property
    def lead(self):
        return self.trick[0][1] if self.trick else None


def seed_value(seed) -> int:
    """A seed as the deal uses it, by Dou Dizhu's rule (`Game.new`): any integer, taken mod
    2^64 (so -1 is 2^64 - 1); a bool, a float, a string or None is a UserError."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise UserError(f"seed must be an integer, got {seed!r}")
    return int(seed) % (1 << 64)


def seat_value(seat, what: str = "seat") -> int:
    """A seat number 0..3 (any integer type); a bool, a float, a string or None is a UserError."""
    if isinstance(seat, (bool, str)) or not hasattr(seat, "__index__") or not 0 <= seat <= 3:
        raise UserError(f"{what} must be a seat 0..3, got {seat!r}")
    return int(seat)


def check_turn(seat, current: int) -> None:
    """`play(..., seat=...)`: when given, the seat must be a seat number and the one to play."""
    if seat is not None and seat_value(seat, "the seat of a play") != current:
        raise IllegalMove(f"out of turn: seat {current} is to play, not {seat}")


def _seed_of(seed, index: int) -> int:
    return int(np.random.SeedSequence([int(seed), index]).generate_state(1)[0])


class Round:
    """One deal of 108 cards to four seats, played trick by trick to the round result.

    payoffs(): the winning side's seats get +levels up, the other side's -levels up (zero-sum);
    an attacker win of 80-115 points takes the deal over with 0 levels up and pays 0.
    """
    num_seats = 4

    def __init__(self):
        raise UserError("use Round.new(seed, ...) or Round.from_json(text)")

    @classmethod
    def new(cls, seed: int, rules="tractor", dealer: int = 0, levels=(2, 2)) -> "Round":
        """A fresh deal. `rules` is "tractor", "classic" (trump declared during the deal) or a
        Rules value (its trump is used as given)."""
        seed = seed_value(seed)
        dealer = seat_value(dealer, "dealer")
        levels = tuple(int(v) for v in levels)
        if len(levels) != 2 or not all(2 <= v <= 14 for v in levels):
            raise UserError(f"levels must be two levels in 2..14 (14 = A), got {levels!r}")
        if rules == "classic" or (isinstance(rules, Rules) and rules.name == "classic"):
            from .classic_round import ClassicRound
            return ClassicRound.create(int(seed), rules, dealer, levels)
        rng = np.random.default_rng(int(seed))
        suit = SUITS[int(rng.integers(4))]
        if isinstance(rules, str):
            if rules != "tractor":
                raise UserError(f"unknown ruleset {rules!r}; choose 'tractor' or 'classic'")
            rules = Rules.tractor(levels[dealer % 2], suit)
        elif not isinstance(rules, Rules):
            raise UserError(f"rules must be 'tractor', 'classic' or a Rules value, got {rules!r}")
        self = object.__new__(cls)
        self.seed, self.rules, self.dealer, self.levels = int(seed), rules, dealer, levels
        self.declarers = dealer % 2
        deck = rng.permutation(108) // 2
        self._hands = np.zeros((4, 54), np.uint8)
        for seat in range(4):
            np.add.at(self._hands[seat], deck[27 * seat: 27 * seat + 27], 1)
        self._moves: list = []
        self._start_play()
        return self

    @classmethod
    def from_hands(cls, hands, rules: Rules, dealer: int = 0, levels=(2, 2), kitty=()) -> "Round":
        """A round about to be played from the given hands (four lists of cards of one size),
        for search, analysis and tests; `kitty` is the buried cards of a `classic` round.
        Its record replays from these hands instead of a seed."""
        if not isinstance(rules, Rules):
            raise UserError(f"rules must be a Rules value, got {rules!r}")
        dealer = seat_value(dealer, "dealer")
        if len(hands) != 4 or len({len(h) for h in hands}) != 1:
            raise UserError("from_hands needs four hands of the same size")
        vectors = [counts(h, f"hand {seat}") for seat, h in enumerate(hands)]
        buried = counts(kitty, "kitty")
        if (sum(v.astype(np.int16) for v in vectors) + buried > 2).any():
            raise UserError("a card appears more than twice across the hands and the kitty")
        if rules.name == "classic":
            from .classic_round import ClassicRound
            self = object.__new__(ClassicRound)
            self._setup_classic(rules, buried)
        else:
            self = object.__new__(cls)
            if buried.any():
                raise UserError("the tractor ruleset has no kitty")
        self.seed, self.rules, self.dealer = None, rules, dealer
        self.levels = tuple(int(v) for v in levels)
        self.declarers = dealer % 2
        self._hands = np.stack(vectors).astype(np.uint8)
        self._initial = {"hands": [list(h) for h in hands], "kitty": list(kitty)}
        self._moves = []
        self._start_play()
        return self

    def _start_play(self) -> None:
        self._cats, self._strength, self._points = (np.asarray(a) for a in card_table(self.rules))
        self.leader = self.current_seat = self.dealer
        self._trick: list = []
        self._vectors: list = []  # count vectors of the current trick's plays
        self._led = None
        self._tricks: list = []
        self._voids = [set() for _ in range(4)]
        self.attacker_points = self.declarer_points = 0

    # --- the uniform interface -----------------------------------------------------------
    @property
    def done(self) -> bool:
        return not self._hands.any()

    @property
    def phase(self) -> str:
        return "done" if self.done else "play"

    def _lead_vector(self):
        return self._led if self._trick else None

    def count_legal(self) -> int:
        if self.done:
            return 0
        return int(_referee.count_legal_ids(self.rules.rank_index, self.rules.suit_index,
                                            self._hands[self.current_seat], self._lead_vector()))

    def legal_moves(self, limit: int | None = DEFAULT_CAP) -> list[tuple[str, ...]]:
        """Every distinct legal play (sorted tuples, sorted). Beyond `limit` plays this raises
        unless limit=None: build such plays with factored_options instead."""
        if self.done:
            return []
        if limit is not None:
            n = self.count_legal()
            if n > limit:
                raise UserError(f"{n} legal plays here, more than the cap of {limit}: build the "
                                "play with factored_options(prefix) or ask legal_moves(limit=None)")
        ids = _referee.legal_play_ids(self.rules.rank_index, self.rules.suit_index,
                                      self._hands[self.current_seat], self._lead_vector())
        return sorted(play_of(p) for p in ids)

    legal_plays = legal_moves

    def factored_options(self, prefix=()) -> list[str]:
        """The cards that can be added to `prefix` with a legal play still reachable (sorted,
        distinct); [] when `prefix` is a complete play. When leading, END is offered once the
        prefix is itself a legal lead that could still be extended."""
        if self.done:
            raise IllegalMove("the round is over")
        lead = self._trick[0][1] if self._trick else None
        return factored_options(self.rules, names_of(self._hands[self.current_seat]), lead, prefix)

    def play(self, cards, seat: int | None = None) -> None:
        """Plays `cards` (any order) for the seat to move; on an illegal play raises
        IllegalMove naming the rule and leaves the round unchanged."""
        if self.done:
            raise IllegalMove("the round is over")
        check_turn(seat, self.current_seat)
        vector = counts(cards, "play")
        hand = self._hands[self.current_seat]
        if _referee.play_error(self.rules.rank_index, self.rules.suit_index, hand,
                               self._lead_vector(), vector):
            lead = self._trick[0][1] if self._trick else None
            raise IllegalMove(explain_illegal(self.rules, names_of(hand), lead, names_of(vector)))
        self._apply(play_of(np.repeat(np.arange(54), vector)), vector)

    def _apply(self, play: tuple, vector: np.ndarray) -> None:
        seat = self.current_seat
        if self._trick:
            led_cat = self._cats[np.flatnonzero(self._led)[0]]
            if int(vector[self._cats == led_cat].sum()) < int(self._led.sum()):
                self._voids[seat].add(CATS[led_cat])
        else:
            self._led = vector.copy()
        self._vectors.append(vector.copy())
        self._hands[seat] -= vector
        self._moves.append(list(play))
        self._trick.append((seat, play))
        if len(self._trick) < 4:
            self.current_seat = (seat + 1) % 4
            return
        vectors, self._vectors = self._vectors, []
        winner = self._trick[self._winner_index(vectors)][0]
        points = int(sum(int((v * self._points).sum()) for v in vectors))
        if winner % 2 == self.declarers:
            self.declarer_points += points
        else:
            self.attacker_points += points
        self._tricks.append((self.leader, tuple(self._trick), winner))
        self._trick = []
        self.leader = self.current_seat = winner

    def _winner_index(self, vectors) -> int:
        return _referee.winner_of(self.rules.rank_index, self.rules.suit_index, vectors)

    def result(self) -> dict:
        """attacker_points, the winning side, its team, levels up (empty dict before the end)."""
        if not self.done:
            return {}
        side, up = round_result(self.attacker_points)
        team = self.declarers if side == "declarers" else 1 - self.declarers
        return {"attacker_points": self.attacker_points, "winner": side, "winning_team": team,
                "levels_up": up, "declarers": self.declarers}

    def payoffs(self) -> list[float]:
        if not self.done:
            return [0.0] * 4
        r = self.result()
        return [float(r["levels_up"] if seat % 2 == r["winning_team"] else -r["levels_up"])
                for seat in range(4)]

    def hands(self) -> list[tuple[str, ...]]:
        return [self._sorted(h) for h in self._hands]

    def _sorted(self, vector: np.ndarray) -> tuple[str, ...]:
        """The card names of a count vector in hand order: plain suits S H D C low to high,
        then trumps low to high (card id breaks ties)."""
        ids = self._hand_order()
        return tuple(_NAMES[np.repeat(ids, vector[ids])].tolist())

    def _hand_order(self) -> np.ndarray:
        # Card ids in hand order, kept until the trump tables change (a classic declaration
        # replaces them; the cache holds the tables it was made from, so identity is safe).
        cached = self.__dict__.get("_order_cache")
        if cached is None or cached[0] is not self._cats or cached[1] is not self._strength:
            order = self._cats * 1000 + self._strength * 60 + np.arange(54)
            cached = (self._cats, self._strength, np.argsort(order, kind="stable"))
            self._order_cache = cached
        return cached[2]

    def observation(self, seat: int) -> Observation:
        seat = seat_value(seat)
        return Observation(
            game="shengji", seat=seat, phase=self.phase, rules=self.rules.name,
            trump_rank=self.rules.trump_rank, trump_suit=self.rules.trump_suit,
            hand=self._sorted(self._hands[seat]), declarers=self.declarers,
            dealer=self.dealer, levels=self.levels, current_seat=self.current_seat,
            leader=self.leader, trick=tuple(self._trick), tricks=tuple(self._tricks),
            attacker_points=self.attacker_points,
            cards_left=tuple(self._hands.sum(axis=1).tolist()),
            voids=tuple(tuple(sorted(v, key=CATS.index)) for v in self._voids))

    def clone(self) -> "Round":
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._hands = self._hands.copy()
        other._trick, other._tricks, other._moves = list(self._trick), list(self._tricks), list(self._moves)
        other._vectors = list(self._vectors)
        other._voids = [set(v) for v in self._voids]
        return other

    def _header(self) -> dict:
        header = {"game": "shengji", "kind": "round", "seed": self.seed, "rules": self.rules.name,
                  "trump_rank": self.rules.trump_rank, "trump_suit": self.rules.trump_suit,
                  "dealer": self.dealer, "levels": list(self.levels)}
        if self.seed is None:
            header.update(self._initial)
        return header

    def to_json(self) -> str:
        return json.dumps({**self._header(), "moves": self._moves})

    @classmethod
    def from_json(cls, text) -> "Round":
        data = _load(text, "round")
        with _record_fields("round"):
            rules_name, moves = data["rules"], data["moves"]
            if rules_name not in ("tractor", "classic"):
                raise UserError(f"not a Shengji round record: unknown ruleset {rules_name!r}; "
                                "the rulesets are 'tractor' and 'classic'")
            if data.get("seed") is None:
                rules = (Rules.classic if rules_name == "classic" else Rules.tractor)(
                    data["trump_rank"], data["trump_suit"])
                r = Round.from_hands(data["hands"], rules, data["dealer"], tuple(data["levels"]),
                                     data.get("kitty", ()))
            else:
                if rules_name == "classic":
                    rules = (Rules.classic(data["trump_rank"], data["trump_suit"])
                             if data.get("trump_given") else "classic")
                else:
                    rules = Rules.tractor(data["trump_rank"], data["trump_suit"])
                r = Round.new(data["seed"], rules, data["dealer"], tuple(data["levels"]))
            for move in _moves_of(moves, "round"):
                r.play(move)
        return r


def _load(text, kind: str) -> dict:
    try:
        data = json.loads(text) if isinstance(text, (str, bytes)) else dict(text)
    except (ValueError, TypeError) as exc:
        raise UserError(f"not a Shengji {kind} record: {exc}") from None
    if not isinstance(data, dict):
        raise UserError(f"not a Shengji {kind} record: a JSON object is wanted, got {data!r:.40}")
    if data.get("game") != "shengji" or data.get("kind") != kind:
        raise UserError(f"not a Shengji {kind} record (game={data.get('game')!r}, "
                        f"kind={data.get('kind')!r})")
    return data


class _record_fields:
    """Reading a record's fields: a missing one or one of the wrong shape is a UserError."""

    def __init__(self, kind: str):
        self.kind = kind

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is KeyError:
            raise UserError(f"not a Shengji {self.kind} record: it has no {exc.args[0]!r}") from None
        if kind in (TypeError, ValueError) and not isinstance(exc, UserError):
            raise UserError(f"not a Shengji {self.kind} record: {exc}") from None
        return False


def _moves_of(moves, kind: str) -> list:
    if not isinstance(moves, list) or not all(isinstance(m, list) for m in moves):
        raise UserError(f"not a Shengji {kind} record: moves must be a list of card lists")
    return moves


class Match:
    """The campaign: rounds from level 2 until a partnership goes past A. Each round's trump
    rank is the declaring team's level; its trump suit is drawn from the round's seed. After a
    hold the deal passes to the declarer's partner, after a takeover to the next seat.

    payoffs(): +1 for the seats of the team that went past A, -1 for the others."""
    num_seats = 4

    def __init__(self):
        raise UserError("use Match.new(seed) or Match.from_json(text)")

    @classmethod
    def new(cls, seed: int, rules: str = "tractor") -> "Match":
        seed = seed_value(seed)
        if rules not in ("tractor", "classic"):
            raise UserError(f"unknown ruleset {rules!r}; choose 'tractor' or 'classic'")
        self = object.__new__(cls)
        self.seed, self.rules_name = seed, rules
        self.levels = (2, 2)
        self.results: list[dict] = []
        self.winner: int | None = None
        self._moves: list = []
        self.round = Round.new(_seed_of(seed, 0), rules, 0, self.levels)
        return self

    @property
    def done(self) -> bool:
        return self.winner is not None

    @property
    def phase(self) -> str:
        return "done" if self.done else "play"

    @property
    def current_seat(self) -> int:
        return self.round.current_seat

    def count_legal(self) -> int:
        return 0 if self.done else self.round.count_legal()

    def legal_moves(self, limit: int | None = DEFAULT_CAP):
        return [] if self.done else self.round.legal_moves(limit)

    legal_plays = legal_moves

    def factored_options(self, prefix=()):
        if self.done:
            raise IllegalMove("the match is over")
        return self.round.factored_options(prefix)

    def play(self, cards, seat: int | None = None) -> None:
        if self.done:
            raise IllegalMove("the match is over")
        self.round.play(cards, seat)
        self._moves.append(self.round._moves[-1])
        if not self.round.done:
            return
        result = self.round.result()
        self.results.append(result)
        team, up = result["winning_team"], result["levels_up"]
        levels = list(self.levels)
        levels[team] += up
        if levels[team] > 14:
            self.levels = tuple(levels)
            self.winner = team
            return
        self.levels = tuple(levels)
        old = self.round.dealer
        dealer = (old + 2) % 4 if result["winner"] == "declarers" else (old + 1) % 4
        self.round = Round.new(_seed_of(self.seed, len(self.results)), self.rules_name, dealer,
                               self.levels)

    def observation(self, seat: int) -> Observation:
        return self.round.observation(seat)

    def result(self) -> dict:
        return {"winner": self.winner, "levels": self.levels, "rounds": list(self.results)}

    def payoffs(self) -> list[float]:
        if not self.done:
            return [0.0] * 4
        return [1.0 if seat % 2 == self.winner else -1.0 for seat in range(4)]

    def hands(self):
        return self.round.hands()

    def clone(self) -> "Match":
        other = object.__new__(Match)
        other.__dict__.update(self.__dict__)
        other.round = self.round.clone()
        other.results, other._moves = list(self.results), list(self._moves)
        return other

    def to_json(self) -> str:
        return json.dumps({"game": "shengji", "kind": "match", "seed": self.seed,
                           "rules": self.rules_name, "moves": self._moves})

    @classmethod
    def from_json(cls, text) -> "Match":
        data = _load(text, "match")
        with _record_fields("match"):
            m = cls.new(data["seed"], data["rules"])
            for move in _moves_of(data["moves"], "match"):
                m.play(move)
        return m


def render(obs: Observation) -> str:
    """A compact text picture of a seat's view: trump, levels, points, the trick, the hand."""
    team = obs.seat % 2
    role = "declarer" if team == obs.declarers else "attacker"
    if obs.rules == "classic":
        cats, _, _ = card_table(Rules.classic(obs.trump_rank, obs.trump_suit or "N"))
    else:
        cats, _, _ = card_table(Rules.tractor(obs.trump_rank, obs.trump_suit))
    by_cat: dict[int, list[str]] = {}
    for card in obs.hand:
        by_cat.setdefault(cats[CARD_NAMES.index(card)], []).append(card)
    lines = [f"Shengji ({obs.rules}, {obs.phase})  trump {obs.trump_rank}{obs.trump_suit or '?'}  "
             f"levels {RANKS[min(obs.levels[0], 14) - 2]}/{RANKS[min(obs.levels[1], 14) - 2]}  "
             f"attackers {obs.attacker_points} pts",
             f"seat {obs.seat} ({role}), dealer {obs.dealer}, to play: seat {obs.current_seat}, "
             f"cards left {' '.join(str(n) for n in obs.cards_left)}"]
    trick = "  ".join(f"{s}:{' '.join(c)}" for s, c in obs.trick) or "(new trick)"
    lines.append(f"trick: {trick}")
    for cat in range(5):
        if cat in by_cat:
            lines.append(f"  {CATS[cat]}: {' '.join(by_cat[cat])}")
    return "\n".join(lines)
