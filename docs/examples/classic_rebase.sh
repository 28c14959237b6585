#!/usr/bin/env bash
# Re-basing the shipped classic student on its own play: does a student trained on the shipped
# one's soft policy, with the scores held down (`logit_center_weight`), play as well with sound
# numbers (docs/training.md, "The scale of the scores")? The shipped student's scores have
# drifted (mean legal logit about 200,000), so its float32 engines choose apart in a few percent
# of decisions; its teacher's data is gone from this machine, but its own policy costs nothing
# to label.
#   1. 6,000 classic deals of every trump rank played by the shipped student in all four seats,
#      each decision scored by its own logits at temperature 1 (targets: its softmax);
#   2. `born`: a student from scratch on them (default config, the term at 1e-3, 6 epochs);
#      `recentred`: the shipped student fine-tuned on them with the term (2 epochs at 2.5e-4);
#   3. each head to head against the shipped student on shengji-classic-bids-dev-1500 (3,000
#      games), and the scale of its scores (docs/examples/student_scale.py).
# Every step resumes or is skipped when done; about 80 minutes on the 2 cores (born 6 x 11 min).
set -euo pipefail
out=${1:-data/runs/rebase}
shipped=data/models/shengji-classic
mkdir -p "$out/evals"
openlandlord generate --game shengji --rules classic --trump-rank any --teacher "student:$shipped" \
  --temperature 1 --deals 6000 --out "$out/self" --workers 2 --seed 900 > /dev/null
run() {  # DIR ARGS...: one training (one core), resumed when interrupted, skipped when done
  local dir=$1 resume=; shift
  [ -f "$dir/weights.safetensors" ] && return
  [ -d "$dir" ] && resume=--resume
  OPENBLAS_NUM_THREADS=1 openlandlord train --data "$out/self" --out "$dir" --set seed=1 --set burial=listed \
    --set logit_center_weight=0.001 $resume "$@" >> "$dir.log" 2>&1
}
run "$out/born" --epochs 6 --config default &
run "$out/recentred" --epochs 2 --set init=$shipped --set lr=0.00025 --set warmup_steps=50 &
wait
h2h() {  # NAME AGENT OPPONENT
  [ -f "$out/evals/$1.json" ] || openlandlord eval --game shengji --rules classic --trump-rank any \
    --deal-set shengji-classic-bids-dev-1500 --agent "$2" --opponent "$3" --workers 2 --no-records \
    --json "$out/evals/$1.json" > /dev/null
}
for s in born recentred; do h2h "$s-vs-shipped" "student:$out/$s" "student:$shipped"; done
python docs/examples/student_scale.py "$out/self" "$shipped" "$out/born" "$out/recentred" --decisions 1000 \
  --json "$out/scale.json"
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("born-vs-shipped", "recentred-vs-shipped"):
    r = json.load(open(f"{out}/evals/{name}.json"))
    lo, hi = r["mean_points_ci95"]
    print(f"{name}: {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}] points a deal, win rate {r['win_rate']:.3f}")
PY
