"""The PettingZoo AEC environment of any game (docs/envs.md): one class, `CardGameEnv`,
parameterised by the game's spec and its action codec (`openlandlord.envs.actions`).
`doudizhu_v0` and `shengji_v0` are thin over it; `single_agent.SingleAgentEnv` drives it.

One agent step is one action of the game's fixed action space. A Dou Dizhu move and a Shengji
declaration are one action each; a Shengji play or burial is built card by card through the
referee's factored options (the codec's `Step`), the seat to move keeping the turn until its
move is complete, so every legal play is reachable with a mask of fixed size.

What an agent observes (`observe(agent)`, a dict):
- "observation": float32 [max_tokens, state_feat_dim], the one featurizer's state tokens of
  the agent's own observation, zero padded (rows past "n_tokens" are padding);
- "action_mask": int8 [num_actions], 1 for the legal actions; all zero for a seat that is not
  to move and once the game is over;
- "n_tokens", "role": the featurizer's token count and role index (np.int64);
- the codec's extras (Shengji: "prefix", the mover's play built so far, counts per card id,
  zero for the other seats; "slot_order", the card id of each canonical slot of the tokens).

Rewards are the state's payoffs, given when the game ends (zero before); every agent then
terminates at once. An action outside the mask raises `IllegalMove` and changes nothing.
"""
from __future__ import annotations

import operator

import numpy as np

from ..errors import IllegalMove, NotAvailable, UserError

try:
    from gymnasium import logger, spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ModuleNotFoundError as exc:
    raise NotAvailable(f"the PettingZoo and Gymnasium environments need {exc.name!r}: "
                       "pip install 'openlandlord[rl]'") from None
from ..games import spec
from .actions import actions_of

RENDER_MODES = ("ansi", "human")


class CardGameEnv(AECEnv):
    """A whole game of `game` (its spec's `new_game`, so Shengji `mode=match` is a whole match)
    as a PettingZoo AEC environment; `options` are the game's options."""

    metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(self, game: str, render_mode: str | None = None, **options):
        super().__init__()
        self.game = spec(game)
        self.codec = actions_of(game)
        self.options = self.game.check_options(options)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise UserError(f"render_mode {render_mode!r}: choose one of {', '.join(RENDER_MODES)}")
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"{game}_v0")
        self.game.new_game(0, **self.options)       # a combination new_game refuses fails here
        self._featurizer = self.game.features()
        dims = self._featurizer.DIMS
        self._max_tokens, self._feat = dims["max_tokens"], dims["state_feat_dim"]
        self.possible_agents = [f"player_{seat}" for seat in range(self.game.num_seats)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {a: self._observation_space(dims) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.codec.n) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self.state = None
        self.deal_seed: int | None = None       # the seed of the game in progress

    def _observation_space(self, dims: dict) -> spaces.Dict:
        entries = {
            "observation": spaces.Box(-np.inf, np.inf, (self._max_tokens, self._feat), np.float32),
            "action_mask": spaces.Box(0, 1, (self.codec.n,), np.int8),
            "n_tokens": spaces.Discrete(self._max_tokens + 1),
            "role": spaces.Discrete(dims["num_roles"]),
        }
        for name, (length, high) in self.codec.extras.items():
            entries[name] = spaces.Box(0, high, (length,), np.uint8)
        return spaces.Dict(entries)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- the episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game. With `seed`, the deal `new_game(seed)` makes (the same seed, the same deal
        and the same observations); without one, the next seed from the generator of the last
        seed given (from fresh entropy before any). `options` is not used: game options are the
        constructor's."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            deal = operator.index(seed)
        else:
            if self._rng is None:
                self._rng = np.random.default_rng()
            deal = int(self._rng.integers(2 ** 31))
        self.state = self.game.new_game(deal, **self.options)
        self.deal_seed = deal
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._prefix: tuple = ()
        self._refresh()
        self.agent_selection = self.possible_agents[self.state.current_seat]

    def _refresh(self) -> None:
        """After every change of the state: the mover's decision, and no cached observation."""
        self._observed: dict[int, dict] = {}
        self._seen: dict[int, object] = {}
        self._step = None
        if not self.state.done:
            seat = self.state.current_seat
            self._step = self.codec.step(self.state, self._observation(seat), self._prefix)

    def _observation(self, seat: int):
        if seat not in self._seen:
            self._seen[seat] = self.state.observation(seat)
        return self._seen[seat]

    def observe(self, agent):
        seat = self._seat_of[agent]
        if seat not in self._observed:
            self._observed[seat] = self._features(seat)
        return {k: v.copy() for k, v in self._observed[seat].items()}

    def _features(self, seat: int) -> dict:
        obs = self._observation(seat)
        moving = self._step is not None and seat == self.state.current_seat
        # The state tokens describe the observation; a seat not to move has no legal list of
        # its own, so it is featurized with the codec's stand-in.
        legal = list(self._step.options.values()) if moving else self.codec.stand_in(obs)
        f = self._featurizer.featurize(obs, legal)
        n = f["state_tokens"].shape[0]
        tokens = np.zeros((self._max_tokens, self._feat), np.float32)
        tokens[:n] = f["state_tokens"]
        out = {"observation": tokens,
               "action_mask": (self._step.mask(self.codec.n) if moving
                               else np.zeros(self.codec.n, np.int8)),
               "n_tokens": np.int64(n), "role": np.int64(f["role"])}
        out.update(self.codec.extra_values(obs, self._prefix if moving else ()))
        return out

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move ([] once the game is over)."""
        return [] if self._step is None else list(self._step.options)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            index = operator.index(action)
        except TypeError:
            raise IllegalMove(f"action {action!r} is not an integer action") from None
        if index not in self._step.options:
            raise IllegalMove(self._illegal(agent, index))
        candidate = self._step.options[index]
        if self.codec.completes(self.state, self._step, index):
            self._prefix = ()
            self.state.play(candidate)
        else:
            self._prefix = candidate
        self._moved(agent)

    def _illegal(self, agent: str, index: int) -> str:
        if not 0 <= index < self.codec.n:
            what = f"outside the action space 0..{self.codec.n - 1}"
        else:
            what = "not legal now"
        legal = sorted(self._step.options)
        shown = ", ".join(map(str, legal[:12])) + (", ..." if len(legal) > 12 else "")
        return (f"action {index} of {agent} is {what}; its legal actions ({len(legal)}): {shown} "
                "(choose among observation['action_mask'])")

    def play_move(self, move) -> None:
        """Play a whole move (as the referee takes it) for the agent to move, which must not be
        building one card by card: how `SingleAgentEnv` plays its opponents' moves."""
        if self._prefix:
            raise IllegalMove("a move is half built: finish it with step()")
        self.state.play(move)
        self._moved(self.agent_selection)

    def _moved(self, agent: str) -> None:
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._refresh()
        if self.state.done:
            self.rewards = {a: float(p) for a, p in zip(self.agents, self.state.payoffs())}
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[(self._seat_of[agent] + 1) % len(self.agents)]
        else:
            self.agent_selection = self.possible_agents[self.state.current_seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- people -----------------------------------------------------------------------------------
    def render_seat(self, seat: int) -> str:
        """The game as `seat` sees it (the spec's `render`), with the play it is building."""
        text = self.game.render(self._observation(seat))
        if self._prefix and seat == self.state.current_seat:
            text += f"\nplay so far: {self.game.move_text(self._prefix)}"
        return text

    def render(self):
        """The view of the agent to move: returned as text ("ansi") or printed ("human")."""
        return present(self.render_mode,
                       lambda: self.render_seat(self._seat_of[self.agent_selection]))

    def close(self) -> None:
        pass


def present(render_mode, text_of):
    """What render() does with a seat's view (`text_of()`) in a render mode: returns it
    ("ansi"), prints it ("human"), or warns that no mode was chosen."""
    if render_mode is None:
        logger.warn("render() without a render_mode: make the environment with "
                    "render_mode='ansi' or 'human'")
        return None
    text = text_of()
    if render_mode == "ansi":
        return text
    print(text)
    return None


def wrapped(env: CardGameEnv):
    """A raw environment with PettingZoo's usual checks: OrderEnforcing (no step, observe or
    render before reset). TerminateIllegal is left out: an illegal action raises here instead
    (and the mask says which are legal)."""
    return wrappers.OrderEnforcingWrapper(env)
