#!/bin/bash
# usage: docs/examples/ddz_belief_round.sh [OUT]: a whole Dou Dizhu student round from the
# belief-weighted search (issue 19, levers 2 and 3; docs/models.md, "A round from the
# belief-weighted search"). Into OUT (data/runs/bround):
#   1. 8,000 deals (bidding none, seed 58000) scored by pimc:belief=student:data/models/doudizhu,
#      half of the moves chosen by the shipped student (the search guided by the student it
#      teaches), about 6 minutes on 2 workers;
#   2. a student from scratch on them, the schedule of the recipe's last round (16 epochs at a
#      peak rate of 2e-3, seed 1; about 32 minutes on the 2 cores): `s1`;
#   3. its baseline, the recipe's round-3 student (plain `pimc` data, the same schedule; the
#      student the shipped lineage started from, data/models/doudizhu at git 9283ec8): `round3`;
#   4. DMC self-play from each, the same budget and seed (1,000,000 decisions, bidding none, one
#      core each, at once): `s1-dmc`, `round3-dmc`;
#   5. the evals: each pair head to head (3,000 fresh deals, `--deals 3000 --seed 0`), every
#      student in DouZero's protocol against `rlcard` (5,000 fresh deals, `--seed 777`), the DMC
#      students against the shipped one and against their starts (3,000 deals);
#   6. why DMC from `s1` lost: two 10-chunk DMC runs from it (164,000 decisions: `--lr 3e-5`, and
#      another seed) against `rlcard` (2,000 deals), each value head against the payoffs of its
#      own self-play (`python -m distill.valuecheck`, 1,000 deals), and the same 10 chunks after
#      its value head alone learned its own games (`--train-only value`, 82,000 decisions): `s1-v`;
#   7. is it the shipped student's half of the moves? 3,000 deals of the same search alone (seed
#      59000, no --mix), a student from scratch on them (`p1`, the same schedule) and the same
#      10 DMC chunks from it (`p1-dmc`), against `rlcard` (2,000 deals) and against its start.
# Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/bround}
mkdir -p "$out/evals" "$out/round3"
source docs/examples/_ddz_runs.sh
shipped=data/models/doudizhu
[ -f "$out/data/g1/manifest.json" ] || openlandlord generate --game doudizhu \
  --teacher pimc:belief=student:$shipped --mix student:$shipped:0.5 --deals 8000 --seed 58000 \
  --workers 2 --out "$out/data/g1"
train s1 "$out/data" --epochs 16 --set seed=1 --set lr=0.002
for f in config.json weights.safetensors; do
  [ -f "$out/round3/$f" ] || git show 9283ec8:data/models/doudizhu/$f > "$out/round3/$f"
done
h2h=(--deals 3000 --seed 0)
rl=(--protocol douzero --deals 5000 --seed 777)
ev s1-vs-round3 student:$out/s1 student:$out/round3 "${h2h[@]}"
for s in s1 round3; do ev $s-rl student:$out/$s rlcard "${rl[@]}"; done
dmc s1 1000000 & dmc round3 1000000 & wait
ev s1-dmc-vs-round3-dmc student:$out/s1-dmc student:$out/round3-dmc "${h2h[@]}"
for s in s1 round3; do
  ev $s-dmc-rl student:$out/$s-dmc rlcard "${rl[@]}"
  ev $s-dmc-vs-shipped student:$out/$s-dmc student:$shipped "${h2h[@]}"
  ev $s-dmc-vs-$s student:$out/$s-dmc student:$out/$s "${h2h[@]}"
done
run_dmc s1-dmc-lr3e5 "$out/s1" --decisions 164000 --seed 21 --lr 0.00003 &
run_dmc s1-dmc-s22 "$out/s1" --decisions 164000 --seed 22 & wait
run_dmc s1-v "$out/s1" --decisions 82000 --seed 23 --train-only value
dmc s1-v 164000
[ -f "$out/data-pure/g0/manifest.json" ] || openlandlord generate --game doudizhu \
  --teacher pimc:belief=student:$shipped --deals 3000 --seed 59000 --workers 2 --out "$out/data-pure/g0"
train p1 "$out/data-pure" --epochs 16 --set seed=1 --set lr=0.002
dmc p1 164000
ev p1-dmc-vs-p1 student:$out/p1-dmc student:$out/p1 "${h2h[@]}"
for s in s1 s1-dmc-lr3e5 s1-dmc-s22 s1-v-dmc p1 p1-dmc; do
  ev $s-rl2k student:$out/$s rlcard --protocol douzero --deals 2000 --seed 777
done
ev s1-dmc-c0010-rl2k student:$out/s1-dmc/snapshots/chunk-0010 rlcard --protocol douzero --deals 2000 --seed 777
for s in s1 round3 s1-dmc round3-dmc s1-v; do
  [ -f "$out/evals/$s-valuecheck.json" ] || python -m distill.valuecheck "$out/$s" --deals 1000 \
    > "$out/evals/$s-valuecheck.json"
done
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
m = json.load(open(f"{out}/s1/config.json"))["metrics"]
print(f"s1 val top-1 {m['val_top1']:.3f}  regret {m['val_regret']:.4f}  kl {m['val_kl']:.3f}")
for name in ("s1-vs-round3", "s1-dmc-vs-round3-dmc", "s1-dmc-vs-shipped", "round3-dmc-vs-shipped",
             "s1-dmc-vs-s1", "round3-dmc-vs-round3", "p1-dmc-vs-p1"):
    r = json.load(open(f"{out}/evals/{name}.json"))
    lo, hi = r["mean_score_ci95"]
    print(f"{name:22s} {r['mean_score']:+.3f} [{lo:+.3f}, {hi:+.3f}]  win {r['win_rate']:.3f}")
for s in ("s1", "round3", "s1-dmc", "round3-dmc"):
    r = json.load(open(f"{out}/evals/{s}-rl.json"))
    print(f"{s:10s} vs rlcard WP {r['wp']:.3f} [{r['wp_ci95'][0]:.3f}, {r['wp_ci95'][1]:.3f}]  ADP {r['adp']:.3f}")
for s in ("s1", "s1-dmc-c0010", "s1-dmc-lr3e5", "s1-dmc-s22", "s1-v-dmc", "p1", "p1-dmc"):
    r = json.load(open(f"{out}/evals/{s}-rl2k.json"))
    print(f"{s:13s} vs rlcard (2,000 deals) WP {r['wp']:.3f} [{r['wp_ci95'][0]:.3f}, {r['wp_ci95'][1]:.3f}]  ADP {r['adp']:.3f}")
for s in ("s1", "round3", "s1-dmc", "round3-dmc", "s1-v"):
    r = json.load(open(f"{out}/evals/{s}-valuecheck.json"))
    h = r["heads"][f"{out}/{s}"]
    print(f"{s:10s} own self-play: payoff variance {r['payoff_var']:.2f}  value corr {h['corr']:.3f}  slope {h['slope']:.2f}")
PY
