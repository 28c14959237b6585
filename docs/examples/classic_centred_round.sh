#!/bin/bash
# usage: docs/examples/classic_centred_round.sh [OUT]: can the re-centred classic student (sound
# scores, level with the shipped one: docs/models.md, "Centering the scores") carry on the shipped
# lineage's rounds? One round of the 256-world teacher from each start, on the same data (issue 18):
#   1. 800 new every-rank `classic` deals scored by pimc:objective=points,worlds=256, seed 97
#      (about an hour on 2 workers), into OUT/any;
#   2. two fine-tunes on them with the recipe's schedule (4 epochs at 5e-4, 50 warm-up steps,
#      burial=listed, seed 1), one core each, at once: `drifted` from the shipped student (as
#      the shipped soup's parts were made), `centred` from data/runs/rebase/recentred
#      (docs/examples/classic_rebase.sh) with the centering term at 1e-3;
#   3. each against the shipped student on shengji-classic-bids-dev-1500 (3,000 games, own
#      declarations and burial), and `centred` against `drifted` on the same games;
#   4. the same two fine-tunes (`drifted-b`, `centred-b`) on those deals and 3,000 listed burials
#      of the same search (`--phases bury`, the shipped student playing the rest, seed 98), as
#      the shipped round's data held (its deals bury card by card, the student buries from the
#      list), and the same three matches;
#   5. `drifted-bc`: `drifted-b` trained on the players' centred scores (`centred_scores=true`),
#      against the shipped student and against `drifted-b`.
# Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/centred}
start=data/runs/rebase/recentred
shipped=data/models/shengji-classic
[ -f "$start/weights.safetensors" ] || { echo "error: $start is missing: run docs/examples/classic_rebase.sh first" >&2; exit 2; }
mkdir -p "$out/evals"
. docs/examples/_runs.sh
classic=(--game shengji --rules classic --trump-rank any)
[ -f "$out/any/manifest.json" ] || openlandlord generate "${classic[@]}" \
  --teacher pimc:objective=points,worlds=256 --deals 800 --out "$out/any" --workers 2 --seed 97 > "$out/gen.log" 2>&1
schedule=(--epochs 4 --set warmup_steps=50 --set burial=listed --set lr=0.0005)
train drifted "$out/any" "${schedule[@]}" --set init=$shipped &
train centred "$out/any" "${schedule[@]}" --set init=$start --set logit_center_weight=0.001 &
wait
h2h() {  # NAME AGENT OPPONENT
  [ -f "$out/evals/$1.json" ] || openlandlord eval "${classic[@]}" --deal-set shengji-classic-bids-dev-1500 \
    --agent "$2" --opponent "$3" --workers 2 --no-records --json "$out/evals/$1.json" > /dev/null
}
h2h drifted-vs-shipped student:$out/drifted student:$shipped
h2h centred-vs-shipped student:$out/centred student:$shipped
h2h centred-vs-drifted student:$out/centred student:$out/drifted
[ -f "$out/bury/manifest.json" ] || openlandlord generate "${classic[@]}" \
  --teacher pimc:objective=points,worlds=256,burial=listed --phases bury --rest student:$shipped \
  --deals 3000 --out "$out/bury" --workers 2 --seed 98 > "$out/gen-bury.log" 2>&1
mkdir -p "$out/union"
for d in any bury; do ln -sfn "$(realpath "$out/$d")" "$out/union/$d"; done
train drifted-b "$out/union" "${schedule[@]}" --set init=$shipped &
train centred-b "$out/union" "${schedule[@]}" --set init=$start --set logit_center_weight=0.001 &
wait
h2h drifted-b-vs-shipped student:$out/drifted-b student:$shipped
h2h centred-b-vs-shipped student:$out/centred-b student:$shipped
h2h centred-b-vs-drifted-b student:$out/centred-b student:$out/drifted-b
train drifted-bc "$out/union" "${schedule[@]}" --set init=$shipped --set centred_scores=true
h2h drifted-bc-vs-shipped student:$out/drifted-bc student:$shipped
h2h drifted-bc-vs-drifted-b student:$out/drifted-bc student:$out/drifted-b
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for s in ("drifted", "centred", "drifted-b", "centred-b", "drifted-bc"):
    m = json.load(open(f"{out}/{s}/config.json"))["metrics"]
    print(f"{s:8s} val top-1 {m['val_top1']:.3f}  regret {m['val_regret']:.4f}  kl {m['val_kl']:.3f}  "
          f"logit offset {m.get('val_logit_offset', float('nan')):.3g}")
for name in ("drifted-vs-shipped", "centred-vs-shipped", "centred-vs-drifted", "drifted-b-vs-shipped",
             "centred-b-vs-shipped", "centred-b-vs-drifted-b", "drifted-bc-vs-shipped", "drifted-bc-vs-drifted-b"):
    r = json.load(open(f"{out}/evals/{name}.json"))
    lo, hi = r["mean_points_ci95"]
    print(f"{name:23s} points {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}]  levels {r['mean_score']:+.3f}  "
          f"win {r['win_rate']:.3f}")
PY
