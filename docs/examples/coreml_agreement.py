"""Does an exported Core ML package choose the moves its student chooses, on real decisions?

    python docs/examples/coreml_agreement.py DATASET STUDENT PACKAGE [PACKAGE ...] [--decisions N] [--json F]

`openlandlord export` checks a package against the torch mirror on random states (the largest
|difference|); this plays it on the first N decisions of a dataset's val split, the positions a
student meets, and counts for each package:

- `finite`: the share of decisions whose logits are all finite;
- `agrees_native`: the share where its best move is the native engine's (the players' default);
- `agrees_mlx` / `agrees_f64`: the same against the student run by MLX in float32 / float64;
- `median_abs_logit`: the student's median |logit| (float64), the scale the package must hold;
- `gap_error`: the median over decisions of the largest |difference| between its gaps to the
  best move (logit minus the best logit) and float64's: what the softmax and the argmax see.

Core ML cannot predict on Linux: the package runs under coremltools' own MIL evaluation
(`export.coreml.evaluate_mil`, fp16 programs computing in fp16), as `openlandlord export`
checks it.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

DECISION_KEYS = ("state_tokens", "actions", "role", "unseen", "capacity", "void")


def measure(data: str, student: str, packages: list[str], decisions: int = 200, batch: int = 100) -> list[dict]:
    import mlx.core as mx

    from openlandlord.distill import dataset
    from openlandlord.distill.batches import collate, load_split, to_mx
    from openlandlord.export.coreml import describe, evaluate_mil, load_program
    from openlandlord.model import native
    from openlandlord.model.checkpoint import load_checkpoint
    from openlandlord.model.chunked import score_in_chunks

    samples = load_split(dataset.open(data), "val")[:decisions]
    if not samples:
        raise SystemExit(f"{data} has no val decisions to measure on")
    model, _, _ = load_checkpoint(student)
    wide, _, _ = load_checkpoint(student)
    model.eval()
    wide.eval()
    wide.set_dtype(mx.float64)
    engine = native.NativeStudent(student) if native.available() else None
    reference = []  # (native argmax, MLX float32 argmax, float64 logits) per decision
    for start in range(0, len(samples), batch):
        chunk = samples[start:start + batch]
        inputs = to_mx(collate(chunk))
        logits = np.array(model(inputs)["logits"])
        as64 = {k: v.astype(mx.float64) if v.dtype == mx.float32 else v for k, v in inputs.items()}
        logits64 = np.array(wide(as64)["logits"])
        natives = engine.forward_batch(chunk) if engine else [None] * len(chunk)
        for i, (s, theirs) in enumerate(zip(chunk, natives)):
            n = len(s["target_policy"])
            reference.append((None if theirs is None else int(np.argmax(np.asarray(theirs["logits"])[:n])),
                              int(np.argmax(logits[i, :n])), logits64[i, :n]))
    rows = []
    for package in packages:
        meta = describe(package)["metadata"]
        slots, tokens = int(meta["slots"]), int(meta["state_tokens"])
        program = load_program(package)
        counts = {"finite": 0, "native": 0, "mlx": 0, "f64": 0}
        gaps = []
        for s, (theirs, ours, wide_logits) in zip(samples, reference):
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
                     "agrees_native": counts["native"] / n if engine else None,
                     "agrees_mlx": counts["mlx"] / n, "agrees_f64": counts["f64"] / n,
                     "median_abs_logit": float(np.median(np.abs(np.concatenate([r[2] for r in reference])))),
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
    print("| package | precision | fp32 parts | decisions | finite | same move as native | as MLX | as float64 "
          "| median abs logit | gap error (median) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        native = "-" if r["agrees_native"] is None else format(r["agrees_native"], ".3f")
        print(f"| `{r['package']}` | {r['precision']} | {r['fp32_parts']} | {r['decisions']} | {r['finite']:.3f} "
              f"| {native} | {r['agrees_mlx']:.3f} | {r['agrees_f64']:.3f} | {r['median_abs_logit']:,.0f} | {r['gap_error']:.3g} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
