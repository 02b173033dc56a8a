#!/usr/bin/env bash
# flexadj gradient with checkpoints: the same gradient byte for byte as with every step in memory, at np 1 and
# np 2, for generalized-alpha, the variational integrator and the continuous adjoint; the summary reports the
# schedule's cost (Griewank's optimum); a bad --checkpoints is an input error (exit 2).
# Usage: test_checkpoints.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MPIRUN="mpirun --oversubscribe -np 2"

# The pendulum on a cart of data/pendulum_cart.yaml over 300 steps.
sed 's/end_time: 3,/end_time: 0.3,/; s/end: 3, count: 7/end: 0.3, count: 7/' "$HERE/data/pendulum_cart.yaml" > cart.yaml
sed 's/integrator: {end_time: 0.3, step_size: 1e-3}/integrator: {end_time: 0.3, step_size: 1e-3, type: variational}/' \
  cart.yaml > cart_variational.yaml

expect "gradient in memory" 0 "spring.stiffness" -- gradient cart.yaml -o memory.csv
# Griewank and Walther 2000: p(301, 4) = 7 * 301 - C(11, 5) = 1645 forward steps, 300 of them the forward run.
expect "gradient with 4 checkpoints" 0 "4 checkpoints in memory of 300 + 1 states" \
  "checkpoints  4 slots: 1345 steps recomputed" -- gradient cart.yaml --checkpoints 4 -o checkpoints.csv
pass_if "checkpoints give the memory gradient byte for byte" cmp -s memory.csv checkpoints.csv
expect "gradient with the default checkpoints" 0 "24 checkpoints in memory" -- gradient cart.yaml \
  --trajectory checkpoints -o default.csv
pass_if "default checkpoints give the memory gradient byte for byte" cmp -s memory.csv default.csv
pass_if "np 2 gradient with 3 checkpoints" $MPIRUN "$FLEXADJ" gradient cart.yaml --checkpoints 3 -o np2.csv -q
pass_if "np 2 with checkpoints equals np 1 in memory to round-off" /usr/bin/python3 - np2.csv memory.csv <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))[1:]
b = list(csv.reader(open(sys.argv[2])))[1:]
scale = max(abs(float(r[2])) for r in b)
sys.exit(0 if len(a) == len(b) and max(abs(float(x[2]) - float(y[2])) for x, y in zip(a, b)) <= 1e-9 * scale else 1)
PY
expect "variational in memory" 0 "spring.stiffness" -- gradient cart_variational.yaml -o v_memory.csv
expect "variational with 5 checkpoints" 0 "spring.stiffness" -- gradient cart_variational.yaml --checkpoints 5 \
  -o v_checkpoints.csv
pass_if "variational: checkpoints give the memory gradient byte for byte" cmp -s v_memory.csv v_checkpoints.csv
expect "continuous adjoint in memory" 0 "spring.stiffness" -- gradient cart.yaml --adjoint continuous -o c_memory.csv
expect "continuous adjoint with 5 checkpoints" 0 "spring.stiffness" -- gradient cart.yaml --adjoint continuous \
  --checkpoints 5 -o c_checkpoints.csv
pass_if "continuous adjoint: checkpoints give the memory gradient byte for byte" cmp -s c_memory.csv c_checkpoints.csv
# A memory limit: as many checkpoints as fit (a state of this model takes 8 (5 * 5 + 3) = 224 bytes: q, v, a, aux
# and restart data of 5 coordinates, 3 multipliers).
expect "gradient with a memory limit" 0 "checkpoints in memory of 300 + 1 states" -- gradient cart.yaml \
  --memory-limit 5KB -o limited.csv
pass_if "memory limit gives the memory gradient byte for byte" cmp -s memory.csv limited.csv
expect "a memory limit below three states is an input error" 2 "--memory-limit" "holds no checkpoint" -- \
  gradient cart.yaml --memory-limit 500B
expect "a bad size is an input error" 2 "expected a size such as 500MB" -- gradient cart.yaml --memory-limit 4XB
# An optimisation with checkpoints takes the same iterates as one in memory.
expect "optimize in memory" 0 "stopped" -- optimize cart.yaml --max-iterations 3 --no-trajectory -o opt_memory
expect "optimize with 3 checkpoints" 0 "stopped" -- optimize cart.yaml --max-iterations 3 --no-trajectory \
  --checkpoints 3 -o opt_checkpoints
pass_if "optimize: same design with checkpoints" cmp -s opt_memory_design.yaml opt_checkpoints_design.yaml
# The model file's trajectory section, and the command line over it.
cat cart.yaml > cart_file.yaml
echo "trajectory: {storage: checkpoints, checkpoints: 4}" >> cart_file.yaml
expect "trajectory section" 0 "4 checkpoints in memory of 300 + 1 states" "checkpoints  4 slots: 1345 steps" -- \
  gradient cart_file.yaml -o section.csv
pass_if "trajectory section gives the memory gradient byte for byte" cmp -s memory.csv section.csv
expect "command line over the trajectory section" 0 "trajectory  memory" -- gradient cart_file.yaml \
  --trajectory memory
expect "--checkpoints 0 is an input error" 2 "--checkpoints" "expected a positive integer" -- gradient cart.yaml \
  --checkpoints 0
expect "--checkpoints x is an input error" 2 "--checkpoints" -- gradient cart.yaml --checkpoints x
# The disk tier from the command line and from the model file; the schedule printed on request.
expect "two levels from the command line" 0 "4 checkpoints in memory and 7 on disk" "disk: 7 files written" -- \
  gradient cart.yaml --checkpoints 4 --disk-checkpoints 7 --checkpoint-folder cli_files -o two_level.csv
pass_if "two levels give the memory gradient byte for byte" cmp -s memory.csv two_level.csv
pass_if "the disk checkpoints are removed when the run ends" test -z "$(ls cli_files)"
cat cart.yaml > cart_disk.yaml
echo "trajectory: {storage: checkpoints, checkpoints: 4, disk_checkpoints: 5, folder: section_files}" >> cart_disk.yaml
expect "two levels from the trajectory section" 0 "5 on disk in section_files" -- gradient cart_disk.yaml \
  -o section_disk.csv
pass_if "trajectory section with disk gives the memory gradient byte for byte" cmp -s memory.csv section_disk.csv
expect "--print-schedule" 0 "two-level checkpointing: 300 steps, 4 slots in memory, a disk checkpoint every 61 steps" \
  "disk store 61" "disk read 0" "reverse 0" -- gradient cart_disk.yaml --print-schedule
expect "--print-schedule without checkpoints" 2 "--print-schedule" "needs --trajectory checkpoints" -- \
  gradient cart.yaml --print-schedule
expect "--disk-checkpoints 0 is an input error" 2 "--disk-checkpoints" "expected a positive integer" -- \
  gradient cart.yaml --disk-checkpoints 0
expect "a folder that cannot be made is an input error" 2 "trajectory.folder" "cannot create" -- \
  gradient cart.yaml --checkpoint-folder /proc/no/such
# A trajectory file that is a symbolic link is refused: writing it would overwrite the link's target.
echo "precious" > precious.txt
ln -s precious.txt link.h5
expect "a trajectory file that is a symbolic link is refused" 2 "link.h5" "symbolic link" -- gradient cart.yaml \
  --trajectory-file link.h5
pass_if "the link's target is untouched" grep -qx precious precious.txt
expect "--trajectory disk is an input error" 2 "expected memory, hdf5 or checkpoints" -- gradient cart.yaml \
  --trajectory disk
finish
