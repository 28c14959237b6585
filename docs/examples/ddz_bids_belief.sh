#!/bin/bash
# usage: docs/examples/ddz_bids_belief.sh [OUT]: the belief data on top of the bidding round's
# student, then the ship recipe's anchored DMC from it (issue 19; docs/models.md, "The belief
# data on the bidding round's student"). Steps, into OUT (default data/runs/bbelief):
#   1. `bids`: the bidding round's student (git 0daffbf's data/models/doudizhu, SHA-256 678bb11c...,
#      round 3 fine-tuned on 9,000 teacher deals of the three bidding flows; the start of the
#      shipped student's DMC run);
#   2. `bids-belief`: it fine-tuned 2 epochs at 5e-4 on the 4,000 deals of
#      `pimc:belief=student:data/models/doudizhu` (data/runs/noise/belief, as `r3-belief` in
#      docs/examples/ddz_dmc_fall.sh); against `bids` head to head (3,000 fresh deals, seed 0)
#      and its own bids against its `,bid=rule` twin (docs/examples/dmc_bids.sh, the dev sets);
#   3. the recipe's DMC stage from it at seeds 21 and 22, one core each, 1 M decisions, the bids
#      anchored to `bids-belief` (a copy, `anchor`): `dmc-s21`, `dmc-s22`, and their soup `soup`;
#   4. each against its start and against the shipped student (3,000 fresh deals, seed 0),
#      DouZero's protocol against `rlcard` (5,000 fresh deals, seed 777), own bids (dev sets);
#   5. both runs continued to 2 M decisions (the shipped student's DMC length; copies of the
#      1 M runs, `dmc-s21-2m`, `dmc-s22-2m`) and their soup `soup-2m`, measured as in step 4.
# Every step skips what a finished earlier run left (rerun to resume). About 2 hours.
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/bbelief}
mkdir -p "$out/evals"
shipped=data/models/doudizhu belief=data/runs/noise/belief
[ -f "$belief/manifest.json" ] || openlandlord generate --game doudizhu \
  --teacher pimc:belief=student:$shipped --deals 4000 --seed 57000 --workers 2 --out "$belief"
if [ ! -f "$out/bids/weights.safetensors" ]; then
  mkdir -p "$out/bids"
  for f in config.json weights.safetensors results.json; do git show 0daffbf:data/models/doudizhu/$f > "$out/bids/$f"; done
fi
source docs/examples/_ddz_runs.sh
OPENBLAS_NUM_THREADS=1 train bids-belief "$belief" --epochs 2 --set init=$out/bids --set lr=0.0005 \
  --set warmup_steps=50 --set seed=1
ev bids-belief-vs-bids student:$out/bids-belief student:$out/bids --deals 3000 --seed 0
[ -f "$out/anchor/weights.safetensors" ] || { mkdir -p "$out/anchor"; cp "$out/bids-belief"/{config.json,weights.safetensors} "$out/anchor/"; }
anchor=(--anchor "$out/anchor" --anchor-flows bidding=call-rob,points)
dmc_pair bids-belief 1000000 soup dmc-s21 21 dmc-s22 22 -- "${anchor[@]}"
measure bids-belief dmc-s21 dmc-s22 soup
dmc_pair bids-belief 2000000 soup-2m dmc-s21-2m 21 dmc-s22-2m 22 dmc-s21 dmc-s22 -- "${anchor[@]}"  # continued copies
measure bids-belief dmc-s21-2m dmc-s22-2m soup-2m
for s in bids-belief dmc-s21 dmc-s22 soup dmc-s21-2m dmc-s22-2m soup-2m; do
  [ -f data/runs/dmc-evals/bbelief-$s-bids-points.json ] || docs/examples/dmc_bids.sh "$out/$s" bbelief-$s
done
report bbelief bids-belief dmc-s21 dmc-s22 soup dmc-s21-2m dmc-s22-2m soup-2m
