"""`VecEnv("shengji", ..., rules="classic")`: the batched contract of `openlandlord.envs` over the
Python `classic` rounds (`classic_round.ClassicRound`), stepped one game at a time.

This is Python per game and per step (the native environment, `_shengji_vec`, plays `tractor`
only): the same API, actions and observations, some hundred times slower. Its phases map onto
the Shengji action space (`ShengjiActions`): while the cards are dealt, a seat that may declare
chooses a card (declare it alone), DECLARE_PAIR (its pair) or DECLARE_PASS; the dealer buries
its 8 kitty cards card by card (card actions); a play is built card by card from the referee's
factored options, END closing a lead (a unit or a throw) that could still grow. The deals are
`spec("shengji").new_game(deal_seed(seed, i, k), rules="classic", **deal_options(...))`, the
deals of the native environment for the same seed.
"""
from __future__ import annotations

import numpy as np

from ..errors import IllegalMove, UserError
from ._shengji_vec import check_actions, deal_options, deal_seed, deal_settings
from .actions import ShengjiActions

NUM_ACTIONS, NUM_SEATS = ShengjiActions.n, 4


class ClassicVecEnv:
    """`num_envs` `classic` rounds behind the VecEnv contract (see the module docstring)."""

    def __init__(self, num_envs: int, seed: int, features: str, options: dict):
        from ..games import spec
        self._spec, self._codec = spec("shengji"), ShengjiActions()
        self.num_envs, self.seed, self.features = num_envs, seed, features
        self.num_actions, self.num_seats = NUM_ACTIONS, NUM_SEATS
        self._settings = deal_settings(options)
        self._rng = np.random.default_rng([seed, 0xC1A551C])
        self._mask = np.zeros((num_envs, NUM_ACTIONS), np.uint8)
        self._seat = np.zeros(num_envs, np.int32)
        self._prefix = np.zeros((num_envs, 54), np.uint8)
        self._rewards = np.zeros((num_envs, NUM_SEATS), np.float32)
        self._dones = np.zeros(num_envs, bool)
        self._points = np.zeros(num_envs, np.int32)
        self._obs = {"mask": self._mask, "seat": self._seat, "prefix": self._prefix}
        if features == "full":
            from ..games.shengji import features as F
            self._features = F
            self._obs.update(state_tokens=np.zeros((num_envs, F.MAX_TOKENS, F.FS), np.float32),
                             n_tokens=np.zeros(num_envs, np.int32),
                             role=np.zeros(num_envs, np.int32),
                             slot_order=np.zeros((num_envs, 54), np.uint8))
        self._rounds: list = []
        self._prefixes: list = []
        self._episodes: list = []
        self._declarations: list = []

    def deal_seed(self, index: int, episode: int) -> int:
        return deal_seed(self.seed, index, episode)

    def deal_options(self, index: int, episode: int) -> dict:
        return dict(deal_options(*self._settings, index, episode), rules="classic")

    def episode(self, index: int) -> int:
        return self._episodes[index]

    def _new_deal(self, i: int, episode: int):
        return self._spec.new_game(self.deal_seed(i, episode), **self.deal_options(i, episode))

    def reset(self):
        self._rounds = [self._new_deal(i, 0) for i in range(self.num_envs)]
        self._prefixes = [() for _ in range(self.num_envs)]
        self._episodes = [0] * self.num_envs
        self._declarations = [[] for _ in range(self.num_envs)]
        for i in range(self.num_envs):
            self._write_row(i)
        self._rewards[:] = 0
        self._dones[:] = False
        return self._obs

    def _write_row(self, i: int) -> None:
        r, prefix, codec = self._rounds[i], self._prefixes[i], self._codec
        row = self._mask[i]
        row[:] = 0
        if r.phase == "declare":
            legal = self._declarations[i] = r.legal_moves()
            row[[codec.declaration_index(tuple(m)) for m in legal]] = 1
        else:
            row[[codec.option_index(o) for o in r.factored_options(prefix)]] = 1
        self._seat[i] = r.current_seat
        self._prefix[i] = 0
        for card in prefix:
            self._prefix[i, codec.card_ids[card]] += 1
        if self.features == "full":
            seen = r.observation(r.current_seat)
            arrays = self._features.featurize(seen, [])
            self._obs["state_tokens"][i] = arrays["state_tokens"]
            self._obs["n_tokens"][i] = arrays["state_tokens"].shape[0]
            self._obs["role"][i] = arrays["role"]
            self._obs["slot_order"][i] = self._features.slot_order(seen)

    def step(self, actions):
        if not self._rounds:
            raise UserError("call reset() before step()")
        acts = check_actions(actions, self.num_envs)
        for i, a in enumerate(acts):
            if not 0 <= a < NUM_ACTIONS or not self._mask[i, a]:
                legal = np.flatnonzero(self._mask[i]).tolist()
                raise IllegalMove(f"env {i}: action {a} is not legal; seat {self._seat[i]} may "
                                  f"choose actions {legal} (nothing was stepped)")
        self._rewards[:] = 0
        self._dones[:] = False
        self._points[:] = 0
        codec = self._codec
        for i, a in enumerate(acts.tolist()):
            r = self._rounds[i]
            if r.phase == "declare":
                r.play(codec.declaration(a, self._declarations[i]))
            elif a == codec.END:
                r.play(self._prefixes[i])
                self._prefixes[i] = ()
            else:
                prefix = self._prefixes[i] + (codec.option(a),)
                if r.factored_options(prefix):
                    self._prefixes[i] = prefix
                else:
                    r.play(prefix)
                    self._prefixes[i] = ()
            if r.done:
                self._rewards[i] = r.payoffs()
                self._points[i] = r.result()["attacker_points"]
                self._dones[i] = True
                self._episodes[i] += 1
                self._rounds[i] = self._new_deal(i, self._episodes[i])
            self._write_row(i)
        return self._obs, self._rewards, self._dones, {"attacker_points": self._points}

    def sample_actions(self) -> np.ndarray:
        out = np.zeros(self.num_envs, np.int64)
        for i in range(self.num_envs):
            legal = np.flatnonzero(self._mask[i])
            out[i] = legal[self._rng.integers(len(legal))]
        return out

    def legal_actions(self, i: int) -> list[int]:
        if not 0 <= i < self.num_envs:
            raise UserError(f"env {i} is not one of 0..{self.num_envs - 1}")
        return np.flatnonzero(self._mask[i]).tolist()

