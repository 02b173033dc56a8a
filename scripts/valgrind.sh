#!/usr/bin/env bash
# Runs a representative subset under valgrind's memcheck: simulate and gradient of a small model and
# static of a beam at np 1 (the program of build/, without mpirun), and a few unit test programs. Prints per run
# the errors and the definitely lost blocks valgrind reports, and how many of them are flexadj's: the first named
# frame (for a leak, the code that allocated the block) is a function of namespace flexadj or a test; the others
# are inside other libraries (Open MPI, hwloc, HDF5). Exit status 0 only if none is flexadj's. Logs in build/valgrind/.
# Usage: scripts/valgrind.sh [BUILD_DIR]   (Debian: apt-get install valgrind)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
OUT="$BUILD/valgrind"
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MODEL="$PWD/meshes/oscillator.yaml"
RUNS=(
  "simulate|$BUILD/apps/flexadj simulate $MODEL -o $OUT/oscillator.h5 -q"
  "gradient|$BUILD/apps/flexadj gradient $MODEL --set integrator.end_time=0.3"
  "static|$BUILD/apps/flexadj static $PWD/meshes/right_angle_cantilever.yaml -o $OUT/cantilever.h5 -q --set static.load_steps=2"
  "test_expression|$BUILD/tests/unit/test_expression"
  "test_model_reader|$BUILD/tests/unit/test_model_reader"
  "test_checkpoint_file|$BUILD/tests/mpi/test_checkpoint_file"
)
status=0
printf '%-22s %6s %8s %10s %10s %12s %12s\n' run exit seconds errors "in flexadj" "lost blocks" "in flexadj"
for entry in "${RUNS[@]}"; do
  name="${entry%%|*}" command="${entry#*|}"
  log="$OUT/$name.log"
  started=$(date +%s)
  # shellcheck disable=SC2086  # the command's words
  valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --num-callers=40 --log-file="$log" $command > "$OUT/$name.out" 2>&1
  code=$?
  seconds=$(($(date +%s) - started))
  # Each report is a block of "==pid== " lines between blank ones; it counts for flexadj if a frame is ours.
  # Each report is a block of "==pid== " lines between blank ones. It counts for flexadj if its first frame with a
  # name (after the allocator, for a leak: the code that allocated) is flexadj's or a test's.
  read -r errors ours lost lost_ours < <(awk '
    /^==[0-9]+== *$/ { if (block != "") finish(); next }
    /^==[0-9]+== / { line = $0; sub(/^==[0-9]+== +/, "", line); block = block line "\n"; next }
    function first_named(text,    n, lines, i) {
      n = split(text, lines, "\n")
      for (i = 2; i <= n; i++)
        if (lines[i] ~ /^(at|by) / && lines[i] !~ /\?\?\?/ && lines[i] !~ /vgpreload_memcheck/) return lines[i]
      return ""
    }
    function finish(    frame) {
      frame = first_named(block)
      if (block ~ /^(Invalid|Conditional|Use of uninitialised|Syscall param|Mismatched|Source and destination|Argument)/) {
        errors++; if (frame ~ /flexadj::|testing::/) ours++
      } else if (block ~ /definitely lost in loss record/) {
        lost++; if (frame ~ /flexadj::|testing::/) lost_ours++
      }
      block = ""
    }
    END { if (block != "") finish(); print errors + 0, ours + 0, lost + 0, lost_ours + 0 }' "$log")
  printf '%-22s %6s %8s %10s %10s %12s %12s\n' "$name" "$code" "$seconds" "$errors" "$ours" "$lost" "$lost_ours"
  [ "$ours" -gt 0 ] || [ "$lost_ours" -gt 0 ] && status=1
done
exit $status
