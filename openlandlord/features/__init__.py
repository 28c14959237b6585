"""Observation -> arrays: the ONLY featurizer. Training, evaluation, export and the
benchmarks all call these functions, so a feature can never drift between them.

One decision is featurized into unpadded arrays (`featurize`); a list of them is padded into
model inputs with masks (`collate`). The model's input names and shapes:

    state_tokens float32 [B, T, Fs]   state_mask float32 [B, T]   (1 = real token)
    actions      float32 [B, A, Fa]   action_mask float32 [B, A]  (1 = real legal action)
    role         int32   [B]
    unseen       int32   [B, R]       capacity int32 [B, H]       void float32 [B, H, R]
    belief_mask  float32 [B]          1 when the unseen cards are exactly the H hidden hands
                                      (0 e.g. in Dou Dizhu bidding, while the kitty is hidden:
                                      no belief target is consistent then, so none is trained)

Each game's featurizer lives with the game (`games/doudizhu/features.py`,
`games/shengji/features.py`, reached through the game spec's `features()`) and defines
FEATURE_VERSION, the dimensions (`DIMS`), `featurize(obs, legal)`, `belief_target(obs, hands)`
and `value_score(obs, score, result)`, the value head's raw target of a recorded decision
(scaled by the spec's `value_scale` in `value_target`). This module is the one entry point.

Each game's `featurize` is native (Cython, `games/<game>/_features.pyx`, a few microseconds a
decision); its `featurize_python` stays the definition and the oracle: the two give the same
arrays, bit for bit (tests/test_native_features.py), and `python -m openlandlord.features.bench
--game GAME` (`bench.bench`) times both on a seeded random-game corpus.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..games import spec


_MODULES: dict = {}


def for_game(game: str):
    """The featurizer module of a game (looked up once per game: the spec's `features()` runs
    an import statement, which would cost a native featurize call a third again)."""
    found = _MODULES.get(game)
    if found is None:
        found = _MODULES[game] = spec(game).features()
    return found


def dims(game: str) -> dict:
    """Feature dimensions and version of a game: state_feat_dim, action_feat_dim, num_roles,
    belief_slots, belief_holders, belief_max_count, max_tokens, feature_version."""
    return dict(for_game(game).DIMS)


def featurize(obs, legal) -> dict:
    """One decision as unpadded arrays (see the module docstring)."""
    return for_game(obs.game).featurize(obs, legal)


def check_model(game: str, feature_version, sizes: dict, what: str, fix: str) -> int:
    """Refuse a model (`what`: "student DIR", "FILE.onnx") made for other features than this
    featurizer gives: another feature version or input sizes; `fix` says what to do. Returns
    the featurizer's maximum state length."""
    found = dims(game)
    if str(found["feature_version"]) != str(feature_version):
        raise UserError(f"{what} was made for {game} feature version {feature_version}, this "
                        f"openlandlord featurizes version {found['feature_version']}: {fix}")
    for key in ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots"):
        if key in sizes and found[key] != sizes[key]:
            raise UserError(f"{what} has {key} {sizes[key]}, the {game} featurizer gives "
                            f"{found[key]}: {fix}")
    return int(found["max_tokens"])


def featurize_all(items, game: str, max_tokens: int, what: str) -> list[dict]:
    """`featurize` of each (obs, legal) pair a model of `game` is asked to score, refusing
    another game's positions, empty legal lists and states longer than `max_tokens`."""
    samples = []
    for obs, legal in items:
        if obs.game != game:
            raise UserError(f"{what} plays {game}, not {obs.game}")
        if not legal:
            raise UserError(f"{what} cannot score an empty legal move list")
        sample = featurize(obs, legal)
        if sample["state_tokens"].shape[0] > max_tokens:
            raise UserError(f"a state of {sample['state_tokens'].shape[0]} tokens is longer than "
                            f"the featurizer's maximum {max_tokens}")
        samples.append(sample)
    return samples


def belief_target(obs, hands) -> np.ndarray:
    """The true hidden count per (slot, holder), int32 [R, H], from the true hands."""
    return for_game(obs.game).belief_target(obs, hands)


def value_score(obs, score: float, result: dict) -> float:
    """The value head's raw target of a recorded decision: from the acting seat's signed
    `score` and the referee's `result()` of the deal (Dou Dizhu: the score; Shengji: the
    seat's team points margin). The one definition that training and the dataset share."""
    return float(for_game(obs.game).value_score(obs, score, result))


def value_scale(game: str) -> float:
    """The scale `value_target` divides a game's `value_score` by (its spec's value_scale)."""
    return spec(game).value_scale


def value_target(score: float, scale: float = 24.0, kind: str = "score") -> float:
    """The value head's target: clip(score / scale, -1, 1), or the sign for win/loss."""
    if kind == "winloss":
        return float(np.sign(score))
    return float(np.clip(score / scale, -1.0, 1.0))


def collate(samples: list[dict], action_slots: int | None = None) -> dict:
    """Pad a list of `featurize` outputs into one batch. Actions are padded to the batch's own
    maximum legal count, or to `action_slots` when given (which must fit every sample: nothing
    is truncated silently)."""
    if not samples:
        raise ValueError("collate needs at least one sample")
    b = len(samples)
    t = max(s["state_tokens"].shape[0] for s in samples)
    a = max(s["actions"].shape[0] for s in samples)
    if action_slots is not None:
        if a > action_slots:
            raise ValueError(f"a sample has {a} legal actions, more than action_slots={action_slots}")
        a = action_slots
    fs = samples[0]["state_tokens"].shape[1]
    fa = samples[0]["actions"].shape[1]
    r = samples[0]["unseen"].shape[0]
    h = samples[0]["capacity"].shape[0]
    out = {
        "state_tokens": np.zeros((b, t, fs), np.float32),
        "state_mask": np.zeros((b, t), np.float32),
        "actions": np.zeros((b, a, fa), np.float32),
        "action_mask": np.zeros((b, a), np.float32),
        "role": np.zeros((b,), np.int32),
        "unseen": np.zeros((b, r), np.int32),
        "capacity": np.zeros((b, h), np.int32),
        "void": np.zeros((b, h, r), np.float32),
        "belief_mask": np.zeros((b,), np.float32),
    }
    for i, s in enumerate(samples):
        nt, na = s["state_tokens"].shape[0], s["actions"].shape[0]
        out["state_tokens"][i, :nt] = s["state_tokens"]
        out["state_mask"][i, :nt] = 1.0
        out["actions"][i, :na] = s["actions"]
        out["action_mask"][i, :na] = 1.0
        out["role"][i] = s["role"]
        out["unseen"][i] = s["unseen"]
        out["capacity"][i] = s["capacity"]
        out["void"][i] = s["void"]
        out["belief_mask"][i] = float(s["unseen"].sum() == s["capacity"].sum())
    return out
