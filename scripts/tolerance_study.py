#!/usr/bin/env python3
"""Bestle and Eberhard 1992, Figs. 3-4: the error of dpsi/dc on the oscillator (psi = x(pi/2), m = c = 1,
z0 = 0.5; dpsi/dc = -0.25 exactly) against the integration tolerance, for the adjoint gradient, forward finite
differences and extrapolated finite differences, all with error-controlled steps (integrator.step_control) that
each run chooses anew, as the paper's variable-step integrator does. Prints a table and writes JSON.
Usage: scripts/tolerance_study.py [FLEXADJ] [OUT.json]"""
import json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FLEXADJ = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "apps", "flexadj")
OUT = sys.argv[2] if len(sys.argv) > 2 else "tolerance_study.json"
MODEL = os.path.join(HERE, "..", "meshes", "oscillator.yaml")
EXACT = -0.25


def run(tolerance, stiffness=1.0, gradient=False):
    """J (and dJ/dc) of the oscillator at the given stiffness with step control."""
    with tempfile.TemporaryDirectory() as work:
        csv = os.path.join(work, "g.csv")
        args = [FLEXADJ, "gradient", MODEL, "-o", csv, "--set", "integrator.step_control.tolerance=%g" % tolerance,
                "--set", "integrator.newton_tolerance=1e-14", "--set", "forces[0].stiffness=%.17g" % stiffness,
                "--set", "design_variables=[spring.stiffness]"]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        J = float(re.search(r"^J = (\S+)", out, re.M).group(1))
        if not gradient:
            return J
        line = open(csv).read().splitlines()[1]
        return J, float(line.split(",")[2])


def extrapolated(tolerance, J0, dp0=1e-2, points=5):
    """Forward differences at dp0/(i+1), Aitken-Neville to step 0 (Bestle and Eberhard 1992, sec. 4)."""
    steps = [dp0 / (i + 1) for i in range(points)]
    table = [(run(tolerance, 1.0 + h) - J0) / h for h in steps]
    for k in range(1, points):
        table = [(steps[i] * table[i + 1] - steps[i + k] * table[i]) / (steps[i] - steps[i + k])
                 for i in range(points - k)]
    return table[0]


rows = []
print("%-10s %12s %12s %12s" % ("tolerance", "adjoint", "forward FD", "extrap. FD"))
for exponent in range(4, 14):
    tolerance = 10.0 ** -exponent
    J0, adjoint = run(tolerance, gradient=True)
    forward = (run(tolerance, 1.0 + 1e-6) - J0) / 1e-6
    extrap = extrapolated(tolerance, J0)
    row = {"tolerance": tolerance, "adjoint_error": abs(adjoint - EXACT), "forward_fd_error": abs(forward - EXACT),
           "extrapolated_fd_error": abs(extrap - EXACT)}
    rows.append(row)
    print("%-10.0e %12.2e %12.2e %12.2e" % (tolerance, row["adjoint_error"], row["forward_fd_error"],
                                         row["extrapolated_fd_error"]))
json.dump({"study": "Bestle and Eberhard 1992 Figs. 3-4, oscillator dpsi/dc", "rows": rows}, open(OUT, "w"), indent=1)
print("written", OUT)
