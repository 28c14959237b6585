"""Training losses of the student: soft cross-entropy to the teacher's softmax over the
legal actions, value regression, and belief cross-entropy to the true hidden composition.

Training batches carry, besides the model inputs (see student.py):
    target_policy  float32 [B, A]     the teacher's temperature softmax, 0 on padding slots
    score          float32 [B]        final signed score of the acting seat
    belief_target  int32   [B, R, H]  true count of each slot in each hidden hand
    belief_mask    float32 [B]        optional: 0 for decisions whose hidden cards are not all
                                      in the H hands (Dou Dizhu before the kitty is taken)
    teacher_regret float32 [B, A]     (the teacher's best score - its score of each move) / the
                                      game's teacher temperature, 0 on padding slots; only the
                                      regret term (`regret_weight` > 0) reads it, and only such a
                                      run's batches carry it (distill.batches.collate)

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


def student_loss(outputs: dict, batch: dict, cfg: ModelConfig, regret_weight: float = 0.0,
                 center_weight: float = 0.0):
    """-> (total, {"policy", "value", "belief"}), each a scalar averaged over the batch.

    `regret_weight` > 0 adds the student's expected regret under the teacher's scores,
    sum_a pi(a) (max_b s_b - s_a) / T (part "regret"): the teacher's score the student's own
    policy gives up, in temperature units. The cross-entropy weighs every decision alike,
    whether its moves differ by nothing or by a trick's worth; this term weighs each decision
    by what a wrong move there costs (training.md, "Regret-weighted training").

    `center_weight` > 0 adds the square of each decision's mean legal logit (part "center").
    The softmax ignores a logit common to every move, so nothing else holds it down, and in
    the `classic` fine-tunes it grew to about 2e5, where float32 keeps steps of 0.016 between
    moves (training.md, "The scale of the scores")."""
    action_mask = batch["action_mask"]
    policy = -(batch["target_policy"] * log_softmax(outputs["logits"]) * action_mask).sum(axis=-1).mean()
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
    parts = {"policy": policy, "value": value, "belief": belief}
    if regret_weight > 0:
        probs = mx.softmax(outputs["logits"], axis=-1) * action_mask
        parts["regret"] = (probs * batch["teacher_regret"]).sum(axis=-1).mean()
        total = total + regret_weight * parts["regret"]
    if center_weight > 0:
        mean = (outputs["logits"] * action_mask).sum(axis=-1) / mx.maximum(action_mask.sum(axis=-1), 1.0)
        parts["center"] = mx.square(mean).mean()
        total = total + center_weight * parts["center"]
    return total, parts


PARTS = ("policy", "value", "belief")


def loss_fn(model, batch: dict):
    """For nn.value_and_grad(model, loss_fn): the total first, the parts after it."""
    total, parts = student_loss(model(batch, centred=False), batch, model.config)
    return total, parts


loss_fn.part_names = PARTS


def make_loss_fn(regret_weight: float = 0.0, center_weight: float = 0.0, centred: bool = False):
    """The distillation loss of a training run: `loss_fn`, or with `regret_weight` or
    `center_weight` > 0 the same plus those terms, or with `centred` the same on the players'
    centred scores (the same softmax; the centering term then holds their mean). `part_names`
    lists the parts it returns."""
    if regret_weight <= 0 and center_weight <= 0 and not centred:
        return loss_fn

    def weighted_loss_fn(model, batch: dict):
        return student_loss(model(batch, centred=centred), batch, model.config, regret_weight, center_weight)
    weighted_loss_fn.part_names = (PARTS + ("regret",) * (regret_weight > 0)
                                   + ("center",) * (center_weight > 0))
    return weighted_loss_fn
