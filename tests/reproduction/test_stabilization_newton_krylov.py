#!/usr/bin/python3
"""Maciag et al. 2022, sec. 5.2 (label reproduction): the cart stabilisation converged with exact Hessian-vector
products. From u = 0, newton_krylov minimises J = 1/2 int x_cart^2 dt + 1/2 x_cart(t_f)^2 over [0, T_k] for the
horizons T_k = 0.5, 1, 1.5 and 2 s (continuation in the horizon: each stage starts from the one before; the
controls after T_k do not act), each stage stopped by the gradient rule |g| <= 1e-6 |g_0|. Asserts that every stage
stops on that rule within its iteration bound, that the final J is below the locked-cart reference's 1.97e-6
(scripts/locked_cart_reference.py, test_stabilization_reference.py) and that the cart stays within the paper's
+-7 mm over the whole horizon. Measured (2026-11-30, one rank): at the CI step 4e-3 s 9 + 36 + 53 + 93 iterations,
J = 3.28e-7, max |x_cart| = 3.20 mm, 25 s; at the model's 1e-3 s (scripts/reproduce.sh stabilization_newton_krylov)
9 + 28 + 47 + 154 iterations, J = 1.40e-7, max |x_cart| = 2.45 mm, 190 s.

usage: test_stabilization_newton_krylov.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR [STEP]
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "optimization"))
from optimize_support import Checks, Runner  # noqa: E402

flexadj, mpiexec, work, source = sys.argv[1:5]
step = sys.argv[5] if len(sys.argv) > 5 else "4e-3"
runner = Runner(flexadj, mpiexec, work)
checks = Checks()
model = source + "/meshes/double_pendulum_cart_stabilization.yaml"
STAGES = [("0.5", 40), ("1.0", 80), ("1.5", 120), ("2.0", 300)]  # horizon, iteration bound
LOCKED_CART_J = 1.97e-6

start = []
total = 0
for horizon, bound in STAGES:
    prefix = "stage_" + horizon
    last = horizon == STAGES[-1][0]
    result = runner.run("optimize", model, "-o", prefix, "--method", "newton_krylov", "--max-iterations", "1000",
                        "--set", "integrator.step_size=" + step, "--set", "integrator.end_time=" + horizon,
                        "--set", "optimization.relative_gradient_tolerance=1e-6", *start,
                        *([] if last else ["--no-trajectory"]))
    stopped = [line for line in result.stdout.splitlines() if line.startswith("stopped")]
    print("T = %s s: %s" % (horizon, stopped[-1] if stopped else "no stop line"))
    history = runner.history(prefix)
    iterations = int(history[-1]["iteration"])
    total += iterations
    checks.check("T = %s s: stopped by the gradient rule" % horizon,
                bool(stopped) and "relative_gradient_tolerance" in stopped[-1])
    checks.check("T = %s s: within %d iterations (%d)" % (horizon, bound, iterations), iterations <= bound)
    start = ["--set", "optimization.start_from=" + runner.path(prefix + "_design.yaml")]

J = float(history[-1]["objective"])
with h5py.File(runner.path("stage_2.0.h5"), "r") as f:
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["model/coordinate_names"][:]]
    x_max = abs(f["state/q"][:, names.index("cart.x")]).max()
print("J = %.4e after %d iterations in all, max |x_cart| = %.2f mm" % (J, total, 1e3 * x_max))
checks.check("J = %.3e below the locked-cart reference %.2e" % (J, LOCKED_CART_J), 0.0 < J < LOCKED_CART_J)
checks.check("max |x_cart| = %.2f mm within the paper's 7 mm" % (1e3 * x_max), x_max <= 7e-3)
sys.exit(checks.finish())
