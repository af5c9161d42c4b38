#!/usr/bin/env bash
# Runs ablations/real-kv-breakeven.yaml (recompute vs fetch on a real engine, prediction vs measurement): synthesizes
# the demo's small model (random weights; cached outside the repository) and runs the sweep on it with any extra
# `kvlab run` arguments given here. Prints the bundle path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KVLAB_CACHE:-$HOME/.cache/kvlab}
model=$cache/models/real-kv-demo-l4-h256.gguf
mkdir -p "$cache/models"
[ -f "$model" ] || "$root/kvlab" model synth --layers 4 --hidden 256 --heads 8 --kv-heads 2 --ff 688 --seed 7 --context 4096 --out "$model" >&2
"$root/kvlab" run "$root/ablations/real-kv-breakeven.yaml" --set "target.model=$model" "$@"
