"""Training batches: each split featurized once into samples, the global batches of an
epoch (a function of seed and epoch only), each rank's share of them, and padding a batch
into model inputs and targets."""
from __future__ import annotations

import numpy as np

from .config import TrainConfig


def used(rec, max_hand: int = 0) -> bool:
    """Whether training uses a recorded decision: two or more legal moves (a forced move
    teaches nothing) and, with `max_hand` > 0, at most that many cards in the seat's hand."""
    return len(rec.legal) >= 2 and (max_hand <= 0 or len(rec.obs.hand) <= max_hand)


def load_split(ds, split: str, rank: int = 0, size: int = 1,
               temperature: float | None = None, max_hand: int = 0) -> list[dict]:
    """Featurize this rank's decisions of a split (index % size == rank), once: each
    sample holds the featurizer's arrays and the targets. `temperature` (None: the
    dataset's own targets) re-derives the policy target from the teacher's scores;
    `max_hand` keeps only decisions taken with at most that many cards (`used`)."""
    from openlandlord import agents, features

    samples = []
    index = 0
    for rec in ds.records(split):
        if not used(rec, max_hand):
            continue
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


def legal_counts(ds, split: str, max_hand: int = 0) -> np.ndarray:
    """Legal-list length of every decision of a split that training uses, in split order
    (every rank knows them all, so every rank forms the same global batches)."""
    return np.array([len(rec.legal) for rec in ds.records(split) if used(rec, max_hand)], np.int64)


def collate(samples: list[dict], action_bucket: int = 1, tokens: int | None = None,
            regret_temperature: float | None = None) -> dict:
    """Model inputs and targets of a batch, as numpy arrays. With `regret_temperature` (the
    regret term's, model.losses.student_loss) also `teacher_regret`: each move's (the
    teacher's best score - its score) / that temperature, 0 on padding slots."""
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
    if regret_temperature is not None:
        regret = np.zeros(batch["action_mask"].shape, np.float32)
        for row, s in enumerate(samples):
            scores = s["teacher_scores"]
            regret[row, :len(scores)] = (scores.max() - scores) / regret_temperature
        batch["teacher_regret"] = regret
    batch["teacher_choice"] = np.array([s["teacher_choice"] for s in samples], np.int32)
    batch["score"] = np.array([s["score"] for s in samples], np.float32)
    batch["belief_target"] = np.stack([s["belief_target"] for s in samples])
    return batch


def epoch_batches(counts: np.ndarray, cfg: TrainConfig, epoch: int) -> list[np.ndarray]:
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


def to_mx(batch: dict) -> dict:
    """A collated batch as the model's MLX inputs (and targets)."""
    import mlx.core as mx
    return {k: mx.array(v) for k, v in batch.items() if k != "teacher_choice"}
