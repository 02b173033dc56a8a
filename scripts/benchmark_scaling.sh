#!/usr/bin/env bash
# Scaling benchmark (rigid chain of 2 x 10^5 unknowns, 10^4-element beam; forward and gradient; np 1 .. 16):
# per-rank peak memory, bytes sent, iterations and wall time. Arguments go to scripts/benchmark_scaling.py
# (e.g. --ranks 1,2,4 --chain-links 2000). Writes benchmarks/runs/scaling.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/apps/flexadj ] || cmake --build build -j 2 --target flexadj_app
exec python3 scripts/benchmark_scaling.py "$@"
