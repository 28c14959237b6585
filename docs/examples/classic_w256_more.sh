#!/bin/bash
# usage: docs/examples/classic_w256_more.sh [OUT]: does the shipped `classic` student gain from
# the 256-world teacher on 3.5 times the deals of the round tried before (issue 18; docs/models.md,
# "The 256-world round on more deals")? Into OUT (data/runs/cw256b):
#   1. 1,000 more every-rank `classic` deals scored by pimc:objective=points,worlds=256, seed 93
#      (about 70 minutes on 2 workers), beside the earlier round's 400 deals (seed 91) and 6,000
#      listed burials (seed 92) in data/runs/ship-classic-w256/data-w256, made again with the
#      ship recipe's commands when they are missing;
#   2. two fine-tunes of the shipped student on the union, the recipe's schedule (4 epochs,
#      50 warm-up steps, burial=listed, seed 1) at 5e-4 (`w5`) and 2.5e-4 (`w25`), one core each,
#      at once; then their soup (`openlandlord soup`);
#   3. each of the three against the shipped student on shengji-classic-bids-dev-1500 (3,000
#      games, its own declarations and burial), and the soup against `rule:expert` on
#      shengji-classic-dev-260.
# Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/cw256b}
mkdir -p "$out/evals" "$out/union"
. docs/examples/_runs.sh
old=data/runs/ship-classic-w256/data-w256
teacher=pimc:objective=points,worlds=256
classic=(--game shengji --rules classic --trump-rank any)
[ -f "$old/any/manifest.json" ] || openlandlord generate "${classic[@]}" --teacher $teacher \
  --deals 400 --out "$old/any" --workers 2 --seed 91
[ -f "$old/bury/manifest.json" ] || openlandlord generate "${classic[@]}" --teacher $teacher,burial=listed \
  --phases bury --rest student:data/models/shengji-classic --deals 6000 --out "$old/bury" --workers 2 --seed 92
[ -f "$out/any2/manifest.json" ] || openlandlord generate "${classic[@]}" --teacher $teacher \
  --deals 1000 --out "$out/any2" --workers 2 --seed 93
for d in "$old/any" "$old/bury" "$out/any2"; do
  ln -sfn "$(realpath "$d")" "$out/union/$(basename "$(dirname "$d")")-$(basename "$d")"
done
schedule=(--epochs 4 --set init=data/models/shengji-classic --set warmup_steps=50 --set burial=listed)
train w5 "$out/union" "${schedule[@]}" --set lr=0.0005 &
train w25 "$out/union" "${schedule[@]}" --set lr=0.00025 &
wait
[ -f "$out/soup/weights.safetensors" ] || openlandlord soup --out "$out/soup" "$out/w5" "$out/w25"
h2h() {  # NAME AGENT: AGENT against the shipped student on the classic bids dev set
  [ -f "$out/evals/$1.json" ] || openlandlord eval "${classic[@]}" --deal-set shengji-classic-bids-dev-1500 \
    --agent "$2" --opponent student:data/models/shengji-classic --workers 2 --no-records \
    --json "$out/evals/$1.json" > /dev/null
}
for s in w5 w25 soup; do h2h $s-vs-shipped student:$out/$s; done
for a in soup shipped; do
  agent=student:$out/$a; [ $a = shipped ] && agent=student:data/models/shengji-classic
  [ -f "$out/evals/$a-vs-rule.json" ] || openlandlord eval --game shengji --rules classic \
    --deal-set shengji-classic-dev-260 --agent $agent --opponent rule:expert --workers 2 --no-records \
    --json "$out/evals/$a-vs-rule.json" > /dev/null
done
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for s in ("w5", "w25"):
    m = json.load(open(f"{out}/{s}/config.json"))["metrics"]
    print(f"{s:4s} val top-1 {m['val_top1']:.3f}  regret {m['val_regret']:.4f}  kl {m['val_kl']:.3f}")
for name in ("w5-vs-shipped", "w25-vs-shipped", "soup-vs-shipped", "soup-vs-rule", "shipped-vs-rule"):
    r = json.load(open(f"{out}/evals/{name}.json"))
    lo, hi = r["mean_points_ci95"]
    print(f"{name:16s} points {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}]  levels {r['mean_score']:+.3f}  "
          f"win {r['win_rate']:.3f}")
PY
