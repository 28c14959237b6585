"""What a dataset holds of bidding decisions, and how well a student learned them:

    python -m distill.bidstats DATASET [--student DIR] [--split val] [--limit N]

For each kind of bidding decision (the game spec's `bidding_kind`: Dou Dizhu `bid` / `double`,
Shengji `declare` / `bury`): how many were recorded and, with `--student`, how often the
student's argmax is the teacher's choice. Dou Dizhu doubles are also checked against real
play, by role: how often the teacher doubled, the teacher's mean score for `nodouble`
against the seat's recorded score at the undoubled stake (its score halved when it doubled),
and that real score where the teacher's `nodouble` score was above zero and where it was not
(docs/pimc.md, "The doubling biases")."""
from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np


def bid_stats(path: str, student: str | None = None, split: str | None = None,
              limit: int | None = None) -> dict:
    from openlandlord.agents import make
    from openlandlord.games import spec

    from . import dataset
    agent = make(f"student:{student}", seed=0) if student else None
    kinds: dict = defaultdict(lambda: {"decisions": 0, "student_agrees": 0})
    doubles: dict = defaultdict(list)
    seen = 0
    for r in dataset.open(path).records(split):
        kind = spec(r.obs.game).bidding_kind(r.obs, r.legal)
        if kind is None:
            continue
        if limit is not None and seen >= limit:
            break
        seen += 1
        kinds[kind]["decisions"] += 1
        if agent is not None:
            kinds[kind]["student_agrees"] += int(np.argmax(agent.scores(r.obs, r.legal))) == r.teacher_choice
        if kind == "double" and "nodouble" in r.legal:
            doubled = r.legal[r.played] == "double"
            doubles[r.role].append((float(r.teacher_scores[r.legal.index("nodouble")]),
                                    r.score / (2 if doubled else 1), float(doubled)))
    out: dict = {"dataset": path, "split": split, "kinds": {}}
    for kind, k in sorted(kinds.items()):
        entry = {"decisions": k["decisions"]}
        if agent is not None:
            entry["student_top1"] = k["student_agrees"] / k["decisions"]
        out["kinds"][kind] = entry
    if doubles:
        out["doubles"] = {}
        for role, rows in sorted(doubles.items()):
            estimate, real, doubled = (np.array(x) for x in zip(*rows))
            positive = estimate > 0
            out["doubles"][role] = {
                "decisions": len(rows), "teacher_doubled": float(doubled.mean()),
                "teacher_nodouble_mean": float(estimate.mean()), "real_undoubled_mean": float(real.mean()),
                "real_where_teacher_positive": float(real[positive].mean()) if positive.any() else None,
                "real_where_teacher_not": float(real[~positive].mean()) if (~positive).any() else None}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset")
    p.add_argument("--student", default=None, help="a student checkpoint to check (default: none)")
    p.add_argument("--split", default=None, choices=("train", "val", "test"), help="default: all")
    p.add_argument("--limit", type=int, default=None, help="at most this many bidding decisions")
    args = p.parse_args(argv)
    print(json.dumps(bid_stats(args.dataset, args.student, args.split, args.limit), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
