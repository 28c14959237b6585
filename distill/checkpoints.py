"""A run's checkpoints on disk: every epoch's student checkpoint plus the trainer's state
(optimizer moments, step, epoch) written atomically and pointed to by `last`, reading them
back for --resume, and the repair of a half-written final student."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from openlandlord import artefacts

from openlandlord.errors import UserError

from .config import TrainConfig, config_from_dict, model_config
from .trainer import Trainer

TRAINER_STATE = "trainer.json"
OPTIMIZER = "optimizer.safetensors"


def save_epoch(out: Path, trainer: Trainer, state: dict, extra: dict, git_sha: str | None = None) -> Path:
    """Write the epoch's checkpoint under a temporary name, then rename it into place and
    repoint `last`, so an interrupted write never leaves a half checkpoint behind. `git_sha`:
    the code the run started with (save_checkpoint)."""
    import mlx.core as mx
    from mlx.utils import tree_flatten
    from openlandlord.model import save_checkpoint

    name = f"epoch-{state['epoch']:04d}"
    tmp = out / f".{name}.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    save_checkpoint(str(tmp), trainer.model, trainer.mcfg, extra, git_sha=git_sha)
    mx.save_safetensors(str(tmp / OPTIMIZER), dict(tree_flatten(trainer.optimizer.state)))
    artefacts.write_json(tmp / TRAINER_STATE, state, sort_keys=True)
    final = out / name
    if final.exists():
        shutil.rmtree(final)
    artefacts.crash_before_rename(final)
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


def repair_final(out: Path) -> None:
    """On a rerun with nothing left to train: the top-level student must be the last epoch's.
    A run killed while writing it (weights renamed, config.json not yet: a stale pair; or
    neither) is repaired by copying the last epoch's checkpoint into place, atomically."""
    from openlandlord.model.checkpoint import CONFIG, WEIGHTS, read_meta

    last = read_meta(str(out / "last"))
    try:
        final = read_meta(str(out))
        intact = (final.get("epoch") == last.get("epoch")
                  and final.get("weights_sha256") == last.get("weights_sha256"))
    except UserError:
        intact = False
    if intact:
        return
    for name in (WEIGHTS, CONFIG):      # config.json last: the pair loads only once both are in
        artefacts.write_bytes(out / name, (out / "last" / name).read_bytes())
    print(f"{out}: the final student was missing or half-written; restored it from "
          f"{os.readlink(out / 'last')}", file=sys.stderr)
