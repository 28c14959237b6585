#!/bin/bash
# usage: docs/examples/dmc_curve.sh RUN CHUNK [BASELINE]: the dev measurements of one DMC
# snapshot (data/runs/RUN/snapshots/chunk-NNNN) on fresh deals (seed 777, not a test set)
# against BASELINE (default: the student the run started from, as its config.json names it)
# and the peer opponent, into data/runs/dmc-evals/RUN-NNNN-*.json;
# docs/examples/dmc_curve.py plots them (docs/dmc.md).
cd "$(dirname "$0")/../.."
mkdir -p data/runs/dmc-evals
run=$1; c=$(printf "%04d" $2); snap=data/runs/$run/snapshots/chunk-$c
o=data/runs/dmc-evals/${run//\//-}-$c
latest=data/runs/$run/last
base=${3:-$(python -c "import json, sys; print(json.load(open(sys.argv[1]))['init'])" $latest/config.json)}
if [ "$2" = 0 ]; then snap=$base; fi    # chunk 0: the starting student, against the peer only
game=$(python -c "import json, sys; print(json.load(open(sys.argv[1]))['game'])" $latest/config.json)
if [ "$game" = doudizhu ]; then
  [ "$2" = 0 ] || openlandlord eval --game doudizhu --agent student:$snap --opponent student:$base --deals 2000 --seed 777 --workers 1 --no-records --json $o-vs-shipped.json --force > /dev/null 2>&1
  openlandlord eval --game doudizhu --protocol douzero --agent student:$snap --opponent rlcard --deals 2000 --seed 777 --workers 1 --no-records --json $o-douzero-rlcard.json --force > /dev/null 2>&1
else
  [ "$2" = 0 ] || openlandlord eval --game shengji --trump-rank any --agent student:$snap --opponent student:$base --deals 400 --seed 777 --workers 1 --no-records --json $o-vs-shipped.json --force > /dev/null 2>&1
  openlandlord eval --game shengji --trump-rank any --agent student:$snap --opponent rule:expert --deals 400 --seed 777 --workers 1 --no-records --json $o-vs-rule-expert.json --force > /dev/null 2>&1
fi
python - "$o" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "-*.json")):
    r = json.load(open(f))
    keys = [k for k in ("mean_score", "mean_points", "wp", "adp") if k in r]
    print(f.split("/")[-1], "  ".join(f"{k} {r[k]:+.3f} [{r[k+'_ci95'][0]:+.3f}, {r[k+'_ci95'][1]:+.3f}]" for k in keys))
PY
