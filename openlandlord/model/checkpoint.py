"""Student checkpoints: a directory with weights.safetensors and config.json.

config.json holds the architecture name, the full ModelConfig, game, feature version,
parameter count, provenance (git SHA, version, time) and whatever the trainer adds
(dataset manifest hash, seeds), and `weights_sha256`, the SHA-256 of weights.safetensors.
The torch mirror reads the same two files.

Integrity: `read_meta`, which every reader goes through (`load_checkpoint`, the torch
mirror), checks config.json (a JSON object, this architecture, a well-typed ModelConfig)
and, where config.json records `weights_sha256`, that the weights file still has it: a
flipped bit is a UserError, never a silently different model. A checkpoint saved before
the key existed has nothing to check against and loads as before. `save_checkpoint`
writes both files under temporary names, fsyncs them and renames the weights into place
first and config.json last, so an interrupted save never leaves a pair that loads.
"""
import hashlib
import json
import os

import mlx.core as mx
from mlx.utils import tree_flatten

from ..artefacts import crash_before_rename
from ..errors import UserError
from ..provenance import stamp
from .student import ARCHITECTURE, LandlordFormerLite, ModelConfig, num_parameters

WEIGHTS = "weights.safetensors"
CONFIG = "config.json"


def save_checkpoint(directory: str, model: LandlordFormerLite, config: ModelConfig, extra: dict | None = None,
                    git_sha: str | None = None) -> str:
    """Save `model` with its config.json. `git_sha`: the code that made the weights, where that
    is not the tree at the time of saving (a training run records the SHA it started at:
    an edit made while it trains is not its code)."""
    meta = {"architecture": ARCHITECTURE, "game": config.game,
            "feature_version": config.feature_version,
            "num_parameters": num_parameters(model), **stamp()}
    meta.pop("seeds")
    if git_sha is not None:
        meta["git_sha"] = git_sha
    clash = sorted(set(extra or {}) & (set(meta) | {"config"}))
    if clash:
        raise UserError(f"checkpoint extra keys clash with reserved ones: {', '.join(clash)}")
    meta.update(extra or {})
    meta["config"] = config.to_dict()
    os.makedirs(directory, exist_ok=True)
    weights, config_path = os.path.join(directory, WEIGHTS), os.path.join(directory, CONFIG)
    # mlx picks the format from the extension, so the temporary name keeps it.
    tmp_weights = os.path.join(directory, f".{WEIGHTS}.tmp-{os.getpid()}.safetensors")
    tmp_config = os.path.join(directory, f".{CONFIG}.tmp-{os.getpid()}")
    model.save_weights(tmp_weights)
    meta["weights_sha256"] = file_sha256(tmp_weights)
    with open(tmp_weights, "rb") as f:
        os.fsync(f.fileno())
    with open(tmp_config, "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    crash_before_rename(weights)
    os.replace(tmp_weights, weights)
    crash_before_rename(config_path)
    os.replace(tmp_config, config_path)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return directory


def copy_checkpoint(source, destination) -> None:
    """Copy the student checkpoint in `source` to the folder `destination` (replaced if there),
    swapped into place whole (artefacts.staged_folder): a reader sees the old copy or the new."""
    import shutil
    from pathlib import Path

    from ..artefacts import staged_folder
    with staged_folder(Path(destination), force=True) as tmp:
        tmp.mkdir()
        for name in (WEIGHTS, CONFIG):
            shutil.copy2(Path(source) / name, tmp / name)


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_meta(directory: str) -> dict:
    """config.json of a checkpoint, checked to describe this architecture with a valid
    ModelConfig, and its weights file checked against the recorded `weights_sha256`."""
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
    if not isinstance(meta, dict):
        raise UserError(f"{path} holds a JSON {type(meta).__name__}, not a checkpoint config object")
    if meta.get("architecture") != ARCHITECTURE:
        raise UserError(f"{path} describes architecture {meta.get('architecture')!r}, not {ARCHITECTURE!r}")
    if not isinstance(meta.get("config"), dict):
        raise UserError(f"{path} has no model config (its \"config\" field must be an object)")
    weights = os.path.join(directory, WEIGHTS)
    if not os.path.isfile(weights):
        raise UserError(f"checkpoint {directory} has no {WEIGHTS}")
    try:
        ModelConfig.from_dict(meta["config"])
    except UserError as e:
        raise UserError(f"{path}: {e}") from None
    expected = meta.get("weights_sha256")
    if expected is not None:
        if not isinstance(expected, str):
            raise UserError(f"{path} field weights_sha256 must be a hex string, got {expected!r}")
        if file_sha256(weights) != expected.lower():
            raise UserError(f"cannot read {weights}: its SHA-256 differs from the weights_sha256 in "
                            f"{path}, so the file is damaged or was replaced; restore the checkpoint "
                            "from where it came from (or retrain / re-ship it)")
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
