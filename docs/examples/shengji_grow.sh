#!/bin/bash
# usage: docs/examples/shengji_grow.sh [OUT]: does the shipped `tractor` student gain from more
# room, grown from itself with its function kept (issue 19; docs/models.md, "The student grown")?
# Into OUT (data/runs/grow):
#   1. 3,000 every-rank `tractor` deals scored by the shipped student's teacher
#      (pimc:objective=points,worlds=64), seed 120 (about 45 minutes on 2 workers);
#   2. two fine-tunes of the shipped student on them with the same schedule and seed (3 epochs
#      at 5e-4, the earlier fine-tunes' schedule; one core each, at once): `ft` as it is, and
#      `grown` grown first to 4 encoder layers and a feed-forward of 240 (train --set
#      model.layers=4 --set model.ff=240: the shipped student's function, more parameters);
#   3. each against the shipped student and the two against each other on 2,000 fresh
#      every-rank deals (seed 777, 4,000 games), and each against `rule:expert` on the committed
#      dev set shengji-allranks-dev-260.
# Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/grow}
mkdir -p "$out/evals"
. docs/examples/_runs.sh
[ -f "$out/data/manifest.json" ] || openlandlord generate --game shengji --trump-rank any \
  --teacher pimc:objective=points,worlds=64 --deals 3000 --out "$out/data" --workers 2 --seed 120
schedule=(--epochs 3 --set init=data/models/shengji --set lr=0.0005 --set warmup_steps=50)
train ft "$out/data" "${schedule[@]}" &
train grown "$out/data" "${schedule[@]}" --set model.layers=4 --set model.ff=240 &
wait
fresh() {  # NAME AGENT OPPONENT: 2,000 fresh every-rank deals, seed 777
  [ -f "$out/evals/$1.json" ] || openlandlord eval --game shengji --trump-rank any --deals 2000 \
    --seed 777 --agent "$2" --opponent "$3" --workers 2 --no-records --json "$out/evals/$1.json" > /dev/null
}
for s in ft grown; do
  fresh $s-vs-shipped student:$out/$s student:data/models/shengji
  ev $s-vs-rule student:$out/$s rule:expert
done
fresh grown-vs-ft student:$out/grown student:$out/ft
ev shipped-vs-rule student:data/models/shengji rule:expert
report ft grown -- shipped rule
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("shipped-vs-rule", "grown-vs-ft"):
    r = json.load(open(f"{out}/evals/{name}.json"))
    lo, hi = r["mean_points_ci95"]
    print(f"{name:16s} points {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}]  levels {r['mean_score']:+.3f}  "
          f"win {r['win_rate']:.3f}")
for s in ("ft", "grown"):
    m = json.load(open(f"{out}/{s}/config.json"))
    print(f"{s:6s} {m['num_parameters']:,} parameters, {m['metrics']['samples_per_s']:.0f} samples/s")
PY
