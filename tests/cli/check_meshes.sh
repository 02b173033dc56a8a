#!/usr/bin/env bash
# `flexadj check` on every model in meshes/ that has an objective: the Taylor test and central differences
# must pass (exit 0) with the default settings. Usage: check_meshes.sh FLEXADJ MESHES_DIR [SHARD COUNT]: with SHARD
# and COUNT, only every COUNT-th model with an objective from the SHARD-th on (0-based), so that ctest can run the
# shards side by side.
set -uo pipefail
program="$1"; meshes="$2"; shard="${3:-0}"; count="${4:-1}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"
passed=0; failed=0; index=-1
for model in "$meshes"/*.yaml; do
  grep -q '^objective:' "$model" || { echo "skip $(basename "$model") (no objective)"; continue; }
  index=$((index + 1))
  [ $((index % count)) -eq "$shard" ] || continue
  start=$(date +%s)
  if "$program" check "$model" -q > out.txt 2>&1; then
    passed=$((passed + 1)); echo "ok   $(basename "$model") ($(( $(date +%s) - start )) s)"
  else
    failed=$((failed + 1)); echo "FAIL $(basename "$model")"; cat out.txt
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
