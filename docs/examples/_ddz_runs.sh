# Shared steps of the Dou Dizhu experiment scripts (sourced; `out` is the script's folder).
# Each step skips what a finished earlier run left, so rerunning a script resumes it.
dmc() {  # NAME DECISIONS: DMC from $out/NAME into $out/NAME-dmc, bidding none, seed 21 (one core)
  [ -f "$out/$1-dmc/weights.safetensors" ] && return
  OPENBLAS_NUM_THREADS=1 openlandlord dmc --game doudizhu --init "$out/$1" --out "$out/$1-dmc" \
    --decisions "$2" --seed 21 >> "$out/$1-dmc.log" 2>&1
}
ev() {  # NAME AGENT OPPONENT ARGS...: into $out/evals/NAME.json
  local name=$1 agent=$2 opp=$3; shift 3
  [ -f "$out/evals/$name.json" ] || openlandlord eval --game doudizhu --agent "$agent" \
    --opponent "$opp" --workers 2 --no-records --json "$out/evals/$name.json" "$@" > /dev/null
}
