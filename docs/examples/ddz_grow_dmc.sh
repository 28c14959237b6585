#!/bin/bash
# usage: docs/examples/ddz_grow_dmc.sh [OUT]: DMC with more room (issue 19): the shipped Dou Dizhu
# student grown to 4 encoder layers and a feed-forward of 256 (openlandlord/model/grow.py: the
# same function, new layers silent), then the recipe's anchored DMC from it at seeds 31 and 32,
# 500,000 decisions each, one core each (docs/dmc.md, "more room"). Plain continuations of the
# shipped student gain nothing (docs/dmc.md: `c0` +0.001, the second soup round +0.007): if its
# 148 k parameters are what holds self-play back, the grown ones should. Into OUT (default
# data/runs/growddz): `grown`, `anchor` (its copy), `dmc-s31`, `dmc-s32`, their soup `soup`;
# each against the shipped student (the ship's 3,000 dev deals, seed 0) and DouZero's protocol
# against `rlcard` (5,000 fresh deals, seed 777), own bids (docs/examples/dmc_bids.sh); then
# both runs continued to 1 M decisions (copies, `dmc-s31-1m`, `dmc-s32-1m`; soup `soup-1m`).
# Every step skips what a finished earlier run left (rerun to resume). About 75 minutes.
set -e
cd "$(dirname "$0")/../.."
out=${1:-data/runs/growddz}
mkdir -p "$out/evals"
shipped=data/models/doudizhu
[ -f "$out/grown/weights.safetensors" ] || python - "$shipped" "$out/grown" <<'PY'
import sys
import mlx.core as mx
from openlandlord.model import load_checkpoint
from openlandlord.model.checkpoint import save_checkpoint
from openlandlord.model.grow import grow, growth
from openlandlord.model.student import LandlordFormerLite, ModelConfig
start, config, meta = load_checkpoint(sys.argv[1])
bigger = ModelConfig.from_dict({**config.to_dict(), "layers": 4, "ff": 256})
model = LandlordFormerLite(bigger)
grow(start, model)
mx.eval(model.parameters())
save_checkpoint(sys.argv[2], model, bigger, extra={
    "init": sys.argv[1], "init_weights_sha256": meta["weights_sha256"],
    "grown": growth(config, bigger, "grow")})
PY
[ -f "$out/anchor/weights.safetensors" ] || { mkdir -p "$out/anchor"; cp "$out/grown"/{config.json,weights.safetensors} "$out/anchor/"; }
source docs/examples/_ddz_runs.sh
ev grown-vs-shipped student:$out/grown student:$shipped --deals 300 --seed 0
anchor=(--anchor "$out/anchor" --anchor-flows bidding=call-rob,points)
dmc_pair grown 500000 soup dmc-s31 31 dmc-s32 32 -- "${anchor[@]}"
measure - dmc-s31 dmc-s32 soup
for s in dmc-s31 dmc-s32 soup; do
  [ -f data/runs/dmc-evals/growddz-$s-bids-points.json ] || docs/examples/dmc_bids.sh "$out/$s" growddz-$s
done
dmc_pair grown 1000000 soup-1m dmc-s31-1m 31 dmc-s32-1m 32 dmc-s31 dmc-s32 -- "${anchor[@]}"  # continued copies
measure - dmc-s31-1m dmc-s32-1m soup-1m
for s in dmc-s31-1m dmc-s32-1m soup-1m; do
  [ -f data/runs/dmc-evals/growddz-$s-bids-points.json ] || docs/examples/dmc_bids.sh "$out/$s" growddz-$s
done
report growddz grown dmc-s31 dmc-s32 soup dmc-s31-1m dmc-s32-1m soup-1m
