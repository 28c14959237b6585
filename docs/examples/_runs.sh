# Shared steps of the Shengji experiment scripts (sourced; `out` is the script's folder).
# Each step skips what a finished earlier run left, so rerunning a script resumes it.
gen() {  # DIR TEACHER SEED: 1,000 every-rank `tractor` deals scored by TEACHER
  [ -f "$1/manifest.json" ] || openlandlord generate --game shengji --trump-rank any --teacher "$2" \
    --deals 1000 --out "$1" --workers 2 --seed "$3"
}
train() {  # NAME DATA ARGS...: one training into $out/NAME (one core), skipped when its student is written
  local name=$1 data=$2 resume=; shift 2
  [ -f "$out/$name/weights.safetensors" ] && return
  [ -d "$out/$name" ] && resume=--resume  # an interrupted run continues
  OPENBLAS_NUM_THREADS=1 openlandlord train --data "$data" --out "$out/$name" --set seed=1 $resume "$@" \
    >> "$out/$name.log" 2>&1
}
ev() {  # NAME AGENT OPPONENT: on the committed dev set, into $out/evals/NAME.json
  [ -f "$out/evals/$1.json" ] || openlandlord eval --game shengji --deal-set shengji-allranks-dev-260 \
    --agent "$2" --opponent "$3" --workers 2 --no-records --json "$out/evals/$1.json" > /dev/null
}
report() {  # STUDENT... -- OPPONENT...: each student's val figures and its evals $out/evals/STUDENT-vs-OPPONENT.json
  python - "$out" "$@" <<'PY'
import json, sys
out, args = sys.argv[1], sys.argv[2:]
students, opponents = args[:args.index("--")], args[args.index("--") + 1:]
for s in students:
    m = json.load(open(f"{out}/{s}/config.json"))["metrics"]
    print(f"{s:8s} val top-1 {m['val_top1']:.3f}  regret {m['val_regret']:.4f}  kl {m['val_kl']:.3f}  "
          f"{m['val_decisions']} val decisions")
    for o in opponents:
        r = json.load(open(f"{out}/evals/{s}-vs-{o}.json"))
        lo, hi = r["mean_points_ci95"]
        print(f"  vs {o:8s} points {r['mean_points']:+.2f} [{lo:+.2f}, {hi:+.2f}]  "
              f"levels {r['mean_score']:+.3f}  win {r['win_rate']:.3f}")
PY
}
