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
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from openlandlord import blas
from openlandlord.errors import UserError

REEXEC_GUARD = "OPENLANDLORD_BLAS_REEXEC"
CONFIG_DIR = Path(__file__).parent / "configs"
TRAINER_STATE = "trainer.json"
OPTIMIZER = "optimizer.safetensors"
METRICS = "metrics.jsonl"
CURVES = "curves.png"
CALIBRATION_BINS = 10

# Training fields passed through to the student's ModelConfig.
ABLATION_FIELDS = ("belief_mode", "belief_stop_grad", "use_adapters", "use_deep_sets",
                   "value_target", "value_scale")
ARCHITECTURE_FIELDS = ("d_model", "heads", "ff", "layers", "adapter_rank")


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
    # (0 or 1: plain random batches); see epoch_batches.
    group_by_length: int = 16
    eval_batch_size: int = 512
    log_every: int = 50
    policy_weight: float = 1.0
    value_weight: float = 0.5
    belief_weight: float = 0.5
    # The policy target: None takes the dataset's (softmax of the teacher's scores at the
    # generation temperature); a number re-derives it from the stored teacher scores at this
    # temperature (0: one-hot on the teacher's choice), without regenerating the data.
    target_temperature: float | None = None
    # Ablation switches, passed to the model config.
    belief_mode: str = "expect"
    belief_stop_grad: bool = True
    use_adapters: bool = True
    use_deep_sets: bool = True
    value_target: str = "score"
    value_scale: float | None = None      # None: the game's preset
    # Architecture overrides: any of ARCHITECTURE_FIELDS.
    model: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        for name in ("epochs", "batch_size", "eval_batch_size", "log_every", "action_bucket"):
            if getattr(self, name) < 1:
                raise UserError(f"training config: {name} must be at least 1, got {getattr(self, name)}")
        if self.target_temperature is not None and not self.target_temperature >= 0.0:
            raise UserError(f"training config: target_temperature must be >= 0, got {self.target_temperature}")
        for name in ("lr", "min_lr", "weight_decay", "grad_clip", "warmup_steps", "group_by_length"):
            if getattr(self, name) < 0:
                raise UserError(f"training config: {name} must not be negative, got {getattr(self, name)}")
        unknown = sorted(set(self.model) - set(ARCHITECTURE_FIELDS))
        if unknown:
            raise UserError(f"training config: unknown model field(s) {', '.join(unknown)}; "
                            f"allowed: {', '.join(ARCHITECTURE_FIELDS)}")
        for name, value in self.model.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UserError(f"training config: model.{name} must be a positive integer, got {value!r}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _check_type(name: str, value, field: dataclasses.Field):
    kind = {"int": int, "float": float, "bool": bool, "str": str, "dict": dict}
    declared = str(field.type).replace(" ", "")
    if value is None and "None" in declared:
        return value
    for label, cls in kind.items():
        if declared.startswith(label):
            if cls is float and isinstance(value, int) and not isinstance(value, bool):
                return float(value)
            if cls is int and isinstance(value, bool) or not isinstance(value, cls):
                raise UserError(f"training config: {name} must be {label}, got {value!r}")
            return value
    return value


def config_from_dict(fields: dict, where: str = "training config") -> TrainConfig:
    """A TrainConfig from a JSON object; unknown keys and wrong types are one clear error."""
    if not isinstance(fields, dict):
        raise UserError(f"{where} must be a JSON object")
    known = {f.name: f for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise UserError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return TrainConfig(**{k: _check_type(k, v, known[k]) for k, v in fields.items()})


def load_config(path: str | None, overrides: list[str] | None = None,
                epochs: int | None = None) -> TrainConfig:
    """--config FILE (default: distill/configs/default.json; a bare name such as
    `ablation_belief_off` names a file there), then each --set key=value
    (value parsed as JSON when it parses, else taken as a string; `model.d_model=32` sets an
    architecture field), then --epochs."""
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
    for item in overrides or []:
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise UserError(f"--set {item!r}: expected key=value")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        if key.startswith("model."):
            fields["model"] = {**fields.get("model", {}), key[len("model."):]: value}
        else:
            fields[key] = value
    if epochs is not None:
        fields["epochs"] = epochs
    return config_from_dict(fields, f"training config {path}")


def model_config(cfg: TrainConfig, game: str):
    """The student's ModelConfig: feature sizes from the featurizer, the rest from `cfg`."""
    from openlandlord import features
    from openlandlord.model import ModelConfig

    dims = features.dims(game)
    known = {f.name for f in dataclasses.fields(ModelConfig)}
    base = ModelConfig.for_game(game)
    role_names = tuple(base.role_names)
    if len(role_names) != dims["num_roles"]:
        # Dou Dizhu's featurizer adds a fourth role for bidding decisions.
        role_names = role_names + ("bidding",) if len(role_names) + 1 == dims["num_roles"] else ()
    fields = {k: dims[k] for k in ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots",
                                   "belief_holders", "belief_max_count")}
    fields.update(role_names=role_names, feature_version=str(dims["feature_version"]))
    if "max_state_tokens" in known:
        fields["max_state_tokens"] = dims["max_tokens"]
    for name in ("policy_weight", "value_weight", "belief_weight") + ABLATION_FIELDS:
        value = getattr(cfg, name)
        if value is not None:
            fields[name] = value
    fields.setdefault("value_scale", features.value_scale(game))
    fields.update(cfg.model)
    return ModelConfig.for_game(game, **fields)


# ---------------------------------------------------------------------------------------
# Data


def load_split(ds, split: str, rank: int = 0, size: int = 1,
               temperature: float | None = None) -> list[dict]:
    """Featurize this rank's decisions of a split (index % size == rank), once: each
    sample holds the featurizer's arrays and the targets. `temperature` (None: the
    dataset's own targets) re-derives the policy target from the teacher's scores."""
    from openlandlord import agents, features

    samples = []
    index = 0
    for rec in ds.records(split):
        if len(rec.legal) < 2:
            continue          # a forced move teaches nothing
        if index % size == rank:
            sample = dict(features.featurize(rec.obs, rec.legal))
            policy = rec.teacher_policy if temperature is None else agents.softmax(rec.teacher_scores, temperature)
            sample["target_policy"] = np.asarray(policy, np.float32)
            sample["teacher_scores"] = np.asarray(rec.teacher_scores, np.float32)
            sample["teacher_choice"] = rec.teacher_choice
            sample["score"] = features.value_score(rec.obs, rec.score, rec.result)
            sample["belief_target"] = features.belief_target(rec.obs, rec.hands).astype(np.int32)
            samples.append(sample)
        index += 1
    return samples


def legal_counts(ds, split: str) -> np.ndarray:
    """Legal-list length of every decision of a split that training uses, in split order
    (every rank knows them all, so every rank forms the same global batches)."""
    return np.array([len(rec.legal) for rec in ds.records(split) if len(rec.legal) >= 2], np.int64)


def collate(samples: list[dict], action_bucket: int = 1, tokens: int | None = None) -> dict:
    """Model inputs and targets of a batch, as numpy arrays."""
    from openlandlord import features

    longest = max(s["actions"].shape[0] for s in samples)
    slots = -(-longest // action_bucket) * action_bucket
    batch = features.collate(samples, slots)
    if tokens is not None and batch["state_tokens"].shape[1] < tokens:
        pad = tokens - batch["state_tokens"].shape[1]
        batch["state_tokens"] = np.pad(batch["state_tokens"], ((0, 0), (0, pad), (0, 0)))
        batch["state_mask"] = np.pad(batch["state_mask"], ((0, 0), (0, pad)))
    policy = np.zeros(batch["action_mask"].shape, np.float32)
    for row, s in enumerate(samples):
        policy[row, :len(s["target_policy"])] = s["target_policy"]
    batch["target_policy"] = policy
    batch["teacher_choice"] = np.array([s["teacher_choice"] for s in samples], np.int32)
    batch["score"] = np.array([s["score"] for s in samples], np.float32)
    batch["belief_target"] = np.stack([s["belief_target"] for s in samples])
    return batch


def epoch_batches(counts: np.ndarray, cfg: "TrainConfig", epoch: int) -> list[np.ndarray]:
    """The global batches (arrays of indices into the split) of an epoch: a function of
    (seed, epoch) only, so a resumed run sees the same batches as an uninterrupted one.

    A batch is padded to its longest legal list, and legal lists run from 2 to hundreds of
    moves, so random batches are mostly padding. With `group_by_length` G > 1, each run of
    G batches' worth of the shuffled order is sorted by legal count before it is cut into
    batches, and the batches are then shuffled: every batch is still a random draw from a
    random window of the data, with little padding."""
    rng = np.random.default_rng([cfg.seed, epoch])
    order = rng.permutation(len(counts)) if cfg.shuffle else np.arange(len(counts))
    size = cfg.batch_size
    if cfg.group_by_length <= 1:
        return [order[i:i + size] for i in range(0, len(order), size)]
    span = size * cfg.group_by_length
    batches = []
    for start in range(0, len(order), span):
        window = order[start:start + span]
        window = window[np.argsort(counts[window], kind="stable")]
        batches += [window[i:i + size] for i in range(0, len(window), size)]
    if cfg.shuffle:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches


def rank_batches(batches: list[np.ndarray], rank: int, size: int):
    """Per global batch: (local row indices into this rank's samples, global batch size).
    Rank r holds global indices r, r + size, ...; its local index is global // size."""
    for chunk in batches:
        mine = chunk[chunk % size == rank] // size
        yield mine, len(chunk)


# ---------------------------------------------------------------------------------------
# Training


def _to_mx(batch: dict) -> dict:
    import mlx.core as mx
    return {k: mx.array(v) for k, v in batch.items() if k != "teacher_choice"}


def make_schedule(cfg: TrainConfig, total_steps: int):
    import mlx.optimizers as optim

    # Warmup is capped at half the run, so that a short run still decays.
    warmup = min(cfg.warmup_steps, total_steps // 2)
    decay = optim.cosine_decay(cfg.lr, max(total_steps - warmup, 1), cfg.min_lr)
    if warmup == 0:
        return decay
    return optim.join_schedules([optim.linear_schedule(cfg.lr / warmup, cfg.lr, warmup), decay], [warmup])


class Trainer:
    """One training run's model, optimizer and step function."""

    def __init__(self, cfg: TrainConfig, mcfg, total_steps: int, group):
        import mlx.core as mx
        import mlx.nn as nn
        import mlx.optimizers as optim
        from openlandlord.model import LandlordFormerLite
        from openlandlord.model.losses import loss_fn

        self.cfg, self.mcfg, self.group = cfg, mcfg, group
        mx.random.seed(cfg.seed)
        self.model = LandlordFormerLite(mcfg)
        self.optimizer = optim.AdamW(learning_rate=make_schedule(cfg, total_steps),
                                     weight_decay=cfg.weight_decay)
        self.optimizer.init(self.model.trainable_parameters())
        mx.eval(self.model.parameters(), self.optimizer.state)
        grad_fn = nn.value_and_grad(self.model, loss_fn)
        distributed = group.size() > 1

        def step(batch, share):
            (total, parts), grads = grad_fn(self.model, batch)
            if distributed:
                # share = this rank's rows / the global batch's rows: the weighted sum over
                # ranks is the gradient of the global batch's mean loss.
                grads, total, parts = _all_sum_scaled(grads, total, parts, share, group)
            if cfg.grad_clip > 0:
                grads, _ = optim.clip_grad_norm(grads, cfg.grad_clip)
            self.optimizer.update(self.model, grads)
            return total, parts

        if cfg.compile:
            state = [self.model.state, self.optimizer.state]
            step = mx.compile(step, inputs=state, outputs=state)
        self._step = step

    def train_step(self, batch: dict | None, share: float):
        """One optimizer step on this rank's part of a global batch (None: it has no rows)."""
        import mlx.core as mx

        if batch is None:
            total, parts = self._idle_step()
        else:
            total, parts = self._step(_to_mx(batch), mx.array(share, dtype=mx.float32))
        mx.eval(self.model.parameters(), self.optimizer.state, total, parts)
        return float(total), {k: float(v) for k, v in parts.items()}

    def _idle_step(self):
        """A rank without rows in a global batch still joins the gradient sum, with zeros."""
        import mlx.core as mx
        import mlx.optimizers as optim

        zeros = _tree_map(mx.zeros_like, self.model.trainable_parameters())
        nothing = mx.array(0.0)
        grads, total, parts = _all_sum_scaled(zeros, nothing, dict.fromkeys(("policy", "value", "belief"), nothing),
                                              nothing, self.group)
        if self.cfg.grad_clip > 0:
            grads, _ = optim.clip_grad_norm(grads, self.cfg.grad_clip)
        self.optimizer.update(self.model, grads)
        return total, parts

    @property
    def lr(self) -> float:
        return float(self.optimizer.learning_rate)

    @property
    def step_count(self) -> int:
        return int(self.optimizer.state["step"])


def _all_sum_scaled(grads, total, parts, share, group):
    """Sum share * (gradients, loss, loss parts) over the ranks in one all_sum: one message
    per step instead of one per parameter array (each costs a round trip on the ring)."""
    import mlx.core as mx
    from mlx.utils import tree_flatten, tree_unflatten

    flat = tree_flatten(grads)
    keys = sorted(parts)
    scalars = mx.stack([total] + [parts[k] for k in keys])
    summed = mx.distributed.all_sum(
        mx.concatenate([g.reshape(-1) for _, g in flat] + [scalars]) * share, group=group)
    out, offset = [], 0
    for name, g in flat:
        out.append((name, summed[offset:offset + g.size].reshape(g.shape)))
        offset += g.size
    return tree_unflatten(out), summed[offset], {k: summed[offset + 1 + i] for i, k in enumerate(keys)}


def _tree_map(fn, tree):
    from mlx.utils import tree_map
    return tree_map(fn, tree)


def evaluate(model, samples: list[dict], cfg: TrainConfig, mcfg, group) -> dict:
    """Val metrics over every rank's samples: top-1 agreement with the teacher, regret (the
    teacher's score of its best move minus its score of the student's argmax, in the
    teacher's units: what the student's choices cost by the teacher's own measure),
    KL(teacher || student) over the legal moves, value MSE, belief NLL per slot, and the
    belief head's calibration (expected calibration error of its most likely composition,
    over slots whose composition is uncertain)."""
    import mlx.core as mx
    from openlandlord.model.losses import composition_index, log_softmax, value_target

    sums = np.zeros(7, np.float64)       # n, agree, kl, value se, belief nll, belief slots, regret
    bins = np.zeros((3, CALIBRATION_BINS), np.float64)   # count, confidence, correct
    model.eval()
    for start in range(0, len(samples), cfg.eval_batch_size):
        chunk = samples[start:start + cfg.eval_batch_size]
        batch = collate(chunk)
        inputs = _to_mx(batch)
        out = model(inputs)
        logp = log_softmax(out["logits"])
        target = inputs["target_policy"]
        kl = (mx.where(target > 0, target * (mx.log(mx.maximum(target, 1e-30)) - logp), 0.0)).sum(axis=-1)
        vt = value_target(inputs["score"], mcfg)
        mx.eval(out, kl, vt)
        choice = np.argmax(np.array(out["logits"]), axis=1)
        sums[0] += len(choice)
        sums[1] += np.sum(choice == batch["teacher_choice"])
        sums[6] += sum(float(s["teacher_scores"].max() - s["teacher_scores"][c]) for s, c in zip(chunk, choice))
        sums[2] += float(kl.sum())
        sums[3] += float(mx.square(out["value"] - vt).sum())
        if "belief_logits" in out:
            truth = np.array(composition_index(inputs["belief_target"], mcfg))
            probs = np.array(mx.softmax(out["belief_logits"], axis=-1))
            p_true = np.take_along_axis(probs, truth[..., None], axis=-1)[..., 0]
            sums[4] += float(-np.log(np.maximum(p_true, 1e-30)).sum())
            sums[5] += p_true.size
            uncertain = batch["unseen"] > 0
            conf = probs.max(axis=-1)[uncertain]
            correct = (probs.argmax(axis=-1) == truth)[uncertain]
            which = np.minimum((conf * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
            np.add.at(bins[0], which, 1.0)
            np.add.at(bins[1], which, conf)
            np.add.at(bins[2], which, correct)
    model.train()
    if group.size() > 1:
        sums = np.array(mx.distributed.all_sum(mx.array(sums.astype(np.float32)), group=group), np.float64)
        bins = np.array(mx.distributed.all_sum(mx.array(bins.astype(np.float32)), group=group), np.float64)
    if sums[0] == 0:
        return {"val_decisions": 0}
    n = sums[0]
    metrics = {"val_decisions": int(n), "val_top1": sums[1] / n, "val_regret": sums[6] / n,
               "val_kl": sums[2] / n,
               "val_value_mse": sums[3] / n}
    if sums[5] > 0:
        count = bins[0]
        metrics["val_belief_nll"] = sums[4] / sums[5]
        metrics["val_belief_ece"] = float(np.abs(bins[1] - bins[2]).sum() / max(count.sum(), 1.0))
        metrics["val_belief_reliability"] = [
            [float(bins[1, i] / count[i]), float(bins[2, i] / count[i]), int(count[i])]
            for i in range(CALIBRATION_BINS) if count[i] > 0]
    return metrics


# ---------------------------------------------------------------------------------------
# Checkpoints


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


def load_resume(out: Path) -> tuple[Path, dict]:
    last = out / "last"
    if not last.exists():
        raise UserError(f"--resume: {out} holds no checkpoint to resume from (no {last})")
    try:
        state = json.loads((last / TRAINER_STATE).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"--resume: {last / TRAINER_STATE} is unreadable ({exc})") from None
    return last.resolve(), state


def restore(trainer: Trainer, directory: Path) -> None:
    import mlx.core as mx
    from mlx.utils import tree_unflatten
    from openlandlord.model.checkpoint import WEIGHTS

    trainer.model.load_weights(str(directory / WEIGHTS))
    trainer.optimizer.state = tree_unflatten(list(mx.load(str(directory / OPTIMIZER)).items()))
    mx.eval(trainer.model.parameters(), trainer.optimizer.state)


def _trim_metrics(path: Path, epoch: int, step: int) -> None:
    """Drop metric lines written after the checkpoint a run resumes from."""
    if not path.exists():
        return
    kept = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if (row["kind"] == "model" or (row["kind"] == "epoch" and row["epoch"] <= epoch)
                or (row["kind"] == "step" and row["step"] <= step)):
            kept.append(line)
    path.write_text("".join(k + "\n" for k in kept))


def plot_curves(metrics_path: Path, png: Path) -> bool:
    """The run's curves as a PNG; False when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [json.loads(line) for line in metrics_path.read_text().splitlines()]
    steps = [r for r in rows if r["kind"] == "step"]
    epochs = [r for r in rows if r["kind"] == "epoch"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for key in ("loss", "policy", "value", "belief"):
        if steps:
            axes[0].plot([r["step"] for r in steps], [r[key] for r in steps], label=key)
    if epochs:
        # Epoch means as well: short runs log few step rows.
        axes[0].plot([r["step"] for r in epochs], [r["train_loss"] for r in epochs], "ko",
                     label="loss, epoch mean")
    axes[0].set(title="training loss", xlabel="step")
    for key in ("val_kl", "val_value_mse", "val_belief_nll"):
        if epochs and key in epochs[0]:
            axes[1].plot([r["epoch"] for r in epochs], [r[key] for r in epochs], marker="o", label=key)
    axes[1].set(title="validation", xlabel="epoch")
    for key in ("val_top1", "val_belief_ece"):
        if epochs and key in epochs[0]:
            axes[2].plot([r["epoch"] for r in epochs], [r[key] for r in epochs], marker="o", label=key)
    axes[2].set(title="agreement and calibration", xlabel="epoch")
    for ax in axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    tmp = png.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=80)
    plt.close(fig)
    os.replace(tmp, png)
    return True


# ---------------------------------------------------------------------------------------
# The run


def train(data: str, out: str, cfg: TrainConfig, resume: bool = False,
          stop_after: int | None = None, progress: bool = True, group=None) -> dict:
    """Train on the dataset `data` into the run directory `out`; returns the last epoch's
    metrics. `stop_after` ends the run after that many epochs of the configured schedule
    (as an interruption would), for tests and time-boxed runs."""
    import mlx.core as mx
    from tqdm import tqdm

    from openlandlord.distill import dataset
    from openlandlord.model import num_parameters, save_checkpoint
    from openlandlord.model.student import ARCHITECTURE
    from openlandlord.provenance import git_sha

    group = group or mx.distributed.init()
    rank, size = group.rank(), group.size()
    if cfg.batch_size % size:
        raise UserError(f"batch_size {cfg.batch_size} is not divisible by the {size} processes")
    ds = dataset.open(data)
    mcfg = model_config(cfg, ds.game)
    out_dir = Path(out)
    lock = _lock_run(out_dir) if rank == 0 else None
    if not resume and (out_dir / "last").exists():
        raise UserError(f"{out} already holds a training run: pass --resume to continue it, "
                        "or choose another --out")
    data_hash = ds.manifest_sha256
    start_epoch, resume_state = 0, None
    if resume:
        resume_dir, resume_state = load_resume(out_dir)
        # A field added since the run began takes its default.
        saved = {**TrainConfig().to_dict(), **resume_state["training"], "epochs": cfg.epochs}
        if saved != cfg.to_dict():
            diff = sorted(k for k in saved if saved[k] != cfg.to_dict().get(k))
            raise UserError(f"--resume: the config differs from the run's in {', '.join(diff)} "
                            "(only --epochs may change)")
        if resume_state["dataset_manifest_sha256"] != data_hash:
            raise UserError(f"--resume: {data} is not the dataset this run was trained on")
        start_epoch = resume_state["epoch"]

    counts = legal_counts(ds, "train")
    train_total = len(counts)
    if train_total == 0:
        raise UserError(f"dataset {data} has no training decisions")
    train_samples = load_split(ds, "train", rank, size, cfg.target_temperature)
    val_samples = load_split(ds, "val", rank, size, cfg.target_temperature)
    steps_per_epoch = len(epoch_batches(counts, cfg, 1))
    trainer = Trainer(cfg, mcfg, steps_per_epoch * cfg.epochs, group)
    if resume_state is not None:
        restore(trainer, resume_dir)
    local_batch = cfg.batch_size // size
    tokens = mcfg.max_state_tokens if cfg.compile and hasattr(mcfg, "max_state_tokens") else None
    metrics_path = out_dir / METRICS
    if rank == 0:
        out_dir.mkdir(parents=True, exist_ok=True)
        if resume_state is not None:
            _trim_metrics(metrics_path, resume_state["epoch"], resume_state["step"])
        elif metrics_path.exists():
            metrics_path.unlink()
        parameters = num_parameters(trainer.model)
        print(f"{ARCHITECTURE}, {parameters:,} parameters", file=sys.stderr)
        if resume_state is None:
            _append(metrics_path, {"kind": "model", "architecture": ARCHITECTURE, "game": ds.game,
                                   "num_parameters": parameters})
    extra = {"dataset": str(data), "dataset_manifest_sha256": data_hash, "training": cfg.to_dict(),
             "processes": size}
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
        sums = {"loss": 0.0, "policy": 0.0, "value": 0.0, "belief": 0.0}
        seen = 0
        started = time.perf_counter()
        bar = tqdm(rank_batches(batches, rank, size), total=len(batches),
                   desc=f"epoch {epoch}/{cfg.epochs}", unit="batch",
                   disable=not progress or rank != 0, leave=False)
        for local, global_rows in bar:
            batch = collate([train_samples[i] for i in local], cfg.action_bucket, tokens) if len(local) else None
            loss, parts = trainer.train_step(batch, len(local) / global_rows)
            seen += global_rows
            for key, value in (("loss", loss), *parts.items()):
                sums[key] += value * global_rows
            step = trainer.step_count
            if rank == 0 and step % cfg.log_every == 0:
                _append(metrics_path, {"kind": "step", "epoch": epoch, "step": step, "loss": loss,
                                       **parts, "lr": trainer.lr})
            bar.set_postfix(loss=f"{loss:.4f}")
        bar.close()
        elapsed = time.perf_counter() - started
        summary = {"kind": "epoch", "epoch": epoch, "step": trainer.step_count,
                   **{f"train_{k}": v / seen for k, v in sums.items()}, "lr": trainer.lr,
                   "samples_per_s": seen / elapsed, "seconds": elapsed, "processes": size,
                   "blas": "openblas" if blas.loaded() else "bundled",
                   **evaluate(trainer.model, val_samples, cfg, mcfg, group)}
        if rank == 0:
            _append(metrics_path, summary)
            state = {"epoch": epoch, "step": trainer.step_count, "training": cfg.to_dict(),
                     "dataset_manifest_sha256": data_hash, "git_sha": git_sha(),
                     "batch_rule": "distill.train.epoch_batches(legal counts, training config, epoch)"}
            save_epoch(out_dir, trainer, state, {**extra, "epoch": epoch, "metrics": _scalars(summary)})
            # Plotting costs seconds (matplotlib's import): every epoch only in long runs.
            if epoch == last_epoch or elapsed > 30:
                plot_curves(metrics_path, out_dir / CURVES)
            print(_epoch_line(summary), file=sys.stderr)
        _barrier(group)
    if rank == 0 and last_epoch == cfg.epochs and summary:
        save_checkpoint(str(out_dir), trainer.model, mcfg,
                        {**extra, "epoch": cfg.epochs, "metrics": _scalars(summary)})
    if lock is not None:
        lock.close()
    return summary


def _lock_run(out_dir: Path):
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


def _scalars(row: dict) -> dict:
    return {k: v for k, v in row.items() if isinstance(v, (int, float)) and k != "kind"}


def _append(path: Path, row: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")


def _epoch_line(row: dict) -> str:
    parts = [f"epoch {row['epoch']}", f"loss {row['train_loss']:.4f}"]
    if row["val_decisions"]:
        parts += [f"val top1 {row['val_top1']:.3f}", f"regret {row['val_regret']:.4f}", f"KL {row['val_kl']:.4f}",
                  f"value MSE {row['val_value_mse']:.4f}"]
    else:
        parts.append("no val decisions")
    if "val_belief_nll" in row:
        parts += [f"belief NLL {row['val_belief_nll']:.4f}", f"ECE {row['val_belief_ece']:.3f}"]
    parts.append(f"{row['samples_per_s']:.0f} samples/s")
    return ", ".join(parts)


def _barrier(group) -> None:
    import mlx.core as mx
    if group.size() > 1:
        mx.eval(mx.distributed.all_sum(mx.array(1.0), group=group))


# ---------------------------------------------------------------------------------------
# OpenBLAS


def maybe_reexec_with_openblas(args) -> None:
    """MLX on Linux ships a slow reference BLAS; Debian's OpenBLAS, preloaded, is much
    faster for the model's matmuls. A preload only works from process start, so when the
    library exists and is not loaded yet, re-run this same command once with LD_PRELOAD.
    Only when this process was started for exactly this command (not, e.g., a test calling
    `main` in-process), and never twice (REEXEC_GUARD). OPENLANDLORD_BLAS=bundled opts out."""
    if os.environ.get(REEXEC_GUARD) or not blas.wanted() or blas.loaded():
        return
    from openlandlord.cli import build_parser
    try:
        if vars(build_parser().parse_args(sys.argv[1:])) != vars(args):
            return
    except (UserError, SystemExit):
        return
    env = blas.preloaded(dict(os.environ, **{REEXEC_GUARD: "1"}))
    argv = [sys.executable] + list(getattr(sys, "orig_argv", [sys.executable] + sys.argv)[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, env)


def run(args) -> int:
    """`openlandlord train`."""
    maybe_reexec_with_openblas(args)
    cfg = load_config(args.config, getattr(args, "set", None), args.epochs)
    train(args.data, args.out, cfg, resume=getattr(args, "resume", False))
    return 0


def bench(args) -> int:
    """`openlandlord bench train`."""
    from openlandlord.distill.train_bench import run_bench
    return run_bench(args)
