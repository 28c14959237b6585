#!/bin/bash
# usage: docs/examples/shengji_capacity.sh [OUT]: is the Shengji student's size what holds it
# under its teacher? (issue 19; docs/models.md, "Student size"). Into OUT (data/runs/cap):
#   1. 3,000 every-rank `tractor` deals scored by the shipped student's teacher
#      (pimc:objective=points,worlds=64), seeds 5, 6, 7: about 7 minutes a 1,000 on 2 workers;
#   2. two students trained from scratch on the same data, schedule and seed, one the preset
#      size (d_model 64, ff 120: 152,564 parameters), one 3.7 times it (d_model 128, 8 heads of
#      16, ff 256: 557,068), and the shipped student fine-tuned on it (the recipe's every-rank
#      round's schedule), two trainings at a time (one core each);
#   3. each against `rule:expert` on the committed dev set shengji-allranks-dev-260, the large
#      one against the preset one and the fine-tune against the shipped student head to head
#      there, and two teachers against `rule:expert` there.
# Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/cap}
mkdir -p "$out/data" "$out/evals"
. docs/examples/_runs.sh
teacher=pimc:objective=points,worlds=64
for s in 5 6 7; do gen "$out/data/seed-$s" $teacher $s; done
(train small "$out/data" --epochs 6; train finetune "$out/data" --epochs 4 --set init=data/models/shengji \
  --set lr=0.0005 --set warmup_steps=50) &
train large "$out/data" --epochs 6 --set d_model=128 --set heads=8 --set ff=256 &
wait
for s in small large finetune; do ev $s-vs-rule student:$out/$s rule:expert; done
ev shipped-vs-rule student:data/models/shengji rule:expert
ev large-vs-small student:$out/large student:$out/small
ev finetune-vs-shipped student:$out/finetune student:data/models/shengji
ev large-vs-shipped student:$out/large student:data/models/shengji
# the teachers on the same set: the data's, and a stronger one (about 4 and 12 minutes on one core)
ev teacher-vs-rule $teacher rule:expert
ev teacher128s12-vs-rule pimc:objective=points,worlds=128,solve=12 rule:expert
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for s in ("small", "large", "finetune"):
    m = json.load(open(f"{out}/{s}/config.json"))
    print(f"{s:9s} params {m['num_parameters']:>7,}  val top-1 {m['metrics']['val_top1']:.3f}  "
          f"regret {m['metrics']['val_regret']:.4f}  kl {m['metrics']['val_kl']:.3f}  "
          f"{m['metrics']['samples_per_s']:.0f} samples/s")
for name in ("small-vs-rule", "large-vs-rule", "finetune-vs-rule", "shipped-vs-rule", "large-vs-small",
             "finetune-vs-shipped", "large-vs-shipped", "teacher-vs-rule", "teacher128s12-vs-rule"):
    r = json.load(open(f"{out}/evals/{name}.json"))
    lo, hi = r["mean_points_ci95"]
    print(f"{name:20s} points {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}]  levels {r['mean_score']:+.3f}  "
          f"win {r['win_rate']:.3f}")
PY
