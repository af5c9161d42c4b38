#!/usr/bin/env bash
# Issue 36 item 2: every harness Maven module's code moves to a package naming its module.
#
#   dev.kvlab.harness.internal.<x>      -> dev.kvlab.harness.<module>.internal.<x>
#                                          (dev.kvlab.harness.<module>.internal when <x> is the module's own name;
#                                          dev.kvlab.harness.<module> for bundle, report and metrics, which the modules
#                                          above them and the CLI use whole: their code is their entry-point package;
#                                          core's plan and config, the cell plan and the run validator the experiments
#                                          and the report use, are core's entry-point package dev.kvlab.harness.core)
#   dev.kvlab.harness.<Class> (root)    -> dev.kvlab.harness.<module>.<Class>    (the module's entry-point package)
#   dev.kvlab.harness.api.<module>      -> dev.kvlab.harness.<module>.api        (a module's own api: benchmark, llama)
#
# harness/api keeps dev.kvlab.harness.api.* and dev.kvlab.harness.spi; the CLI keeps dev.kvlab.cli.
#
# What it does, from the repository root (or anywhere inside it):
#   1. git mv every file of an old package directory (src/{main,test}/{java,resources}) of every harness module to
#      its new directory (file by file, so it merges into a directory that already exists);
#   2. rewrites the old names (dotted and slashed forms) in every tracked text file but results/ and this script:
#      package and import lines, META-INF/services files, string class names, docs, scripts.
# It is deterministic and idempotent: a second run finds nothing to move and nothing to rewrite, and it can be re-run
# on a newer main after merges (new files in old packages move, new mentions of old names are rewritten). It fails if
# a harness module holds a dev/kvlab/harness/internal/<x> package the table below does not know.
#
# Usage: scripts/dev/harness-packages.sh [--dry-run]
set -euo pipefail

dry=0
[[ "${1:-}" == "--dry-run" ]] && dry=1
cd "$(git rev-parse --show-toplevel)"
self="scripts/dev/harness-packages.sh"

# old package (after dev.kvlab.harness.)  new package (after dev.kvlab.harness.)  the Maven module (folder) it belongs to
MAP=(
  "internal.cell              core.internal.cell              harness/core"
  "internal.config            core                            harness/core"
  "internal.emulated          core.internal.emulated          harness/core"
  "internal.engine            core.internal.engine            harness/core"
  "internal.fault             core.internal.fault             harness/core"
  "internal.framework         core.internal.framework         harness/core"
  "internal.live              core.internal.live              harness/core"
  "internal.measure           core.internal.measure           harness/core"
  "internal.plan              core                            harness/core"
  "internal.sim               core.internal.sim               harness/core"
  "internal.archfixture       core.internal.archfixture       harness/cli"
  "internal.archfixturetarget core.internal.archfixturetarget harness/cli"
  "internal.bundle            bundle                          harness/bundle"
  "internal.report            report                          harness/report"
  "internal.metrics           metrics                         harness/metrics"
  "internal.benchmark         benchmark.internal              harness/benchmark"
  "api.benchmark              benchmark.api                   harness/benchmark"
  "internal.capacity          experiments.internal.capacity   harness/experiments"
  "internal.matrix            experiments.internal.matrix     harness/experiments"
  "internal.openai            openai.internal                 harness/targets/openai"
  "internal.llama             llama.internal                  harness/targets/llama"
  "internal.realkv            llama.internal.realkv           harness/targets/llama"
  "api.engine                 llama.api                       harness/targets/llama"
  "internal.fixed             fixed.internal                  harness/targets/fixed"
)
# classes of the root package dev.kvlab.harness (split across modules) -> their module's entry-point package
ROOT=(
  "Benchmarks    benchmark   harness/benchmark"
  "BundleRun     experiments harness/experiments"
  "ShardMerge    experiments harness/experiments"
  "EndpointTwins openai      harness/targets/openai"
)

run() { if (( dry )); then echo "+ $*"; else "$@"; fi; }

modules=$(ls -d harness/*/ harness/targets/*/ 2>/dev/null | sed 's:/$::' | while read -r m; do [[ -f $m/pom.xml && $m != harness/targets ]] && echo "$m"; done)

# 0. refuse an unknown old package
known=" $(for e in "${MAP[@]}"; do read -r o _ _ <<<"$e"; printf '%s ' "$o"; done)"
for m in $modules; do
  for d in "$m"/src/*/java/dev/kvlab/harness/internal/*/ "$m"/src/*/resources/dev/kvlab/harness/internal/*/; do
    [[ -d $d ]] || continue
    x=$(basename "$d")
    if [[ $known != *" internal.$x "* ]]; then echo "harness-packages: $d: package dev.kvlab.harness.internal.$x is not in the table; add it" >&2; exit 1; fi
  done
done

# 1. move the files
moved=0
for e in "${MAP[@]}"; do
  read -r old new owner <<<"$e"
  od=${old//.//}; nd=${new//.//}
  for m in $modules; do
    # api.<x> names harness/api's own packages in every module but its owner: only the owner moves it
    [[ $old == api.* && $m != "$owner" ]] && continue
    for src in "$m"/src/*/java "$m"/src/*/resources; do
      dir="$src/dev/kvlab/harness/$od"
      [[ -d $dir ]] || continue
      while IFS= read -r -d '' f; do
        rel=${f#"$dir"/}
        dest="$src/dev/kvlab/harness/$nd/$rel"
        run mkdir -p "$(dirname "$dest")"
        run git mv -k "$f" "$dest"
        moved=$((moved + 1))
      done < <(git ls-files -z "$dir")
    done
  done
done
for e in "${ROOT[@]}"; do
  read -r cls mod m <<<"$e"
  for src in "$m"/src/*/java; do
    f="$src/dev/kvlab/harness/$cls.java"
    [[ -f $f ]] || continue
    run mkdir -p "$src/dev/kvlab/harness/$mod"
    run git mv -k "$f" "$src/dev/kvlab/harness/$mod/$cls.java"
    moved=$((moved + 1))
  done
done
# a moved root class's own package line (its file no longer sits in dev/kvlab/harness)
for e in "${ROOT[@]}"; do
  read -r cls mod m <<<"$e"
  for f in "$m"/src/*/java/dev/kvlab/harness/"$mod/$cls.java"; do
    [[ -f $f ]] && grep -q '^package dev\.kvlab\.harness;' "$f" || continue
    if (( dry )); then echo "+ package line of $f"; else sed -i "s/^package dev\.kvlab\.harness;/package dev.kvlab.harness.$mod;/" "$f"; fi
  done
done
# remove directories the moves emptied
if (( ! dry )); then
  for m in $modules; do find "$m/src" -depth -type d -empty -delete 2>/dev/null || true; done
fi

# 2. rewrite the names (longest old names first, so internal.archfixturetarget is not read as internal.archfixture)
script=()
while read -r old new; do
  o=${old//./\\.}; od=${old//.//}; nd=${new//.//}
  script+=("-e" "s#dev\\.kvlab\\.harness\\.$o([^A-Za-z0-9_]|\$)#dev.kvlab.harness.$new\\1#g")
  script+=("-e" "s#dev/kvlab/harness/$od([^A-Za-z0-9_]|\$)#dev/kvlab/harness/$nd\\1#g")
done < <(for e in "${MAP[@]}"; do read -r o n _ <<<"$e"; echo "${#o} $o $n"; done | sort -k1,1nr -k2,2 | cut -d' ' -f2-)
for e in "${ROOT[@]}"; do
  read -r cls mod _ <<<"$e"
  script+=("-e" "s#dev\\.kvlab\\.harness\\.$cls([^A-Za-z0-9_]|\$)#dev.kvlab.harness.$mod.$cls\\1#g")
  script+=("-e" "s#dev/kvlab/harness/$cls\\.java#dev/kvlab/harness/$mod/$cls.java#g")
done
pattern='dev[./]kvlab[./]harness[./](internal[./]|api[./](engine|benchmark)([^A-Za-z0-9_]|$)|(Benchmarks|BundleRun|ShardMerge|EndpointTwins)([^A-Za-z0-9_]|$))'
rewritten=0
while IFS= read -r f; do
  [[ $f == "$self" || $f == results/* ]] && continue
  [[ -f $f ]] || continue
  grep -Iq . "$f" || continue # binary
  if (( dry )); then echo "+ rewrite $f"; else sed -E -i "${script[@]}" "$f"; fi
  rewritten=$((rewritten + 1))
done < <(git grep -lE "$pattern" -- . ':!results' 2>/dev/null || true)

echo "harness-packages: $moved files moved, $rewritten files rewritten"
