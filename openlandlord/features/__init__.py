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

Each game's module (`features.doudizhu`, `features.shengji`) defines FEATURE_VERSION, the
dimensions (`DIMS`), `featurize(obs, legal)`, `belief_target(obs, hands)` and
`value_score(obs, score, result)`, the value head's raw target of a recorded decision (scaled
by `value_scale(game)` in `value_target`).
"""
from __future__ import annotations

import importlib

import numpy as np

from ..errors import UserError

_MODULES = {"doudizhu": "openlandlord.features.doudizhu", "shengji": "openlandlord.features.shengji"}

# What `value_score` is divided by before clipping to [-1, 1]. Dou Dizhu: the signed payoff,
# at the scale it has always had. Shengji: the team's points margin around the 80-point
# threshold. The declarers' best round (the attackers take nothing: three levels up) is
# +80, so 80 gives it exactly +1; the margin clips only where the attackers take 160 or
# more (two levels up or beyond), 1.5% of 200 rule-teacher deals. 120 would waste range:
# in those deals the median |margin| was 25 and 78% were within 40 of the threshold.
_VALUE_SCALES = {"doudizhu": 24.0, "shengji": 80.0}


def for_game(game: str):
    """The featurizer module of a game."""
    if game not in _MODULES:
        raise UserError(f"no featurizer for game {game!r}; choose one of {', '.join(_MODULES)}")
    try:
        return importlib.import_module(_MODULES[game])
    except ModuleNotFoundError as exc:
        if exc.name == _MODULES[game]:
            raise UserError(f"the {game} featurizer is not implemented in this version") from None
        raise


def dims(game: str) -> dict:
    """Feature dimensions and version of a game: state_feat_dim, action_feat_dim, num_roles,
    belief_slots, belief_holders, belief_max_count, max_tokens, feature_version."""
    return dict(for_game(game).DIMS)


def featurize(obs, legal) -> dict:
    """One decision as unpadded arrays (see the module docstring)."""
    return for_game(obs.game).featurize(obs, legal)


def belief_target(obs, hands) -> np.ndarray:
    """The true hidden count per (slot, holder), int32 [R, H], from the true hands."""
    return for_game(obs.game).belief_target(obs, hands)


def value_score(obs, score: float, result: dict) -> float:
    """The value head's raw target of a recorded decision: from the acting seat's signed
    `score` and the referee's `result()` of the deal (Dou Dizhu: the score; Shengji: the
    seat's team points margin). The one definition that training and the dataset share."""
    return float(for_game(obs.game).value_score(obs, score, result))


def value_scale(game: str) -> float:
    """The scale `value_target` divides a game's `value_score` by (the student presets'
    value_scale)."""
    if game not in _VALUE_SCALES:
        raise UserError(f"no value scale for game {game!r}; choose one of {', '.join(_VALUE_SCALES)}")
    return _VALUE_SCALES[game]


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
