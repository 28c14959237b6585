"""Does an exported Core ML package choose the moves its student chooses, on real decisions?

    python docs/examples/coreml_agreement.py DATASET STUDENT PACKAGE [PACKAGE ...] [--decisions N] [--json F]

`openlandlord export` checks a package against the torch mirror on random states (the largest
|difference|); this plays it on the first N decisions of a dataset's val split, the positions a
student meets, and counts for each package:

- `finite`: the share of decisions whose logits are all finite;
- `agrees_native`: the share where its best move is the native engine's (the players' default);
- `agrees_mlx` / `agrees_f64`: the same against the student run by MLX in float32 / float64;
- `median_abs_logit`: the student's median |logit| (float64), the scale the package must hold
  (the players' centred logits, `score`'s default, as the package computes them), and
  `plain_median_abs_logit`, the trainer's plain sum, which holds the part common to the moves;
- `gap_error`: the median over decisions of the largest |difference| between its gaps to the
  best move (logit minus the best logit) and float64's: what the softmax and the argmax see.

Core ML cannot predict on Linux: the package runs under coremltools' own MIL evaluation
(`export.coreml.evaluate_mil`, fp16 programs computing in fp16), as `openlandlord export`
checks it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
# docs/examples/student_scale.py, beside this one: the student in float32, float64 and native
from student_scale import Engines, report  # noqa: E402

DECISION_KEYS = ("state_tokens", "actions", "role", "unseen", "capacity", "void")


def measure(data: str, student: str, packages: list[str], decisions: int = 200, batch: int = 100) -> list[dict]:
    from openlandlord.distill import dataset
    from openlandlord.distill.batches import load_split
    from openlandlord.export.coreml import describe, evaluate_mil, load_program
    from openlandlord.model.chunked import score_in_chunks

    samples = load_split(dataset.open(data), "val")[:decisions]
    if not samples:
        raise SystemExit(f"{data} has no val decisions to measure on")
    engines = Engines(student)
    reference = []  # (native argmax, MLX float32 argmax, float64 logits, plain float64) per decision
    for start in range(0, len(samples), batch):
        chunk = samples[start:start + batch]
        out = engines(chunk)
        for i, (s, theirs) in enumerate(zip(chunk, out["native"])):
            n = len(s["target_policy"])
            reference.append((None if theirs is None else int(np.argmax(np.asarray(theirs["logits"])[:n])),
                              int(np.argmax(out["centred"][i, :n])), out["centred64"][i, :n], out["plain64"][i, :n]))
    rows = []
    for package in packages:
        meta = describe(package)["metadata"]
        slots, tokens = int(meta["slots"]), int(meta["state_tokens"])
        program = load_program(package)
        counts = {"finite": 0, "native": 0, "mlx": 0, "f64": 0}
        gaps = []
        for s, (theirs, ours, wide_logits, _) in zip(samples, reference):
            got = np.asarray(score_in_chunks(lambda name, inputs: evaluate_mil(program, name, inputs),
                                             {k: s[k] for k in DECISION_KEYS}, slots, tokens)["logits"],
                             dtype=np.float64)
            best = int(np.argmax(got))
            finite = bool(np.isfinite(got).all())
            counts["finite"] += finite
            counts["native"] += best == theirs
            counts["mlx"] += best == ours
            counts["f64"] += best == int(np.argmax(wide_logits))
            gaps.append(float(np.abs((got - got.max()) - (wide_logits - wide_logits.max())).max())
                        if finite else float("inf"))
        n = len(samples)
        rows.append({"package": package, "precision": meta["precision"],
                     "fp32_parts": meta.get("fp32_parts", "none (made before the mixed fp16 export)"),
                     "decisions": n, "finite": counts["finite"] / n,
                     "agrees_native": counts["native"] / n if engines.native else None,
                     "agrees_mlx": counts["mlx"] / n, "agrees_f64": counts["f64"] / n,
                     "median_abs_logit": float(np.median(np.abs(np.concatenate([r[2] for r in reference])))),
                     "plain_median_abs_logit": float(np.median(np.abs(np.concatenate([r[3] for r in reference])))),
                     "gap_error": float(np.median(gaps))})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data")
    parser.add_argument("student")
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    rows = measure(args.data, args.student, args.packages, args.decisions)
    share = lambda key: lambda r: "-" if r[key] is None else format(r[key], ".3f")  # noqa: E731
    report(rows, args.json, [
        ("package", lambda r: f"`{r['package']}`"), ("precision", lambda r: r["precision"]),
        ("fp32 parts", lambda r: r["fp32_parts"]), ("decisions", lambda r: str(r["decisions"])),
        ("finite", share("finite")), ("same move as native", share("agrees_native")), ("as MLX", share("agrees_mlx")),
        ("as float64", share("agrees_f64")), ("median abs logit", lambda r: f"{r['median_abs_logit']:,.0f}"),
        ("plain sum's", lambda r: f"{r['plain_median_abs_logit']:,.0f}"), ("gap error (median)", lambda r: f"{r['gap_error']:.3g}")])
    return 0

if __name__ == "__main__":
    sys.exit(main())
