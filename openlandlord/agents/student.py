"""`student:PATH[,backend=native|mlx][,endgame=K][,burial=cards|listed]`: the trained student as a player.

`burial=listed` or `cards`: a Shengji `classic` burial is one listed decision among the
game's burial candidates (`play_candidates`), as a lead too large to list is, or built card by
card. The default is the checkpoint's (its config.json's `burial`, written by `train` from
`--set burial=listed` or from the student it started from; else `cards`): a student trained
on burials recorded as one decision (`generate` with a `pimc:...,burial=listed` teacher).

`endgame=K` (K >= 1 cards) hands every play decision taken with K or fewer cards in the seat's
hand (not bids, declarations or a burial: a Shengji declaration comes with few cards dealt)
to a search, the teacher of the ship recipe of the position's game and ruleset (Shengji
`pimc:objective=points,worlds=64`, Dou Dizhu `pimc`: the teachers its data was scored by),
and a play too large to list there to that search's own build (`endgame_worlds=N`: the
search with N worlds; `endgame_solve=S`:
its worlds solved exactly once S or fewer cards are left in all hands, `pimc:solve=S`,
docs/solve.md): a player, no longer the student alone, that buys back part of
its teacher's edge where the search is cheap (docs/models.md, "The student with a search on
its last cards"). Such a player is built per game like the search (no `scores_batch`); the
student's weights are loaded once per process.

PATH is a checkpoint directory (weights.safetensors + config.json) or a training run
directory (its final checkpoint, else its `last` epoch checkpoint). The agent's scores are
the student's logits over the legal moves, computed through the one featurizer.

Two engines compute them from the same weights. `native` (the default wherever the
extension is built, openlandlord.model.native) runs each position on its own in C, any
number of legal moves in one pass. `mlx` is the training engine (and the fallback where the
extension is not built): it pads states to the featurizer's maximum length, legal lists to
a power-of-two bucket and batches to a fixed row count, and groups positions by bucket, so
the same position always meets the same shapes. Either way `scores_batch(items)` scores
many positions in one call (the eval arena batches concurrent games) and a position's
scores do not depend on what else is in the batch. The two engines agree to float32
rounding (tests/test_native_forward.py).
"""
from __future__ import annotations

import os

import numpy as np

from ..errors import NotAvailable, UserError
from . import ListedPlays, Routed, Spec, check_options

BACKENDS = ("native", "mlx")

# Rows of every forward pass: a batch is split into, and padded up to, chunks of this many
# (8 measured fastest here both for single positions and for batches of 64).
ROWS = 8
# Smallest legal-list bucket; buckets double from here.
MIN_SLOTS = 8


def resolve_checkpoint(path: str) -> str:
    """The checkpoint directory that PATH names (see the module docstring)."""
    if os.path.isfile(os.path.join(path, "config.json")):
        return path
    last = os.path.join(path, "last")
    if os.path.isfile(os.path.join(last, "config.json")):
        return last
    if not os.path.isdir(path):
        raise UserError(f"student checkpoint {path} does not exist")
    raise UserError(f"{path} is neither a student checkpoint (no config.json) nor a training run "
                    "with a finished epoch (no last/config.json)")


def _slots(count: int) -> int:
    slots = MIN_SLOTS
    while slots < count:
        slots *= 2
    return slots


class StudentAgent(ListedPlays):
    """The student at argmax or with its logits as scores (see the module docstring)."""

    def __init__(self, directory: str, backend: str | None = None, burial: str | None = None):
        from openlandlord import features
        from openlandlord.games import BURIALS
        from openlandlord.model import native

        if backend is None:
            backend = "native" if native.available() else "mlx"
        if backend not in BACKENDS:
            raise UserError(f"unknown student backend {backend!r}; choose one of {', '.join(BACKENDS)}")
        if burial is not None and burial not in BURIALS:
            raise UserError(f"unknown student burial {burial!r}; choose one of {', '.join(BURIALS)}")
        self.directory = resolve_checkpoint(directory)
        self.backend = backend
        if backend == "native":
            self.native = native.NativeStudent(self.directory)
            self.config, self.meta = self.native.config, self.native.meta
        else:
            from openlandlord.model import load_checkpoint
            self.model, self.config, self.meta = load_checkpoint(self.directory)
        self.game = self.meta.get("game", self.config.game)
        self.tokens = features.check_model(
            self.game, self.meta.get("feature_version"),
            {k: getattr(self.config, k) for k in ("state_feat_dim", "action_feat_dim", "num_roles",
                                                 "belief_slots")},
            f"student {self.directory}", "retrain it")
        # A Shengji `classic` burial: card by card or listed; by default as the checkpoint's
        # training data recorded it (meta `burial`, TrainConfig.burial).
        self.burial = burial or self.meta.get("burial", "cards")
        if self.burial not in BURIALS:
            raise UserError(f"student {self.directory}: unknown burial form {self.burial!r} in "
                            "its config.json")
        self.name = f"student:{directory}" + (f",burial={burial}" if burial else "")

    def scores(self, obs, legal) -> np.ndarray:
        return self.scores_batch([(obs, legal)])[0]

    def scores_batch(self, items) -> list[np.ndarray]:
        """Logits over each (obs, legal) pair's legal moves, as `scores` would give them."""
        from openlandlord import features

        samples = features.featurize_all(items, self.game, self.tokens, f"student {self.directory}")
        if self.backend == "native":
            if len(samples) == 1:
                return [self.native.forward(samples[0])["logits"].astype(np.float64)]
            return [out["logits"].astype(np.float64) for out in self.native.forward_batch(samples)]
        out: list[np.ndarray | None] = [None] * len(samples)
        groups: dict[int, list[int]] = {}
        for i, s in enumerate(samples):
            groups.setdefault(_slots(s["actions"].shape[0]), []).append(i)
        for slots, members in groups.items():
            for start in range(0, len(members), ROWS):
                chunk = members[start:start + ROWS]
                logits = self._forward([samples[i] for i in chunk], slots)
                for row, i in enumerate(chunk):
                    out[i] = logits[row, :samples[i]["actions"].shape[0]].astype(np.float64)
        return out

    def _forward(self, samples: list[dict], slots: int) -> np.ndarray:
        import mlx.core as mx
        from openlandlord import features

        padded = samples + [samples[0]] * (ROWS - len(samples))
        batch = features.collate(padded, slots)
        pad = self.tokens - batch["state_tokens"].shape[1]
        if pad:
            batch["state_tokens"] = np.pad(batch["state_tokens"], ((0, 0), (0, pad), (0, 0)))
            batch["state_mask"] = np.pad(batch["state_mask"], ((0, 0), (0, pad)))
        logits = self.model({k: mx.array(v) for k, v in batch.items()})["logits"]
        return np.array(logits)


_LOADED: dict = {}


class Endgame(Routed):
    """`student:DIR,endgame=K`: the student, its last K cards played by the game's endgame
    search (the module docstring)."""

    def __init__(self, agent: StudentAgent, cards: int, seed: int | None, worlds: int | None = None,
                 solve: int | None = None):
        super().__init__(agent, f"{agent.name},endgame={cards}"
                         + (f",endgame_worlds={worlds}" if worlds else "")
                         + (f",endgame_solve={solve}" if solve else ""))
        self.cards, self.seed, self.worlds, self.solve, self._search = cards, seed, worlds, solve, {}

    def route(self, obs, legal):
        from ..games import spec as game_spec
        from . import make, parse_spec

        game = game_spec(obs.game)
        if len(obs.hand) > self.cards or game.bidding_phase(obs):
            return None                    # bids, declarations and burial stay the student's
        key = (obs.game, getattr(obs, "rules", None))
        if key not in self._search:
            # the teacher of the recipe of this position's ruleset (Shengji `classic` has its own)
            recipe = game.ship_recipe_for({"rules": key[1]})
            search = recipe["teacher"]
            changed = {k: v for k, v in (("worlds", self.worlds), ("solve", self.solve)) if v}
            if changed:
                parsed = parse_spec(search)
                search = f"{parsed.name}:" + ",".join(f"{k}={v}" for k, v in
                                                      {**parsed.options, **changed}.items())
            self._search[key] = make(search, self.seed)
        return self._search[key]

    batched = False            # built per game, as the search is
    builds_plays = True        # the search's own build where it takes a large play


def make_student(spec: Spec, seed: int | None = None):
    from . import option, with_bids
    check_options(spec, {"path", "backend", "bid", "endgame", "endgame_worlds", "endgame_solve",
                         "burial"})
    path = spec.arg or spec.options.get("path")
    if not path:
        raise UserError(f"agent spec {spec.text!r} needs a checkpoint: student:PATH")
    backend = spec.options.get("backend")
    if backend is not None and backend not in BACKENDS:
        raise UserError(f"option backend={backend!r} of agent spec {spec.text!r} must be one of "
                        f"{', '.join(BACKENDS)}")
    if backend == "native":
        from openlandlord.model import native
        if not native.available():
            raise UserError(f"agent spec {spec.text!r}: the native forward pass is not built here; "
                            "build it with `python setup.py build_ext --inplace`, or use backend=mlx")
    burial = option(spec, "burial", None, str)
    burial = burial.strip().lower() if burial is not None else None
    cards = option(spec, "endgame", 0, int, low=0)
    worlds = option(spec, "endgame_worlds", None, int, low=1)
    solve = option(spec, "endgame_solve", None, int, low=1)
    for name, value in (("endgame_worlds", worlds), ("endgame_solve", solve)):
        if value is not None and not cards:
            raise UserError(f"agent spec {spec.text!r}: {name} needs endgame=K")
    if not cards:
        return with_bids(StudentAgent(path, backend, burial), spec, seed)
    key = (os.path.abspath(path), backend, burial)
    if key not in _LOADED:                 # deterministic and stateless: one per process serves every game
        _LOADED[key] = StudentAgent(path, backend, burial)
    return with_bids(Endgame(_LOADED[key], cards, seed, worlds, solve), spec, seed)


def describe(spec: Spec) -> dict:
    """`agents.describe` of a student spec: {"checkpoint", "weights_sha256", "backend"}, the
    backend as `StudentAgent` resolves it here (the spec's, else native where it is built)."""
    from openlandlord.model import native
    from openlandlord.model.checkpoint import WEIGHTS, file_sha256

    path = spec.arg or spec.options.get("path")
    if spec.name != "student" or not path:
        return {}
    directory = resolve_checkpoint(path)
    backend = spec.options.get("backend") or ("native" if native.available() else "mlx")
    return {"checkpoint": directory, "weights_sha256": file_sha256(os.path.join(directory, WEIGHTS)),
            "backend": backend}


def make_torch_student(spec: Spec, seed: int | None = None):
    raise NotAvailable("the torch student (`torch:PATH`) is provided by export/, not this version")
