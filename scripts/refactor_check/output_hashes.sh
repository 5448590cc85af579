#!/usr/bin/env bash
# Usage: output_hashes.sh PI_TOOLS_EXECUTABLE  > hashes.txt
#
# Run it with the pi-tools of two checkouts (before and after a refactoring) and diff the results: every
# command's stdout (payload of the 100 MB benchmark session for every API, context, convert, audit, usage,
# preflight, index over the real sessions) must hash the same.
#
# Prints one line per command on stdout:  <label> <exit code> <sha256 of stdout>
# Prints the wall time of each command on stderr:  "# time <label> <seconds>"
# LIST=1 prints the commands (label: command) instead of running them.
# Optional: KEEP_DIR=/some/dir  also keeps each command's stdout as KEEP_DIR/<label>.out (for diffing).
#
# Compare two runs with:  diff old-hashes.txt new-hashes.txt
set -u
PI="${1:?usage: output_hashes.sh PI_TOOLS_EXECUTABLE}"
PI="$(readlink -f "$PI")"

HERE="$(cd "$(dirname "$0")" && pwd)"
SHARED="${PI_TOOLS_SHARED:-$HERE/../../../shared}"   # the reference material beside the checkout
BIG="${PI_TOOLS_BENCH_CACHE:-/tmp/pi-tools-bench}/big-100mb-seed7.jsonl"   # benchmarks/processes.py big_session()
RW_DIR="$SHARED/realworld"

# A fixed environment, so nothing but the code differs between runs.
export LC_ALL=C TZ=UTC PYTHONHASHSEED=0
unset PI_CODING_AGENT_DIR PI_CACHE_RETENTION PI_TOOLS_SPLIT_BYTES TMPDIR SOURCE_DATE_EPOCH \
      AZURE_OPENAI_BASE_URL AZURE_OPENAI_RESOURCE_NAME AZURE_OPENAI_API_VERSION AZURE_OPENAI_DEPLOYMENT_NAME_MAP
cd /tmp || exit 2
RW=("$RW_DIR"/*.jsonl)   # sorted under LC_ALL=C

[ -f "$BIG" ] || { echo "missing $BIG (python3 $SHARED/oracle/gen_corpus.py --big --seed 7 --out $BIG --target-mb 100)" >&2; exit 2; }
[ -x "$PI" ] || { echo "not executable: $PI" >&2; exit 2; }

run() {   # run LABEL ARGS...   (ARGS are given to pi-tools)
  local label=$1; shift
  local tmp err t0 t1 rc sha
  if [ -n "${LIST:-}" ]; then   # LIST=1: print the commands instead of running them
    echo "$label: $( [ -n "${AZURE_OPENAI_RESOURCE_NAME:-}" ] && echo "AZURE_OPENAI_RESOURCE_NAME=$AZURE_OPENAI_RESOURCE_NAME " )pi-tools $*"; return
  fi
  tmp=$(mktemp /tmp/pi-hashes.XXXXXX); err=/dev/null
  [ -n "${KEEP_DIR:-}" ] && { mkdir -p "$KEEP_DIR"; err="$KEEP_DIR/$label.err"; }
  t0=$(date +%s%N)
  "$PI" "$@" >"$tmp" 2>"$err" </dev/null
  rc=$?
  t1=$(date +%s%N)
  sha=$(sha256sum <"$tmp" | cut -d' ' -f1)
  if [ -n "${KEEP_DIR:-}" ]; then mv "$tmp" "$KEEP_DIR/$label.out"; else rm -f "$tmp"; fi
  echo "$label $rc $sha"
  awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN{printf "# time %s %.2f\n", l, (b-a)/1e9}' >&2
}

run_index() {   # run_index LABEL PATHS...: index into a fresh folder; hash every table file + manifest minus its start time
  local label=$1; shift
  if [ -n "${LIST:-}" ]; then echo "$label: pi-tools index $* -o FRESH_TMP_DIR/idx"; return; fi
  local d rc sha t0 t1
  d=$(mktemp -d /tmp/pi-hashes-idx.XXXXXX)
  t0=$(date +%s%N)
  "$PI" index "$@" -o "$d/idx" >/dev/null 2>&1 </dev/null
  rc=$?
  t1=$(date +%s%N)
  sha=$( cd "$d/idx" && { find . -type f ! -name manifest.json | LC_ALL=C sort | xargs -r sha256sum
         python3 -c 'import json,sys; m=json.load(open("manifest.json")); m.pop("startedNs",None); print(json.dumps(m,sort_keys=True))'
       } | sha256sum | cut -d' ' -f1 )
  [ -n "${KEEP_DIR:-}" ] && { mkdir -p "$KEEP_DIR"; rm -rf "$KEEP_DIR/$label.idx"; cp -r "$d/idx" "$KEEP_DIR/$label.idx"; }
  rm -rf "$d"
  echo "$label $rc $sha"
  awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN{printf "# time %s %.2f\n", l, (b-a)/1e9}' >&2
}

# Inputs themselves (so a changed input is not mistaken for changed code).
[ -z "${LIST:-}" ] && echo "input:big-100mb-seed7 0 $(sha256sum < "$BIG" | cut -d' ' -f1)"
[ -z "${LIST:-}" ] && echo "input:realworld 0 $(cat "${RW[@]}" | sha256sum | cut -d' ' -f1)"

# API -> representative model
APIS=(anthropic-messages openai-completions openai-responses azure-openai-responses
      google-generative-ai google-vertex mistral-conversations bedrock-converse-stream)
declare -A MODEL=(
  [anthropic-messages]=anthropic/claude-sonnet-4-5
  [openai-completions]=groq/openai/gpt-oss-120b
  [openai-responses]=openai/gpt-5.1
  [azure-openai-responses]=azure-openai-responses/gpt-5.1
  [google-generative-ai]=google/gemini-2.5-flash
  [google-vertex]=google-vertex/gemini-2.5-flash
  [mistral-conversations]=mistral/mistral-medium-latest
  [bedrock-converse-stream]=amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0
)

# --- big session ---
for api in "${APIS[@]}"; do
  run "big:payload:$api:model" payload --api "$api" --model "${MODEL[$api]}" "$BIG"
done
for api in "${APIS[@]}"; do
  run "big:payload:$api:nomodel" payload --api "$api" "$BIG"
done
run "big:payload:anthropic-messages:model:wire" payload --api anthropic-messages --model anthropic/claude-sonnet-4-5 --wire "$BIG"
run "big:payload:openai-responses:model:wire"   payload --api openai-responses --model openai/gpt-5.1 --wire "$BIG"
# Azure needs a base URL or resource name (without one, Pi's error: recorded above as the :model line, rc 2)
AZURE_OPENAI_RESOURCE_NAME=pi-baseline run "big:payload:azure-openai-responses:model:resource" payload --api azure-openai-responses --model azure-openai-responses/gpt-5.1 "$BIG"
AZURE_OPENAI_RESOURCE_NAME=pi-baseline run "big:payload:azure-openai-responses:model:resource:wire" payload --api azure-openai-responses --model azure-openai-responses/gpt-5.1 --wire "$BIG"
run "big:payload:anthropic-messages:model:jobs1" payload --api anthropic-messages --model anthropic/claude-sonnet-4-5 --jobs 1 "$BIG"
run "big:context"        context "$BIG"
run "big:convert"        convert "$BIG"
run "big:audit:json"     audit --format json "$BIG"
run "big:usage:json"     usage --format json "$BIG"
run "big:preflight:json" preflight --model anthropic/claude-sonnet-4-5 --format json "$BIG"

# --- realworld sessions, all files in one command ---
for api in "${APIS[@]}"; do
  run "rw:payload:$api:nomodel" payload --api "$api" "${RW[@]}"
done
for api in "${APIS[@]}"; do
  run "rw:payload:$api:model" payload --api "$api" --model "${MODEL[$api]}" "${RW[@]}"
done
run "rw:payload:anthropic-messages:model:wire" payload --api anthropic-messages --model anthropic/claude-sonnet-4-5 --wire "${RW[@]}"
run "rw:payload:openai-responses:model:wire"   payload --api openai-responses --model openai/gpt-5.1 --wire "${RW[@]}"
AZURE_OPENAI_RESOURCE_NAME=pi-baseline run "rw:payload:azure-openai-responses:model:resource:wire" payload --api azure-openai-responses --model azure-openai-responses/gpt-5.1 --wire "${RW[@]}"
run_index "rw:index" "${RW[@]}"
run "rw:context"        context "${RW[@]}"
run "rw:convert"        convert "${RW[@]}"
run "rw:audit:json"     audit --format json "${RW[@]}"
run "rw:usage:json"     usage --format json "${RW[@]}"
run "rw:preflight:json" preflight --model anthropic/claude-sonnet-4-5 --format json "${RW[@]}"
