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
