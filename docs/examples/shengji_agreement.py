"""usage: python docs/examples/shengji_agreement.py DATA [N] [REFERENCE] [AGENT ...]: how good is
each decision of the `tractor` student, and of its teacher, on the teacher's own positions?
(issue 19; docs/models.md, "Decision by decision"). Takes the first N (default 2,000) whole-move
decisions of DATA's val split (card-by-card steps left out), scores every legal move with
REFERENCE (default pimc:objective=points,worlds=512,cap=1000: a search eight times the data's
teacher, over every legal move: with the default cap of 24 the moves past the rule bot's 24
best get made-up scores a whole unit under the searched ones, which would read as regrets of
80 points and more),
and reports for the teacher's recorded choice and for each AGENT (default: a fresh 64-world
teacher and the shipped student) its top-1 agreement with the recorded choice and with the
reference's, and its mean regret under the reference's scores (in the points objective's
units, x 80: card-point margin a decision), and each AGENT's regret after the first paired by
decision against the first's. Writes data/runs/agreement/NAME.json.

`python docs/examples/shengji_agreement.py --paired FILE.json` prints those paired differences
again from a file the script wrote."""
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from openlandlord import agents  # noqa: E402
from openlandlord.distill import dataset  # noqa: E402
from eval import stats  # noqa: E402

REFERENCE = "pimc:objective=points,worlds=512,cap=1000"
AGENTS = ("pimc:objective=points,worlds=64", "student:data/models/shengji")


def decisions(data: str, n: int) -> list:
    out = []
    for rec in dataset.open(data).records("val"):
        if rec.factored == -1 and len(rec.legal) >= 2:
            out.append(rec)
            if len(out) == n:
                break
    return out


def measure(data: str, n: int, reference: str, specs: list[str], seed: int = 1) -> dict:
    recs = decisions(data, n)
    ref = agents.make(reference, seed=seed + 1000)
    players = {s: agents.make(s, seed=seed) for s in specs}
    rows = {name: {"regret": [], "agree_teacher": [], "agree_reference": []}
            for name in ("recorded teacher", *specs)}
    started = time.perf_counter()
    shape = {"lead": [], "hand": [], "legal": []}
    for rec in recs:
        shape["lead"].append(not rec.obs.trick)
        shape["hand"].append(len(rec.obs.hand))
        shape["legal"].append(len(rec.legal))
        r = np.asarray(ref.scores(rec.obs, rec.legal), np.float64)
        best = agents.choose(r)
        choices = {"recorded teacher": rec.teacher_choice}
        for s, player in players.items():
            choices[s] = agents.choose(np.asarray(player.scores(rec.obs, rec.legal), np.float64))
        for name, c in choices.items():
            rows[name]["regret"].append(80 * (r.max() - r[c]))
            rows[name]["agree_teacher"].append(c == rec.teacher_choice)
            rows[name]["agree_reference"].append(c == best)
    result = {"data": data, "decisions": len(recs), "reference": reference,
              "mean_legal": float(np.mean([len(r.legal) for r in recs])),
              "seconds": time.perf_counter() - started, "agents": {},
              "per_decision": {**shape, **{name: row["regret"] for name, row in rows.items()}}}
    rng = np.random.default_rng(0)
    for name, row in rows.items():
        regret = np.array(row["regret"])
        boot = [regret[rng.integers(0, len(regret), len(regret))].mean() for _ in range(1000)]
        result["agents"][name] = {"regret": float(regret.mean()),
                                  "regret_ci95": [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))],
                                  "agree_teacher": float(np.mean(row["agree_teacher"])),
                                  "agree_reference": float(np.mean(row["agree_reference"])),
                                  **{f"regret_{part}": float(regret[mask].mean()) if mask.any() else None
                                     for part, mask in _parts(shape).items()},
                                  "share_over_10": float(regret[regret > 10].sum() / max(regret.sum(), 1e-12))}
    return result


def paired(result: dict) -> dict:
    """Each agent's regret after the first agent, minus the first's, paired by decision:
    {name: (mean difference, 95% CI)} (eval/stats.py's paired bootstrap)."""
    names = list(result["agents"])[1:]          # the recorded teacher first, then the AGENTs
    per = result["per_decision"]
    return {name: stats.paired_bootstrap(per[name], per[names[0]]) for name in names[1:]}


def print_paired(result: dict) -> None:
    first = list(result["agents"])[1]
    for name, (diff, (lo, hi)) in paired(result).items():
        print(f"  {name} minus {first}, paired by decision: regret {diff:+.2f} [{lo:+.2f}, {hi:+.2f}]")


def _parts(shape: dict) -> dict:
    """Masks of the decision kinds a regret is broken down by: leads, follows, and the last
    8 cards of a hand."""
    lead, hand = np.array(shape["lead"], bool), np.array(shape["hand"])
    return {"lead": lead, "follow": ~lead, "last8": hand <= 8}


def main(argv: list[str]) -> int:
    if not argv or (argv[0] == "--paired" and len(argv) != 2):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "--paired":
        print_paired(json.loads(Path(argv[1]).read_text()))
        return 0
    data, n = argv[0], int(argv[1]) if len(argv) > 1 else 2000
    reference = argv[2] if len(argv) > 2 else REFERENCE
    specs = argv[3:] or list(AGENTS)
    result = measure(data, n, reference, specs)
    out = Path("data/runs/agreement") / f"{Path(data).parent.parent.name}-{Path(data).name}-{n}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"{result['decisions']} decisions of {data} (mean {result['mean_legal']:.1f} legal moves), "
          f"reference {reference}, {result['seconds']:.0f} s")
    for name, a in result["agents"].items():
        lo, hi = a["regret_ci95"]
        print(f"  {name:45s} regret {a['regret']:.2f} [{lo:.2f}, {hi:.2f}]  "
              f"agrees with the recorded teacher {a['agree_teacher']:.3f}, the reference {a['agree_reference']:.3f}")
        parts = ", ".join(f"{part} {a['regret_' + part]:.2f}" for part in ("lead", "follow", "last8")
                          if a["regret_" + part] is not None)
        print(f"  {'':45s} regret by kind: {parts}; decisions over 10 points hold {a['share_over_10']:.0%} of it")
    print_paired(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
