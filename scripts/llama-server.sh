#!/usr/bin/env bash
# Prints the absolute path of a llama-server built from the llama.cpp source pinned below, building it on first use
# into a cache outside the repository (KVLAB_CACHE, default ~/.cache/kvlab) keyed by the source's commit.
# The source comes from the npm package node-llama-cpp, which ships llama.cpp's git history as a bundle
# (llama/gitRelease.bundle). CPU only: Debian's cmake, gcc and g++ build it; nothing of llama.cpp enters the
# repository. Exit 1 with the reason where it cannot (no npm, no cmake, a failed build: the log's tail).
set -euo pipefail
PKG=node-llama-cpp@3.21.1          # ships llama.cpp release b-series source, commit below
COMMIT=80fb11ac                    # the bundle's HEAD, checked after the clone
cache=${KVLAB_CACHE:-$HOME/.cache/kvlab}/llama.cpp/$COMMIT
bin=$cache/build/bin/llama-server
die() { echo "llama-server.sh: $*" >&2; exit 1; }
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
for t in npm git cmake gcc g++ tar; do command -v "$t" >/dev/null || die "needs $t (apt-get install cmake g++ git; npm from Node.js)"; done
mkdir -p "$cache"
exec 9>"$cache/.lock"; flock 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
work=$(mktemp -d "$cache/.work.XXXXXX"); trap 'rm -rf "$work"' EXIT
echo "llama-server.sh: building llama-server from $PKG (llama.cpp $COMMIT, CPU only; minutes, once) into $cache" >&2
(cd "$work" && npm pack --silent "$PKG" >/dev/null 2>"$work/npm.err") || die "npm pack $PKG failed: $(tail -1 "$work/npm.err")"
tar xzf "$work"/node-llama-cpp-*.tgz -C "$work" package/llama/gitRelease.bundle || die "the package has no llama/gitRelease.bundle"
rm -rf "$cache/src"
git clone -q "$work/package/llama/gitRelease.bundle" "$cache/src" 2>"$work/git.err" || die "cloning the source bundle failed: $(tail -1 "$work/git.err")"
head=$(git -C "$cache/src" rev-parse HEAD)
[[ $head == $COMMIT* ]] || die "the bundle's commit is $head, pinned $COMMIT"
log=$cache/build.log
{ cmake -S "$cache/src" -B "$cache/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF \
  && cmake --build "$cache/build" --target llama-server -j "$(nproc)"; } >"$log" 2>&1 ||
  die "build failed (log: $log): $(tail -3 "$log" | tr '\n' ' ')"
[ -x "$bin" ] || die "the build finished without $bin (log: $log)"
echo "$bin"
