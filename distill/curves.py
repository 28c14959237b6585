"""curves.png of a run, drawn from its metrics.jsonl."""
from __future__ import annotations

import json
import os
from pathlib import Path


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
