#!/bin/bash
# usage: docs/examples/shengji_regret.sh [OUT] [T128]: does training weighted by what a wrong
# move costs keep more of the teacher's edge? (issue 19; docs/models.md, "Regret-weighted
# training"). Into OUT (data/runs/regret):
#   1. the shipped `tractor` student fine-tuned on the union of the 128-world and 64-world
#      every-rank deals of docs/examples/shengji_teacher128.sh (T128, data/runs/t128; run that
#      first), with that script's `ftunion` schedule (3 epochs, lr 5e-4) plus the regret term
#      at weight 1 (`rw1`) and 4 (`rw4`), two trainings at a time (one core each);
#   2. each against `rule:expert`, head to head against the shipped student and against
#      `ftunion` (the same training without the regret term) on shengji-allranks-dev-260.
# Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/regret}
t128=${2:-data/runs/t128}
mkdir -p "$out/evals"
. docs/examples/_runs.sh
[ -f "$t128/ftunion/weights.safetensors" ] || { echo "run docs/examples/shengji_teacher128.sh first" >&2; exit 2; }
ft=(--set init=data/models/shengji --set lr=0.0005 --set warmup_steps=50 --epochs 3)  # ftunion's schedule
train rw1 "$t128/union" "${ft[@]}" --set regret_weight=1 &
train rw4 "$t128/union" "${ft[@]}" --set regret_weight=4 &
wait
for s in rw1 rw4; do
  ev $s-vs-rule student:$out/$s rule:expert
  ev $s-vs-shipped student:$out/$s student:data/models/shengji
  ev $s-vs-ftunion student:$out/$s student:$t128/ftunion
done
report rw1 rw4 -- rule shipped ftunion
