# Sourced by scripts/real-pd-hosts.sh and scripts/real-pd-breakeven.sh (after their options are read; $root, $out and
# $prefix set): checks for root, makes --out absolute, synthesizes issue 28's model once into the cache ($model), builds
# kvlab's jar outside any namespace, and gives a work directory ($work) that is removed, with the netns cluster, on exit.
# $1: the script's name for its messages.
real_pd_setup() {
  [ "$(id -u)" = 0 ] || { echo "$1: needs root (network namespaces)" >&2; exit 1; }
  local cache=${KVLAB_CACHE:-$HOME/.cache/kvlab}
  model=$cache/models/real-pd-l4-h256.gguf
  mkdir -p "$cache/models" "$out"
  out=$(cd "$out" && pwd)
  [ -f "$model" ] || "$root/kvlab" model synth --layers 4 --hidden 256 --heads 8 --kv-heads 2 --ff 688 --vocab 32000 \
    --seed 13 --out "$model" >&2
  "$root/kvlab" --version >/dev/null   # builds the jar now, not inside a namespace
  work=$(mktemp -d); trap 'scripts/netns-cluster.sh down --prefix "$prefix" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  cd "$root"
}
