#!/usr/bin/env bash
# The unit, command-line and MPI tests under AddressSanitizer and UndefinedBehaviorSanitizer (GCC), in their own
# build folder build-asan. Prints a summary: tests passed and failed, and the sanitizer reports found in the
# tests' output, each location once. Exit status 0 only if every test passed and nothing was reported.
# Not part of CI (it takes more than an hour on 2 cores); run it before a release (docs/reliability.md).
# Usage: scripts/sanitize.sh [extra ctest arguments, e.g. -R test_beam_input]
# JOBS (default 2) sets the build and test parallelism; BUILD_DIR (default build-asan) the folder.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build-asan}"
JOBS="${JOBS:-2}"
FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -g1"
LAUNCHER=()
if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

# -O1: at -O3 the instrumented AD kernels take up to 8 minutes each to compile (ancf_cable.cpp).
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" "${LAUNCHER[@]}" \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null || exit 1
# Only what the selected tests run: the program and the test programs labelled unit or mpi.
targets=(flexadj_app)
targets+=($(grep -h "^flexadj_add_test(.*LABELS [^)]*\(unit\|mpi\)" tests/*/CMakeLists.txt | sed 's/^flexadj_add_test(\([^ ]*\) .*/\1/'))
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}" || exit 1

# Leak checking is off: Open MPI's and HDF5's allocations that live until exit drown any report
# (docs/reliability.md). UBSan keeps going after a report so that one run lists them all.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:print_summary=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0:print_summary=1"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$BUILD_DIR"
start=$(date +%s)
# Three phases, cheapest first: the unit and MPI tests (minutes), the command-line tests, then the two that run
# `flexadj check` on whole models (cli_simulate, cli_check_meshes: hours under the sanitizers). PHASES selects some,
# e.g. PHASES="cli" scripts/sanitize.sh.
declare -A PHASE_ARGS=([unit-mpi]='-L unit|mpi -LE cli' [cli]='-L cli -E ^(cli_simulate|cli_check_meshes_[01])$'
                       [cli-models]='-R ^(cli_simulate|cli_check_meshes_[01])$ --timeout 10800')
# (cli_check_meshes takes about 40 minutes under the sanitizers on 2 cores: past ctest's default 1500 s.)
: > sanitize-ctest.log
ctest_status=0
logs=()
for phase in ${PHASES:-unit-mpi cli cli-models}; do
  # shellcheck disable=SC2086  # PHASE_ARGS holds several arguments
  ctest ${PHASE_ARGS[$phase]} -j "$JOBS" --output-on-failure "$@" >> sanitize-ctest.log 2>&1 || ctest_status=1
  cp Testing/Temporary/LastTest.log "sanitize-$phase.log"
  logs+=("sanitize-$phase.log")
done
asan=$(cat "${logs[@]}" | grep -c "ERROR: AddressSanitizer")
ubsan_locations=$(cat "${logs[@]}" sanitize-ctest.log | grep -o "[^ ]*: runtime error: .*" | sort -u)
ubsan=$(printf '%s' "$ubsan_locations" | grep -c . || true)
echo "== sanitize.sh: $(grep -E "tests passed|tests failed" sanitize-ctest.log | tr '\n' ';')"
echo "   time: $(( $(date +%s) - start )) s for the tests; output in $BUILD_DIR/sanitize-ctest.log and ${logs[*]}"
echo "   AddressSanitizer errors: $asan"
echo "   UndefinedBehaviorSanitizer reports (distinct): $ubsan"
[ -n "$ubsan_locations" ] && printf '%s\n' "$ubsan_locations" | sed 's/^/     /'
grep -A20 "The following tests FAILED" sanitize-ctest.log
[ "$ctest_status" -eq 0 ] && [ "$asan" -eq 0 ] && [ "$ubsan" -eq 0 ]
