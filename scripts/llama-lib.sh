#!/usr/bin/env bash
# Prints the absolute path of a directory holding llama.cpp's prebuilt CPU libraries (libllama, libggml*, one
# libggml-cpu-*.so per x86 level) from the npm package pinned below, installing it on first use into a cache outside
# the repository (KVLAB_CACHE, default ~/.cache/kvlab) with `npm pack` + tar: no global npm install, nothing of
# llama.cpp enters the repository. The package's package.json is kept next to the libraries, and libllama's SHA-256
# is checked against the one recorded here (kvlab's Java bindings check both again at load). Exit 1 with the reason
# where it cannot (no npm, no registry, a different file).
# The matching source (headers for the struct layouts) is llama.cpp commit 80fb11ac: see scripts/llama-server.sh.
set -euo pipefail
PKG=@node-llama-cpp/linux-x64
VERSION=3.21.1
LIB=libllama.v0.4.0.so
LIB_SHA256=a1e1a2f1d1261070e33f25eca89700cfcf4b824f6a4113e9bc111c17aefcb52f
dir=${KVLAB_CACHE:-$HOME/.cache/kvlab}/llama-lib/$VERSION
die() { echo "llama-lib.sh: $*" >&2; exit 1; }
ready() { [ -f "$dir/$LIB" ] && [ -f "$dir/package.json" ] && [ -f "$dir/.complete" ]; }
if ready; then echo "$dir"; exit 0; fi
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || die "the pinned package is for Linux x86_64; this is $(uname -s)-$(uname -m)"
for t in npm tar sha256sum flock; do command -v "$t" >/dev/null || die "needs $t (npm from Node.js; coreutils, util-linux)"; done
parent=$(dirname "$dir")
mkdir -p "$parent"
exec 9>"$parent/.lock-$VERSION"; flock 9
if ready; then echo "$dir"; exit 0; fi
work=$(mktemp -d "$parent/.work.XXXXXX"); trap 'rm -rf "$work"' EXIT
echo "llama-lib.sh: installing $PKG@$VERSION (llama.cpp CPU libraries, ~10 MB, once) into $dir" >&2
npm_reason() {
  { grep -m1 -E 'FetchError|E404|ETARGET|No matching' "$work/npm.err" || grep -m1 'npm error' "$work/npm.err" ||
    tail -1 "$work/npm.err"; } | sed 's/^npm error //'
}
(cd "$work" && npm pack --loglevel=error "$PKG@$VERSION" >/dev/null 2>"$work/npm.err") ||
  die "npm pack $PKG@$VERSION failed: $(npm_reason)"
tar xzf "$work"/node-llama-cpp-linux-x64-*.tgz -C "$work" package/package.json package/bins/linux-x64 ||
  die "the package has no bins/linux-x64"
got=$(sha256sum "$work/package/bins/linux-x64/$LIB" | cut -d' ' -f1)
[ "$got" = "$LIB_SHA256" ] || die "$LIB has SHA-256 $got, pinned $LIB_SHA256"
mkdir -p "$work/lib"
cp "$work"/package/bins/linux-x64/lib*.so "$work/package/package.json" "$work/lib/"
ln -s "$LIB" "$work/lib/libllama.so"
touch "$work/lib/.complete"
rm -rf "$dir"
mv "$work/lib" "$dir"
echo "$dir"
