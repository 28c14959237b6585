"""One training run's model, AdamW optimizer, learning-rate schedule and step function:
a step on this process's rows of a global batch, its gradients summed over the processes
weighted by their shares of the batch."""
from __future__ import annotations

from .batches import to_mx
from .config import TrainConfig
from .distributed import all_sum_scaled


def make_schedule(cfg: TrainConfig, total_steps: int):
    import mlx.optimizers as optim

    # Warmup is capped at half the run, so that a short run still decays.
    warmup = min(cfg.warmup_steps, total_steps // 2)
    decay = optim.cosine_decay(cfg.lr, max(total_steps - warmup, 1), cfg.min_lr)
    if warmup == 0:
        return decay
    return optim.join_schedules([optim.linear_schedule(cfg.lr / warmup, cfg.lr, warmup), decay], [warmup])


class Trainer:
    """One training run's model, optimizer and step function. `loss` (default the student's
    distillation loss, model.losses.loss_fn) is any `loss(model, batch) -> (total, parts)`:
    DMC self-play (distill/dmc.py) trains through this same step with its own."""

    def __init__(self, cfg: TrainConfig, mcfg, total_steps: int, group, loss=None):
        import mlx.core as mx
        import mlx.nn as nn
        import mlx.optimizers as optim
        from openlandlord.model import LandlordFormerLite
        from openlandlord.model.losses import PARTS, loss_fn

        self.cfg, self.mcfg, self.group = cfg, mcfg, group
        mx.random.seed(cfg.seed)
        self.model = LandlordFormerLite(mcfg)
        self.optimizer = optim.AdamW(learning_rate=make_schedule(cfg, total_steps),
                                     weight_decay=cfg.weight_decay)
        self.optimizer.init(self.model.trainable_parameters())
        mx.eval(self.model.parameters(), self.optimizer.state)
        loss = loss or loss_fn
        self.part_names = getattr(loss, "part_names", PARTS)
        grad_fn = nn.value_and_grad(self.model, loss)
        distributed = group.size() > 1

        def step(batch, share):
            (total, parts), grads = grad_fn(self.model, batch)
            if distributed:
                # share = this rank's rows / the global batch's rows: the weighted sum over
                # ranks is the gradient of the global batch's mean loss.
                grads, total, parts = all_sum_scaled(grads, total, parts, share, group)
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
            total, parts = self._step(to_mx(batch), mx.array(share, dtype=mx.float32))
        mx.eval(self.model.parameters(), self.optimizer.state, total, parts)
        return float(total), {k: float(v) for k, v in parts.items()}

    def _idle_step(self):
        """A rank without rows in a global batch still joins the gradient sum, with zeros."""
        import mlx.core as mx
        import mlx.optimizers as optim
        from mlx.utils import tree_map

        zeros = tree_map(mx.zeros_like, self.model.trainable_parameters())
        nothing = mx.array(0.0)
        grads, total, parts = all_sum_scaled(zeros, nothing, dict.fromkeys(self.part_names, nothing),
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
