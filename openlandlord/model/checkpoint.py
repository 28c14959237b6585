"""Student checkpoints: a directory with weights.safetensors and config.json.

config.json holds the architecture name, the full ModelConfig, game, feature version,
parameter count, provenance (git SHA, version, time) and whatever the trainer adds
(dataset manifest hash, seeds). The torch mirror reads the same two files.
"""
import json
import os

import mlx.core as mx
from mlx.utils import tree_flatten

from ..errors import UserError
from ..provenance import stamp
from .student import ARCHITECTURE, LandlordFormerLite, ModelConfig, num_parameters

WEIGHTS = "weights.safetensors"
CONFIG = "config.json"


def save_checkpoint(directory: str, model: LandlordFormerLite, config: ModelConfig, extra: dict | None = None) -> str:
    meta = {"architecture": ARCHITECTURE, "game": config.game,
            "feature_version": config.feature_version,
            "num_parameters": num_parameters(model), **stamp()}
    meta.pop("seeds")
    clash = sorted(set(extra or {}) & (set(meta) | {"config"}))
    if clash:
        raise UserError(f"checkpoint extra keys clash with reserved ones: {', '.join(clash)}")
    meta.update(extra or {})
    meta["config"] = config.to_dict()
    os.makedirs(directory, exist_ok=True)
    model.save_weights(os.path.join(directory, WEIGHTS))
    with open(os.path.join(directory, CONFIG), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
    return directory


def read_meta(directory: str) -> dict:
    """config.json of a checkpoint, checked to describe this architecture."""
    path = os.path.join(directory, CONFIG)
    if not os.path.isdir(directory):
        raise UserError(f"checkpoint directory {directory} does not exist")
    if not os.path.isfile(path):
        raise UserError(f"checkpoint {directory} has no {CONFIG}")
    try:
        with open(path) as f:
            meta = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{path} is not valid JSON: {e}") from None
    if meta.get("architecture") != ARCHITECTURE:
        raise UserError(f"{path} describes architecture {meta.get('architecture')!r}, not {ARCHITECTURE!r}")
    if not isinstance(meta.get("config"), dict):
        raise UserError(f"{path} has no model config")
    if not os.path.isfile(os.path.join(directory, WEIGHTS)):
        raise UserError(f"checkpoint {directory} has no {WEIGHTS}")
    return meta


def check_weights(expected: dict, found: dict, where: str):
    """Raise UserError naming the first differences between two {name: shape} maps."""
    missing = sorted(set(expected) - set(found))
    unexpected = sorted(set(found) - set(expected))
    wrong = sorted(k for k in set(expected) & set(found) if tuple(expected[k]) != tuple(found[k]))
    problems = []
    if missing:
        problems.append(f"missing {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else ""))
    if unexpected:
        problems.append(f"unexpected {', '.join(unexpected[:5])}" + (" ..." if len(unexpected) > 5 else ""))
    for k in wrong[:5]:
        problems.append(f"{k} has shape {tuple(found[k])}, config expects {tuple(expected[k])}")
    if problems:
        raise UserError(f"{where} does not match its config.json: " + "; ".join(problems))


def load_checkpoint(directory: str):
    """-> (model, config, meta), parameters evaluated and ready for inference or export."""
    meta = read_meta(directory)
    config = ModelConfig.from_dict(meta["config"])
    model = LandlordFormerLite(config)
    path = os.path.join(directory, WEIGHTS)
    try:
        weights = mx.load(path)
    except (RuntimeError, ValueError, OSError) as e:
        raise UserError(f"cannot read {path}: {e}") from None
    check_weights({k: v.shape for k, v in tree_flatten(model.parameters())},
                  {k: v.shape for k, v in weights.items()}, path)
    model.load_weights(list(weights.items()))
    mx.eval(model.parameters())
    model.eval()
    return model, config, meta
