#!/usr/bin/env bash
# Fuzzes flexadj's readers with libFuzzer (Debian's clang, with AddressSanitizer and UBSan): the expression
# parser and evaluator (tests/fuzz/fuzz_expression.cpp), the Gmsh mesh reader (fuzz_gmsh.cpp), the
# control-signal CSV reader (fuzz_control_csv.cpp), the model-file reader with its validation (fuzz_model_yaml.cpp)
# and the HDF5 readers of trajectories, checkpoints and control signals (fuzz_hdf5.cpp).
# Builds the harnesses into build-fuzz/ (not part of the CMake build), runs each for SECONDS (default 60) from
# its seeds and the corpus of earlier runs, and prints per harness: executions, coverage, corpus size, crashes,
# hangs (an input taking more than 10 s) and out-of-memory inputs; their inputs are kept in build-fuzz/artifacts/.
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
FLAGS=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc)
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
  [hdf5]="src/flexadj/io/state_reader.cpp src/flexadj/io/hdf5_results_file.cpp
          src/flexadj/storage/checkpoint_file.cpp src/flexadj/functions/control_signal.cpp")
CMAKE_BUILD="${FUZZ_CMAKE_BUILD:-build}"
JOBS="${JOBS:-2}"
COMPILER=("$CXX")
command -v ccache > /dev/null && COMPILER=(ccache "$CXX")
mkdir -p "$OUT"

# Compiles a harness and its library sources (at most JOBS at once) and links them with the CMake build's
# libraries, as apps/flexadj links.
build_with_library() {
  local name="$1" objects="$OUT/obj/$name"
  if [ ! -f "$CMAKE_BUILD/build.ninja" ]; then
    cmake -S . -B "$CMAKE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null || return 1
  fi
  cmake --build "$CMAKE_BUILD" -j "$JOBS" --target flexadj flexadj_functions flexadj_hdf5io > /dev/null || return 1
  # Include directories and definitions of the library (compile_commands.json), without optimisation or warnings.
  local flags
  flags=$(python3 - "$CMAKE_BUILD/compile_commands.json" <<'PY'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    if entry["file"].endswith("src/flexadj/io/state_reader.cpp"):
        words = shlex.split(entry["command"])[1:]
        keep, skip = [], False
        for w in words:
            if skip: skip = False; continue
            if w in ("-o", "-c"): skip = True; continue
            if w.startswith(("-O", "-W")) or w == "-DNDEBUG": continue
            keep.append(w)
        print(" ".join(keep)); break
PY
) || return 1
  [ -n "$flags" ] || { echo "fuzz: no compile command in $CMAKE_BUILD/compile_commands.json"; return 1; }
  local libraries
  libraries=$(sed -n '/^build apps\/flexadj:/,/LINK_LIBRARIES/p' "$CMAKE_BUILD/build.ninja" | grep LINK_LIBRARIES |
              sed "s/^ *LINK_LIBRARIES = //; s# src/lib# $CMAKE_BUILD/src/lib#g")
  [ -n "$libraries" ] || { echo "fuzz: no link line for apps/flexadj in $CMAKE_BUILD/build.ninja"; return 1; }
  mkdir -p "$objects"
  rm -f "$objects"/*.o
  local source failed=0
  # shellcheck disable=SC2086  # word splitting of the lists is meant
  for source in ${LIBRARY_SOURCES[$name]} "tests/fuzz/fuzz_$name.cpp"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
    "${COMPILER[@]}" $flags "${FLAGS[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" -c "$source" \
      -o "$objects/$(basename "$source" .cpp).o" &
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
  [ $failed -eq 0 ] || return 1
  # shellcheck disable=SC2086
  "$CXX" -fsanitize=fuzzer,address,undefined "$objects"/*.o $libraries -o "$OUT/fuzz_$name"
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

status=0
printf '%-11s %8s %12s %14s %8s %8s %6s %6s\n' harness seconds executions "coverage(ft)" corpus crashes hangs ooms
for name in "${HARNESSES[@]}"; do
  binary="$OUT/fuzz_$name"
  started=$(date +%s)
  if [ -n "${LIBRARY_SOURCES[$name]:-}" ]; then
    build_with_library "$name" || exit 1
    make_seeds "$name" || exit 1
    seeds="$OUT/seeds/$name"
  else
    # shellcheck disable=SC2086  # EXTRA holds several flags
    "$CXX" "${FLAGS[@]}" "tests/fuzz/fuzz_$name.cpp" "${SOURCES[$name]}" ${EXTRA[$name]} -o "$binary" || exit 1
    seeds="tests/fuzz/seeds/$name"
  fi
  echo "  $name: built in $(($(date +%s) - started)) s" >&2
  corpus="$OUT/corpus/$name" artifacts="$OUT/artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  log="$OUT/fuzz_$name.log"
  touch "$log.start"  # inputs found by this run are newer
  fork=()
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
  crashes=0 in_hdf5=0
  for input in $(find "$artifacts" -name 'crash-*' -newer "$log.start"); do
    crashes=$((crashes + 1))
    [ "$(crash_place "$binary" "$input" "$name")" = libhdf5 ] && in_hdf5=$((in_hdf5 + 1))
  done
  hangs=$(find "$artifacts" -name 'timeout-*' -newer "$log.start" | wc -l)
  ooms=$(find "$artifacts" -name 'oom-*' -newer "$log.start" | wc -l)
  printf '%-11s %8s %12s %14s %8s %8s %6s %6s\n' "$name" "$SECONDS_EACH" "${executions:-?}" "${coverage:-?}" \
    "$(ls "$corpus" | wc -l)" "$crashes" "$hangs" "$ooms"
  [ $in_hdf5 -gt 0 ] && echo "  $name: $in_hdf5 of the $crashes crashes are inside the HDF5 library (its first frames)"
  if [ $((crashes - in_hdf5 + hangs + ooms)) -gt 0 ] || [ "$finished" -eq 0 ] ||
     { [ $in_hdf5 -gt 0 ] && [ -n "${FUZZ_STRICT:-}" ]; }; then
    status=1
    echo "  $name: see $log and $artifacts/"
  fi
done
exit $status
