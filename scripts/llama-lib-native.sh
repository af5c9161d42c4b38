#!/usr/bin/env bash
# Prints the absolute path of a directory holding llama.cpp's libraries (libllama, libggml*) compiled on this machine
# for this CPU (GGML_NATIVE=ON, i.e. -march=native, Release, shared) from the same pinned source as llama-server
# (scripts/llama-server.sh: llama.cpp commit 80fb11ac, whose source it fetches), building them on first use into a
# cache outside the repository (KVLAB_CACHE, default ~/.cache/kvlab): minutes, once. Chosen by KVLAB_LLAMA_BUILD=native;
# the default is the prebuilt npm package (scripts/llama-lib.sh), which installs in seconds. The directory's
# kvlab-build.properties names the commit, the build flags and the CPU; kvlab's bindings check the commit at load.
# Exit 1 with the reason where it cannot (no cmake/g++, a failed build: the log's tail).
set -euo pipefail
COMMIT=80fb11ac
root=${KVLAB_CACHE:-$HOME/.cache/kvlab}
src_cache=$root/llama.cpp/$COMMIT
dir=$root/llama-lib/native-$COMMIT
build=$src_cache/build-shared
die() { echo "llama-lib-native.sh: $*" >&2; exit 1; }
ready() { [ -f "$dir/kvlab-build.properties" ] && [ -e "$dir/libllama.v0.4.0.so" ] && [ -e "$dir/libggml.v0.4.0.so" ]; }
if ready; then echo "$dir"; exit 0; fi
for t in cmake gcc g++ flock; do command -v "$t" >/dev/null || die "needs $t (apt-get install cmake g++)"; done
if [ ! -d "$src_cache/src/.git" ]; then
  # the pinned source comes with llama-server's build (scripts/llama-server.sh fetches it and builds the server)
  "$(dirname "$0")/llama-server.sh" >/dev/null || die "scripts/llama-server.sh could not fetch the pinned source"
fi
head=$(git -C "$src_cache/src" rev-parse HEAD)
[[ $head == $COMMIT* ]] || die "the source in $src_cache/src is at $head, pinned $COMMIT"
mkdir -p "$root/llama-lib"
exec 9>"$src_cache/.lock-shared"; flock 9
if ready; then echo "$dir"; exit 0; fi
echo "llama-lib-native.sh: compiling llama.cpp $COMMIT for this CPU (-march=native, shared; minutes, once) into $build" >&2
log=$src_cache/build-shared.log
{ cmake -S "$src_cache/src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=ON -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=OFF \
  && cmake --build "$build" --target llama -j "$(nproc)"; } >"$log" 2>&1 ||
  die "build failed (log: $log): $(tail -3 "$log" | tr '\n' ' ')"
[ -f "$build/bin/libllama.so" ] || die "the build finished without $build/bin/libllama.so (log: $log)"
work=$(mktemp -d "$root/llama-lib/.native.XXXXXX")
ln -s "$build/bin/libllama.so" "$work/libllama.v0.4.0.so"
ln -s "$build/bin/libggml.so" "$work/libggml.v0.4.0.so"
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
printf 'commit=%s\nbuild=GGML_NATIVE=ON (-march=native) Release, shared\ncpu=%s\n' "$head" "$cpu" >"$work/kvlab-build.properties"
rm -rf "$dir"; mv "$work" "$dir"
echo "$dir"
