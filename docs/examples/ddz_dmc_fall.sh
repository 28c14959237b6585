#!/bin/bash
# usage: docs/examples/ddz_dmc_fall.sh [OUT]: why DMC from a student of the belief-weighted
# search's data falls (docs/dmc.md, "from a student of the belief-weighted search's data"), on
# one pair of datasets that differ in the teacher alone: the same 4,000 deals (bidding none,
# seed 57000) scored by plain `pimc` and by `pimc:belief=student:data/models/doudizhu`, every
# move the teacher's (data/runs/noise/plain and data/runs/noise/belief, docs/models.md, "The
# teacher's data on top of the DMC soup"; made here if absent). Into OUT (data/runs/dmcfall):
#   1. a student from scratch on each, the schedule of the recipe's last round (16 epochs at a
#      peak rate of 2e-3, seed 1), one core each at once: `plain4k`, `belief4k`;
#   2. the same 10 chunks of DMC from each (164,000 decisions, bidding none, `--seed 21`; the
#      runs of docs/examples/ddz_belief_round.sh step 6-7), one core each at once;
#   3. the lineage arm: the recipe's round 3 (data/runs/bround/round3, the start of the shipped
#      lineage) fine-tuned on the belief data (2 epochs at 5e-4, the fine-tune of docs/models.md)
#      and the same 10 DMC chunks from it: `r3-belief`, `r3-belief-dmc`; beside it the plain
#      round-3 run's own chunk 10 (data/runs/bround/round3-dmc/snapshots/chunk-0010);
#   4. the evals: each DMC student against its start (3,000 fresh deals, `--deals 3000 --seed 0`),
#      every student in DouZero's protocol against `rlcard` (2,000 fresh deals, `--seed 777`),
#      `belief4k` against `plain4k` head to head;
#   5. is the long fall of DMC from `s1` (data/runs/bround/s1-dmc, 1,000,000 decisions at seed 21)
#      the start's or the run's? The same 1,000,000 decisions at seed 22 from `s1` and from round 3
#      (`s1-s22`, `round3-s22`), and from `r3-belief` at seeds 21 and 22 (`r3-belief-1m`,
#      `r3-belief-s22`), two at once, one core each (about 20 minutes a pair); each against its start
#      and against the round-3 run of its seed (3,000 deals), and against `rlcard` (5,000 fresh
#      deals, `--seed 777`, the belief round's protocol). A run whose first chunks another run
#      already played (bround's `s1-dmc-s22`, step 3's `r3-belief-dmc`) may continue a copy of it:
#      chunk k is the same whenever it is played;
#   6. the two `r3-belief` DMC students against the shipped student (3,000 deals), and the mean of
#      their weights (`openlandlord soup`: `r3-belief-soup`) against it and against `rlcard`;
#   7. their bids, never trained (round 3 came before the bidding round), repaired as docs/dmc.md's repair
#      run did: 330,000 more decisions of each with the bids anchored to the shipped student's
#      (`--anchor data/models/doudizhu --anchor-flows bidding=call-rob,points`, seed 2; one core
#      each at once, about 9 minutes): `r3-belief-1m-rep`, `r3-belief-s22-rep` (no soup of the two:
#      their starts differ); each one's play against the shipped student's and against `rlcard`,
#      and `r3-belief-s22-rep`'s own bids against its `,bid=rule` twin (docs/examples/dmc_bids.sh,
#      the committed dev sets);
#   8. each start's and each 10-chunk DMC student's value head and policy on its own self-play
#      (`python -m distill.valuecheck DIR --deals 500`: the top move's probability, the top two
#      moves' gap in points), into $out/policy/NAME.json.
# Steps 5 and 8 read docs/examples/ddz_belief_round.sh's students (data/runs/bround: s1, p1, round 3's
# DMC run): run that first. Every step skips what a finished earlier run left (rerun to resume).
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/dmcfall}
mkdir -p "$out/evals"
shipped=data/models/doudizhu
plain=data/runs/noise/plain belief=data/runs/noise/belief round3=data/runs/bround/round3
[ -f "$plain/manifest.json" ] || openlandlord generate --game doudizhu --teacher pimc --deals 4000 \
  --seed 57000 --workers 2 --out "$plain"
[ -f "$belief/manifest.json" ] || openlandlord generate --game doudizhu \
  --teacher pimc:belief=student:$shipped --deals 4000 --seed 57000 --workers 2 --out "$belief"
if [ ! -f "$round3/weights.safetensors" ]; then
  mkdir -p "$round3"
  for f in config.json weights.safetensors; do git show 9283ec8:data/models/doudizhu/$f > "$round3/$f"; done
fi
source docs/examples/_ddz_runs.sh
scratch=(--epochs 16 --set seed=1 --set lr=0.002)
OPENBLAS_NUM_THREADS=1 train plain4k "$plain" "${scratch[@]}" &
OPENBLAS_NUM_THREADS=1 train belief4k "$belief" "${scratch[@]}" & wait
OPENBLAS_NUM_THREADS=1 train r3-belief "$belief" --epochs 2 --set init=$round3 --set lr=0.0005 --set warmup_steps=50 --set seed=1
dmc plain4k 164000 & dmc belief4k 164000 & wait
dmc r3-belief 164000
h2h=(--deals 3000 --seed 0)
rl=(--protocol douzero --deals 2000 --seed 777)
ev belief4k-vs-plain4k student:$out/belief4k student:$out/plain4k "${h2h[@]}"
for s in plain4k belief4k r3-belief; do
  ev $s-dmc-vs-$s student:$out/$s-dmc student:$out/$s "${h2h[@]}"
  ev $s-rl2k student:$out/$s rlcard "${rl[@]}"
  ev $s-dmc-rl2k student:$out/$s-dmc rlcard "${rl[@]}"
done
ev r3-belief-vs-round3 student:$out/r3-belief student:$round3 "${h2h[@]}"
r3c10=data/runs/bround/round3-dmc/snapshots/chunk-0010
if [ -d "$r3c10" ]; then
  ev round3-c0010-vs-round3 student:$r3c10 student:$round3 "${h2h[@]}"
  ev round3-c0010-rl2k student:$r3c10 rlcard "${rl[@]}"
  ev round3-rl2k student:$round3 rlcard "${rl[@]}"
fi
long() {  # NAME INIT SEED: 1,000,000 decisions of DMC from INIT into $out/NAME (one core)
  [ -f "$out/$1/config.json" ] && python -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))
    ['decisions_learned'] < 1000000)" "$out/$1/config.json" && return
  OPENBLAS_NUM_THREADS=1 openlandlord dmc --game doudizhu --init "$2" --out "$out/$1" \
    --decisions 1000000 --seed $3 >> "$out/$1.log" 2>&1
}
long s1-s22 data/runs/bround/s1 22 & long round3-s22 $round3 22 & wait
long r3-belief-1m "$out/r3-belief" 21 & long r3-belief-s22 "$out/r3-belief" 22 & wait
r3seed21=data/runs/bround/round3-dmc
ev s1-s22-vs-s1 student:$out/s1-s22 student:data/runs/bround/s1 "${h2h[@]}"
ev s1-s22-vs-round3-s22 student:$out/s1-s22 student:$out/round3-s22 "${h2h[@]}"
ev round3-s22-vs-round3 student:$out/round3-s22 student:$round3 "${h2h[@]}"
ev r3-belief-1m-vs-r3-belief student:$out/r3-belief-1m student:$out/r3-belief "${h2h[@]}"
ev r3-belief-s22-vs-r3-belief student:$out/r3-belief-s22 student:$out/r3-belief "${h2h[@]}"
ev r3-belief-1m-vs-round3-dmc student:$out/r3-belief-1m student:$r3seed21 "${h2h[@]}"
ev r3-belief-s22-vs-round3-s22 student:$out/r3-belief-s22 student:$out/round3-s22 "${h2h[@]}"
for s in s1-s22 round3-s22 r3-belief-1m r3-belief-s22 r3-belief; do
  ev $s-rl student:$out/$s rlcard --protocol douzero --deals 5000 --seed 777
done
[ -f "$out/r3-belief-soup/weights.safetensors" ] || openlandlord soup --out "$out/r3-belief-soup" \
  "$out/r3-belief-1m" "$out/r3-belief-s22" > /dev/null
for s in r3-belief-1m r3-belief-s22 r3-belief-soup; do
  ev $s-vs-shipped student:$out/$s student:$shipped "${h2h[@]}"
done
ev r3-belief-soup-rl student:$out/r3-belief-soup rlcard --protocol douzero --deals 5000 --seed 777
for s in r3-belief-1m r3-belief-s22; do
  run_dmc $s-rep "$out/$s" --decisions 330000 --seed 2 --anchor $shipped \
    --anchor-flows bidding=call-rob,points --snapshot-every 5 &
done
wait
for s in r3-belief-1m-rep r3-belief-s22-rep; do
  ev $s-vs-shipped student:$out/$s student:$shipped "${h2h[@]}"
  ev $s-rl student:$out/$s rlcard --protocol douzero --deals 5000 --seed 777
done
[ -f data/runs/dmc-evals/dmcfall-r3-belief-s22-rep-bids-points.json ] || \
  docs/examples/dmc_bids.sh "$out/r3-belief-s22-rep" dmcfall-r3-belief-s22-rep
mkdir -p "$out/policy"
for d in data/runs/bround/s1 data/runs/bround/round3 data/runs/bround/p1 $out/plain4k $out/belief4k \
    $out/r3-belief $out/plain4k-dmc $out/belief4k-dmc; do
  n=$(basename $d)
  [ -f "$out/policy/$n.json" ] || OPENBLAS_NUM_THREADS=1 python -m distill.valuecheck $d --deals 500 \
    > "$out/policy/$n.json"
done
python - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
for s in ("plain4k", "belief4k", "r3-belief"):
    m = json.load(open(f"{out}/{s}/config.json"))["metrics"]
    print(f"{s:10s} val top-1 {m['val_top1']:.3f}  regret {m['val_regret']:.4f}  value MSE {m.get('val_value_mse', float('nan')):.4f}")
for name in ("belief4k-vs-plain4k", "plain4k-dmc-vs-plain4k", "belief4k-dmc-vs-belief4k",
             "r3-belief-vs-round3", "r3-belief-dmc-vs-r3-belief", "round3-c0010-vs-round3",
             "s1-s22-vs-s1", "s1-s22-vs-round3-s22", "round3-s22-vs-round3", "r3-belief-1m-vs-r3-belief",
             "r3-belief-s22-vs-r3-belief", "r3-belief-1m-vs-round3-dmc", "r3-belief-s22-vs-round3-s22",
             "r3-belief-1m-vs-shipped", "r3-belief-s22-vs-shipped", "r3-belief-soup-vs-shipped",
             "r3-belief-1m-rep-vs-shipped", "r3-belief-s22-rep-vs-shipped"):
    p = f"{out}/evals/{name}.json"
    if os.path.exists(p):
        r = json.load(open(p)); lo, hi = r["mean_score_ci95"]
        print(f"{name:28s} {r['mean_score']:+.3f} [{lo:+.3f}, {hi:+.3f}]  win {r['win_rate']:.3f}")
for s in ("plain4k", "plain4k-dmc", "belief4k", "belief4k-dmc", "round3", "round3-c0010", "r3-belief", "r3-belief-dmc"):
    p = f"{out}/evals/{s}-rl2k.json"
    if os.path.exists(p):
        r = json.load(open(p))
        print(f"{s:14s} vs rlcard (2,000 deals) WP {r['wp']:.3f} [{r['wp_ci95'][0]:.3f}, {r['wp_ci95'][1]:.3f}]  ADP {r['adp']:.3f}")
for s in ("s1-s22", "round3-s22", "r3-belief", "r3-belief-1m", "r3-belief-s22", "r3-belief-soup",
          "r3-belief-1m-rep", "r3-belief-s22-rep"):
    p = f"{out}/evals/{s}-rl.json"
    if os.path.exists(p):
        r = json.load(open(p))
        print(f"{s:14s} vs rlcard (5,000 deals) WP {r['wp']:.3f} [{r['wp_ci95'][0]:.3f}, {r['wp_ci95'][1]:.3f}]  ADP {r['adp']:.3f}")
for n in ("s1", "round3", "p1", "plain4k", "belief4k", "r3-belief", "plain4k-dmc", "belief4k-dmc"):
    h = next(iter(json.load(open(f"{out}/policy/{n}.json"))["heads"].values()))
    q = h["policy"]
    print(f"{n:13s} own self-play: value corr {h['corr']:.3f}  slope {h['slope']:.2f}  top move p {q['top_prob']:.3f}  "
          f"top-two gap {q['gap_points_median']:.3f} points (median)")
for flow in ("callrob", "points"):
    p = f"data/runs/dmc-evals/dmcfall-r3-belief-s22-rep-bids-{flow}.json"
    if os.path.exists(p):
        r = json.load(open(p)); b = r["bidding"]; lo, hi = r["mean_score_ci95"]
        print(f"r3-belief-s22-rep own {flow} bids vs rule bids {r['mean_score']:+.3f} [{lo:+.3f}, {hi:+.3f}]  "
              f"doubled {b.get('doubled_rate', 0):.2f}  landlord {b['landlord_rate']:.2f}")
PY
