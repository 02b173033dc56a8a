#!/usr/bin/python3
"""flexadj optimize on problems with known answers (label optimization):

* oscillator of Bestle and Eberhard with targets x(t1), v(t1) made by (c, z0) = (2, 0.7), 250 steps: every method
  recovers c and z0 (closed form, up to the time-discretisation error);
* the same with the bound c <= 1.5: c ends on the bound, z0 at its closed-form constrained optimum, and
  dJ/dc < 0 there (the bound is active, not just reached);
* restart: the gradient and Barzilai-Borwein methods stopped after k iterations and restarted repeat the
  uninterrupted run exactly; ROL's L-BFGS restarted from its last iterate reaches the same optimum;
* the best iterate: Barzilai-Borwein leaving its lowest J (the 4.5 beam swing-up, 10 iterations) returns it in the
  stop line, the result, the design file and the trajectory.
The same at 1 and 2 ranks: test_optimize_ranks.py.

usage: test_optimize.py FLEXADJ MPIEXEC WORKDIR MESHES
"""
import math
import re
import sys

import h5py

from optimize_support import Checks, Runner

flexadj, mpiexec, work, meshes = sys.argv[1:5]
runner = Runner(flexadj, mpiexec, work)
checks = Checks()

T1 = math.pi / 2


def oscillator_final_state(c, z0):
    w = math.sqrt(c)
    return z0 / w * math.sin(w * T1), z0 * math.cos(w * T1)


X_TARGET, V_TARGET = oscillator_final_state(2.0, 0.7)


def oscillator(optimization):
    return """dimension: 2
integrator: {end_time: %r, step_size: %r}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0.5, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[-1, 0], [0, 0]], stiffness: 1, free_length: 1}
joints:
  - {name: rail, type: prismatic, bodies: [ground, mass], axis: [1, 0]}
objective:
  - {type: final_square, coordinate: mass.x, target: %r}
  - {type: final_square, coordinate: mass.x, quantity: velocity, target: %r}
design_variables:
  - spring.stiffness
  - initial_velocity: mass.x
optimization:
%s
""" % (T1, T1 / 250, X_TARGET, V_TARGET, optimization)


# ---- convergence of every method to the known optimum
runner.write("free.yaml", oscillator("  max_iterations: 2000\n  relative_gradient_tolerance: 1e-9"))
for method in ["lbfgs", "trust_region", "gradient", "barzilai_borwein"]:
    runner.run("optimize", "free.yaml", "--method", method, "-o", "free_" + method, "--no-trajectory", "-q")
    design = runner.design("free_" + method)
    history = runner.history("free_" + method)
    final = history[-1]
    checks.close(method + ": c", design["spring.stiffness"][0], 2.0, 1e-4)
    checks.close(method + ": z0", design["initial_velocity:mass.x"][0], 0.7, 1e-4)
    checks.check(method + ": J reduced below 1e-12 J0", float(final["objective"]) < 1e-12 * float(history[0]["objective"]),
                 "J0 = %s, J = %s after %s iterations" % (history[0]["objective"], final["objective"], final["iteration"]))

# ---- an active bound: c <= 1.5; z0 then minimises (a z0 - x*)^2 + (b z0 - v*)^2 with a = sin(w t1)/w, b = cos(w t1)
C_UPPER = 1.5
w = math.sqrt(C_UPPER)
a, b = math.sin(w * T1) / w, math.cos(w * T1)
z0_bounded = (a * X_TARGET + b * V_TARGET) / (a * a + b * b)
runner.write("bounded.yaml", oscillator(
    "  max_iterations: 2000\n  relative_gradient_tolerance: 1e-9\n"
    "  bounds: [{variable: spring.stiffness, lower: 0.5, upper: %r}]" % C_UPPER))
for method in ["lbfgs", "trust_region", "gradient", "barzilai_borwein"]:
    prefix = "bounded_" + method
    runner.run("optimize", "bounded.yaml", "--method", method, "-o", prefix, "--no-trajectory", "-q")
    design = runner.design(prefix)
    c, z0 = design["spring.stiffness"][0], design["initial_velocity:mass.x"][0]
    checks.check(method + ": c on its upper bound", c == C_UPPER, "c = %.17g" % c)
    checks.close(method + ": z0 at the constrained optimum", z0, z0_bounded, 1e-4)
    gradient = runner.run("gradient", "bounded.yaml", "--set", "optimization.start_from=%s_design.yaml" % prefix)
    dJdc = float([l.split()[2] for l in gradient.stdout.splitlines() if l.strip().startswith("spring.stiffness")][0])
    checks.check(method + ": dJ/dc < 0 at the solution (the bound is active)", dJdc < -1e-6, "dJ/dc = %g" % dJdc)
    # A fresh process at the final design gives the J of the last iterate (the reused set-up leaks nothing).
    J_fresh = float([l.split()[2] for l in gradient.stdout.splitlines() if l.startswith("J = ")][0])
    J_last = float(runner.history(prefix)[-1]["objective"])
    checks.close(method + ": J of a fresh run at the final design = J of the last iterate", J_fresh, J_last,
                 1e-13 * abs(J_last))

# ---- restart
COMPARED = ["iteration", "objective", "gradient_norm", "step"]
for method in ["gradient", "barzilai_borwein"]:
    full, part = "full_" + method, "part_" + method
    runner.run("optimize", "free.yaml", "--method", method, "--max-iterations", 12, "-o", full, "--no-trajectory", "-q")
    runner.run("optimize", "free.yaml", "--method", method, "--max-iterations", 5, "-o", part, "--no-trajectory", "-q")
    interrupted = runner.history(part)
    runner.run("optimize", "free.yaml", "--method", method, "--max-iterations", 12, "-o", part, "--restart",
               "--no-trajectory", "-q")
    a_rows = [[r[k] for k in COMPARED] for r in runner.history(full)]
    b_rows = [[r[k] for k in COMPARED] for r in runner.history(part)]
    checks.check(method + ": interrupted run stopped at iteration 5", interrupted[-1]["iteration"] == "5")
    checks.check(method + ": restarted history equals the uninterrupted one digit for digit", a_rows == b_rows,
                 "last rows %s / %s" % (a_rows[-1], b_rows[-1]))
    checks.check(method + ": same final design values", runner.design(full) == runner.design(part))

runner.run("optimize", "free.yaml", "--method", "lbfgs", "--max-iterations", 3, "-o", "part_lbfgs", "--no-trajectory", "-q")
runner.run("optimize", "free.yaml", "--method", "lbfgs", "-o", "part_lbfgs", "--restart", "--no-trajectory", "-q")
restarted = runner.design("part_lbfgs")
history = runner.history("part_lbfgs")
checks.check("lbfgs: restarted history continues after iteration 3", history[3]["iteration"] == "3" and len(history) > 4)
for name, expected in [("spring.stiffness", runner.design("free_lbfgs")["spring.stiffness"][0]),
                       ("initial_velocity:mass.x", runner.design("free_lbfgs")["initial_velocity:mass.x"][0])]:
    checks.close("lbfgs: restarted run reaches the uninterrupted optimum, " + name, restarted[name][0], expected, 1e-7)

# ---- the best iterate: Barzilai-Borwein with its default non-monotone memory on the fairly rigid beam swing-up of
# Schubert et al. 2024, sec. 4.5 (docs/results.md; steel in SI units, RECON there; 1000 steps to keep it short):
# it reaches J/J0 = 1.4e-4 at iteration 7, then accepts steps of thousands of N m (J still below the remembered
# J0) and leaves that basin. `flexadj optimize` must return iteration 7: stop line, result, design file and trajectory.
runner.write("beam45.yaml", """title: fairly rigid beam swing-up (after Schubert et al. 2024, sec. 4.5), 1000 steps
dimension: 3
gravity: [0, -9.81, 0]
integrator: {end_time: 1, step_size: 1.0e-3}
controls:
  - {name: torque, grid: {start: 0, end: 1, count: 101}, value: 1500}
beams:
  - name: beam
    section: {E: 2.1e11, nu: 0.3, rho: 7850, A: 0.01, I2: 8.333333333e-6, I3: 8.333333333e-6,
              shear_viscosity: 0.1, bulk_viscosity: 0.01}
    elements: 10
    line: {start: [0, 0, 0], end: [0, -1, 0]}
joints:
  - {type: revolute, bodies: [ground, beam.start], point: [0, 0, 0], axis: [0, 0, 1]}
forces:
  - {type: load, body: beam.start, control: {name: torque, moment_direction: [0, 0, 1]}}
objective:
  - {type: final_square, sensor: {body: beam.end, component: x}, target: 0, weight: 1.0e8}
  - {type: final_square, sensor: {body: beam.end, component: y}, target: 1, weight: 1.0e8}
  - {type: control_effort, control: torque, weight: 1.0e-2}
design_variables:
  - control: torque
optimization: {method: barzilai_borwein, max_iterations: 10}
""")
result = runner.run("optimize", "beam45.yaml", "-o", "best")
history = runner.history("best")
values = [float(r["objective"]) for r in history]
best = min(range(len(values)), key=lambda i: values[i])
checks.check("best iterate: the run left its lowest J (iteration %d of %d, J %.6g, last J %.6g)"
             % (best, len(values) - 1, values[best], values[-1]), best < len(values) - 1 and values[-1] > values[best])
checks.check("best iterate: the stop line names the returned iteration",
             "returned iteration %d, the lowest J" % best in result.stdout)
reported = float(re.search(r"^result\s+J = (\S+)", result.stdout, re.M).group(1))
checks.close("best iterate: the result J is the lowest (relative)", reported / values[best], 1.0, 1e-12)
with open(runner.path("best_design.yaml")) as f:
    checks.check("best iterate: the design file is iteration %d's" % best, "iteration %d (the lowest J)" % best in f.readline())
again = runner.run("gradient", "beam45.yaml", "--set", "optimization.start_from=best_design.yaml")
J_again = float(re.search(r"^J = (\S+)", again.stdout, re.M).group(1))
checks.close("best iterate: J of the design file's values (relative)", J_again / values[best], 1.0, 1e-12)
runner.run("simulate", "beam45.yaml", "--set", "optimization.start_from=best_design.yaml", "-o", "again.h5", "-q")
with h5py.File(runner.path("best.h5"), "r") as a, h5py.File(runner.path("again.h5"), "r") as b:
    difference = float(abs(a["state/q"][-1, :] - b["state/q"][-1, :]).max())
checks.check("best iterate: the written trajectory is that design's motion (final q equal)", difference == 0.0,
             "max difference %.3g" % difference)

checks.finish()
