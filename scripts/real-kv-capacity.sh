#!/usr/bin/env bash
# Runs ablations/real-kv-capacity.yaml: synthesizes its model (random weights: 4 layers, hidden 256, 8 heads, 2 KV heads;
# cached outside the repository) and searches every cache configuration's capacity on it, the twin's prediction
# written first, with any extra `kvlab run` arguments given here. Prints the bundle path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KVLAB_CACHE:-$HOME/.cache/kvlab}
model=$cache/models/real-kv-capacity-l4-h256.gguf
mkdir -p "$cache/models"
[ -f "$model" ] || "$root/kvlab" model synth --layers 4 --hidden 256 --heads 8 --kv-heads 2 --ff 688 --vocab 32000 --seed 5 --out "$model" >&2
"$root/kvlab" run "$root/ablations/real-kv-capacity.yaml" --set "target.model=$model" "$@"
