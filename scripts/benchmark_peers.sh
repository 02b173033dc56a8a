#!/usr/bin/env bash
# PETSc side by side (docs/benchmarks.md; benchmarks/peers/README.md): the gradient of the spring chain's final
# height with respect to its N stiffnesses by `flexadj gradient` and by PETSc 3.18 (TSCN + TSAdjoint), one rank
# each, N = 10, 100, 1000, 10000 unless --counts says otherwise; each case --repeats times (default 2). First
# a finite-difference check of both codes at N = 10. Prints the table and writes results/peers_np1.json (the
# runs' files and log in results/peers/).
#
# Needs PETSc (Debian: apt-get install petsc-dev; not part of scripts/setup.sh) and a built flexadj
# (build/apps/flexadj, or FLEXADJ=/path/to/flexadj). The PETSc program is compiled here directly with mpicc and
# pkg-config into build-peers/ (the CMake option -DFLEXADJ_BUILD_PEERS=ON builds the same program as target
# spring_chain_petsc). Extra arguments go to benchmarks/peers/benchmark_peers.py, e.g.
#   scripts/benchmark_peers.sh --counts 10,100 --repeats 3
set -euo pipefail
cd "$(dirname "$0")/.."
FLEXADJ="${FLEXADJ:-build/apps/flexadj}"
PEER_BUILD="${PEER_BUILD:-build-peers}"
if [ ! -x "$FLEXADJ" ]; then
  echo "benchmark_peers: no flexadj at $FLEXADJ (build it with scripts/setup.sh or set FLEXADJ)" >&2
  exit 2
fi
if ! pkg-config --exists petsc; then
  echo "benchmark_peers: PETSc not found by pkg-config (Debian: apt-get install petsc-dev)" >&2
  exit 2
fi
mkdir -p "$PEER_BUILD" results
PEER="$PEER_BUILD/spring_chain_petsc"
if [ ! -x "$PEER" ] || [ benchmarks/peers/spring_chain_petsc.c -nt "$PEER" ]; then
  echo "benchmark_peers: mpicc -O3 benchmarks/peers/spring_chain_petsc.c (PETSc $(pkg-config --modversion petsc))"
  # shellcheck disable=SC2046
  mpicc -O3 -o "$PEER" benchmarks/peers/spring_chain_petsc.c $(pkg-config --cflags --libs petsc) -lm
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
python3 benchmarks/peers/benchmark_peers.py --flexadj "$FLEXADJ" --petsc "$PEER" --json results/peers_np1.json "$@"
