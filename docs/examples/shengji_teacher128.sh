#!/bin/bash
# usage: docs/examples/shengji_teacher128.sh [OUT] [CAP]: does the `tractor` student gain from a
# stronger teacher? (issue 19; docs/models.md, "A stronger teacher's data"). Into OUT
# (data/runs/t128):
#   1. 2,000 every-rank `tractor` deals scored by pimc:objective=points,worlds=128,solve=12
#      (+17.5 points a deal against `rule:expert` on the dev set, where the shipped student's
#      64-world teacher makes +15.0), seeds 15 and 16: about 19 minutes a 1,000 on 2 workers;
#   2. the shipped student fine-tuned on them alone, and on their union with the 3,000
#      64-world deals of docs/examples/shengji_capacity.sh (CAP, data/runs/cap; made here with
#      that script's command when missing), each with the every-rank round's schedule, two
#      trainings at a time (one core each);
#   3. each against `rule:expert` and head to head against the shipped student on the
#      committed dev set shengji-allranks-dev-260.
# Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/t128}
cap=${2:-data/runs/cap}
mkdir -p "$out/data" "$out/evals" "$out/union"
gen() {  # DIR TEACHER SEED: 1,000 every-rank deals, skipped when finished
  [ -f "$1/manifest.json" ] || openlandlord generate --game shengji --trump-rank any --teacher "$2" \
    --deals 1000 --out "$1" --workers 2 --seed "$3"
}
for s in 15 16; do gen "$out/data/seed-$s" pimc:objective=points,worlds=128,solve=12 $s; done
for s in 5 6 7; do gen "$cap/data/seed-$s" pimc:objective=points,worlds=64 $s; done
for d in "$out"/data/seed-* "$cap"/data/seed-*; do
  ln -sfn "$(realpath "$d")" "$out/union/$(basename "$(dirname "$(dirname "$d")")")-$(basename "$d")"
done
train() {  # NAME DATA ARGS...: one fine-tune of the shipped student, skipped when written
  local name=$1 data=$2 resume=; shift 2
  [ -f "$out/$name/weights.safetensors" ] && return
  [ -d "$out/$name" ] && resume=--resume  # an interrupted run continues
  OPENBLAS_NUM_THREADS=1 openlandlord train --data "$data" --out "$out/$name" --set seed=1 \
    --set init=data/models/shengji --set lr=0.0005 --set warmup_steps=50 $resume "$@" >> "$out/$name.log" 2>&1
}
train ft128 "$out/data" --epochs 4 &
train ftunion "$out/union" --epochs 3 &
wait
ev() {  # NAME AGENT OPPONENT
  [ -f "$out/evals/$1.json" ] || openlandlord eval --game shengji --deal-set shengji-allranks-dev-260 \
    --agent "$2" --opponent "$3" --workers 2 --no-records --json "$out/evals/$1.json" > /dev/null
}
for s in ft128 ftunion; do
  ev $s-vs-rule student:$out/$s rule:expert
  ev $s-vs-shipped student:$out/$s student:data/models/shengji
done
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for s in ("ft128", "ftunion"):
    m = json.load(open(f"{out}/{s}/config.json"))["metrics"]
    print(f"{s:8s} val top-1 {m['val_top1']:.3f}  regret {m['val_regret']:.4f}  kl {m['val_kl']:.3f}  "
          f"{m['val_decisions']} val decisions")
    for o in ("rule", "shipped"):
        r = json.load(open(f"{out}/evals/{s}-vs-{o}.json"))
        lo, hi = r["mean_points_ci95"]
        print(f"  vs {o:8s} points {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}]  "
              f"levels {r['mean_score']:+.3f}  win {r['win_rate']:.3f}")
PY
