#!/usr/bin/env bash
# Runs the whole test suite (unit, verification, MPI tests at np 1 and np 2) with ctest.
# Builds first if needed. Extra arguments go to ctest, e.g. scripts/test.sh -L unit.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}"
fi
cmake --build build -j "${JOBS:-2}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
ctest --output-on-failure -j "${JOBS:-2}" "$@"
