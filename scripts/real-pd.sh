#!/usr/bin/env bash
# Runs ablations/real-pd.yaml (fixed load), or with --capacity first ablations/real-pd-capacity.yaml (capacity under a
# TTFT + TBT SLO): synthesizes the model (random weights, the shape of issue 28's check; cached outside the repository)
# and runs the matrix on it with any extra `kvlab run` arguments given here. Prints the bundle path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KVLAB_CACHE:-$HOME/.cache/kvlab}
model=$cache/models/real-pd-l4-h256.gguf
matrix=real-pd.yaml
if [ "${1:-}" = --capacity ]; then matrix=real-pd-capacity.yaml; shift; fi
mkdir -p "$cache/models"
[ -f "$model" ] || "$root/kvlab" model synth --layers 4 --hidden 256 --heads 8 --kv-heads 2 --ff 688 --vocab 32000 --seed 13 --out "$model" >&2
"$root/kvlab" run "$root/ablations/$matrix" --set "target.model=$model" "$@"
