"""A run's checkpoints on disk: every epoch's student checkpoint plus the trainer's state
(optimizer moments, step, epoch) written atomically and pointed to by `last`, reading them
back for --resume, and the lock that keeps one trainer per run directory."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from openlandlord.errors import UserError

from .config import TrainConfig, config_from_dict, model_config
from .trainer import Trainer

TRAINER_STATE = "trainer.json"
OPTIMIZER = "optimizer.safetensors"


def _write_json(path: Path, obj) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())


def save_epoch(out: Path, trainer: Trainer, state: dict, extra: dict) -> Path:
    """Write the epoch's checkpoint under a temporary name, then rename it into place and
    repoint `last`, so an interrupted write never leaves a half checkpoint behind."""
    import mlx.core as mx
    from mlx.utils import tree_flatten
    from openlandlord.model import save_checkpoint

    name = f"epoch-{state['epoch']:04d}"
    tmp = out / f".{name}.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    save_checkpoint(str(tmp), trainer.model, trainer.mcfg, extra)
    mx.save_safetensors(str(tmp / OPTIMIZER), dict(tree_flatten(trainer.optimizer.state)))
    _write_json(tmp / TRAINER_STATE, state)
    final = out / name
    if final.exists():
        shutil.rmtree(final)
    os.rename(tmp, final)
    link = out / ".last.tmp"
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(name, link)
    previous = os.readlink(out / "last") if (out / "last").is_symlink() else None
    os.replace(link, out / "last")
    if previous and previous != name and (out / previous).is_dir():
        shutil.rmtree(out / previous)
    return final


def load_resume(out: Path, cfg: TrainConfig, game: str, data: str, data_hash: str) -> tuple[Path, dict]:
    """(the checkpoint to resume from, its trainer state), once the run in `out` is found
    to be this config's (only `epochs` may differ) on this dataset."""
    last = out / "last"
    if not last.exists():
        raise UserError(f"--resume: {out} holds no checkpoint to resume from (no {last})")
    try:
        state = json.loads((last / TRAINER_STATE).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"--resume: {last / TRAINER_STATE} is unreadable ({exc})") from None
    # Compared as the student each config builds, so a run written before a field was
    # added (it takes its default) or before model fields moved into `model` still matches.
    saved = config_from_dict({**state["training"], "epochs": cfg.epochs}, f"--resume: {last / TRAINER_STATE}")
    ours, theirs = _settings(cfg, game), _settings(saved, game)
    if ours != theirs:
        diff = sorted(k for k in ours if ours[k] != theirs.get(k))
        raise UserError(f"--resume: the config differs from the run's in {', '.join(diff)} "
                        "(only --epochs may change)")
    if state["dataset_manifest_sha256"] != data_hash:
        raise UserError(f"--resume: {data} is not the dataset this run was trained on")
    return last.resolve(), state


def _settings(cfg: TrainConfig, game: str) -> dict:
    """Every setting of a run, the student's in full, by name."""
    fields = {k: v for k, v in cfg.to_dict().items() if k != "model"}
    return {**fields, **model_config(cfg, game).to_dict()}


def restore(trainer: Trainer, directory: Path) -> None:
    import mlx.core as mx
    from mlx.utils import tree_unflatten
    from openlandlord.model.checkpoint import WEIGHTS, read_meta

    read_meta(str(directory))        # refuses weights that do not match their recorded sha256
    trainer.model.load_weights(str(directory / WEIGHTS))
    trainer.optimizer.state = tree_unflatten(list(mx.load(str(directory / OPTIMIZER)).items()))
    mx.eval(trainer.model.parameters(), trainer.optimizer.state)


def lock_run(out_dir: Path):
    """Hold OUT/.lock for the run, so that a second trainer (say, a --resume started while
    the first still runs) cannot write into the same run. Released when the process ends."""
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    lock = open(out_dir / ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise UserError(f"another training process is writing to {out_dir}") from None
    return lock
