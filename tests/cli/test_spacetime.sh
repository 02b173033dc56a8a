#!/usr/bin/env bash
# flexadj gradient / check / optimize --adjoint spacetime: the sequential sweep's gradient to round-off at np 1 and
# np 2 (two time groups) for generalized-alpha and the variational integrator, the summary's iterations and
# residuals; the forward states recomputed per time group from disk checkpoints (steps per group in the summary); no
# convergence is exit 3 with the residuals; bad options are exit 2; the steps kept between GMRES products.
# Usage: test_spacetime.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MPIRUN="mpirun --oversubscribe -np 2"

# The pendulum on a cart of data/pendulum_cart.yaml over 300 steps.
sed 's/end_time: 3,/end_time: 0.3,/; s/end: 3, count: 7/end: 0.3, count: 7/' "$HERE/data/pendulum_cart.yaml" > cart.yaml
sed 's/integrator: {end_time: 0.3, step_size: 1e-3}/integrator: {end_time: 0.3, step_size: 1e-3, type: variational}/' \
  cart.yaml > cart_variational.yaml

same() {  # same A.csv B.csv: gradients equal to 1e-10 of the largest
  /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))[1:]
b = list(csv.reader(open(sys.argv[2])))[1:]
scale = max(abs(float(r[2])) for r in b)
sys.exit(0 if len(a) == len(b) and max(abs(float(x[2]) - float(y[2])) for x, y in zip(a, b)) <= 1e-10 * scale else 1)
PY
}

for model in cart cart_variational; do
  expect "$model: sequential sweep" 0 "spring.stiffness" -- gradient $model.yaml -o $model.sequential.csv
  expect "$model: spacetime, 4 slabs" 0 "spacetime discrete" "spacetime  4 slabs in 1 time groups: 4 GMRES iterations" \
    -- gradient $model.yaml --adjoint spacetime --time-slabs 4 -o $model.spacetime.csv
  pass_if "$model: spacetime equals the sequential sweep" same $model.spacetime.csv $model.sequential.csv
  pass_if "$model: np 2, 8 slabs in 2 time groups" $MPIRUN "$FLEXADJ" gradient $model.yaml --adjoint spacetime \
    --time-slabs 8 -o $model.np2.csv -q
  pass_if "$model: np 2 spacetime equals the sequential sweep" same $model.np2.csv $model.sequential.csv
done
expect "two-level" 0 "spacetime  8 slabs in 1 time groups" -- gradient cart_variational.yaml --adjoint spacetime \
  --time-slabs 8 --spacetime-solver gmres-two-level --spacetime-coarsening 2 -o two_level.csv
pass_if "two-level equals the sequential sweep" same two_level.csv cart_variational.sequential.csv
# The forward states from checkpoints (recomputed while the groups take their copies) and from an HDF5 file.
pass_if "spacetime with checkpoints" "$FLEXADJ" gradient cart.yaml --adjoint spacetime --time-slabs 4 --checkpoints 5 \
  -o checkpoints.csv -q
pass_if "checkpoints: equal to the sequential sweep" same checkpoints.csv cart.sequential.csv
# Disk checkpoints: each of the two time groups recomputes its slabs from a file (np 2, 8 slabs: group 1 starts
# at step 152; --disk-checkpoints 10 gives files every 31 steps, the spacetime adjoint every 38, a divisor of 152).
$MPIRUN "$FLEXADJ" gradient cart.yaml --adjoint spacetime --time-slabs 8 --disk-checkpoints 10 -o disk.csv \
  > disk.txt 2>&1
pass_if "np 2 from disk checkpoints: files at the groups' first steps" grep -qF \
  "steps recomputed per group 153 (from step 0) 148 (from step 152); every group starts at its first step" disk.txt
pass_if "np 2 from disk checkpoints: one file every 38 steps" grep -qF "(one every 38 steps)" disk.txt
pass_if "disk checkpoints: equal to the sequential sweep" same disk.csv cart.sequential.csv
# One file allowed (step 0): group 1 (first step 150 of 6 slabs) recomputes from step 0, and the summary says so.
$MPIRUN "$FLEXADJ" gradient cart_variational.yaml --adjoint spacetime --time-slabs 6 --disk-checkpoints 1 \
  -o disk_below.csv > disk_below.txt 2>&1
pass_if "np 2 from the file below: steps per group" grep -qF \
  "steps recomputed per group 151 (from step 0) 300 (from step 0); no disk interval" disk_below.txt
pass_if "from the file below: equal to the sequential sweep" same disk_below.csv cart_variational.sequential.csv
expect "direct reference" 0 "spacetime  4 slabs in 1 time groups: direct solve (Amesos2 KLU2)" -- gradient cart.yaml \
  --adjoint spacetime --time-slabs 4 --spacetime-solver direct -o direct.csv
pass_if "direct: equal to the sequential sweep" same direct.csv cart.sequential.csv
pass_if "np 2 spacetime from an HDF5 trajectory" $MPIRUN "$FLEXADJ" gradient cart.yaml --adjoint spacetime \
  --time-slabs 4 --trajectory hdf5 -o hdf5.csv -q
pass_if "hdf5: equal to the sequential sweep" same hdf5.csv cart.sequential.csv
expect "check --adjoint spacetime" 0 "check passed" -- check cart.yaml --adjoint spacetime --time-slabs 3 -q
pass_if "optimize --adjoint spacetime" "$FLEXADJ" optimize cart.yaml --adjoint spacetime --time-slabs 2 \
  --max-iterations 2 --no-trajectory -q
expect "no convergence is a solver error" 3 "did not converge" "residuals:" -- gradient cart.yaml --adjoint spacetime \
  --time-slabs 4 --spacetime-tolerance 1e-30
expect "unknown solver" 2 "--spacetime-solver" -- gradient cart.yaml --adjoint spacetime --spacetime-solver jacobi
expect "bad slab count" 2 "--time-slabs" -- gradient cart.yaml --adjoint spacetime --time-slabs 0
expect "no continuous adjoint in optimize" 2 "--adjoint" -- optimize cart.yaml --adjoint continuous
# Kept steps: generalized-alpha keeps all 300, none with --spacetime-memory 0 (the same gradient); the variational
# integrator says why it keeps none; a bad size is exit 2.
expect "kept steps" 0 "spacetime  300 steps kept between products" -- gradient cart.yaml --adjoint spacetime \
  --time-slabs 4 -o kept.csv
expect "no kept steps" 0 "assembles and factorizes its steps again: no memory was given for them" -- \
  gradient cart.yaml --adjoint spacetime --time-slabs 4 --spacetime-memory 0 -o afresh.csv
pass_if "kept steps equal assembling afresh" same kept.csv afresh.csv
pass_if "kept steps equal the sequential sweep" same kept.csv cart.sequential.csv
expect "variational keeps none" 0 "the variational integrator takes its adjoint steps afresh" -- \
  gradient cart_variational.yaml --adjoint spacetime --time-slabs 4 -o variational_kept.csv
expect "bad memory size" 2 "--spacetime-memory" -- gradient cart.yaml --adjoint spacetime --spacetime-memory lots
finish
