"""Plot a DMC run's dev strength by chunk from docs/examples/dmc_curve.sh's eval JSONs.

    python docs/examples/dmc_curve.py dmc-ddz docs/img/dmc-ddz.png

One panel per measurement (`vs-shipped`: mean score, or card points in Shengji, against the
student the run started from; `douzero-rlcard`: DouZero's WP; `vs-rule-expert`: points),
each point a snapshot with its 95% CI, against the decisions it had learned; chunk 0 is the
starting student (its level: the dashed line).
"""
import glob
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(run: str, out: str) -> None:
    series = {}
    prefix = run.replace("/", "-")     # a run under a ship folder: ship-x/student-dmc
    for path in sorted(glob.glob(f"data/runs/dmc-evals/{prefix}-[0-9][0-9][0-9][0-9]-*.json")):
        chunk, kind = re.search(r"-(\d{4})-(.+)\.json$", path).groups()
        r = json.load(open(path))
        key = "wp" if "wp" in r else ("mean_points" if "mean_points" in r else "mean_score")
        learned = 0 if chunk == "0000" else json.load(open(f"data/runs/{run}/snapshots/chunk-{chunk}/config.json"))["decisions_learned"]
        series.setdefault((kind, key), []).append((learned, r[key], *r[f"{key}_ci95"]))
    fig, axes = plt.subplots(1, len(series), figsize=(5 * len(series), 3.6), squeeze=False)
    for ax, ((kind, key), points) in zip(axes[0], sorted(series.items())):
        points.sort()
        xs = [p[0] / 1e6 for p in points]
        ax.errorbar(xs, [p[1] for p in points], yerr=[[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]],
                    marker="o", capsize=3)
        if points[0][0] == 0 or kind == "vs-shipped":     # the starting student's level
            ax.axhline(0 if kind == "vs-shipped" else points[0][1], color="grey", lw=0.8, ls="--")
        ax.set_xlabel("decisions learned (millions)")
        ax.set_ylabel(key.replace("_", " "))
        ax.set_title(f"{prefix}: {kind}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
