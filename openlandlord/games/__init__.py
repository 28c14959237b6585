"""The game registry: one spec per game, the one place the stages learn what a game is.

Every stage (play, generate, train, eval, league, bench, quickstart, ship) asks a game's spec
instead of branching on the game's name or keeping a per-game table:

    from openlandlord.games import spec
    g = spec("shengji")
    options = g.deal_options({"rules": "classic"})   # validated, defaults filled in
    state = g.new_game(seed, **options)              # a deal (or a match, `mode=match`)

A `GameSpec` says: its `name`, `num_seats`, the `roles` a dataset records and their names,
its `options` (each an `Option` with choices, default and help; Dou Dizhu `bidding`, Shengji
`rules` and `mode`) and their validation, a new deal from a seed, move <-> text,
observation <-> JSON, the rules object of an observation, the mirrored seatings the arena
plays and what a game counts for the agent, the legal-listing cap (`legal_cap`, None when
every legal set is listed), the value scale of the student's value head, the PIMC default
worlds, the teacher temperature, the featurizer, the rule bot, the PIMC decision adapter,
the student preset and how a person reads and types moves. The protocol is below; each game's
folder holds its spec in `spec.py`, its referee, featurizer, rule bot and PIMC adapter.

Every state a spec makes has: `current_seat`, `phase`, `done`, `num_seats`, `legal_moves()`,
`count_legal()`, `factored_options(prefix)` ([] in Dou Dizhu, whose legal sets are always
listed), `play(move)`, `observation(seat)`, `payoffs()` (zero-sum, per seat), `result()`,
`hands()`, `clone()`, `to_json()`. An observation says which game it is from in `obs.game`.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import UserError

# The factored-decision option "this prefix is complete" (a lead that could still grow).
END = "END"
# How an agent makes a Shengji `classic` burial (its `burial=` option, `play_candidates`):
# card by card, or one listed decision among the game's burial candidates.
BURIALS = ("cards", "listed")

# name -> "module:attribute" of its spec, imported on first use (a registry line per game).
_REGISTRY = {
    "doudizhu": "openlandlord.games.doudizhu.spec:SPEC",
    "shengji": "openlandlord.games.shengji.spec:SPEC",
}
GAMES = tuple(_REGISTRY)


@dataclass(frozen=True)
class Option:
    """One game option: a flag of every command that makes deals (`--bidding`, `--rules`)."""
    name: str
    choices: tuple[str, ...]
    default: str
    help: str
    # False for an option that says what a game is rather than how a deal is dealt (Shengji
    # `mode`: a single deal or a whole match); generation takes deal options only.
    deal: bool = True
    # False for an option added after artefacts were published (Shengji `trump_rank`): at
    # its default it is left out of what is validated and recorded, so every dataset, deal
    # set and figure made before it keeps its bytes and its meaning.
    record_default: bool = True

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Seating:
    """One game of a mirrored evaluation: a deal, which copy of it, where the agent sits."""
    deal: int                   # index of the original deal in the deal set
    copy: int
    seed: int                   # the deal's seed
    agent_seats: tuple[int, ...]
    options: tuple              # new_game options, as sorted (key, value) pairs


@runtime_checkable
class GameSpec(Protocol):
    name: str
    num_seats: int
    roles: tuple[str, ...]            # what a dataset's rec_role indexes (-1: not known yet)
    options: tuple[Option, ...]
    legal_cap: int | None             # above it a play is built card by card; None: never
    value_scale: float                # the student's value target is clip(score / scale)
    pimc_worlds: int
    teacher_temperature: float
    move_encoding: str                # how datasets store a move: "text" or "cards"
    symmetric: bool                   # the mirror: agent and opponent interchangeable
    bench_options: dict               # the options whose games visit every kind of decision
    bidding_role: int | None          # the student's role index of a bidding decision (None: none)

    def new_deal(self, seed: int, **options) -> Any: ...
    def new_game(self, seed: int, **options) -> Any: ...
    def move_text(self, move) -> str: ...
    def move_from_text(self, text: str) -> Any: ...
    def describe_move(self, move) -> str: ...
    def observation_to_json(self, obs) -> str: ...
    def observation_from_json(self, text: str) -> Any: ...
    def rules_of(self, obs) -> Any: ...
    def role_index(self, obs) -> int: ...
    def seatings(self, deal: int, seed: int, options: dict) -> list[Seating]: ...
    def outcome(self, state, seating: Seating) -> dict: ...
    def features(self): ...
    def rule_bot(self, level: str, seed: int | None): ...
    def bidding_phase(self, obs) -> bool: ...
    bidding_kinds: tuple[str, ...]     # the kinds of bidding decision, for `bid=rule-KIND`
    def bidding_kind(self, obs, legal) -> str | None: ...
    play_kinds: tuple[str, ...]        # the kinds of play decision, for `generate --phases`
    def play_kind(self, obs) -> str: ...
    def vec_env(self, num_envs: int, seed: int, features: str, options: dict): ...
    # A finished VecEnv game's raw return for a decision of `seat` (featurizer role `role`):
    # the value head's `value_score` from the step's rewards row and info (distill/dmc.py).
    def vec_return(self, seat: int, role: int, rewards, info: dict, env: int) -> float: ...
    # The side a featurizer role plays on in a VecEnv game (0 or 1; None for a role with no side,
    # Dou Dizhu's bidding): `dmc --noise` draws one side per game to play noisily.
    def role_team(self, role: int) -> int | None: ...
    def env_actions(self): ...
    def pimc_decision(self, obs, legal, objective: str): ...
    def student_preset(self) -> dict: ...
    def render(self, obs) -> str: ...
    def parse_human_move(self, obs, text: str, legal): ...
    def describe_end(self, state) -> str: ...
    # the fuzzer (openlandlord.fuzz): its labels and games, the card names its random moves
    # are made of, whether a played move was one of the referee's own, and a legal move
    fuzz_labels: tuple[str, ...]
    fuzz_cards: tuple[str, ...]
    def fuzz_game(self, label: str, seed: int) -> Any: ...
    def fuzz_move_was_legal(self, state, move) -> bool: ...
    def fuzz_legal_move(self, state) -> Any: ...


def _plain(x):
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    raise TypeError(f"cannot store {type(x).__name__} as JSON")


def to_json(value) -> str:
    """Canonical compact JSON (sorted keys), as datasets store observations and results."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=_plain)


def _tuples(value):
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


class BaseSpec:
    """What every spec shares: option validation and observation JSON. A game's spec sets the
    class attributes of `GameSpec` and implements its game-specific methods."""
    name: str
    options: tuple[Option, ...] = ()
    # Keyword arguments of `new_deal` that are not user options (a Shengji round's `dealer`
    # and `levels`, which the mirror and a match set): they pass validation as they are.
    deal_arguments: tuple[str, ...] = ()
    observation_type: type
    # The student's role index of a bidding decision, for games whose features give bids a
    # role of their own (Dou Dizhu); None where bids have none (Shengji's declarations).
    bidding_role: int | None = None

    def option(self, name: str) -> Option:
        for opt in self.options:
            if opt.name == name:
                return opt
        raise UserError(f"{self.name} has no option {name!r}; its options: "
                        + (", ".join(o.name for o in self.options) or "none"))

    def check_options(self, given: dict, deal_only: bool = False) -> dict:
        """`given` validated, every unset option at its default, in the spec's order; unknown
        names and values are a UserError naming the choices. `deal_only` drops (and refuses)
        options that are not deal options. Other keys (a Shengji `dealer`, `levels`) pass."""
        allowed = [o for o in self.options if o.deal or not deal_only]
        names = {o.name for o in self.options}
        out = {}
        for opt in allowed:
            value = given.get(opt.name, opt.default)
            if value is None:
                value = opt.default
            if value not in opt.choices:
                raise UserError(f"{opt.flag} {value!r} is not a {self.name} {opt.name}; "
                                f"choose one of {', '.join(opt.choices)}")
            if value != opt.default or opt.record_default:
                out[opt.name] = value
        for key, value in given.items():
            if key in names and key not in out:
                if any(o.name == key for o in allowed):
                    continue        # validated above and, at its default, not recorded
                if value not in (None, self.option(key).default):
                    raise UserError(f"{self.option(key).flag} {value} does not apply here: "
                                    "this command plays single deals")
            elif key in self.deal_arguments:
                out[key] = value
            elif key not in names:
                raise UserError(f"{self.name} has no option {key!r}; its options: "
                                + (", ".join(o.name for o in self.options) or "none"))
        return out

    def deal_options(self, given: dict | None = None) -> dict:
        """The deal options (what `generate` records and deal sets hold), defaults filled."""
        return self.check_options(dict(given or {}), deal_only=True)

    def recorded_options(self, given: dict) -> dict:
        """What a deal set records of `given`: every deal option (defaults filled in), the
        others only where they differ from their default."""
        checked = self.check_options(dict(given))
        return {k: v for k, v in checked.items()
                if k not in {o.name for o in self.options}
                or self.option(k).deal or v != self.option(k).default}

    def move_text(self, move) -> str:
        return move

    # Seating protocols `eval --protocol` takes: "mirror", the kit's (`seatings`), and any a
    # game adds (Dou Dizhu: "douzero", its paper's).
    protocols: tuple[str, ...] = ("mirror",)

    def protocol_seatings(self, protocol: str, deal: int, seed: int, options: dict) -> list:
        """The games one deal is played as under `protocol` (a UserError for one the game has
        not, or options it cannot take)."""
        if protocol != "mirror":
            raise UserError(f"--protocol {protocol!r} is not a {self.name} protocol; choose one of "
                            + ", ".join(self.protocols))
        return self.seatings(deal, seed, options)

    def ship_recipe_for(self, options: dict, quick: bool = False) -> dict:
        """The `openlandlord ship` recipe for these game options: the game's `ship_recipe` /
        `ship_quick_recipe` unless the options need their own (a spec overrides this)."""
        return self.ship_quick_recipe if quick else self.ship_recipe

    def quickstart_for(self, options: dict) -> dict:
        """The quickstart plan for these game options (default: the game's `quickstart`)."""
        return self.quickstart

    def play_candidates(self, obs, burial: str = "cards"):
        """For a play too large to list, a short list of good legal candidates that a search
        may choose among (None: the game has none; the rule bot builds the play). `burial`
        (`cards` or `listed`): whether a Shengji `classic` burial is built card by card (None
        here) or chosen among the game's burial candidates (the agents' `burial=` option)."""
        return None

    def build_step(self, obs, prefix: tuple):
        """A play too large to list that the observation alone can build card by card (a
        Shengji `classic` burial): the next step's candidates, each (prefix + one more card,
        the full play it is scored by: dataset generation's completion); [] once `prefix` is
        complete. None: not buildable from the observation (the referee knows the options)."""
        return None

    def move_from_text(self, text: str):
        return text

    def observation_to_json(self, obs) -> str:
        return to_json(dataclasses.asdict(obs))

    def observation_from_json(self, text: str):
        try:
            return self.observation_type(**{k: _tuples(v) for k, v in json.loads(text).items()})
        except TypeError as exc:
            raise UserError(f"a stored {self.name} observation does not fit this version's "
                            f"Observation ({exc}): regenerate the dataset") from None

    def __repr__(self) -> str:
        return f"<game spec {self.name}>"


_LOADED: dict[str, GameSpec] = {}


def spec(game: str) -> GameSpec:
    """The spec of a registered game (a UserError naming the games for any other name)."""
    found = _LOADED.get(game)
    if found is None:
        if game not in _REGISTRY:
            raise UserError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
        module, _, attr = _REGISTRY[game].partition(":")
        found = _LOADED[game] = getattr(importlib.import_module(module), attr)
    return found


def new_deal(game: str, seed: int, **options):
    """A fresh deal of `game` from `seed` (options as the game's spec takes them)."""
    return spec(game).new_deal(seed, **options)


def all_options() -> dict[str, Option]:
    """Every registered game's options by name (the flags every deal-making command takes);
    a name two games share (none today) keeps the union of their choices."""
    out: dict[str, Option] = {}
    for name in GAMES:
        for opt in spec(name).options:
            if opt.name in out:
                merged = out[opt.name].choices + tuple(c for c in opt.choices
                                                       if c not in out[opt.name].choices)
                opt = dataclasses.replace(out[opt.name], choices=merged)
            out[opt.name] = opt
    return out


def game_options(game: str, args) -> dict:
    """The options of `game` given on a command line (`args`: parsed flags, None where not
    given), validated by its spec with defaults filled in. A flag that belongs to another
    game is a UserError, not silently ignored."""
    given = {name: getattr(args, name, None) for name in all_options()}
    g = spec(game)
    own = {o.name for o in g.options}
    for name, value in given.items():
        if value is not None and name not in own:
            raise UserError(f"{all_options()[name].flag} is not an option of {game}; its options: "
                            + (", ".join(o.flag for o in g.options) or "none"))
    return g.check_options({k: v for k, v in given.items() if k in own and v is not None})
