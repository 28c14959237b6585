"""The scale of a student's action scores, and what float32 keeps of them.

    python docs/examples/student_scale.py DATASET STUDENT [STUDENT ...] [--decisions N] [--json F]

For each student, on the first N decisions of the dataset's val split (the ones training uses):

- `median_abs_logit`: the median |logit| of the legal moves, as the trainer computes them (the
  plain sum, `score(centred=False)`). The softmax ignores a logit common to every move of a
  decision, so nothing in the loss holds it down; where it is large, float32 keeps fewer of the
  differences between moves (its step at the median, `ulp`);
- `spread`: the mean, over decisions, of the largest minus the smallest legal logit (what the
  policy uses);
- `top_tied`: the share of decisions whose two best moves score exactly alike in float32;
- `argmax_f64_differs`: the share whose float32 argmax moves when the same weights run in
  float64 (all four of these: the trainer's plain sum);
- `players_f64_differs`: the same for the players' centred logits (`score`'s default, which
  leaves the part common to the moves out), MLX in float32 against float64;
- `native_differs`: the share where the native engine (the players' default) and MLX, both
  float32 and centred, choose different moves;
- `score_units_on/off/mixed`: of the score head's hidden units (`score_hidden`, after the Deep
  Sets term is added), the mean share on for every legal move of a decision, off for every one,
  or on for some: mixed units are where the head is non-linear across the moves.

The MLX model (the training engine) runs it; the native engine computes the centred function.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np


def measure(data: str, students: list[str], decisions: int = 1500, batch: int = 250) -> list[dict]:
    from openlandlord.distill import dataset
    from openlandlord.distill.batches import load_split

    samples = load_split(dataset.open(data), "val")[:decisions]
    if not samples:
        raise SystemExit(f"{data} has no val decisions to measure on")
    samples.sort(key=lambda s: len(s["target_policy"]))
    rows = []
    for directory in students:
        engines = Engines(directory)
        stats = {"abs": [], "spread": [], "tied": 0, "differs": 0, "players": 0, "native": 0, "on": [], "off": [],
                 "mixed": []}
        for start in range(0, len(samples), batch):
            chunk = samples[start:start + batch]
            out = engines(chunk)
            hidden = np.array(_score_hidden(engines.model, out["inputs"]))
            for i, (s, theirs) in enumerate(zip(chunk, out["native"])):
                n = len(s["target_policy"])
                row, wide, centred = out["plain"][i, :n], out["plain64"][i, :n], out["centred"][i, :n]
                top = np.sort(row)[-2:]
                stats["abs"].extend(np.abs(row).tolist())
                stats["spread"].append(float(row.max() - row.min()))
                stats["tied"] += int(top[0] == top[1])
                stats["differs"] += int(np.argmax(row) != np.argmax(wide))
                stats["players"] += int(np.argmax(centred) != np.argmax(wide))
                if theirs is not None:
                    stats["native"] += int(np.argmax(centred) != np.argmax(np.asarray(theirs["logits"])[:n]))
                on = hidden[i, :n] > 0
                stats["on"].append(on.all(0).mean())
                stats["off"].append((~on).all(0).mean())
                stats["mixed"].append(1.0 - on.all(0).mean() - (~on).all(0).mean())
        median = float(np.median(stats["abs"]))
        rows.append({"student": directory, "decisions": len(samples),
                     "median_abs_logit": median, "ulp": float(np.spacing(np.float32(median))),
                     "spread": float(np.mean(stats["spread"])),
                     "top_tied": stats["tied"] / len(samples),
                     "argmax_f64_differs": stats["differs"] / len(samples),
                     "players_f64_differs": stats["players"] / len(samples),
                     "native_differs": stats["native"] / len(samples) if engines.native else None,
                     "score_units_on": float(np.mean(stats["on"])),
                     "score_units_off": float(np.mean(stats["off"])),
                     "score_units_mixed": float(np.mean(stats["mixed"]))})
    return rows


class Engines:
    """One student as the trainer and as the players compute it: MLX in float32 and the same
    weights in float64, each as the plain sum of the score head (`centred=False`, the trainer's)
    and centred (the players'), and the native engine (the players' default; None where it is
    not built). `engines(samples)` -> {"inputs": the MLX inputs, "plain", "plain64", "centred",
    "centred64": logits [B, A] padded, "native": its outputs} of a chunk of dataset samples."""

    def __init__(self, directory: str):
        import mlx.core as mx

        from openlandlord.model import native
        from openlandlord.model.checkpoint import load_checkpoint

        self.model, _, _ = load_checkpoint(directory)
        self.wide, _, _ = load_checkpoint(directory)
        self.model.eval()
        self.wide.eval()
        self.wide.set_dtype(mx.float64)
        self.native = native.NativeStudent(directory) if native.available() else None

    def __call__(self, samples: list[dict]) -> dict:
        import mlx.core as mx

        from openlandlord.distill.batches import collate, to_mx

        inputs = to_mx(collate(samples))
        as64 = {k: v.astype(mx.float64) if v.dtype == mx.float32 else v for k, v in inputs.items()}
        out = {"inputs": inputs,
               "native": self.native.forward_batch(samples) if self.native else [None] * len(samples)}
        for name, model, x in (("", self.model, inputs), ("64", self.wide, as64)):
            out["plain" + name] = np.array(model(x, centred=False)["logits"])
            out["centred" + name] = np.array(model(x)["logits"])
        return out


def _score_hidden(model, inputs):
    """The score head's hidden pre-activations [B, A, d], as the model's own `score` forms them."""
    memory, memory_mask, _, _ = model.encode_state(inputs["state_tokens"], inputs["state_mask"], inputs["role"],
                                                   inputs["unseen"], inputs["capacity"], inputs["void"])
    embeddings = model.embed_actions(memory, memory_mask, inputs["actions"], inputs["role"])
    return model.score_preactivation(embeddings, model.pool(embeddings, inputs["action_mask"]), inputs["role"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data")
    parser.add_argument("students", nargs="+")
    parser.add_argument("--decisions", type=int, default=1500)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    rows = measure(args.data, args.students, args.decisions)
    share = lambda key: lambda r: "-" if r[key] is None else format(r[key], ".3f")  # noqa: E731
    report(rows, args.json, [
        ("student", lambda r: f"`{r['student']}`"), ("median abs logit", lambda r: f"{r['median_abs_logit']:,.0f}"),
        ("float32 step", lambda r: f"{r['ulp']:.4f}"), ("spread", lambda r: f"{r['spread']:.2f}"),
        ("top two tied", share("top_tied")), ("argmax moves in float64", share("argmax_f64_differs")),
        ("the players' argmax moves in float64", share("players_f64_differs")),
        ("native and MLX choose apart", share("native_differs")),
        ("score units on / off / mixed", lambda r: f"{r['score_units_on']:.2f} / {r['score_units_off']:.2f} / "
                                                   f"{r['score_units_mixed']:.2f}")])
    return 0


def report(rows: list[dict], json_path: str | None, columns: list[tuple]) -> None:
    """Print `rows` as a Markdown table of `columns` ((header, row -> cell text), the first
    left-aligned, the rest right), and write them to `json_path` when given."""
    print("| " + " | ".join(header for header, _ in columns) + " |")
    print("|---|" + "---:|" * (len(columns) - 1))
    for r in rows:
        print("| " + " | ".join(cell(r) for _, cell in columns) + " |")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=1)

if __name__ == "__main__":
    sys.exit(main())
