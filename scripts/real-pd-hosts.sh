#!/usr/bin/env bash
# Prefill/decode disaggregation on llama.cpp in-process across "hosts": for each link rate, a netns cluster
# (scripts/netns-cluster.sh up --decode-host) with every host's link shaped to it; kvlab runs on its client host, where
# the prefill instance computes each prompt; the KV is handed over to the decode instance
#   direct - WRITTEN by the transfer engine into receive segments served from the decode host (target.decode_netns):
#            every byte crosses the client's link out and the decode host's link in;
#   store  - put into the cluster's store (its nodes are other hosts) and got back from it: the client's link out, then in;
# and colocated serving (no handover; on the client host alone) is run once beside them. The workload is issue 28's
# check shape (1,024 + 256-token prompts, 64 output tokens, Poisson arrivals). Prints one row per run: TTFT p50/p99,
# ITL p99, the handover's p50 and the bytes the decode host received on its link; bundles under --out. Needs root.
#
#   scripts/real-pd-hosts.sh [--rates "1gbit 200mbit 50mbit"] [--rate-rps 1] [--requests 40] [--out DIR]
#                            [--prefix kvlab] [-- extra kvlab run arguments]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/real-pd-common.sh"
rates="1gbit 200mbit 50mbit" rps=1 requests=40 out=results/runs prefix=kvlab extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rates) rates=${2:?}; shift 2 ;;
    --rate-rps) rps=${2:?}; shift 2 ;;
    --requests) requests=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --prefix) prefix=${2:?}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "real-pd-hosts: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $requests =~ ^[0-9]+$ ]] && [ "$requests" -ge 1 ] || { echo "real-pd-hosts: --requests must be a positive integer" >&2; exit 2; }
real_pd_setup real-pd-hosts

config() {   # $1 = store backend
  cat <<Y
name: real-pd-hosts
mode: live
seed: 2
target: {kind: llama.cpp, model: $model, threads: 1, flash_attn: "off"}
cluster: {instances: 2, router: round-robin}
store: $1
transport: tcp
tiers: none
cache_state: cold
workload:
  generator: {kind: shared-prefix, groups: $requests, prompts_per_group: 1, prefix_tokens: 1024, suffix_tokens: 256, output_tokens: 64, block_tokens: 64}
  arrival: {process: poisson, rate: $rps}
slo: {ttft_ms: 10000}
Y
}
config "{backend: bundled, nodes: 2, capacity: 256MiB}" > "$work/local.yaml"

rx() { ip netns exec "$KVLAB_NETNS_DECODE" cat /sys/class/net/eth0/statistics/rx_bytes; }
row() {   # $1 = link, $2 = serving, $3 = the run's --json, $4 = bytes the decode host received
  python3 - "$@" <<'PY'
import json, sys
link, serving, doc, rx = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
g = lambda k: doc.get(k)
f = lambda v: "NaN" if v is None else f"{float(v):.1f}"
print(f"{link:>9} {serving:>10} {f(g('ttft_p50_ms')):>9} {f(g('ttft_p99_ms')):>9} {f(g('itl_p99_ms')):>8} "
      f"{f(g('pd_handover_ms_p50')):>12} {f(g('pd_restore_ms_p50')):>11} {rx:>13} {g('handover_bytes') or 0:>13} {g('pd_fallbacks') or 0:>9}")
PY
}
printf '%9s %10s %9s %9s %8s %12s %11s %13s %13s %9s\n' link serving ttft_p50 ttft_p99 itl_p99 handover_p50 restore_p50 \
  decode_rx_B handover_B fallbacks
first=1
for rate in $rates; do
  eval "$(scripts/netns-cluster.sh up --rate "$rate" --prefix "$prefix" --decode-host 2>"$work/up.err")" \
    || { cat "$work/up.err" >&2; exit 1; }
  config "{backend: \"kvlab://$KVLAB_NETNS_MASTER\"}" > "$work/store.yaml"
  run() {   # $1 = config, then --set arguments
    local c=$1; shift
    ip netns exec "$KVLAB_NETNS_CLIENT" ./kvlab run "$c" "$@" ${extra[@]+"${extra[@]}"} --out "$out" --json 2>>"$work/run.err" \
      || { tail -5 "$work/run.err" >&2; exit 1; }
  }
  if [ "$first" = 1 ]; then
    j=$(run "$work/local.yaml" --set pd=colocated); row "-" colocated "$j" -; first=0
  fi
  r0=$(rx); j=$(run "$work/local.yaml" --set pd=disaggregated --set cluster.prefill_instances=1 --set pd_transfer=direct \
    --set "target.decode_netns=$KVLAB_NETNS_DECODE"); row "$rate" direct "$j" $(( $(rx) - r0 ))
  j=$(run "$work/store.yaml" --set pd=disaggregated --set cluster.prefill_instances=1 --set pd_transfer=store)
  row "$rate" store "$j" -
  scripts/netns-cluster.sh down --prefix "$prefix" >/dev/null 2>&1
done
echo "bundles: $out" >&2
