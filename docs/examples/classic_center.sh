#!/bin/bash
# usage: docs/examples/classic_center.sh: does holding the scores' common part down
# (`train --set logit_center_weight=W`, docs/training.md "The scale of the scores") change the
# `classic` student? Into data/runs/center and data/runs/arch:
#   1. from the student shipped before (data/models/shengji-classic at git 40c324b, restored
#      into data/runs/ship-classic-w256b/soup-start when missing), on the data of the shipped
#      round (data/runs/cw256b/union, made by classic_w256_more.sh), the same fine-tune as that
#      round's `w5` (4 epochs at 5e-4, 50 warm-up steps, burial=listed, seed 1) with the term at
#      1e-3 (`c3`) and 1e-5 (`c5`), then `c3` 4 more epochs at 2.5e-4 with it (`c3b`);
#   2. from scratch on the same data, the default config 6 epochs (seed 1, burial=listed)
#      without the term (`arch/default`), with it at 1e-3 (`arch/center`), and without the
#      Deep Sets summary (`--config ablation_no_deep_sets`, `arch/ablation_no_deep_sets`);
#   3. each fine-tune against `w5` on shengji-classic-bids-dev-1500 (3,000 games), the other
#      two from scratch against `arch/default` there, and the scale table (student_scale.py).
# One core per training; every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=data/runs/center
arch=data/runs/arch
start=data/runs/ship-classic-w256b/soup-start
data=data/runs/cw256b/union
w5=data/runs/cw256b/w5
mkdir -p "$out/evals" "$arch"
[ -f "$data/any2/manifest.json" ] && [ -f "$w5/weights.safetensors" ] || {
  echo "run docs/examples/classic_w256_more.sh first (its data and its w5)" >&2; exit 2; }
if [ ! -f "$start/weights.safetensors" ]; then
  mkdir -p "$start"
  for f in config.json results.json weights.safetensors; do
    git show "40c324b:data/models/shengji-classic/$f" > "$start/$f"
  done
fi
run() {  # DIR ARGS...: one training (one core), resumed when interrupted, skipped when done
  local dir=$1 resume=; shift
  [ -f "$dir/weights.safetensors" ] && return
  [ -d "$dir" ] && resume=--resume
  OPENBLAS_NUM_THREADS=1 openlandlord train --data "$data" --out "$dir" --set seed=1 --set burial=listed \
    $resume "$@" >> "$dir.log" 2>&1
}
fine=(--epochs 4 --set warmup_steps=50)
run "$out/c3" "${fine[@]}" --set init=$start --set lr=0.0005 --set logit_center_weight=0.001 &
run "$out/c5" "${fine[@]}" --set init=$start --set lr=0.0005 --set logit_center_weight=0.00001 &
wait
run "$out/c3b" "${fine[@]}" --set init=$out/c3 --set lr=0.00025 --set logit_center_weight=0.001 &
run "$arch/default" --epochs 6 --config default &
wait
run "$arch/center" --epochs 6 --config default --set logit_center_weight=0.001 &
run "$arch/ablation_no_deep_sets" --epochs 6 --config ablation_no_deep_sets &
wait
h2h() {  # NAME AGENT OPPONENT
  [ -f "$out/evals/$1.json" ] || openlandlord eval --game shengji --rules classic --trump-rank any \
    --deal-set shengji-classic-bids-dev-1500 --agent "$2" --opponent "$3" --workers 2 --no-records \
    --json "$out/evals/$1.json" > /dev/null
}
for s in c3 c5 c3b; do h2h $s-vs-w5 student:$out/$s student:$w5; done
h2h scratch-center-vs-default student:$arch/center student:$arch/default
h2h scratch-no-deep-sets-vs-default student:$arch/ablation_no_deep_sets student:$arch/default
python docs/examples/student_scale.py "$data" data/models/shengji-classic "$start" "$w5" "$out/c3" \
  "$out/c5" "$out/c3b" "$arch/default" "$arch/center" "$arch/ablation_no_deep_sets" --decisions 1000 --json "$out/scale.json"
python - "$out" "$arch" <<'PY'
import json, sys
out, arch = sys.argv[1:]
for s in (f"{out}/c3", f"{out}/c5", f"{out}/c3b", f"{arch}/default", f"{arch}/center",
          f"{arch}/ablation_no_deep_sets"):
    m = json.load(open(f"{s}/config.json"))["metrics"]
    print(f"{s:22s} val top-1 {m['val_top1']:.3f}  regret {m['val_regret']:.4f}  kl {m['val_kl']:.3f}")
for name in ("c3-vs-w5", "c5-vs-w5", "c3b-vs-w5", "scratch-center-vs-default",
             "scratch-no-deep-sets-vs-default"):
    r = json.load(open(f"{out}/evals/{name}.json"))
    lo, hi = r["mean_points_ci95"]
    print(f"{name:26s} points {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}]  levels {r['mean_score']:+.3f}  "
          f"win {r['win_rate']:.3f}")
PY
