#!/usr/bin/env bash
# `flexadj check` on every model in meshes/ that has an objective: the Taylor test and central differences
# must pass (exit 0) with the default settings. Usage: check_meshes.sh FLEXADJ MESHES_DIR
set -uo pipefail
program="$1"; meshes="$2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"
passed=0; failed=0
for model in "$meshes"/*.yaml; do
  grep -q '^objective:' "$model" || { echo "skip $(basename "$model") (no objective)"; continue; }
  start=$(date +%s)
  if "$program" check "$model" -q > out.txt 2>&1; then
    passed=$((passed + 1)); echo "ok   $(basename "$model") ($(( $(date +%s) - start )) s)"
  else
    failed=$((failed + 1)); echo "FAIL $(basename "$model")"; cat out.txt
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
