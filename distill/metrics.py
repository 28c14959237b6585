"""What a run measures and logs: the val split's metrics after every epoch (`evaluate`),
and the rows of metrics.jsonl (one JSON object a line: a first {"kind": "model"} row,
then "step" and "epoch" rows)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from openlandlord import artefacts

from .batches import collate, to_mx
from .config import TrainConfig

METRICS = "metrics.jsonl"
CALIBRATION_BINS = 10


def evaluate(model, samples: list[dict], cfg: TrainConfig, mcfg, group) -> dict:
    """Val metrics over every rank's samples: top-1 agreement with the teacher, regret (the
    teacher's score of its best move minus its score of the student's argmax, in the
    teacher's units: what the student's choices cost by the teacher's own measure),
    KL(teacher || student) over the legal moves, value MSE, belief NLL per slot, the
    belief head's calibration (expected calibration error of its most likely composition,
    over slots whose composition is uncertain), and `val_logit_offset`: the root mean square
    over decisions of the mean legal logit, a score common to every move that the softmax
    ignores, so that nothing but `logit_center_weight` holds it down. Where it grows, float32
    keeps fewer of the differences between moves (the shipped classic student: about 195,000,
    where float32's step is 0.016; docs/training.md, "The scale of the scores")."""
    import mlx.core as mx
    from openlandlord.model.losses import composition_index, log_softmax, value_target

    sums = np.zeros(8, np.float64)  # n, agree, kl, value se, belief nll, belief slots, regret, offset^2
    bins = np.zeros((3, CALIBRATION_BINS), np.float64)   # count, confidence, correct
    model.eval()
    # Chunks of like legal-list lengths: a chunk pads every decision to its longest list, and
    # in split order one 254-move `classic` throw in a chunk pads all 512 (val metrics of
    # 13,029 classic decisions, the fast BLAS: 48 s in split order, 17 s by length). The
    # sums do not depend on the order, up to float rounding and the argmax of exact ties.
    ordered = sorted(samples, key=lambda s: len(s["target_policy"]))
    for start in range(0, len(ordered), cfg.eval_batch_size):
        chunk = ordered[start:start + cfg.eval_batch_size]
        batch = collate(chunk)
        inputs = to_mx(batch)
        out = model(inputs, centred=False)  # the function the trainer fits
        logp = log_softmax(out["logits"])
        target = inputs["target_policy"]
        kl = (mx.where(target > 0, target * (mx.log(mx.maximum(target, 1e-30)) - logp), 0.0)).sum(axis=-1)
        vt = value_target(inputs["score"], mcfg)
        mx.eval(out, kl, vt)
        logits = np.array(out["logits"], np.float64)
        choice = np.argmax(logits, axis=1)
        legal = batch["action_mask"] > 0
        sums[7] += float(np.square((logits * legal).sum(axis=1) / legal.sum(axis=1)).sum())
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
               "val_value_mse": sums[3] / n, "val_logit_offset": float(np.sqrt(sums[7] / n))}
    if sums[5] > 0:
        count = bins[0]
        metrics["val_belief_nll"] = sums[4] / sums[5]
        metrics["val_belief_ece"] = float(np.abs(bins[1] - bins[2]).sum() / max(count.sum(), 1.0))
        metrics["val_belief_reliability"] = [
            [float(bins[1, i] / count[i]), float(bins[2, i] / count[i]), int(count[i])]
            for i in range(CALIBRATION_BINS) if count[i] > 0]
    return metrics


def trim_metrics(path: Path, epoch: int, step: int) -> None:
    """Drop metric lines written after the checkpoint a run resumes from, and a last line
    torn by a kill mid-append (no newline); the trimmed file replaces the old one whole."""
    if not path.exists():
        return
    kept = []
    text = path.read_text()
    for line in text.split("\n")[:-1]:
        if not line.strip():
            continue
        row = json.loads(line)
        if (row["kind"] == "model" or (row["kind"] == "epoch" and row["epoch"] <= epoch)
                or (row["kind"] == "step" and row["step"] <= step)):
            kept.append(line)
    artefacts.write_text(path, "".join(k + "\n" for k in kept))


def scalars(row: dict) -> dict:
    return {k: v for k, v in row.items() if isinstance(v, (int, float)) and k != "kind"}


def append(path: Path, row: dict) -> None:
    """One line on the run's own log (its lock held): a kill mid-line tears at most the last
    line, which `trim_metrics` drops on --resume."""
    with open(path, "a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")


def epoch_line(row: dict) -> str:
    parts = [f"epoch {row['epoch']}", f"loss {row['train_loss']:.4f}"]
    if row["val_decisions"]:
        parts += [f"val top1 {row['val_top1']:.3f}", f"regret {row['val_regret']:.4f}", f"KL {row['val_kl']:.4f}",
                  f"value MSE {row['val_value_mse']:.4f}"]
        if "val_logit_offset" in row:  # rows of runs made before it was measured lack it
            parts.append(f"logit offset {row['val_logit_offset']:.3g}")
    else:
        parts.append("no val decisions")
    if "val_belief_nll" in row:
        parts += [f"belief NLL {row['val_belief_nll']:.4f}", f"ECE {row['val_belief_ece']:.3f}"]
    parts.append(f"{row['samples_per_s']:.0f} samples/s")
    return ", ".join(parts)
