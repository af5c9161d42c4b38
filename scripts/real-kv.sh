#!/usr/bin/env bash
# Runs ablations/real-kv.yaml: synthesizes its model (random weights, the shape of issue 23's check; cached outside the
# repository) and runs the matrix on it with any extra `kvlab run` arguments given here. Prints the bundle path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KVLAB_CACHE:-$HOME/.cache/kvlab}
model=$cache/models/real-kv-l8-h512.gguf
mkdir -p "$cache/models"
[ -f "$model" ] || "$root/kvlab" model synth --layers 8 --hidden 512 --heads 8 --kv-heads 2 --ff 1376 --vocab 32000 --seed 11 --out "$model" >&2
"$root/kvlab" run "$root/ablations/real-kv.yaml" --set "target.model=$model" "$@"
