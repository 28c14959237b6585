"""Every player behind one protocol, and the one factory that builds them from spec strings.

An agent scores every legal move of a position from what its seat can see:

    class Agent(Protocol):
        name: str
        def scores(self, obs, legal) -> np.ndarray   # one float per legal move, higher = better

`obs` is the referee's observation for the seat to move (it says which game it is from)
and `legal` the referee's legal move list in the referee's order. Choosing is argmax, or
sampling at a temperature, over the scores (`choose`). No agent reads another seat's hidden
cards: everything it needs comes from `obs`.

Spec strings are the same everywhere (play, generate, eval, league):
`random`, `rule`, `rule:expert`, `pimc:worlds=32,rollout=rule`, `student:PATH`,
`coreml:PATH.mlpackage`, `onnx:FILE.onnx`, `douzero:DIR`, `rlcard`. The grammar is
`NAME[:POSITIONAL][,key=value...]`: ARGS is one positional value (a path or a level),
comma-separated `key=value` pairs, or a positional value followed by pairs
(`student:data/models/doudizhu,backend=mlx`). ARGS without any `=` is all one positional
value, commas included.

This package holds only game-agnostic agents; a game's own players (its rule bot, its PIMC
adapter, peers that play one game only such as `rlcard` and `douzero`) live in its folder
under `openlandlord.games`, reached through the game's spec. The one decision loop that
drives every deal is `openlandlord.agents.loop`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import NotAvailable, UserError


@runtime_checkable
class Agent(Protocol):
    name: str

    def scores(self, obs, legal) -> np.ndarray: ...


# Optional methods of the protocol, used where an agent offers them:
#
#   scores_batch(items: list[tuple[obs, legal]]) -> list[np.ndarray]
#       exactly what `scores(obs, legal)` returns for each pair, in one call (one forward
#       pass for a network): the arena batches such an agent's decisions across many games
#       and builds it once per worker, so its scores must not depend on what else is in the
#       batch or what it scored before (eval/arena.py).
#   choose_play(obs) -> move
#       a whole move for a legal set too large to list (`openlandlord.agents.loop`): the agent
#       builds it itself instead of scoring it card by card (None: card by card after all).
#       Network players (`ListedPlays`) choose among the game's `play_candidates` there.


@dataclass(frozen=True)
class Spec:
    """A parsed agent spec: `pimc:worlds=32,rollout=rule` -> name='pimc',
    options={'worlds': '32', 'rollout': 'rule'}; `student:runs/a` -> arg='runs/a';
    `student:runs/a,backend=mlx` -> arg='runs/a', options={'backend': 'mlx'}."""
    name: str
    arg: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    text: str = ""


# name -> "module:callable". Imported lazily so that, e.g., torch is only loaded for `douzero`.
# Each callable takes (spec: Spec, seed: int | None) and returns an Agent.
_FACTORIES: dict[str, str] = {
    "random": "openlandlord.agents.basic:make_random",
    "human": "openlandlord.agents.human:make_human",
    "rule": "openlandlord.agents.rule:make_rule",
    "rlcard": "openlandlord.games.doudizhu.rlcard_agent:make_rlcard",
    "pimc": "openlandlord.agents.pimc:make_pimc",
    "douzero": "openlandlord.games.doudizhu.douzero_agent:make_douzero",
    "student": "openlandlord.agents.student:make_student",
    "coreml": "openlandlord.agents.coreml_agent:make_coreml",
    "onnx": "openlandlord.agents.onnx_agent:make_onnx",
    "torch": "openlandlord.agents.student:make_torch_student",
}


def parse_spec(text: str) -> Spec:
    if not isinstance(text, str) or not text.strip():
        raise UserError(f"empty agent spec {text!r}; expected e.g. 'rule' or 'pimc:worlds=32'")
    text = text.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    if name not in _FACTORIES:
        raise UserError(f"unknown agent {name!r} in spec {text!r}; known agents: "
                        + ", ".join(sorted(_FACTORIES)))
    if not rest:
        return Spec(name, None, {}, text)
    if "=" not in rest:
        return Spec(name, rest, {}, text)
    parts = rest.split(",")
    # A first part without `=` is the positional value; key=value options follow it.
    arg = parts.pop(0) if "=" not in parts[0] and parts[0].strip() else None
    options: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise UserError(f"bad option {part!r} in agent spec {text!r}; expected key=value")
        options[key.strip()] = value.strip()
    return Spec(name, arg, options, text)


def split_specs(text: str) -> list[str]:
    """Comma-separated agent specs, as `play --seats` takes them: a piece `key=value` (no `:`
    before its `=`) is an option of the spec before it, so `human,student:DIR,bid=rule,rule`
    is three specs and `pimc:worlds=8,rollout=rule` one."""
    specs: list[str] = []
    for piece in text.split(","):
        key, eq, _ = piece.partition("=")
        if eq and ":" not in key and specs:
            specs[-1] += "," + piece.strip()
        else:
            specs.append(piece.strip())
    return specs


def _factory_module(parsed: Spec):
    module_name = _FACTORIES[parsed.name].partition(":")[0]
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("openlandlord"):
            raise NotAvailable(f"agent {parsed.name!r} is not implemented in this version") from None
        raise NotAvailable(f"agent {parsed.name!r} needs the package {exc.name!r}, "
                           "which is not installed") from None


def make(spec: str, seed: int | None = None) -> Agent:
    """Build any agent from its spec string (see the module docstring)."""
    parsed = parse_spec(spec)
    return getattr(_factory_module(parsed), _FACTORIES[parsed.name].partition(":")[2])(parsed, seed)


def prepare(spec: str) -> None:
    """Import what the agent of `spec` needs, in this process, building nothing and loading
    no weights: its factory module, and whatever that module's `prepare(spec)` imports
    (rlcard unpacks its data files on its first import; done once here, before worker
    processes start, the workers do not race to unpack them)."""
    parsed = parse_spec(spec)
    hook = getattr(_factory_module(parsed), "prepare", None)
    if hook is not None:
        hook(parsed)


def describe(spec: str) -> dict:
    """What the agent of `spec` plays with in this process beyond its spec text, for the
    artefacts that report it: a student's checkpoint directory, its weights' SHA-256 and the
    engine its forward pass runs on (the two engines round differently, so a near tie can go
    the other way and a game with it). {} for an agent whose spec says it all. Built from
    files only: no weights are loaded."""
    parsed = parse_spec(spec)
    hook = getattr(_factory_module(parsed), "describe", None)
    return hook(parsed) if hook is not None else {}


def option(spec: Spec, key: str, default: Any, kind=int, low=None, high=None) -> Any:
    """Read one typed option of a spec, with a clear error naming the spec when it is bad or
    outside [low, high] (either bound may be None)."""
    if key not in spec.options:
        return default
    raw = spec.options[key]
    try:
        value = kind(raw)
    except ValueError:
        raise UserError(f"option {key}={raw!r} of agent spec {spec.text!r} is not a valid "
                        f"{kind.__name__}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = (f"between {low} and {high}" if low is not None and high is not None
                  else f"at least {low}" if low is not None else f"at most {high}")
        raise UserError(f"option {key}={raw} of agent spec {spec.text!r} must be {bounds}")
    return value


def check_options(spec: Spec, allowed: set[str], positional: bool = True) -> None:
    """Refuse options outside `allowed`, and with `positional=False` a positional argument
    (`random:foo`), which the agent would otherwise silently ignore."""
    unknown = set(spec.options) - allowed
    if unknown:
        raise UserError(f"unknown option(s) {', '.join(sorted(unknown))} in agent spec "
                        f"{spec.text!r}; allowed: {', '.join(sorted(allowed)) or 'none'}")
    if not positional and spec.arg is not None:
        takes = (f"only key=value options ({', '.join(sorted(allowed))})" if allowed
                 else "no argument")
        raise UserError(f"agent spec {spec.text!r}: {spec.name} takes {takes}, "
                        f"not {spec.arg!r}")


def choose(scores: np.ndarray, rng: np.random.Generator | None = None,
           temperature: float = 0.0) -> int:
    """Index of the move to play: argmax (first of ties) at temperature 0, else a sample
    from softmax(scores / temperature)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError("scores must be a non-empty 1-D array")
    if temperature <= 0.0 or rng is None:
        return int(np.argmax(scores))
    z = (scores - scores.max()) / temperature
    p = np.exp(z)
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


def checked_choice(agent, scores, legal) -> int:
    """`choose` over an agent's scores, refusing scores of the wrong shape (an agent bug)."""
    scores = np.asarray(scores)
    if scores.shape != (len(legal),):
        raise RuntimeError(f"agent {getattr(agent, 'name', agent)!r} returned {scores.shape} "
                           f"scores for {len(legal)} legal moves")
    return choose(scores)


def play_from_candidates(agent, obs):
    """A play too large to list, chosen by `agent`'s scores among the game's own short list of
    candidates for it (`play_candidates`: a Shengji `classic` lead, any cards of one suit,
    offered as the expert rule bot's lead candidates: every single, pair and tractor and per
    plain suit the throw of its master units; a `classic` burial where the agent's `burial`
    is `listed`), scored as one listed decision; None where the game has no such list (the
    play is then built card by card)."""
    from openlandlord.games import spec as game_spec
    candidates = game_spec(obs.game).play_candidates(obs, getattr(agent, "burial", "cards"))
    if not candidates:
        return None
    return candidates[checked_choice(agent, agent.scores(obs, candidates), candidates)]


class ListedPlays:
    """A network player's `choose_play`: a play too large to list is asked of the network as
    a listed decision over the game's candidates (`play_from_candidates`), the form most of
    its decisions come in, instead of card by card. Measured on the shipped `classic`
    student against `rule:expert` (`shengji-classic-dev-260`): +10.06 [+8.01, +12.04] card
    points a deal where card by card it made +6.88 [+4.79, +8.92] (docs/models.md)."""

    def choose_play(self, obs):
        return play_from_candidates(self, obs)


def bid_values(own: str = "own") -> tuple[str, ...]:
    """The values of an agent's `bid` option: its own bidding (`own`; pimc's is `search`),
    the rule bot's (`rule`), or the rule bot's for one kind of bidding decision only
    (`rule-KIND`, KIND from every game spec's `bidding_kinds`), to split what an agent's
    own bidding gains or loses."""
    from ..games import GAMES, spec
    kinds = dict.fromkeys(kind for game in GAMES for kind in spec(game).bidding_kinds)
    return (own, "rule") + tuple(f"rule-{kind}" for kind in kinds)


class Routed:
    """An agent that hands some of its decisions to others: `route(obs, legal)` names the
    agent that takes a decision (`legal` None for a play too large to list), or None for the
    wrapped agent's own. Scores, batches and a play too large to list each go where the
    route says; anything else is the wrapped agent's. `RuleBids` routes bidding decisions to
    the rule bot, the student's `endgame=K` (agents/student.py) the last cards to a search.

    `batched` (class attribute): whether it offers `scores_batch` where the wrapped agent does.
    A router whose other agents draw random worlds (a search) sets it False, so that the arena
    builds it per game, as it builds the search (eval/arena.py). `builds_plays`: whether it
    has a `choose_play` whatever the wrapped agent has (else where that agent has one)."""

    batched = True
    builds_plays = False

    def __init__(self, agent, name: str):
        self.agent = agent
        self.name = name
        if self.batched and hasattr(agent, "scores_batch"):
            self.scores_batch = self._scores_batch

    def route(self, obs, legal):
        raise NotImplementedError

    def scores(self, obs, legal) -> np.ndarray:
        other = self.route(obs, legal)
        return other.scores(obs, legal) if other is not None else self.agent.scores(obs, legal)

    def _scores_batch(self, items) -> list:
        out: list = [None] * len(items)
        own = []
        for i, (obs, legal) in enumerate(items):
            other = self.route(obs, legal)
            if other is not None:
                out[i] = other.scores(obs, legal)
            else:
                own.append(i)
        if own:
            for i, scores in zip(own, self.agent.scores_batch([items[i] for i in own])):
                out[i] = scores
        return out

    def _choose_play(self, obs):
        """A play too large to list, where the route sends it: that agent's own
        `choose_play`, or None (built card by card, each step scored through `scores`)."""
        other = self.route(obs, None)
        target = other if other is not None else self.agent
        own = getattr(target, "choose_play", None)
        return own(obs) if own is not None else None

    def __getattr__(self, name):
        if name.startswith("__") or name in ("agent", "scores_batch"):
            raise AttributeError(name)     # scores_batch: set in __init__ where the agent has one
        if name == "choose_play":
            if self.builds_plays or hasattr(self.agent, "choose_play"):
                return self._choose_play
            raise AttributeError(name)
        return getattr(self.agent, name)


class RuleBids(Routed):
    """`AGENT,bid=rule`: the agent's play with the rule bot's bidding (level normal): every
    decision its game's spec calls a bidding one (`bidding_phase(obs)`: Dou Dizhu's bids and
    doubles, Shengji's declarations and burial) is scored by the rule bot, every other by
    the agent. What the agent's own bidding is measured against, the same play.
    `AGENT,bid=rule-KIND` (`kind`): the rule bot takes only the bidding decisions of that
    kind (`spec.bidding_kind(obs, legal)`: Dou Dizhu `bid` or `double`, Shengji `declare` or
    `bury`), the agent the rest."""

    def __init__(self, agent, seed: int | None = None, kind: str | None = None):
        super().__init__(agent, f"{agent.name},bid=rule" + (f"-{kind}" if kind else ""))
        self.seed = seed
        self.kind = kind
        self._bots: dict = {}

    def route(self, obs, legal):
        from ..games import spec
        game = spec(obs.game)
        if not game.bidding_phase(obs):
            return None
        # A play too large to list (a burial built card by card) has no legal list here:
        # the kinds that can be so large are told by the observation alone.
        if self.kind is not None and game.bidding_kind(obs, () if legal is None else legal) != self.kind:
            return None
        if obs.game not in self._bots:
            self._bots[obs.game] = game.rule_bot("normal", self.seed)
        return self._bots[obs.game]


def with_bids(agent, spec: Spec, seed: int | None):
    """The agent as `spec`'s `bid` option asks: its own bids (`bid=own`, the default), the
    rule bot's (`bid=rule`), or the rule bot's for one kind of bidding decision only
    (`bid=rule-KIND`, see `bid_values`)."""
    bid = spec.options.get("bid", "own")
    if bid not in (choices := bid_values()):
        raise UserError(f"option bid={bid!r} of agent spec {spec.text!r} must be one of "
                        f"{', '.join(choices)}")
    if bid == "own":
        return agent
    return RuleBids(agent, seed, None if bid == "rule" else bid[len("rule-"):])


def softmax(scores: np.ndarray, temperature: float) -> np.ndarray:
    """The teacher's temperature softmax over its scores (temperature 0 -> one-hot argmax)."""
    scores = np.asarray(scores, dtype=np.float64)
    if temperature <= 0.0:
        out = np.zeros_like(scores)
        out[int(np.argmax(scores))] = 1.0
        return out
    z = (scores - scores.max()) / temperature
    p = np.exp(z)
    return p / p.sum()


from .loop import (Decision, answer, build_play, decide, decisions, drive, listed_legal,  # noqa: E402,F401
                   play_deal)
