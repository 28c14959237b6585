"""A Gymnasium single-agent view of either game (docs/envs.md): one seat learns, the other
seats are fixed agents built from spec strings by the one agent factory and moved by the one
decision loop (`agents.loop.decide`).

    from openlandlord.envs.single_agent import SingleAgentEnv
    env = SingleAgentEnv("doudizhu", opponents=["rule", "rule"], seat=0, bidding="points")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)   # info["action_mask"]

Spaces, observations and actions are those of the PettingZoo environment of the game
(`aec.CardGameEnv`) for the learning seat. `opponents` lists one spec per other seat, in seat
order (Shengji seat 0: seats 1, 2 (the partner), 3). The reward is the seat's payoff when the
game ends, 0 before; an episode never truncates.

An action outside the mask raises `IllegalMove` (the default), or, with `illegal_reward` set, ends
the episode at once with that reward: for a policy that does not read the mask, and for
Gymnasium's `check_env`, which steps unmasked random actions.

Seeding follows the arena: `reset(seed=s)` plays deal `s`, and each opponent gets a seed of
its own from (s, its seat); an opponent with `scores_batch` (a network) is built once, since
it scores a position the same whatever it scored before. `seed` in the constructor is the seed
of the first `reset()` that is given none.
"""
from __future__ import annotations

import numpy as np

from ..agents import make
from ..agents.loop import decide
from ..errors import UserError
from .aec import RENDER_MODES, CardGameEnv, present  # first: without the `rl` extra it says so

import gymnasium  # noqa: E402


class SingleAgentEnv(gymnasium.Env):
    metadata = {"render_modes": list(RENDER_MODES)}

    def __init__(self, game: str, opponents=("rule", "rule"), seat: int = 0,
                 seed: int | None = None, render_mode: str | None = None,
                 illegal_reward: float | None = None, **options):
        self.aec = CardGameEnv(game, render_mode=None, **options)
        seats = self.aec.game.num_seats
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise UserError(f"seat must be one of 0..{seats - 1}, got {seat!r}")
        opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        if len(opponents) != seats - 1:
            raise UserError(f"{game} has {seats} seats: give {seats - 1} opponent specs (one per "
                            f"other seat, in seat order), got {len(opponents)}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise UserError(f"render_mode {render_mode!r}: choose one of {', '.join(RENDER_MODES)}")
        self.seat, self.render_mode, self.illegal_reward = seat, render_mode, illegal_reward
        self.agent = self.aec.possible_agents[seat]
        self.opponent_seats = [s for s in range(seats) if s != seat]
        self.opponent_specs = dict(zip(self.opponent_seats, opponents))
        # Built once: a bad spec fails here, and those that batch are shared by every episode.
        self._shared = {s: a for s, a in ((s, make(text, 0)) for s, text in self.opponent_specs.items())
                        if hasattr(a, "scores_batch")}
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self._first_seed = seed
        self._over = True

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed, self._first_seed = self._first_seed, None
        super().reset(seed=seed)
        deal = seed if seed is not None else int(self.np_random.integers(2 ** 31))
        self.aec.reset(seed=deal)
        self._opponents = {s: self._shared.get(s) or make(text, self._agent_seed(deal, s))
                           for s, text in self.opponent_specs.items()}
        self._over = False
        self._play_opponents()
        return self._observe(illegal=False)

    @staticmethod
    def _agent_seed(deal: int, seat: int) -> int:
        return int(np.random.SeedSequence([deal, seat]).generate_state(1)[0])

    def step(self, action):
        if self._over:
            raise UserError("the episode is over: call reset() first")
        if self.illegal_reward is not None and not self._legal(action):
            self._over = True
            obs, info = self._observe(illegal=True)
            return obs, float(self.illegal_reward), True, False, info
        self.aec.step(action)
        self._play_opponents()
        state = self.aec.state
        self._over = state.done
        reward = float(state.payoffs()[self.seat]) if state.done else 0.0
        obs, info = self._observe(illegal=False)
        return obs, reward, state.done, False, info

    def _legal(self, action) -> bool:
        try:
            return int(action) in self.aec.legal_actions()
        except (TypeError, ValueError):
            return False

    def _play_opponents(self) -> None:
        """Move every other seat until the learning seat is to move or the game is over."""
        state = self.aec.state
        while not state.done and state.current_seat != self.seat:
            opponent = self._opponents[state.current_seat]
            self.aec.play_move(decide(opponent, state, self.aec.game.legal_cap))
        if self.render_mode == "human":
            self.render()

    def _observe(self, illegal: bool):
        obs = self.aec.observe(self.agent)
        if illegal:
            obs["action_mask"][:] = 0
        info = {"action_mask": obs["action_mask"].copy()}
        if self.aec.state.done:
            info["payoffs"] = [float(p) for p in self.aec.state.payoffs()]
        if illegal:
            info["illegal_action"] = True
        return obs, info

    def render(self):
        return present(self.render_mode, lambda: self.aec.render_seat(self.seat))

    def close(self) -> None:
        pass
