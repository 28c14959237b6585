"""The training config: what decides a run besides the dataset, and how it is read.

`TrainConfig` holds the optimizer, batching and logging settings, and in `model` the
student's ModelConfig fields this run sets (architecture, ablation switches, loss weights;
any field the featurizer does not decide). Everything else of the student is the game's
preset at the featurizer's sizes (`ModelConfig.for_features`). A model field may also be
given at the top level of a config file or a `--set`, as configs have always written them
(`"belief_mode": "off"`, `--set belief_weight=0`); it is read into `model`.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path

from openlandlord.errors import UserError

CONFIG_DIR = Path(__file__).parent / "configs"
_KINDS = {"int": int, "float": float, "bool": bool, "str": str, "dict": dict}


def model_fields() -> dict:
    """{name: dataclass field} of the ModelConfig fields a training config may set."""
    from openlandlord.model.student import FEATURE_FIELDS, ModelConfig

    return {f.name: f for f in dataclasses.fields(ModelConfig) if f.name not in FEATURE_FIELDS}


@dataclasses.dataclass
class TrainConfig:
    """Everything that decides a training run besides the dataset."""
    epochs: int = 10
    batch_size: int = 256
    lr: float = 1e-3
    min_lr: float = 1e-5
    warmup_steps: int = 200
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    seed: int = 0
    shuffle: bool = True
    # mx.compile the training step; shapes then come from a small set of buckets (below),
    # since every new batch shape costs a compilation.
    compile: bool = False
    # Pad the legal-action axis up to a multiple of this (1 = the batch's own maximum).
    action_bucket: int = 1
    # Form batches of similar legal-list length within windows of this many batches
    # (0 or 1: plain random batches); see batches.epoch_batches.
    group_by_length: int = 16
    eval_batch_size: int = 512
    log_every: int = 50
    # The policy target: None takes the dataset's (softmax of the teacher's scores at the
    # generation temperature); a number re-derives it from the stored teacher scores at this
    # temperature (0: one-hot on the teacher's choice), without regenerating the data.
    target_temperature: float | None = None
    # Weight of the regret term (model.losses.student_loss): the teacher's score the
    # student's policy gives up, in teacher-temperature units; 0 = off (the plain loss).
    regret_weight: float = 0.0
    # Weight of the logit-centering term (model.losses.student_loss): each decision's mean
    # legal logit squared, which keeps the scores where float32 resolves them; 0 = off.
    logit_center_weight: float = 0.0
    # Fit the players' centred scores (model.student `score(centred=True)`: the same softmax,
    # without the part common to a decision's moves) instead of the plain sum; the val
    # metrics stay the plain sum's. For drifted lineages, whose plain sum float32 resolves
    # coarsely (docs/training.md, "The players' scores").
    centred_scores: bool = False
    # Train only on decisions taken with at most this many cards in the seat's hand (an
    # endgame fine-tune); 0 = every decision. The val split stays whole.
    max_hand: int = 0
    # ModelConfig fields set for this run (see the module docstring); None = the preset's.
    model: dict = dataclasses.field(default_factory=dict)
    # A student checkpoint folder whose weights start the run (fine-tuning; "" = fresh
    # weights): its model config must be this run's. A resumed run continues its own weights.
    init: str = ""
    # How the student's Shengji `classic` burial is asked at play (checkpoint meta `burial`,
    # the default of its `student:DIR,burial=` option): `cards` or `listed`, as its data
    # records the burial (a `pimc:...,burial=listed` teacher's: `listed`); "" = the start's
    # (`init`), else `cards`.
    burial: str = ""

    def __post_init__(self):
        if isinstance(self.max_hand, bool) or not isinstance(self.max_hand, int) or self.max_hand < 0:
            raise UserError(f"training config: max_hand must be a whole number >= 0, got {self.max_hand!r}")
        for name in ("epochs", "batch_size", "eval_batch_size", "log_every", "action_bucket"):
            if getattr(self, name) < 1:
                raise UserError(f"training config: {name} must be at least 1, got {getattr(self, name)}")
        if self.target_temperature is not None and not 0.0 <= self.target_temperature < math.inf:
            raise UserError(f"training config: target_temperature must be a finite number >= 0, "
                            f"got {self.target_temperature}")
        for name in ("lr", "min_lr", "weight_decay", "grad_clip", "warmup_steps", "group_by_length",
                     "regret_weight", "logit_center_weight"):
            # `not 0 <= v < inf` also refuses NaN, which JSON configs may spell `NaN`.
            if not 0 <= getattr(self, name) < math.inf:
                raise UserError(f"training config: {name} must not be negative, NaN or infinite, "
                                f"got {getattr(self, name)}")
        from openlandlord.games import BURIALS
        if self.burial not in ("",) + BURIALS:
            raise UserError(f"training config: burial must be one of {', '.join(BURIALS)}, "
                            f"got {self.burial!r}")
        allowed = model_fields()
        unknown = sorted(set(self.model) - set(allowed))
        if unknown:
            raise UserError(f"training config: unknown model field(s) {', '.join(unknown)}; "
                            f"allowed: {', '.join(allowed)}")
        model = {}
        for name, value in self.model.items():
            if value is None:
                continue                       # the preset's value
            if allowed[name].type in (int, "int") and (isinstance(value, bool) or not isinstance(value, int)
                                                       or value < 1):
                raise UserError(f"training config: model.{name} must be a positive integer, got {value!r}")
            model[name] = _check_type(f"model.{name}", value, allowed[name])
        self.model = model

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _check_type(name: str, value, field: dataclasses.Field):
    declared = (field.type if isinstance(field.type, str) else field.type.__name__).replace(" ", "")
    if value is None and "None" in declared:
        return value
    for label, cls in _KINDS.items():
        if declared.startswith(label):
            if cls is float and isinstance(value, int) and not isinstance(value, bool):
                return float(value)
            if cls is float and isinstance(value, float) and not math.isfinite(value):
                raise UserError(f"training config: {name} must be a finite number, got {value!r}")
            if cls is int and isinstance(value, bool) or not isinstance(value, cls):
                raise UserError(f"training config: {name} must be {label}, got {value!r}")
            return value
    return value


def _fold_model_fields(fields: dict) -> dict:
    """`fields` with its top-level ModelConfig fields moved into `model` (they win over
    the same names already there: they were given later)."""
    names = model_fields()
    model = fields.get("model", {})
    if not isinstance(model, dict):
        raise UserError(f"training config: model must be dict, got {model!r}")
    flat = {k: v for k, v in fields.items() if k in names}
    return {**{k: v for k, v in fields.items() if k not in names}, "model": {**model, **flat}}


def config_from_dict(fields: dict, where: str = "training config") -> TrainConfig:
    """A TrainConfig from a JSON object; unknown keys and wrong types are one clear error."""
    if not isinstance(fields, dict):
        raise UserError(f"{where} must be a JSON object")
    fields = _fold_model_fields(fields)
    known = {f.name: f for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise UserError(f"{where}: unknown key(s) {', '.join(unknown)}; known: "
                        f"{', '.join(sorted(known))} and the model fields {', '.join(model_fields())}")
    return TrainConfig(**{k: _check_type(k, v, known[k]) for k, v in fields.items()})


def load_config(path: str | None, overrides: list[str] | None = None,
                epochs: int | None = None) -> TrainConfig:
    """--config FILE (default: distill/configs/default.json; a bare name such as
    `ablation_belief_off` names a file there), then each --set key=value
    (value parsed as JSON when it parses, else taken as a string; `d_model=32` and
    `model.d_model=32` alike set a model field), then --epochs."""
    path = path or str(CONFIG_DIR / "default.json")
    if not os.path.exists(path) and (CONFIG_DIR / f"{path}.json").is_file():
        path = str(CONFIG_DIR / f"{path}.json")      # a shipped config by name
    try:
        with open(path) as f:
            fields = json.load(f)
    except OSError as exc:
        raise UserError(f"cannot read training config {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"training config {path} is not valid JSON: {exc}") from None
    if not isinstance(fields, dict):
        raise UserError(f"training config {path} must be a JSON object")
    fields.pop("description", None)
    fields = _fold_model_fields(fields)
    for item in overrides or []:
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise UserError(f"--set {item!r}: expected key=value")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        if key.startswith("model.") or key in model_fields():
            fields["model"][key.removeprefix("model.")] = value
        else:
            fields[key] = value
    if epochs is not None:
        fields["epochs"] = epochs
    return config_from_dict(fields, f"training config {path}")


def model_config(cfg: TrainConfig, game: str):
    """The student's ModelConfig: the game's preset at the featurizer's sizes, with the
    fields `cfg.model` sets."""
    from openlandlord.model import ModelConfig

    return ModelConfig.for_features(game, **cfg.model)
