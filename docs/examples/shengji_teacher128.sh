#!/bin/bash
# usage: docs/examples/shengji_teacher128.sh [OUT] [CAP]: does the `tractor` student gain from a
# stronger teacher? (issue 19; docs/models.md, "A stronger teacher's data"). Into OUT
# (data/runs/t128):
#   1. 2,000 every-rank `tractor` deals scored by pimc:objective=points,worlds=128,solve=12
#      (+17.5 points a deal against `rule:expert` on the dev set, where the shipped student's
#      64-world teacher makes +15.0), seeds 15 and 16: 22-23 minutes a 1,000 on 2 workers;
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
. docs/examples/_runs.sh
for s in 15 16; do gen "$out/data/seed-$s" pimc:objective=points,worlds=128,solve=12 $s; done
for s in 5 6 7; do gen "$cap/data/seed-$s" pimc:objective=points,worlds=64 $s; done
for d in "$out"/data/seed-* "$cap"/data/seed-*; do
  ln -sfn "$(realpath "$d")" "$out/union/$(basename "$(dirname "$(dirname "$d")")")-$(basename "$d")"
done
ft=(--set init=data/models/shengji --set lr=0.0005 --set warmup_steps=50)  # the every-rank round's schedule
train ft128 "$out/data" "${ft[@]}" --epochs 4 &
train ftunion "$out/union" "${ft[@]}" --epochs 3 &
wait
for s in ft128 ftunion; do
  ev $s-vs-rule student:$out/$s rule:expert
  ev $s-vs-shipped student:$out/$s student:data/models/shengji
done
report ft128 ftunion -- rule shipped
