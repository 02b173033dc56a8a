#!/usr/bin/python3
"""Swing-up of the very flexible beam after Schubert et al. 2024, sec. 4.6 (label reproduction):
meshes/beam_swing_up.yaml with the paper's settings (600 steps, u0 = 50 N m) and its optimization section
(Barzilai-Borwein as in the paper), capped at 14 iterations for CI (the full run converges in 20, see
docs/results.md). The paper reports the objective only in a figure (largest decrease in the first iterations),
so there is no paper figure to assert. Asserts:
- flexadj's own figures, in its own discretisation: J/J0 <= 1e-7 and the tip within 1 mm of the upright target
  (0, 1) (from J = 100/2 |tip - (0, 1)|^2), and that `flexadj check` (Taylor order 2 and central differences
  within 1e-6) passes at the design the run ends with, read back with optimization.start_from;
- the physical check, independent of the discretisation the optimiser saw: the optimised torque applied in a
  simulation with another integrator (variational, no numerical damping) and a 4x finer step brings the tip
  within 3 cm of (0, 1) (from 1.93 m at u0). Measured distance of the tip to (0, 1) with this torque:
  variational 2.09, 2.09, 1.92 cm at h/2, h/4, h/8; generalized-alpha 2.03, 2.08, 1.91 cm at h/2, h/4, h/8
  (h = 1/1200 s): the converged swing misses the target by 1.9 cm, the discretisation error of the optimum.
(A coarser CI step does not work: with 300 steps the line search stalls at J/J0 = 0.27, the larger trial steps
failing in the forward run.)

usage: test_beam_swing_up.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR RANKS
"""
import math
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "optimization"))
from optimize_support import Checks, Runner  # noqa: E402

flexadj, mpiexec, work, source, ranks = sys.argv[1:6]
runner = Runner(flexadj, mpiexec, work)
checks = Checks()
model = source + "/meshes/beam_swing_up.yaml"
# Measured (1 rank, 14 iterations): J0 = 185.7409, J = 2.028e-6, J/J0 = 1.09e-8; tip 2.0e-4 m from (0, 1);
# check there: Taylor order 2.00, central differences within 1.1e-8 and 9.6e-8. 22 s (93 s on the loaded machine).
REDUCTION = 1e-7

result = runner.run("optimize", model, "-o", "beam", "--max-iterations", "14", "--no-trajectory", ranks=int(ranks))
print("\n".join(result.stdout.splitlines()[-3:-1]))
history = runner.history("beam")
J0, J = float(history[0]["objective"]), float(history[-1]["objective"])
checks.check("J/J0 <= %g" % REDUCTION, J / J0 <= REDUCTION, "J0 = %.7g, J = %.4e, J/J0 = %.3e after %s iterations" % (
    J0, J, J / J0, history[-1]["iteration"]))
# J = 100/2 |tip - (0, 1)|^2, so the distance of the tip to the target is sqrt(J/50).
checks.check("tip within 1 mm of (0, 1)", math.sqrt(J / 50) <= 1e-3, "distance %.3e m" % math.sqrt(J / 50))
check = runner.run("check", model, "-q", "--directions", "2", "--set",
                   "optimization.start_from=" + runner.path("beam_design.yaml"), ranks=int(ranks), check=False)
print("\n".join(line for line in check.stdout.splitlines() if "order" in line or "direction" in line or "check" in line))
checks.check("flexadj check passes at the final design", check.returncode == 0, "exit code %d" % check.returncode)
# The physical check: variational integrator, step h/4 (the model's h = 0.5/600).
design = "optimization.start_from=" + runner.path("beam_design.yaml")
runner.run("simulate", model, "-q", "-o", "fine.h5", "--no-xdmf", "--set", design, "--set",
           "integrator={end_time: 0.5, step_size: %.17g, type: variational}" % (0.5 / 2400), ranks=int(ranks))
with h5py.File(runner.path("fine.h5"), "r") as f:
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["model/coordinate_names"][:]]
    q = f["state/q"][-1, :]
    tip = (q[names.index("beam.node5.x")], q[names.index("beam.node5.y")])
distance = math.hypot(tip[0], tip[1] - 1.0)
checks.check("variational, h/4: the optimised torque brings the tip within 3 cm of (0, 1)", distance <= 0.03,
             "tip (%.4f, %.4f), distance %.3e m" % (tip[0], tip[1], distance))
print("%s forward / %s adjoint runs, %.1f s" % (history[-1]["forward_runs"], history[-1]["adjoint_runs"],
                                               float(history[-1]["seconds"])))
checks.finish()
