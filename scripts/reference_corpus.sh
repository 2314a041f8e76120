#!/bin/bash
# Build a reference corpus through Dagster and fingerprint it, to prove a refactor changes no artifact:
#   scripts/reference_corpus.sh OUT            # OUT/offline (AWM_DOMAINS x AWM_SLOTS, default 10 x 10) and
#                                              # OUT/llm (one domain x 3 through the LLM backend against
#                                              # `awm llm-serve` on a fixed port), each with a digest .json
#   python scripts/corpus_digest.py compare OUT1/offline.json OUT2/offline.json
# PYTHON defaults to .venv/bin/python. The LLM server's port is fixed because its URL is in provenance.
set -euo pipefail
out=$(realpath -m "$1"); mkdir -p "$out"
py=${PYTHON:-.venv/bin/python}
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD
rm -rf "$out/offline" "$out/llm"
/usr/bin/env time -f "%e s wall" env AWM_HOME="$out/offline" AWM_DOMAINS="${AWM_DOMAINS:-10}" \
  AWM_SLOTS="${AWM_SLOTS:-10}" "$py" -m awm_assets.launch > "$out/offline.log" 2> "$out/offline.time"
"$py" scripts/corpus_digest.py digest "$out/offline" -o "$out/offline.json"

port=${AWM_REFERENCE_LLM_PORT:-18931}
"$py" -m awm.cli llm-serve --port "$port" > "$out/llm-serve.log" 2>&1 &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 100); do grep -q "http://127" "$out/llm-serve.log" && break; sleep 0.1; done
AWM_HOME="$out/llm" AWM_DOMAINS=dental_clinic AWM_SLOTS=3 AWM_LLM_BACKEND=openai OPENAI_API_KEY=reference \
  OPENAI_BASE_URL="http://127.0.0.1:$port/v1" AWM_LLM_MODEL=awm-offline "$py" -m awm_assets.launch > "$out/llm.log"
"$py" scripts/corpus_digest.py digest "$out/llm" -o "$out/llm.json"
