#!/usr/bin/env bash
# The batch templates of scripts/slurm run as written, with stand-ins for srun (runs the program on one rank) and
# scontrol: a forward run; a gradient with a memory budget and disk checkpoints that is killed and, "requeued"
# (SLURM_RESTART_COUNT=1), continues with --restart to the gradient of an uninterrupted run; an optimisation that
# is killed and continues from its restart file.
# Usage: test_slurm_templates.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
SLURM="$HERE/../../scripts/slurm"
mkdir -p bin
printf '#!/bin/sh\nexec "$@"\n' > bin/srun
printf '#!/bin/sh\necho "scontrol $*" >> scontrol.log\n' > bin/scontrol
chmod +x bin/srun bin/scontrol
export PATH="$PWD/bin:$PATH" FLEXADJ SLURM_SUBMIT_DIR="$PWD" SLURM_JOB_ID=77

# 1000 of the model's 3000 steps: enough for a kill inside the sweep.
sed 's/end_time: 3,/end_time: 1,/; s/end: 3, count: 7/end: 1, count: 7/' "$HERE/data/pendulum_cart.yaml" > cart.yaml
echo "optimization: {method: gradient, max_iterations: 3}" >> cart.yaml

pass_if "forward.sbatch writes the results" bash -c "MODEL=cart.yaml bash '$SLURM/forward.sbatch' > forward.log 2>&1 &&
  test -s cart_77.h5 && test -s cart_77.xmf && test -s cart_77_summary.json"
pass_if "reference gradient" "$FLEXADJ" gradient cart.yaml -o reference.csv -q
# A first run killed in its backward sweep, then the requeued job.
MODEL=cart.yaml MEMORY=2KB DISK=40 setsid bash "$SLURM/gradient.sbatch" > gradient.log 2>&1 &
pid=$!
for _ in $(seq 1 3000); do
  compgen -G "cart_77.checkpoints/adjoint_*.h5" > /dev/null && { pkill -KILL -s "$pid"; break; }
  sleep 0.005
done
wait "$pid" 2>/dev/null
pass_if "gradient.sbatch killed in its sweep leaves its files" compgen -G "cart_77.checkpoints/adjoint_*.h5"
pass_if "gradient.sbatch requeued resumes the sweep" bash -c "MODEL=cart.yaml MEMORY=2KB DISK=40 SLURM_RESTART_COUNT=1 \
  bash '$SLURM/gradient.sbatch' > requeued.log 2>&1 && grep -q 'resuming the backward sweep' requeued.log"
pass_if "requeued gradient equals the uninterrupted one byte for byte" cmp -s reference.csv cart_gradient.csv
pass_if "gradient.sbatch wrote the HDF5 gradient" test -s cart_gradient.h5
pass_if "optimize.sbatch (first run)" bash -c "MODEL=cart.yaml MEMORY=2KB bash '$SLURM/optimize.sbatch' > opt.log 2>&1 &&
  test -s cart_opt_design.yaml && test -s cart_opt_restart.txt"
cp cart_opt_design.yaml whole_design.yaml
pass_if "optimize.sbatch requeued continues from its restart file" bash -c "MAX_ITERATIONS=5 MODEL=cart.yaml \
  MEMORY=2KB SLURM_RESTART_COUNT=1 bash '$SLURM/optimize.sbatch' > opt2.log 2>&1 &&
  grep -q 'restarted at iteration 3' opt2.log && grep -q 'iteration limit 5' opt2.log"
finish
