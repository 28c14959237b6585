"""Training losses of the student: soft cross-entropy to the teacher's softmax over the
legal actions, value regression, and belief cross-entropy to the true hidden composition.

Training batches carry, besides the model inputs (see student.py):
    target_policy  float32 [B, A]     the teacher's temperature softmax, 0 on padding slots
    score          float32 [B]        final signed score of the acting seat
    belief_target  int32   [B, R, H]  true count of each slot in each hidden hand
    belief_mask    float32 [B]        optional: 0 for decisions whose hidden cards are not all
                                      in the H hands (Dou Dizhu before the kitty is taken)

A true composition the head masks out (it does not sum to the unseen count, or breaks a
hand size or a void) costs about MASK_VALUE / R: inconsistent targets show up, not vanish.
"""
import mlx.core as mx
import numpy as np

from .student import ModelConfig, compositions


def value_target(score, cfg: ModelConfig):
    """What the value head regresses: clip(score / scale, -1, 1), or the sign (win/loss)."""
    if cfg.value_target == "winloss":
        return mx.sign(score)
    return mx.clip(score / cfg.value_scale, -1.0, 1.0)


def composition_index(counts, cfg: ModelConfig):
    """[B, R, H] hidden counts -> [B, R] row index into `compositions(H, C)`."""
    comps = compositions(cfg.belief_holders, cfg.belief_max_count)
    base = cfg.belief_max_count + 1
    # compositions() lists rows in base-(C+1) order, first hand most significant.
    weights = base ** np.arange(cfg.belief_holders - 1, -1, -1)
    lookup = np.full(base ** cfg.belief_holders, -1, dtype=np.int32)
    lookup[comps @ weights] = np.arange(len(comps), dtype=np.int32)
    code = (counts.astype(mx.int32) * mx.array(weights.astype(np.int32))).sum(axis=-1)
    return mx.array(lookup)[code]


def log_softmax(x):
    return x - mx.logsumexp(x, axis=-1, keepdims=True)


def student_loss(outputs: dict, batch: dict, cfg: ModelConfig):
    """-> (total, {"policy", "value", "belief"}), each a scalar averaged over the batch."""
    mask = batch["action_mask"]
    policy = -(batch["target_policy"] * log_softmax(outputs["logits"]) * mask).sum(axis=-1).mean()
    value = mx.square(outputs["value"] - value_target(batch["score"], cfg)).mean()
    if "belief_logits" in outputs:
        truth = composition_index(batch["belief_target"], cfg)
        logp = mx.take_along_axis(log_softmax(outputs["belief_logits"]), truth[..., None], axis=-1)[..., 0]
        if "belief_mask" in batch:
            mask = batch["belief_mask"]
            belief = -(logp.mean(axis=-1) * mask).sum() / mx.maximum(mask.sum(), 1.0)
        else:
            belief = -logp.mean()
    else:
        belief = mx.array(0.0)
    total = cfg.policy_weight * policy + cfg.value_weight * value + cfg.belief_weight * belief
    return total, {"policy": policy, "value": value, "belief": belief}


def loss_fn(model, batch: dict):
    """For nn.value_and_grad(model, loss_fn): the total first, the parts after it."""
    total, parts = student_loss(model(batch), batch, model.config)
    return total, parts
