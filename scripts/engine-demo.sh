#!/usr/bin/env bash
# Runs ablations/engine-llamacpp.yaml against a real llama-server on this machine: builds llama-server from the pinned
# llama.cpp source (once, cached outside the repository), synthesizes the demo model (random weights; cached), starts
# the server on a free loopback port with its prefix cache resettable (--slots --slot-save-path --cache-ram 0), runs
# the matrix with any extra `kvlab run` arguments given here, and stops the server. Prints the bundle path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KVLAB_CACHE:-$HOME/.cache/kvlab}
srv=$("$root/scripts/llama-server.sh" | tail -1)
model=$cache/models/engine-demo-l4-h256.gguf
mkdir -p "$cache/models"
[ -f "$model" ] || "$root/kvlab" model synth --layers 4 --hidden 256 --heads 8 --kv-heads 2 --ff 688 --vocab 32000 --seed 7 --out "$model" >&2
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
slots=$(mktemp -d)
"$srv" -m "$model" --host 127.0.0.1 --port "$port" -np 2 -c 8192 -t 1 --metrics --slots --slot-save-path "$slots" --cache-ram 0 \
    >"$slots/server.log" 2>&1 & spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null; rm -rf "$slots"' EXIT
for _ in $(seq 120); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.5; done
curl -sf "http://127.0.0.1:$port/health" >/dev/null || { tail -3 "$slots/server.log" >&2; echo "engine-demo: llama-server did not start" >&2; exit 1; }
echo "engine-demo: llama-server (CPU, 1 thread, synthesized random weights) on 127.0.0.1:$port" >&2
"$root/kvlab" run "$root/ablations/engine-llamacpp.yaml" --set "target.endpoints=[http://127.0.0.1:$port]" "$@"
