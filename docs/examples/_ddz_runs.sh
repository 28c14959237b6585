# Shared steps of the Dou Dizhu experiment scripts (sourced; `out` is the script's folder).
# Each step skips what a finished earlier run left, so rerunning a script resumes it.
train() {  # NAME DATA ARGS...: a student into $out/NAME, log $out/train-NAME.log (an interrupted one resumes)
  local name=$1 data=$2 resume=; shift 2
  [ -f "$out/$name/weights.safetensors" ] && return
  [ -d "$out/$name" ] && resume=--resume
  openlandlord train --data "$data" --out "$out/$name" "$@" $resume >> "$out/train-$name.log" 2>&1
}
run_dmc() {  # NAME INIT ARGS...: DMC from INIT into $out/NAME, bidding none unless ARGS say, one core
  local name=$1 init=$2; shift 2
  [ -f "$out/$name/weights.safetensors" ] && return
  OPENBLAS_NUM_THREADS=1 openlandlord dmc --game doudizhu --init "$init" --out "$out/$name" "$@" \
    >> "$out/$name.log" 2>&1
}
dmc() {  # NAME DECISIONS: DMC from $out/NAME into $out/NAME-dmc, seed 21
  run_dmc "$1-dmc" "$out/$1" --decisions "$2" --seed 21
}
ev() {  # NAME AGENT OPPONENT ARGS...: into $out/evals/NAME.json
  local name=$1 agent=$2 opp=$3; shift 3
  [ -f "$out/evals/$name.json" ] || openlandlord eval --game doudizhu --agent "$agent" \
    --opponent "$opp" --workers 2 --no-records --json "$out/evals/$name.json" "$@" > /dev/null
}
dmc_pair() {  # INIT DECISIONS SOUP A SEED_A B SEED_B [FROM_A FROM_B] -- ARGS...: DMC runs $out/A and $out/B
  # from $out/INIT at once, one core each, then their soup $out/SOUP; with FROM_A FROM_B, each
  # continues a copy of that finished run (the same seed and ARGS) on to DECISIONS
  local init=$1 n=$2 soup=$3 a=$4 sa=$5 b=$6 sb=$7 fa= fb=
  shift 7
  [ "$1" = -- ] || { fa=$1 fb=$2; shift 2; }
  shift
  local name from
  for name in $a $b; do
    from=$([ $name = $a ] && echo "$fa" || echo "$fb")
    [ -z "$from" ] || [ -d "$out/$name" ] || { cp -a "$out/$from" "$out/$name"; rm "$out/$name/weights.safetensors"; }
  done
  run_dmc $a "$out/$init" --decisions $n --seed $sa "$@" &
  run_dmc $b "$out/$init" --decisions $n --seed $sb "$@" & wait
  [ -f "$out/$soup/weights.safetensors" ] || openlandlord soup --out "$out/$soup" "$out/$a" "$out/$b" > /dev/null
}
measure() {  # START NAME...: each $out/NAME against $out/START (none when START is -) and $shipped,
  # head to head (3,000 fresh deals, seed 0), and against rlcard in DouZero's protocol (5,000, seed 777)
  local start=$1 s; shift
  for s; do
    [ "$start" = - ] || ev $s-vs-start student:$out/$s student:$out/$start --deals 3000 --seed 0
    ev $s-vs-shipped student:$out/$s student:$shipped --deals 3000 --seed 0
    ev $s-rl student:$out/$s rlcard --protocol douzero --deals 5000 --seed 777
  done
}
report() {  # PREFIX NAME...: each NAME's head-to-head figures ($out/evals/NAME-vs-*.json), its WP/ADP
  # against rlcard in DouZero's protocol ($out/evals/NAME-rl.json) and its own bids against the
  # rule bids (data/runs/dmc-evals/PREFIX-NAME-bids-*.json, docs/examples/dmc_bids.sh), where made
  python - "$out" "$@" <<'PY'
import glob, json, os, sys
out, prefix, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def ci(r):
    lo, hi = r["mean_score_ci95"]
    return f"{r['mean_score']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
for s in names:
    for f in sorted(glob.glob(f"{out}/evals/{s}-vs-*.json")):
        print(s, os.path.basename(f)[len(s) + 1:-5], ci(json.load(open(f))))
    if os.path.exists(f"{out}/evals/{s}-rl.json"):
        r = json.load(open(f"{out}/evals/{s}-rl.json"))
        print(s, f"vs rlcard, DouZero's protocol: WP {r['wp']:.3f} [{r['wp_ci95'][0]:.3f}, "
              f"{r['wp_ci95'][1]:.3f}] ADP {r['adp']:.3f}")
    for flow in ("callrob", "points"):
        f = f"data/runs/dmc-evals/{prefix}-{s}-bids-{flow}.json"
        if os.path.exists(f):
            print(s, "own bids vs rule bids,", flow, ci(json.load(open(f))))
PY
}
