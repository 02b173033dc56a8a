#!/usr/bin/python3
"""Reproduction of Maciag, Malczyk, Fraczek 2022, sec. 5.1 (label reproduction): swing-up of the double
pendulum on a cart (meshes/double_pendulum_cart.yaml) from u = 0 with gamma = 0, then, started from that
result as in the paper, with gamma = 1 (final rates in the cost). Asserts J0 = pi^2/2, and from the final
trajectory written by flexadj optimize: |alpha1(t_f) - pi/2| and |alpha2(t_f)| below 1e-5 rad (both cases)
and, for gamma = 1, final rates below 1e-5 rad/s: flexadj's own discrete solution. Against independent
references: the optimised control re-simulated by two other integrators (the variational integrator (RATTLE) and the
constrained Hamiltonian equations, Heun with projection) at a quarter of the step, whose two final states agree with
each other (the converged motion under that control, 5e-3 rad) and are upright within 0.05 rad (measured at the CI
step: 0.023 rad for alpha2, generalized-alpha's discretisation error at 2e-3 s). CI step 2e-3 s (the model: 1e-3 s,
scripts/reproduce.sh).

usage: test_double_pendulum.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR RANKS [STEP]
"""
import math
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "optimization"))
from optimize_support import Checks, Runner  # noqa: E402

flexadj, mpiexec, work, source, ranks = sys.argv[1:6]
step = sys.argv[6] if len(sys.argv) > 6 else "2e-3"
runner = Runner(flexadj, mpiexec, work)
checks = Checks()
model = source + "/meshes/double_pendulum_cart.yaml"
GAMMA1 = ("objective=[{type: final_square, coordinate: link1.theta, target: 1.5707963267948966}, "
          "{type: final_square, coordinate: link2.theta, relative_to: link1.theta}, "
          "{type: final_square, coordinate: link1.theta, quantity: velocity}, "
          "{type: final_square, coordinate: link2.theta, relative_to: link1.theta, quantity: velocity}]")


# The model without generalized-alpha's spectral radius, for the other integrators.
free = runner.write("free.yaml", "".join(line for line in open(model) if "spectral_radius" not in line))


def final_angles(prefix):
    with h5py.File(runner.path(prefix + ".h5"), "r") as f:
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["model/coordinate_names"][:]]
        q, v = f["state/q"][-1, :], f["state/v"][-1, :]
    i1, i2 = names.index("link1.theta"), names.index("link2.theta")
    return q[i1], q[i2] - q[i1], v[i1], v[i2] - v[i1]


for gamma, extra in [(0, []), (1, ["--set", GAMMA1, "--set", "optimization.start_from=" + runner.path("gamma0_design.yaml")])]:
    prefix = "gamma%d" % gamma
    result = runner.run("optimize", model, "-o", prefix, "--set", "integrator.step_size=" + step, *extra, ranks=int(ranks))
    print(result.stdout.splitlines()[-3])
    history = runner.history(prefix)
    if gamma == 0:
        checks.close("gamma 0: J0 = pi^2/2 at u = 0", float(history[0]["objective"]), math.pi ** 2 / 2, 1e-12)
    a1, a2, w1, w2 = final_angles(prefix)
    checks.close("gamma %d: alpha1(t_f) = pi/2" % gamma, a1, math.pi / 2, 1e-5)
    checks.close("gamma %d: alpha2(t_f) = 0" % gamma, a2, 0.0, 1e-5)
    if gamma == 1:
        checks.close("gamma 1: alpha1'(t_f) = 0", w1, 0.0, 1e-5)
        checks.close("gamma 1: alpha2'(t_f) = 0", w2, 0.0, 1e-5)
    # The optimised control on two independent integrators at h / 4 (no iteration: the design's J and trajectory).
    finals = []
    for kind in ("variational", "hamiltonian"):
        runner.run("optimize", free, "-o", "%s_%s" % (prefix, kind), "--max-iterations", "0",
                   "--set", "optimization.start_from=" + runner.path(prefix + "_design.yaml"),
                   "--set", "integrator.type=" + kind, "--set", "integrator.step_size=%g" % (float(step) / 4),
                   *extra[:2], ranks=int(ranks))
        finals.append(final_angles("%s_%s" % (prefix, kind)))
        b1, b2, r1, r2 = finals[-1]
        print("gamma %d, %s at h/4: alpha1 - pi/2 = %.2e, alpha2 = %.2e rad, rates %.2e, %.2e rad/s"
              % (gamma, kind, b1 - math.pi / 2, b2, r1, r2))
        checks.close("gamma %d, %s at h/4: alpha1(t_f) = pi/2" % (gamma, kind), b1, math.pi / 2, 0.05)
        checks.close("gamma %d, %s at h/4: alpha2(t_f) = 0" % (gamma, kind), b2, 0.0, 0.05)
        if gamma == 1:
            checks.close("gamma %d, %s at h/4: alpha1'(t_f) = 0" % (gamma, kind), r1, 0.0, 0.5)
            checks.close("gamma %d, %s at h/4: alpha2'(t_f) = 0" % (gamma, kind), r2, 0.0, 0.5)
    for k, name in enumerate(["alpha1", "alpha2"]):
        checks.close("gamma %d: %s(t_f) of the two independent integrators agree" % (gamma, name),
                     finals[0][k], finals[1][k], 5e-3)
    print("gamma %d: J = %s after %s iterations (%s forward / %s adjoint runs, %.1f s)" % (
        gamma, history[-1]["objective"], history[-1]["iteration"], history[-1]["forward_runs"],
        history[-1]["adjoint_runs"], float(history[-1]["seconds"])))
checks.finish()
