#!/usr/bin/env bash
# The installed package: `cmake --install` into a scratch prefix puts the program, the headers and the CMake
# package there; a project outside flexadj (tests/install/consumer) finds it with find_package(flexadj), builds
# against flexadj::flexadj, and its gradient of the pendulum on a cart equals the installed program's bit for bit.
# Usage: test_install.sh BUILD_DIR (a configured and built flexadj)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$(cd "$1" && pwd)"
source "$HERE/../cli/cli_support.sh" "$BUILD/apps/flexadj"
PREFIX="$WORK/prefix"
MODEL="$HERE/../cli/data/pendulum_cart.yaml"

pass_if "cmake --install into a scratch prefix" bash -c "cmake --install '$BUILD' --prefix '$PREFIX' > install.txt"
pass_if "the program is installed" test -x "$PREFIX/bin/flexadj"
pass_if "the headers are installed" test -f "$PREFIX/include/flexadj/gradient/gradient_problem.hpp"
pass_if "the CMake package is installed" test -f "$PREFIX/lib/cmake/flexadj/flexadj-config.cmake"
pass_if "a project outside flexadj configures with find_package(flexadj)" bash -c "cmake -S '$HERE/consumer' \
  -B consumer -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH='$PREFIX' > configure.txt 2>&1 ||
  { tail -20 configure.txt; exit 1; }"
pass_if "it builds against flexadj::flexadj" bash -c "cmake --build consumer > build.txt 2>&1 ||
  { tail -20 build.txt; exit 1; }"
pass_if "its program runs" bash -c "consumer/gradient_of_model '$MODEL' integrator.end_time=1 > consumer.txt"
pass_if "the installed program runs" "$PREFIX/bin/flexadj" gradient "$MODEL" --set integrator.end_time=1 \
  -o program.csv -q
# The gradients as numbers (the two print them in their own formats), equal bit for bit.
pass_if "the consumer's gradient is the program's bit for bit" /usr/bin/python3 - <<'PY'
import csv, sys
program = {row["name"]: float(row["gradient"]) for row in csv.DictReader(open("program.csv"))}
consumer = {}
for line in open("consumer.txt"):
    if "," in line:
        name, value, gradient = line.strip().split(",")
        consumer[name] = float(gradient)
print("     %d design values, largest |g| %.3g" % (len(program), max(abs(g) for g in program.values())))
sys.exit(0 if program and consumer == program else 1)
PY
pass_if "the bad-input path: a missing model is exit 2" bash -c "consumer/gradient_of_model missing.yaml 2> err.txt;
  test \$? -eq 2 && grep -q missing.yaml err.txt"
finish
