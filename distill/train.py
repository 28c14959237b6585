"""`openlandlord train` and `openlandlord bench train`: distilling a teacher into the MLX student.

The loss (openlandlord.model.losses.student_loss) is a soft cross-entropy to the teacher's
softmax over the legal moves, plus value regression and belief cross-entropy, weighted by
the config. AdamW with linear warmup then cosine decay. Batches are padded to the batch's
own largest legal list (and state length), with masks; decisions with one legal move are
not in the dataset (and are skipped if one is). After every epoch the val split is scored
(top-1 agreement with the teacher, KL(teacher || student), value MSE, belief NLL and
calibration) and a checkpoint is written atomically.

A run directory OUT holds:
    epoch-NNNN/        the latest epoch's checkpoint: weights.safetensors + config.json
                       (a student checkpoint, `student:OUT/epoch-NNNN`) and the trainer's
                       state (optimizer.safetensors, trainer.json) for --resume
    last               symlink to it, replaced atomically
    weights.safetensors, config.json    the final student once training finished
    metrics.jsonl      one JSON object per logged step and per epoch, after a first
                       {"kind": "model"} row: architecture, game, num_parameters
    curves.png         the curves (when matplotlib is installed)

Past one machine: under `mlx.launch` (any backend `mx.distributed` supports) every rank
featurizes only the decisions whose index in the split is congruent to its rank, takes
its share of each global batch, and gradients are averaged weighted by each rank's share,
so N processes follow the same trajectory as one (exactly so with `shuffle: false`).

This module is the loop; its parts live beside it: config.py (TrainConfig and reading it),
batches.py, trainer.py (model, optimizer, step), distributed.py, metrics.py (val metrics
and metrics.jsonl), checkpoints.py (epoch checkpoints, --resume, the run lock), curves.py.
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np

from openlandlord import artefacts, blas
from openlandlord.errors import UserError

from . import checkpoints, metrics
from .batches import collate, epoch_batches, legal_counts, load_split, rank_batches
from .config import TrainConfig, load_config, model_config
from .curves import plot_curves
from .distributed import barrier
from .trainer import Trainer

CURVES = "curves.png"


def train(data: str, out: str, cfg: TrainConfig, resume: bool = False,
          stop_after: int | None = None, progress: bool = True, group=None,
          force: bool = False) -> dict:
    """Train on the dataset `data` into the run directory `out`; returns the last epoch's
    metrics. `stop_after` ends the run after that many epochs of the configured schedule
    (as an interruption would), for tests and time-boxed runs. `out` is locked for the run
    (rank 0 holds it); a finished student or anything else in it is replaced only with
    `force`, and `resume` continues the run it holds."""
    import mlx.core as mx

    group = group or mx.distributed.init()
    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"--out {out} is a file, not a directory")
    if group.rank() != 0:
        return _train(data, out_dir, cfg, resume, stop_after, progress, group)
    with artefacts.exclusive(out_dir, "--out"):
        artefacts.remove_stale_temporaries(out_dir)
        if not resume:
            check_fresh_out(out_dir, force)
        return _train(data, out_dir, cfg, resume, stop_after, progress, group)


# What an unfinished run that never finished an epoch leaves: a fresh run may replace it.
_UNFINISHED = re.compile(r"^(metrics\.jsonl|curves\.png|\.epoch-\d{4}\.tmp|\.last\.tmp|\..*\.tmp-\d+.*)$")


def start_from(trainer, directory: str, mcfg) -> dict:
    """The run's model takes the weights of the student in `directory` (config `init`), whose
    model config must be the run's, but for more encoder layers or a wider feed-forward
    (`model.grow.GROWABLE`), where the start is grown into the run's model computing the same function
    (`model.grow`): a fine-tune continues that student. -> its config.json, with `grown`
    ({field: [start's, run's]}) when it was grown."""
    import mlx.core as mx

    from openlandlord.model import load_checkpoint
    from openlandlord.model.grow import grow, growth
    model, config, meta = load_checkpoint(directory)
    grown = growth(config, mcfg, f"training config init={directory} (its model config against this run's)")
    if grown:
        grow(model, trainer.model)
        meta = dict(meta, grown=grown)
    else:
        trainer.model.update(model.parameters())
    mx.eval(trainer.model.parameters())
    return meta


def start_burial(directory: str) -> str:
    """The burial form (checkpoint meta `burial`, TrainConfig.burial) of the student in
    `directory`: "" where it records none (card by card)."""
    from openlandlord.model.checkpoint import read_meta
    return read_meta(directory).get("burial", "")


def check_fresh_out(out_dir: Path, force: bool) -> None:
    """A new run's --out: empty, new, or left by a run killed before its first epoch; else
    (a training run, a finished student such as a copy of data/models/X, other files)
    refused unless `force`, which removes it."""
    if not out_dir.exists():
        return
    others = sorted(p.name for p in out_dir.iterdir() if not _UNFINISHED.match(p.name))
    if not others:
        return
    if force:
        artefacts.remove(out_dir)
        return
    if "last" in others:
        what = "a training run: pass --resume to continue it"
    elif "config.json" in others or "weights.safetensors" in others:
        what = "a finished student"
    else:
        what = f"files this command did not make ({', '.join(others[:3])}{', ...' if len(others) > 3 else ''})"
    raise UserError(f"{out_dir} already holds {what}; choose another --out, or pass --force "
                    "to replace it")


def _train(data: str, out_dir: Path, cfg: TrainConfig, resume: bool, stop_after, progress: bool,
           group) -> dict:
    import mlx.core as mx
    from tqdm import tqdm

    from openlandlord.distill import dataset
    from openlandlord.games import spec as game_spec
    from openlandlord.model import num_parameters, save_checkpoint
    from openlandlord.model.losses import make_loss_fn
    from openlandlord.model.student import ARCHITECTURE
    from openlandlord.provenance import git_sha

    rank, size = group.rank(), group.size()
    out = str(out_dir)
    # The code that trains: the tree as the run starts (an edit made while it trains is not
    # its code), recorded in every checkpoint it writes.
    run_sha = git_sha()
    if cfg.batch_size % size:
        raise UserError(f"batch_size {cfg.batch_size} is not divisible by the {size} processes")
    ds = dataset.open(data)
    mcfg = model_config(cfg, ds.game)
    data_hash = ds.manifest_sha256
    start_epoch, resume_state = 0, None
    if resume:
        resume_dir, resume_state = checkpoints.load_resume(out_dir, cfg, ds.game, data, data_hash)
        start_epoch = resume_state["epoch"]

    counts = legal_counts(ds, "train", cfg.max_hand)
    if len(counts) == 0:
        raise UserError(f"dataset {data} has no training decisions")
    train_samples = load_split(ds, "train", rank, size, cfg.target_temperature, cfg.max_hand)
    val_samples = load_split(ds, "val", rank, size, cfg.target_temperature)
    steps_per_epoch = len(epoch_batches(counts, cfg, 1))
    trainer = Trainer(cfg, mcfg, steps_per_epoch * cfg.epochs, group,
                      loss=make_loss_fn(cfg.regret_weight, cfg.logit_center_weight, cfg.centred_scores))
    # The regret term's targets are made per batch, only for a run that uses the term.
    regret_temperature = game_spec(ds.game).teacher_temperature if cfg.regret_weight > 0 else None
    # The start a fine-tune took, by content (its folder may later hold another student: a
    # soup checks its parts share one start by this); a resumed run keeps what its trainer
    # state recorded, since the start's folder may have changed since.
    init_sha, grown = None, None
    if resume_state is not None:
        checkpoints.restore(trainer, resume_dir)
        init_sha, grown = resume_state.get("init_weights_sha256"), resume_state.get("init_grown")
    elif cfg.init:
        start = start_from(trainer, cfg.init, mcfg)
        init_sha, grown = start.get("weights_sha256"), start.get("grown")
    tokens = mcfg.max_state_tokens if cfg.compile else None
    metrics_path = out_dir / metrics.METRICS
    if rank == 0:
        out_dir.mkdir(parents=True, exist_ok=True)
        if resume_state is not None:
            metrics.trim_metrics(metrics_path, resume_state["epoch"], resume_state["step"])
        elif metrics_path.exists():
            metrics_path.unlink()
        parameters = num_parameters(trainer.model)
        print(f"{ARCHITECTURE}, {parameters:,} parameters", file=sys.stderr)
        if resume_state is None:
            metrics.append(metrics_path, {"kind": "model", "architecture": ARCHITECTURE,
                                          "game": ds.game, "num_parameters": parameters})
    extra = {"dataset": str(data), "dataset_manifest_sha256": data_hash,
             "game_options": ds.game_options, "training": cfg.to_dict(),
             "processes": size}
    if init_sha:
        extra["init_weights_sha256"] = init_sha
    if grown:
        extra["init_grown"] = grown
    burial = cfg.burial or (start_burial(cfg.init) if cfg.init else "")
    if burial and burial != "cards":
        extra["burial"] = burial
    last_epoch = min(cfg.epochs, stop_after if stop_after is not None else cfg.epochs)
    if start_epoch >= cfg.epochs and rank == 0:
        print(f"{out} has already trained {start_epoch} of {cfg.epochs} epochs: nothing to do "
              "(pass a larger --epochs to train on)", file=sys.stderr)
    summary = {}
    for epoch in range(start_epoch + 1, last_epoch + 1):
        batches = epoch_batches(counts, cfg, epoch)
        # Any randomness inside the model (none today) is a function of (seed, epoch) too,
        # so that resuming at an epoch boundary restores it.
        mx.random.seed(int(np.random.default_rng([cfg.seed, epoch]).integers(2**62)))
        sums = dict.fromkeys(("loss", *trainer.part_names), 0.0)
        seen = 0
        started = time.perf_counter()
        bar = tqdm(rank_batches(batches, rank, size), total=len(batches),
                   desc=f"epoch {epoch}/{cfg.epochs}", unit="batch",
                   disable=not progress or rank != 0, leave=False)
        for local, global_rows in bar:
            batch = (collate([train_samples[i] for i in local], cfg.action_bucket, tokens, regret_temperature)
                     if len(local) else None)
            loss, parts = trainer.train_step(batch, len(local) / global_rows)
            seen += global_rows
            for key, value in (("loss", loss), *parts.items()):
                sums[key] += value * global_rows
            step = trainer.step_count
            if rank == 0 and step % cfg.log_every == 0:
                metrics.append(metrics_path, {"kind": "step", "epoch": epoch, "step": step,
                                              "loss": loss, **parts, "lr": trainer.lr})
            bar.set_postfix(loss=f"{loss:.4f}")
        bar.close()
        elapsed = time.perf_counter() - started
        summary = {"kind": "epoch", "epoch": epoch, "step": trainer.step_count,
                   **{f"train_{k}": v / seen for k, v in sums.items()}, "lr": trainer.lr,
                   "samples_per_s": seen / elapsed, "seconds": elapsed, "processes": size,
                   "blas": "openblas" if blas.loaded() else "bundled",
                   **metrics.evaluate(trainer.model, val_samples, cfg, mcfg, group)}
        if rank == 0:
            metrics.append(metrics_path, summary)
            state = {"epoch": epoch, "step": trainer.step_count, "training": cfg.to_dict(),
                     "dataset_manifest_sha256": data_hash, "git_sha": run_sha,
                     "init_weights_sha256": init_sha, "init_grown": grown,
                     "batch_rule": "distill.batches.epoch_batches(legal counts, training config, epoch)"}
            checkpoints.save_epoch(out_dir, trainer, state,
                                   {**extra, "epoch": epoch, "metrics": metrics.scalars(summary)},
                                   git_sha=run_sha)
            # Plotting costs seconds (matplotlib's import): every epoch only in long runs.
            if epoch == last_epoch or elapsed > 30:
                plot_curves(metrics_path, out_dir / CURVES)
            print(metrics.epoch_line(summary), file=sys.stderr)
        barrier(group)
    if rank == 0 and last_epoch == cfg.epochs:
        if summary:
            save_checkpoint(str(out_dir), trainer.model, mcfg,
                            {**extra, "epoch": cfg.epochs, "metrics": metrics.scalars(summary)},
                            git_sha=run_sha)
        else:
            checkpoints.repair_final(out_dir)
    return summary


def run(args) -> int:
    """`openlandlord train`."""
    blas.reexec_with_openblas("train")
    cfg = load_config(args.config, getattr(args, "set", None), args.epochs)
    train(args.data, args.out, cfg, resume=getattr(args, "resume", False),
          force=getattr(args, "force", False))
    return 0


def bench(args) -> int:
    """`openlandlord bench train`."""
    from openlandlord.distill.train_bench import run_bench
    return run_bench(args)
