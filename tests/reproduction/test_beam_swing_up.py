#!/usr/bin/python3
"""Swing-up of the very flexible beam after Schubert et al. 2024, sec. 4.6 (label reproduction):
meshes/beam_swing_up.yaml with the paper's settings (600 steps, u0 = 50 N m) and its optimization section
(Barzilai-Borwein as in the paper), capped at 14 iterations for CI (the full run converges in 20, see
docs/results.md). The paper reports the objective only in a figure (largest decrease in the first iterations),
so the test asserts flexadj's measured figures: J/J0 <= 1e-7 and the tip within 1 mm of the upright target
(0, 1), and that `flexadj check` (Taylor order 2 and central differences within 1e-6) passes at the design the
run ends with, read back with optimization.start_from. (A coarser CI step does not work: with 300 steps the
line search stalls at J/J0 = 0.27, the larger trial steps failing in the forward run.)

usage: test_beam_swing_up.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR RANKS
"""
import math
import os
import sys

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
print("%s forward / %s adjoint runs, %.1f s" % (history[-1]["forward_runs"], history[-1]["adjoint_runs"],
                                               float(history[-1]["seconds"])))
checks.finish()
