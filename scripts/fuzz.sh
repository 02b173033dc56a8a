#!/usr/bin/env bash
# Fuzzes flexadj's parsers with libFuzzer (Debian's clang, with AddressSanitizer and UBSan): the expression
# parser and evaluator (tests/fuzz/fuzz_expression.cpp), the Gmsh mesh reader (fuzz_gmsh.cpp) and the
# control-signal CSV reader (fuzz_control_csv.cpp).
# Builds the harnesses into build-fuzz/ (not part of the CMake build), runs each for SECONDS (default 60) from
# the seeds in tests/fuzz/seeds/ and the corpus of earlier runs, and prints per harness: executions, coverage,
# corpus size, crashes, hangs (an input taking more than 10 s) and out-of-memory inputs; their inputs are kept
# in build-fuzz/artifacts/. Exit status 0 only if nothing was found. Needs clang and libclang-rt-14-dev.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]   (harnesses: expression gmsh control_csv)
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-60}"
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -eq 0 ] && HARNESSES=(expression gmsh control_csv)
OUT=build-fuzz
CXX="${FUZZ_CXX:-clang++}"
FLAGS=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc)
declare -A SOURCES=([expression]=src/flexadj/functions/expression.cpp [gmsh]=src/flexadj/io/gmsh_mesh.cpp
                   [control_csv]=src/flexadj/functions/control_signal.cpp)
# The control-signal reader also reads HDF5 files: Debian's parallel HDF5 and Open MPI.
HDF5=(-I/usr/include/hdf5/openmpi -I/usr/lib/x86_64-linux-gnu/openmpi/include
      -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5 -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi)
declare -A EXTRA=([expression]="" [gmsh]="" [control_csv]="${HDF5[*]}")
mkdir -p "$OUT"
export ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1"
status=0
printf '%-11s %8s %12s %14s %8s %8s %6s %6s\n' harness seconds executions "coverage(ft)" corpus crashes hangs ooms
for name in "${HARNESSES[@]}"; do
  binary="$OUT/fuzz_$name"
  # shellcheck disable=SC2086  # EXTRA holds several flags
  "$CXX" "${FLAGS[@]}" "tests/fuzz/fuzz_$name.cpp" "${SOURCES[$name]}" ${EXTRA[$name]} -o "$binary" || exit 1
  corpus="$OUT/corpus/$name" artifacts="$OUT/artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  log="$OUT/fuzz_$name.log"
  touch "$log.start"  # inputs found by this run are newer
  "$binary" "$corpus" "tests/fuzz/seeds/$name" -dict="tests/fuzz/$name.dict" -max_total_time="$SECONDS_EACH" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" > "$log" 2>&1
  executions=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" | tail -1)
  coverage=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "$log" | tail -1 | awk '{print $2 "(" $4 ")"}')
  crashes=$(find "$artifacts" -name 'crash-*' -newer "$log.start" | wc -l)
  hangs=$(find "$artifacts" -name 'timeout-*' -newer "$log.start" | wc -l)
  ooms=$(find "$artifacts" -name 'oom-*' -newer "$log.start" | wc -l)
  printf '%-11s %8s %12s %14s %8s %8s %6s %6s\n' "$name" "$SECONDS_EACH" "${executions:-?}" "${coverage:-?}" \
    "$(ls "$corpus" | wc -l)" "$crashes" "$hangs" "$ooms"
  if [ $((crashes + hangs + ooms)) -gt 0 ] || ! grep -q "Done [0-9]* runs" "$log"; then
    status=1
    echo "  $name: see $log and $artifacts/"
  fi
done
exit $status
