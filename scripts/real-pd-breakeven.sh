#!/usr/bin/env bash
# The break-even link of prefill/decode disaggregation on llama.cpp in-process: the slowest handover link at which
# disaggregated serving (direct: the prefill instance's transfer engine WRITEs each prompt's KV into receive segments
# served from a decode host, target.decode_netns) still serves as much load within the SLO as colocated serving does.
# Runs ablations/real-pd-capacity.yaml's capacity search (its SLO, workload and search) for colocated serving once
# (no handover), then for pd-direct at each rate, fastest first, in a netns cluster whose links are all shaped to it
# (scripts/netns-cluster.sh up --decode-host), and stops after the first rate whose capacity is below colocated's. The
# break-even is interpolated on log bandwidth between the two rates around the crossing (the handover's time is its
# bytes over the link); each search's twin prediction (capacity.json's predicted) gives the twins' own crossing beside
# it. Prints one row per search and the two break-evens; bundles under --out. Needs root.
#
#   scripts/real-pd-breakeven.sh [--rates "200mbit 50mbit 20mbit 10mbit"] [--replicates 1] [--out DIR]
#                                [--prefix kvlab] [-- extra kvlab run arguments]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/real-pd-common.sh"
rates="200mbit 50mbit 20mbit 10mbit" replicates=1 out=results/runs prefix=kvlab extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rates) rates=${2:?}; shift 2 ;;
    --replicates) replicates=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --prefix) prefix=${2:?}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "real-pd-breakeven: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $replicates =~ ^[0-9]+$ ]] && [ "$replicates" -ge 1 ] ||
  { echo "real-pd-breakeven: --replicates must be a positive integer" >&2; exit 2; }
for r in $rates; do
  [[ $r =~ ^[0-9]+(\.[0-9]+)?(kbit|mbit|gbit)$ ]] ||
    { echo "real-pd-breakeven: --rates: '$r' is not a rate such as 50mbit (kbit, mbit or gbit)" >&2; exit 2; }
done
real_pd_setup real-pd-breakeven

search() {   # $1 = netns to run in ("" = this one), then --set arguments; prints the bundle's capacity.json path
  local ns=$1; shift
  local cmd=(./kvlab run ablations/real-pd-capacity.yaml --set "target.model=$model"
    --set "capacity.replicates=$replicates" "$@" ${extra[@]+"${extra[@]}"} --out "$out" --json)
  [ -z "$ns" ] || cmd=(ip netns exec "$ns" "${cmd[@]}")
  local j
  j=$("${cmd[@]}" 2>"$work/one.err") || { tail -5 "$work/one.err" >&2; exit 1; }
  # the bundle: in the matrix's JSON, else the last line kvlab writes on stderr
  python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get("bundle") or sys.argv[2])' "$j" "$(tail -1 "$work/one.err")" |
    sed 's|$|/capacity.json|'
}

echo "real-pd-breakeven: colocated's capacity (no handover) ..." >&2
# (each search into a variable first: a failed one ends the script, as set -e does not see inside printf's arguments)
c=$(search "" --set serving=colocated)
printf '%s\t%s\n' - "$c" > "$work/rows"
for rate in $rates; do
  echo "real-pd-breakeven: pd-direct's capacity over $rate links ..." >&2
  eval "$(scripts/netns-cluster.sh up --rate "$rate" --prefix "$prefix" --decode-host 2>"$work/up.err")" \
    || { cat "$work/up.err" >&2; exit 1; }
  c=$(search "$KVLAB_NETNS_CLIENT" --set serving=pd-direct --set "target.decode_netns=$KVLAB_NETNS_DECODE")
  printf '%s\t%s\n' "$rate" "$c" >> "$work/rows"
  scripts/netns-cluster.sh down --prefix "$prefix" >/dev/null 2>&1
  below=$(python3 - "$work/rows" <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
cap = lambda p: json.load(open(p))["summary"][0]["capacity"]["mean"]
print(1 if cap(rows[-1][1]) < cap(rows[0][1]) else 0)
PY
)
  [ "$below" = 1 ] && break
done
python3 - "$work/rows" <<'PY'
import json, math, sys

def bits(rate):
    for unit, f in (("kbit", 1e3), ("mbit", 1e6), ("gbit", 1e9)):
        if rate.endswith(unit):
            return float(rate[: -len(unit)]) * f

def crossing(points, level):
    """The rate (bit/s) where capacity falls to `level`, on log bandwidth between the rates around it, or why not."""
    for (r_hi, c_hi), (r_lo, c_lo) in zip(points, points[1:]):
        if c_hi >= level > c_lo:
            x = math.log(r_lo) + (level - c_lo) / (c_hi - c_lo) * (math.log(r_hi) - math.log(r_lo))
            return math.exp(x), None
    if points and points[-1][1] >= level:
        return None, "below the slowest rate tried"
    if points and points[0][1] < level:
        return None, "above the fastest rate tried"
    return None, "not bracketed by the rates tried"

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
summ = lambda p: json.load(open(p))["summary"][0]
print(f"{'link':>9} {'serving':>10} {'capacity':>9} {'ci95':>17} {'twin':>7} {'bundle'}")
level = twin_level = None
measured, predicted = [], []
for rate, path in rows:
    s = summ(path)
    c = s["capacity"]["mean"]
    ci = s["capacity"].get("ci95") or [float("nan")] * 2
    p = (s.get("predicted") or {}).get("capacity")
    ok = all(v is not None and math.isfinite(v) for v in ci)
    ci_s = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ok else "NaN"  # NaN: one replicate gives no interval
    print(f"{rate:>9} {'colocated' if rate == '-' else 'pd-direct':>10} {c:>9.3f} {ci_s:>17} "
          f"{'NaN' if p is None else f'{p:.3f}':>7} {path.rsplit('/', 1)[0]}")
    if rate == "-":
        level, twin_level = c, p
    else:
        measured.append((bits(rate), c))
        if p is not None:
            predicted.append((bits(rate), p))
for name, pts, lv in (("measured", measured, level), ("twins'", predicted, twin_level)):
    if lv is None:
        print(f"break-even link ({name}): NaN (no colocated capacity)")
        continue
    r, why = crossing(pts, lv)
    if r is None:
        print(f"break-even link ({name}): NaN ({why}: pd-direct against colocated's {lv:.3f} req/s)")
    else:
        print(f"break-even link ({name}): {r / 1e6:.1f} Mbit/s (pd-direct's capacity reaches colocated's {lv:.3f} req/s)")
PY
