#!/bin/bash
# usage: docs/examples/dmc_bids.sh STUDENT NAME: a Dou Dizhu student's own bids against its
# `,bid=rule` twin (same play) on the committed dev deal sets doudizhu-callrob-dev-3000 and
# doudizhu-points-dev-3000 (issue 16's measure), into data/runs/dmc-evals/NAME-bids-*.json,
# with the doubling and landlord rates of its own bids (docs/dmc.md).
# Shengji `classic` (docs/examples/dmc_bids.sh STUDENT NAME classic [BASE]): its own declarations
# and burial against its twin with the rule bot's, on 1,500 fresh all-rank deals (seed 777, not
# a test set), and, with BASE (the student it started from), its play against BASE's (both with
# the rule bot's declarations and burial).
cd "$(dirname "$0")/../.."
mkdir -p data/runs/dmc-evals
student=$1; o=data/runs/dmc-evals/$2-bids
if [ "$3" = classic ]; then
  c="--game shengji --rules classic --trump-rank any --deals 1500 --seed 777 --workers 1 --no-records --force"
  openlandlord eval $c --agent student:$student --opponent student:$student,bid=rule --json $o-classic.json > /dev/null 2>&1
  [ -z "$4" ] || openlandlord eval $c --agent student:$student,bid=rule --opponent student:$4,bid=rule \
    --json $o-classic-play.json > /dev/null 2>&1
  python - "$o" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "-classic*.json")):
    r = json.load(open(f))
    b = r.get("bidding", {})
    print(f.split("/")[-1], f"points {r['mean_points']:+.2f} [{r['mean_points_ci95'][0]:+.2f}, "
          f"{r['mean_points_ci95'][1]:+.2f}]  levels {r['mean_score']:+.3f}  declared {b.get('declared_rate', 0):.3f}  buried points {b.get('mean_buried_points', 0):.2f}")
PY
  exit 0
fi
for flow in callrob points; do
  bidding=$([ $flow = callrob ] && echo call-rob || echo points)
  openlandlord eval --game doudizhu --bidding $bidding --agent student:$student \
    --opponent student:$student,bid=rule --deal-set doudizhu-$flow-dev-3000 --seed 0 --workers 1 \
    --no-records --json $o-$flow.json --force > /dev/null 2>&1
done
python - "$o" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "-*.json")):
    r = json.load(open(f))
    b = r["bidding"]
    print(f.split("/")[-1], f"own bids vs rule bids {r['mean_score']:+.3f} [{r['mean_score_ci95'][0]:+.3f}, "
          f"{r['mean_score_ci95'][1]:+.3f}]  doubled {b.get('doubled_rate', 0):.2f}  landlord {b['landlord_rate']:.2f}  "
          f"mean stake {b['mean_stake']:.2f}")
PY
