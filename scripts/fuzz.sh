#!/usr/bin/env bash
# Fuzzes flexadj's readers with libFuzzer (Debian's clang, with AddressSanitizer and UBSan): the expression
# parser and evaluator (tests/fuzz/fuzz_expression.cpp), the Gmsh mesh reader (fuzz_gmsh.cpp), the
# control-signal CSV reader (fuzz_control_csv.cpp), the model-file reader with its validation (fuzz_model_yaml.cpp)
# and the HDF5 readers of trajectories, checkpoints and control signals (fuzz_hdf5.cpp).
# Builds the harnesses into build-fuzz/ (not part of the CMake build), runs each for SECONDS (default 60) from
# its seeds and the corpus of earlier runs, and prints per harness: executions, coverage, corpus size, crashes,
# hangs (an input taking more than 10 s) and out-of-memory inputs; their inputs are kept in build-fuzz/artifacts/.
# JOBS (default 2) processes at once: the compiles of all harnesses, then the harnesses' runs (each on one core
# for its SECONDS; the table prints in order once all have run).
# Exit status 0 only if nothing was found. Needs clang and libclang-rt-14-dev.
# The model_yaml and hdf5 harnesses need the library: their readers' sources are compiled here with the fuzzer's
# instrumentation and the sanitizers, the rest of the library (solvers, elements, Trilinos) is linked from the
# CMake build in FUZZ_CMAKE_BUILD (default build/; its library is built first if needed) without them.
# Seeds: tests/fuzz/seeds/NAME; for model_yaml the models of meshes/; for hdf5 files the harness writes with
# flexadj's own writers (FLEXADJ_FUZZ_WRITE_SEEDS).
# The hdf5 harness runs in libFuzzer's fork mode, which goes on after a crash, and each crash is reproduced to
# say where it is: inside the HDF5 library (its first frames; HDF5 1.10.8 misreads some damaged chunk indexes,
# docs/reliability.md) or in flexadj. Only the latter, hangs and out-of-memory inputs fail the run (all of them
# with FUZZ_STRICT=1). FUZZ_OUT sets the output folder (default build-fuzz).
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]   (harnesses: expression gmsh control_csv model_yaml hdf5)
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-60}"
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -eq 0 ] && HARNESSES=(expression gmsh control_csv model_yaml hdf5)
OUT="${FUZZ_OUT:-build-fuzz}"
CXX="${FUZZ_CXX:-clang++}"
# FUZZ_OPTIMIZATION: the harnesses' optimisation and debug flags (default -O1 -g: libFuzzer's usual, for long
# campaigns). The short ctest run takes -O0 -gline-tables-only, which compiles in half the time (the build is most
# of a 5-second run) and still names file and line in every stack.
read -r -a OPTIMIZATION <<< "${FUZZ_OPTIMIZATION:--O1 -g}"
FLAGS=(-std=c++17 "${OPTIMIZATION[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc)
declare -A SOURCES=([expression]=src/flexadj/functions/expression.cpp [gmsh]=src/flexadj/io/gmsh_mesh.cpp
                   [control_csv]=src/flexadj/functions/control_signal.cpp)
# The control-signal reader also reads HDF5 files: Debian's parallel HDF5 and Open MPI.
HDF5=(-I/usr/include/hdf5/openmpi -I/usr/lib/x86_64-linux-gnu/openmpi/include
      -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5 -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi)
declare -A EXTRA=([expression]="" [gmsh]="" [control_csv]="${HDF5[*]}")
# Instrumented sources of the harnesses that link the library.
declare -A LIBRARY_SOURCES=(
  [model_yaml]="src/flexadj/io/problem_reader.cpp src/flexadj/io/read_*.cpp src/flexadj/io/reader_overrides.cpp
                src/flexadj/io/parameter_rules.cpp src/flexadj/io/design_values.cpp src/flexadj/io/gmsh_mesh.cpp
                src/flexadj/functions/expression.cpp src/flexadj/functions/control_signal.cpp"
  [hdf5]="src/flexadj/results/state_reader.cpp src/flexadj/results/hdf5_results_file.cpp
          src/flexadj/storage/checkpoint_file.cpp src/flexadj/functions/control_signal.cpp")
CMAKE_BUILD="${FUZZ_CMAKE_BUILD:-build}"
JOBS="${JOBS:-2}"
COMPILER=("$CXX")
command -v ccache > /dev/null && COMPILER=(ccache "$CXX")
mkdir -p "$OUT"

# Compile jobs run in the background, at most JOBS at once (across harnesses): slot waits for a free one.
build_failed=0
slot() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || build_failed=1; done; }
drain() { while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || build_failed=1; done; }

# The library's include directories and definitions (compile_commands.json, without optimisation, warnings or the
# precompiled header, which clang cannot read)
# into LIBRARY_FLAGS and apps/flexadj's link line (build.ninja) into LIBRARY_LINK; builds the library first.
library_flags() {
  if [ ! -f "$CMAKE_BUILD/build.ninja" ]; then
    cmake -S . -B "$CMAKE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null || return 1
  fi
  cmake --build "$CMAKE_BUILD" -j "$JOBS" --target flexadj flexadj_functions flexadj_hdf5io > /dev/null || return 1
  LIBRARY_FLAGS=$(python3 - "$CMAKE_BUILD/compile_commands.json" <<'PY'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    if entry["file"].endswith("src/flexadj/results/state_reader.cpp"):
        words = shlex.split(entry["command"])[1:]
        keep, skip = [], False
        for w in words:
            if skip: skip = False; continue
            if w in ("-o", "-c", "-include"): skip = True; continue  # -include: GCC's precompiled header
            if w.startswith(("-O", "-W")) or w == "-DNDEBUG": continue
            keep.append(w)
        print(" ".join(keep)); break
PY
) || return 1
  [ -n "$LIBRARY_FLAGS" ] || { echo "fuzz: no compile command in $CMAKE_BUILD/compile_commands.json"; return 1; }
  LIBRARY_LINK=$(sed -n '/^build apps\/flexadj:/,/LINK_LIBRARIES/p' "$CMAKE_BUILD/build.ninja" | grep LINK_LIBRARIES |
                 sed "s/^ *LINK_LIBRARIES = //; s# src/lib# $CMAKE_BUILD/src/lib#g")
  [ -n "$LIBRARY_LINK" ] || { echo "fuzz: no link line for apps/flexadj in $CMAKE_BUILD/build.ninja"; return 1; }
}

# The object file of a source of the harnesses that link the library, in $OUT/obj/ (one per source: the
# model-file and HDF5 harnesses share the readers they both instrument).
object_of() { echo "$OUT/obj/$(basename "$1" .cpp).o"; }

# Builds the harnesses of $@: every compile at most JOBS at once, then the links of those that use the library,
# as apps/flexadj links.
build_all() {
  local name source library=() sources=() objects
  for name in "$@"; do [ -n "${LIBRARY_SOURCES[$name]:-}" ] && library+=("$name"); done
  if [ ${#library[@]} -gt 0 ]; then
    library_flags || return 1
    rm -rf "$OUT/obj" && mkdir -p "$OUT/obj"
    # shellcheck disable=SC2086  # word splitting of the lists is meant
    for name in "${library[@]}"; do
      for source in ${LIBRARY_SOURCES[$name]} "tests/fuzz/fuzz_$name.cpp"; do
        [[ " ${sources[*]} " == *" $source "* ]] || sources+=("$source")
      done
    done
    for source in "${sources[@]}"; do
      slot
      # shellcheck disable=SC2086
      "${COMPILER[@]}" $LIBRARY_FLAGS "${FLAGS[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" -c "$source" \
        -o "$(object_of "$source")" &
    done
  fi
  for name in "$@"; do
    [ -n "${LIBRARY_SOURCES[$name]:-}" ] && continue
    slot
    # shellcheck disable=SC2086  # EXTRA holds several flags
    "$CXX" "${FLAGS[@]}" "tests/fuzz/fuzz_$name.cpp" "${SOURCES[$name]}" ${EXTRA[$name]} -o "$OUT/fuzz_$name" &
  done
  drain
  [ $build_failed -eq 0 ] || return 1
  for name in "${library[@]}"; do
    objects=()
    # shellcheck disable=SC2086
    for source in ${LIBRARY_SOURCES[$name]} "tests/fuzz/fuzz_$name.cpp"; do objects+=("$(object_of "$source")"); done
    slot
    # shellcheck disable=SC2086
    "$CXX" -fsanitize=fuzzer,address,undefined "${objects[@]}" $LIBRARY_LINK -o "$OUT/fuzz_$name" &
  done
  drain
  [ $build_failed -eq 0 ]
}

# Seeds of harnesses without a folder in tests/fuzz/seeds.
make_seeds() {
  local name="$1" folder="$OUT/seeds/$1"
  rm -rf "$folder" && mkdir -p "$folder"
  case "$name" in
    model_yaml) cp meshes/*.yaml "$folder"/ ;;
    hdf5) FLEXADJ_FUZZ_WRITE_SEEDS="$folder" ASAN_OPTIONS=detect_leaks=0 "$OUT/fuzz_hdf5" > /dev/null ;;
  esac
}
export UBSAN_OPTIONS="print_stacktrace=1"
# The HDF5 library (not instrumented) allocates what a damaged file's metadata says and handles a failed malloc
# as the error it is: let malloc fail as glibc's would, instead of ASan's report or libFuzzer's malloc limit.
# Open MPI keeps its allocations to the end: no leak detection where MPI runs.
declare -A ASAN=([hdf5]="detect_leaks=0:allocator_may_return_null=1")
declare -A OPTIONS=([hdf5]="-malloc_limit_mb=1000000")
# Harnesses run in libFuzzer's fork mode, which goes on after a crash: reading damaged HDF5 files crashes inside
# the HDF5 library (below), and a run that stopped at the first would measure little.
FORK=" ${FUZZ_FORK_HARNESSES-hdf5} "

# "libhdf5" if the sanitizer's or the signal's stack of reproducing crash input $2 with harness $1 reaches the HDF5
# library before any frame of flexadj or of the harness, else "flexadj".
crash_place() {
  local frames
  frames=$(ASAN_OPTIONS="${ASAN[$3]:-detect_leaks=1}" timeout 120 "$1" "$2" 2>&1 | grep -aE '^ +#[0-9]+ ' |
           grep -aE 'libhdf5|/src/flexadj/|/tests/fuzz/|flexadj::' | head -1)
  case "$frames" in *libhdf5*) echo libhdf5 ;; *) echo flexadj ;; esac
}

started=$(date +%s)
build_all "${HARNESSES[@]}" || exit 1
for name in "${HARNESSES[@]}"; do
  [ -n "${LIBRARY_SOURCES[$name]:-}" ] && { make_seeds "$name" || exit 1; }
done
echo "  ${#HARNESSES[@]} harness(es) built in $(($(date +%s) - started)) s" >&2

# run_harness NAME: fuzzes NAME for SECONDS_EACH; writes its line of the table (and what to look at) to
# $OUT/fuzz_NAME.summary, and 1 to $OUT/fuzz_NAME.status if it found something (else 0).
run_harness() {
  local name="$1" binary="$OUT/fuzz_$1" seeds="tests/fuzz/seeds/$1"
  [ -n "${LIBRARY_SOURCES[$name]:-}" ] && seeds="$OUT/seeds/$name"
  local corpus="$OUT/corpus/$name" artifacts="$OUT/artifacts/$name" log="$OUT/fuzz_$name.log"
  local summary="$OUT/fuzz_$name.summary" fork=() executions finished coverage input crashes=0 in_hdf5=0 hangs ooms
  mkdir -p "$corpus" "$artifacts"
  touch "$log.start"  # inputs found by this run are newer
  [[ "$FORK" == *" $name "* ]] && fork=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  # shellcheck disable=SC2086  # OPTIONS holds flags
  ASAN_OPTIONS="${ASAN[$name]:-detect_leaks=1}" "$binary" ${OPTIONS[$name]:-} "${fork[@]}" "$corpus" "$seeds" \
    -dict="tests/fuzz/$name.dict" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" > "$log" 2>&1
  if [ ${#fork[@]} -gt 0 ]; then
    executions=$(grep -aoE "^#[0-9]+: cov" "$log" | tail -1 | grep -oE "[0-9]+")
    finished=$(grep -ac "INFO: exiting: 0" "$log")
  else
    executions=$(grep -ao "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" | tail -1)
    finished=$(grep -ac "Done [0-9]* runs" "$log")
  fi
  coverage=$(grep -aoE "cov: [0-9]+ ft: [0-9]+" "$log" | tail -1 | awk '{print $2 "(" $4 ")"}')
  for input in $(find "$artifacts" -name 'crash-*' -newer "$log.start"); do
    crashes=$((crashes + 1))
    [ "$(crash_place "$binary" "$input" "$name")" = libhdf5 ] && in_hdf5=$((in_hdf5 + 1))
  done
  hangs=$(find "$artifacts" -name 'timeout-*' -newer "$log.start" | wc -l)
  ooms=$(find "$artifacts" -name 'oom-*' -newer "$log.start" | wc -l)
  printf '%-11s %8s %12s %14s %8s %8s %6s %6s\n' "$name" "$SECONDS_EACH" "${executions:-?}" "${coverage:-?}" \
    "$(ls "$corpus" | wc -l)" "$crashes" "$hangs" "$ooms" > "$summary"
  [ $in_hdf5 -gt 0 ] &&
    echo "  $name: $in_hdf5 of the $crashes crashes are inside the HDF5 library (its first frames)" >> "$summary"
  if [ $((crashes - in_hdf5 + hangs + ooms)) -gt 0 ] || [ "$finished" -eq 0 ] ||
     { [ $in_hdf5 -gt 0 ] && [ -n "${FUZZ_STRICT:-}" ]; }; then
    echo "  $name: see $log and $artifacts/" >> "$summary"
    echo 1 > "$OUT/fuzz_$name.status"
  else
    echo 0 > "$OUT/fuzz_$name.status"
  fi
}

# The harnesses fuzz JOBS at a time (each on one core for SECONDS_EACH), then their lines print in order.
for name in "${HARNESSES[@]}"; do
  rm -f "$OUT/fuzz_$name.summary" "$OUT/fuzz_$name.status"
  slot
  run_harness "$name" &
done
drain
status=0
printf '%-11s %8s %12s %14s %8s %8s %6s %6s\n' harness seconds executions "coverage(ft)" corpus crashes hangs ooms
for name in "${HARNESSES[@]}"; do
  cat "$OUT/fuzz_$name.summary" 2>/dev/null || echo "$name: no summary (see $OUT/fuzz_$name.log)"
  [ "$(cat "$OUT/fuzz_$name.status" 2>/dev/null)" = 0 ] || status=1
done
exit $status
