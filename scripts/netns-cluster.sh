#!/usr/bin/env bash
# The bundled store across "hosts": Linux network namespaces joined by veth pairs on a bridge, with tc shaping
# per link. A master host, storage-node hosts and a client host, each with its own address in a private range
# that exists only inside the namespaces this script creates (the bridge lives in a namespace of its own too:
# nothing is added to the machine's own network, nothing is routed anywhere else).
#
#   scripts/netns-cluster.sh up [--rate 1gbit] [--delay 1ms] [--nodes 2] [--segment 512MiB] [--prefix kvlab]
#                               [--subnet 10.240.16] [--transport tcp] [--decode-host]
#   eval "$(scripts/netns-cluster.sh up --rate 1gbit)"    # sets KVLAB_NETNS_CLIENT, KVLAB_NETNS_MASTER, KVLAB_STORE_TOKEN
#   ip netns exec "$KVLAB_NETNS_CLIENT" ./kvlab bench store --backend "kvlab://$KVLAB_NETNS_MASTER" --value-size 1MiB --op get
#   scripts/netns-cluster.sh status | down [--prefix kvlab]
#
# --rate shapes every host's link in both directions (tbf on the host's end and on the bridge's end of its veth
# pair), so one host sends and receives at most RATE whatever the number of peers. --delay adds a one-way delay
# per link with netem; a kernel without netem (sch_netem) refuses it. The master and the nodes run as
# `kvlab store` processes inside their namespaces, bound to their own addresses, so they require the token this
# script generates. `up` prints KEY=VALUE lines for eval (and the export of them) on stdout, progress on
# stderr; on any failure it removes what it made. `down` stops the processes (by their pids, in the namespaces
# it made) and deletes the namespaces, which removes the veths and the bridge with them.
# --decode-host adds an empty host <prefix>-decode (address .101, its link shaped like the others) for the llama.cpp
# target's disaggregated decode instances (target.decode_netns: the direct handover's receive segments are served
# from it, so every byte handed over from a prefill instance on the client host crosses both hosts' links); its name
# is KVLAB_NETNS_DECODE.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
kvlab_bin=${KVLAB_BIN:-$root/kvlab}     # tests point this at a launcher of their own build

die() { echo "netns-cluster: $*" >&2; exit "${2:-1}"; }
bad() { echo "netns-cluster: $*" >&2; exit 2; }
say() { echo "netns-cluster: $*" >&2; }

cmd=${1:-}; [ $# -gt 0 ] && shift
rate="" delay="" decode=0 nodes=2 segment=512MiB prefix=kvlab subnet=10.240.16 transport=tcp port=50051
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate=${2:?--rate needs a value}; shift 2 ;;
    --delay) delay=${2:?--delay needs a value}; shift 2 ;;
    --nodes) nodes=${2:?--nodes needs a value}; shift 2 ;;
    --segment) segment=${2:?--segment needs a value}; shift 2 ;;
    --prefix) prefix=${2:?--prefix needs a value}; shift 2 ;;
    --subnet) subnet=${2:?--subnet needs a value}; shift 2 ;;
    --transport) transport=${2:?--transport needs a value}; shift 2 ;;
    --decode-host) decode=1; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) bad "unknown option '$1' (see --help)" ;;
  esac
done
[[ $prefix =~ ^[a-z][a-z0-9]{0,7}$ ]] || bad "--prefix must be 1-8 lowercase letters/digits starting with a letter, got '$prefix'"
state=${KVLAB_NETNS_STATE:-/run/kvlab-netns}/$prefix

# the namespaces this script makes: <prefix>-sw (the bridge), -master, -node1..N, -client, -decode
ours() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${prefix}-(sw|master|client|decode|node[0-9]+)$" || true; }

stop_ns_processes() {   # $1 = namespace: TERM then KILL the processes inside it (ours: nothing else runs there)
  local ns=$1 pids i
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  [ -z "$pids" ] && return 0
  kill -TERM $pids 2>/dev/null || true
  for i in $(seq 50); do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -z "$pids" ] && return 0
    sleep 0.1
  done
  kill -KILL $pids 2>/dev/null || true
  sleep 0.2
}

down() {
  local ns n=0
  for ns in $(ours); do stop_ns_processes "$ns"; done
  for ns in $(ours); do ip netns del "$ns" 2>/dev/null && n=$((n+1)) || say "could not delete namespace $ns"; done
  rm -rf "$state"
  say "down: removed $n namespaces (prefix $prefix)"
  [ -z "$(ours)" ]
}

status() {
  local ns
  [ -z "$(ours)" ] && { echo "no cluster (prefix $prefix)"; return 0; }
  for ns in $(ours); do
    echo "$ns: $(ip -n "$ns" -4 -br addr show 2>/dev/null | awk '$1!="lo"{print $1, $3}' | tr '\n' ' ')pids $(ip netns pids "$ns" | tr '\n' ' ')"
    tc -n "$ns" qdisc show 2>/dev/null | { grep -E '^qdisc (tbf|netem)' || true; } | sed 's/^/  /'
  done
  [ -f "$state/env" ] && grep -v -e "^KVLAB_STORE_TOKEN=" -e "^export" "$state/env" && echo "KVLAB_STORE_TOKEN: in $state/token"
}

# what tc accepts as a rate, and a positive size / duration
valid_rate() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?([kmgt]?bit|[kmgt]?bps)$ ]]; }
valid_time() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?(us|ms|s)$ ]]; }
rate_bytes_per_s() {    # tc units: bit = bits/s, bps = BYTES/s
  python3 - "$1" <<'PY'
import re,sys
m=re.fullmatch(r'([0-9.]+)([kmgt]?)(bit|bps)',sys.argv[1]); v=float(m.group(1))*{'':1,'k':1e3,'m':1e6,'g':1e9,'t':1e12}[m.group(2)]
print(int(v/8 if m.group(3)=='bit' else v))
PY
}

have_netem() {
  local probe="${prefix}-probe$$" ok=1
  ip netns add "$probe" 2>/dev/null || return 1
  ip -n "$probe" link set lo up
  tc -n "$probe" qdisc add dev lo root netem delay 1ms >/dev/null 2>&1 && ok=0
  ip netns del "$probe"
  return $ok
}

await_line() {   # $1 = log file, $2 = text, $3 = pid, $4 = what: waits up to 180 s
  local i
  for i in $(seq 1800); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || die "$4 exited: $(tail -3 "$1" | tr '\n' ' ')"
    sleep 0.1
  done
  die "$4 did not start within 180 s: $(tail -3 "$1" | tr '\n' ' ')"
}

up() {
  [ "$(id -u)" = 0 ] || die "needs root (ip netns, tc)"
  command -v ip >/dev/null && command -v tc >/dev/null || die "needs iproute2 (ip, tc)"
  [[ $nodes =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] && [ "$nodes" -le 8 ] || bad "--nodes must be 1..8, got '$nodes'"
  [[ $subnet =~ ^10\.([0-9]{1,3})\.([0-9]{1,3})$ ]] && [ "${BASH_REMATCH[1]}" -le 255 ] && [ "${BASH_REMATCH[2]}" -le 255 ] \
    || bad "--subnet must be a private 10.X.Y prefix (a /24 inside the namespaces), got '$subnet'"
  [ -z "$rate" ] || valid_rate "$rate" || bad "--rate '$rate' is not a tc rate (e.g. 1gbit, 500mbit, 100mbps)"
  if [ -n "$delay" ]; then
    valid_time "$delay" || bad "--delay '$delay' is not a time (e.g. 1ms, 500us)"
    have_netem || bad "--delay needs tc's netem qdisc, which this kernel does not have (no sch_netem); without netem, add delay with the transport's link-delay fault (docs/faults.md) instead"
  fi
  [ -z "$(ours)" ] || die "a cluster with prefix '$prefix' is up already (scripts/netns-cluster.sh down --prefix $prefix)"
  trap 'rc=$?; if [ $rc -ne 0 ]; then say "up failed: removing what was made"; down >/dev/null 2>&1 || true; fi' EXIT
  mkdir -p "$state"; chmod 700 "$state"

  say "building/locating the kvlab CLI ..."
  "$kvlab_bin" --version >&2 || die "kvlab launcher $kvlab_bin does not run"

  local sw="$prefix-sw" hosts=("$prefix-master") addrs=("$subnet.2") i
  for i in $(seq "$nodes"); do hosts+=("$prefix-node$i"); addrs+=("$subnet.$((10 + i))"); done
  hosts+=("$prefix-client"); addrs+=("$subnet.100")
  if [ "$decode" = 1 ]; then hosts+=("$prefix-decode"); addrs+=("$subnet.101"); fi

  ip netns add "$sw"
  ip -n "$sw" link set lo up
  ip -n "$sw" link add br0 type bridge
  ip -n "$sw" link set br0 up
  local burst=""
  if [ -n "$rate" ]; then
    # a bucket of 2 ms at the rate, at least 128 KiB (a GSO super-packet must fit)
    burst=$(( $(rate_bytes_per_s "$rate") / 500 )); [ "$burst" -lt 131072 ] && burst=131072
  fi
  for i in "${!hosts[@]}"; do
    local h=${hosts[$i]} a=${addrs[$i]}
    ip netns add "$h"
    ip -n "$h" link set lo up
    ip -n "$sw" link add "p$i" type veth peer name eth0 netns "$h"
    ip -n "$sw" link set "p$i" master br0
    ip -n "$sw" link set "p$i" up
    ip -n "$h" addr add "$a/24" dev eth0
    ip -n "$h" link set eth0 up
    if [ -n "$rate" ]; then
      # the host's upload (its end) and download (the bridge's end): tbf at RATE each way
      tc -n "$h" qdisc add dev eth0 root handle 1: tbf rate "$rate" burst "$burst" latency 50ms
      tc -n "$sw" qdisc add dev "p$i" root tbf rate "$rate" burst "$burst" latency 50ms
    fi
    if [ -n "$delay" ]; then
      if [ -n "$rate" ]; then tc -n "$h" qdisc add dev eth0 parent 1:1 handle 10: netem delay "$delay"
      else tc -n "$h" qdisc add dev eth0 root netem delay "$delay"; fi
    fi
  done
  umask 077
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$state/token"
  local token; token=$(cat "$state/token")
  local master="${addrs[0]}:$port"

  ip netns exec "${hosts[0]}" setsid "$kvlab_bin" store master --listen "$master" --metrics "${addrs[0]}:9100" \
      --token-file "$state/token" </dev/null >"$state/master.log" 2>&1 &
  echo $! > "$state/master.pid"
  await_line "$state/master.log" "listening on" "$(cat "$state/master.pid")" "the master"
  # the client host reaches the master's address over the bridge (no ping on minimal systems: a TCP connect)
  ip netns exec "${hosts[$((nodes + 1))]}" timeout 5 bash -c "exec 3<>/dev/tcp/${addrs[0]}/$port" 2>/dev/null \
    || die "the client host cannot reach the master at $master"
  for i in $(seq "$nodes"); do
    ip netns exec "${hosts[$i]}" setsid "$kvlab_bin" store node --master "$master" --bind "${addrs[$i]}" --segment "$segment" \
        --transport "$transport" --id "node$i" --metrics "${addrs[$i]}:9100" --token-file "$state/token" \
        </dev/null >"$state/node$i.log" 2>&1 &
    echo $! > "$state/node$i.pid"
  done
  for i in $(seq "$nodes"); do
    await_line "$state/node$i.log" "mounted at" "$(cat "$state/node$i.pid")" "node $i"
  done
  cat > "$state/env" <<EOF
KVLAB_NETNS_CLIENT=${hosts[$((nodes + 1))]}
KVLAB_NETNS_MASTER=$master
KVLAB_STORE_TOKEN=$token
KVLAB_NETNS_RATE=${rate:-unshaped}
KVLAB_NETNS_DELAY=${delay:-none}
export KVLAB_NETNS_CLIENT KVLAB_NETNS_MASTER KVLAB_STORE_TOKEN KVLAB_NETNS_RATE KVLAB_NETNS_DELAY
EOF
  if [ "$decode" = 1 ]; then
    ip netns exec "$prefix-decode" timeout 5 bash -c "exec 3<>/dev/tcp/${addrs[0]}/$port" 2>/dev/null \
      || die "the decode host cannot reach the master at $master"
    printf 'KVLAB_NETNS_DECODE=%s\nexport KVLAB_NETNS_DECODE\n' "$prefix-decode" >> "$state/env"
  fi
  say "up: master ${hosts[0]} at $master, $nodes node(s) ($segment $transport each), client ${hosts[$((nodes + 1))]};" \
      "$([ "$decode" = 1 ] && echo "decode host $prefix-decode; ")links ${rate:-unshaped}${delay:+, +$delay one way}; logs in $state"
  cat "$state/env"
}

case "$cmd" in
  up) up ;;
  down) down ;;
  status) status ;;
  ""|-h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) bad "unknown command '$cmd' (up | down | status)" ;;
esac
