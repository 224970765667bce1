#!/usr/bin/env bash
# The KnowSum Fig. 1 question offline: does ranking models by what they *would* say (N̂_tot)
# reorder them compared with what they *did* say (N_seen)? Runs the disease census on the three
# chat models of the registry, then `knowsum census compare` on the runs (table, page, figure).
#
#   examples/compare/run.sh               # or: make compare-demo
#   QUERIES=30 examples/compare/run.sh    # a larger census (the default is small: 8 queries)
#
# Each census is an ordinary, resumable run (responses in the store), so rerunning asks the models
# nothing new. Needs the models and DOID installed (done below; no network at run time).
set -euo pipefail
cd "$(dirname "$0")/../.."
KNOWSUM=${KNOWSUM:-.venv/bin/knowsum}
QUERIES=${QUERIES:-8}
ANSWERS=${ANSWERS:-10}
OUT=${OUT:-census-runs/compare}
MODELS=(smollm2-135m-instruct qwen2.5-coder-0.5b-instruct qwen2.5-coder-1.5b-instruct)

"$KNOWSUM" kb install doid
for model in "${MODELS[@]}"; do
  "$KNOWSUM" models install "$model"
done
for model in "${MODELS[@]}"; do
  "$KNOWSUM" census run diseases --model "$model" --queries "$QUERIES" --answers "$ANSWERS" \
    --out "$OUT/$model"
done
runs=()
for model in "${MODELS[@]}"; do runs+=("$OUT/$model"); done
"$KNOWSUM" census compare "${runs[@]}" --markdown --html "$OUT/compare.html" --figure "$OUT/ranking.png"
