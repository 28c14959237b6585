"""usage: python docs/examples/shengji_belief_info.py STUDENT DATA [N]: how much a `tractor`
student's belief head knows of the hidden hands beyond what the search's world sampler already
uses (hand sizes and shown voids). On the first N (default 1,500) whole-move decisions of DATA's
val split, the log-likelihood of the true hidden hands (every unseen card's holder) under the
head's per-card shares (its expected counts, normalised per card) minus that under the
sampler's own shares (each hand's size, zero where the hand has shown void in the card's
category): nats per position, by cards in hand. docs/pimc.md, "Worlds weighted by a belief".
Writes data/runs/belief/info.json."""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from openlandlord.distill import dataset  # noqa: E402
from openlandlord.features import featurize  # noqa: E402
from openlandlord.games.shengji.features import belief_target  # noqa: E402
from openlandlord.model.native import NativeStudent  # noqa: E402

BUCKETS = ((1, 8), (9, 16), (17, 25))


def log_likelihood(truth: np.ndarray, shares: np.ndarray) -> float:
    """Sum over the unseen cards of log(share of the hand that holds it); [54 slots, 3 hands]."""
    unseen = truth.sum(1) > 0
    shares = np.maximum(shares[unseen], 1e-12)
    return float((truth[unseen] * np.log(shares / shares.sum(1, keepdims=True))).sum())


def measure(student: str, data: str, n: int) -> dict:
    head = NativeStudent(student)
    gains, hands = [], []
    for rec in dataset.open(data).records("val"):
        if rec.factored != -1:
            continue
        sample = featurize(rec.obs, rec.legal)
        expect = np.asarray(head.forward(sample)["belief_expect"], np.float64)
        truth = belief_target(rec.obs, rec.hands).astype(np.float64)
        sizes = truth.sum(0)
        sampler = sizes[None, :] * (1.0 - np.asarray(sample["void"], np.float64).T)
        gains.append(log_likelihood(truth, np.maximum(expect, 1e-3)) - log_likelihood(truth, sampler))
        hands.append(len(rec.obs.hand))
        if len(gains) == n:
            break
    gains, hands = np.array(gains), np.array(hands)
    return {"student": student, "data": data, "positions": len(gains),
            "nats_per_position": float(gains.mean()),
            "by_cards_in_hand": {f"{lo}-{hi}": float(gains[(hands >= lo) & (hands <= hi)].mean())
                                 for lo, hi in BUCKETS}}


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    result = measure(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1500)
    out = Path("data/runs/belief/info.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
