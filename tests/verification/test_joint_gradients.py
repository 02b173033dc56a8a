#!/usr/bin/python3
"""Per-component central differences of the discrete J for the joint-coordinate integrators (hamiltonian with
coordinates joint, variational with coordinates joint (null space) and joint_midpoint), through the command line:
the double pendulum on a cart swinging (meshes/double_pendulum_cart_hamiltonian.yaml, 0.3 s in steps of 2 ms, its
force on a grid of 31 values, 2 N with a pulse), each adjoint component against a central difference of J: two
masses (bodies), the friction (a force parameter), the hinge between the links (its world point moves both
attachment points: D = -(dJ/d point_a_x + dJ/d point_b_x), the links being turned by -90 degrees), and the force
values at t = 0, the middle and the last two (t = 0.29, 0.3: only the last steps feel them). The check is that of
tests/support/fd_check.hpp: |d - D| <= 1e-6 |D| + noise, noise = 1e-12 |J| / h (J printed to 15 digits, the
integrators' Newton at round-off), and |D| above 1e4 x noise. The joint-space continuous adjoint (hamiltonian,
--adjoint continuous) is held to the same differences within its integration error (3e-3 relative).

usage: test_joint_gradients.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR
"""
import re
import sys

from cli_checks import CliChecks

checks = CliChecks(sys.argv)
check, run = checks.check, checks.run
template = open(checks.source + "/meshes/double_pendulum_cart_hamiltonian.yaml").read()
CONTROL_LINE = "  - {name: F, grid: {start: 0, end: 2, count: 401}, value: 0}"
assert CONTROL_LINE in template
COUNT = 31
BASE = [2.0 + (3.0 if 5 <= k <= 12 else 0.0) for k in range(COUNT)]  # a pulse: the links swing


def model(values, sets=()):
    """The model file with the force values; returns its name."""
    text = template.replace(CONTROL_LINE, "  - {name: F, grid: {start: 0, end: 0.3, count: %d}, values: [%s]}"
                            % (COUNT, ", ".join(repr(v) for v in values)))
    with open("model.yaml", "w") as f:
        f.write(text)
    return "model.yaml"


COMMON = ["--set", "integrator.end_time=0.3", "--set", "integrator.step_size=2e-3",
          "--set", "design_variables=[link1.mass, link2.mass, cart_friction.damping, hinge2.point_a_x, "
                   "hinge2.point_b_x, {control: F}]"]
# Parameters by the key that sets them, with the value of the model file.
PARAMETERS = {"link1.mass": ("bodies[1].mass", 0.5), "link2.mass": ("bodies[2].mass", 0.5),
              "cart_friction.damping": ("forces[1].damping", 0.05)}
CONTROLS = [0, 15, 29, 30]


def compare(label, d, plus, minus, h, J):
    D = (plus - minus) / (2 * h)
    noise = 1e-12 * abs(J) / h
    resolution = abs(D) / noise
    error = abs(d - D)
    check("%s: adjoint %.10e, difference %.10e (relative error %.1e, resolution %.1e)"
          % (label, d, D, error / abs(D) if D else float("inf"), resolution),
          resolution > 1e4 and error <= 1e-6 * abs(D) + noise)
    return D


for kind in (["--set", "integrator.type=hamiltonian", "--set", "integrator.coordinates=joint"],
             ["--set", "integrator.type=variational", "--set", "integrator.coordinates=joint"],
             ["--set", "integrator.type=variational", "--set", "integrator.coordinates=joint_midpoint"]):
    title = kind[1].split("=")[1] + "/" + kind[3].split("=")[1]
    out = run("gradient", model(BASE), *kind, *COMMON, "-o", "gradient.csv")
    J = float(re.search(r"^J = (\S+)", out, re.M).group(1))
    rows = [line.strip().split(",") for line in open("gradient.csv")][1:]
    g = {row[0]: float(row[2]) for row in rows}
    check("%s: %d gradient entries, J = %.15g" % (title, len(rows), J), len(rows) == 5 + COUNT)

    def J_at(extra=(), values=BASE):
        out = run("gradient", model(values), *kind, *COMMON, *extra, "-o", "fd.csv")
        return float(re.search(r"^J = (\S+)", out, re.M).group(1))

    differences = {}
    for name, (key, value) in PARAMETERS.items():
        h = 1e-4 * value
        Js = [J_at(["--set", "%s=%r" % (key, value + s * h)]) for s in (1, -1)]
        differences[name] = compare("%s: %s" % (title, name), g[name], *Js, h, J)
    h = 1e-4
    Js = [J_at(["--set", "joints[2].point=[0, %r]" % (-0.5 + s * h)]) for s in (1, -1)]
    compare("%s: hinge2 world point y" % title, -(g["hinge2.point_a_x"] + g["hinge2.point_b_x"]), *Js, h, J)
    for k in CONTROLS:
        h = 2e-3
        Js = []
        for s in (1, -1):
            values = list(BASE)
            values[k] += s * h
            Js.append(J_at(values=values))
        differences["control:F[%d]" % k] = compare("%s: F[%d]" % (title, k), g["control:F[%d]" % k], *Js, h, J)
    if title == "hamiltonian/joint":
        # Maciag et al. 2022's continuous adjoint (the joint-space adjoint ODE, Heun backwards) against the same
        # differences of the discrete J, to its integration error at h = 2 ms (measured 3e-5 .. 9.4e-4).
        run("gradient", model(BASE), *kind, *COMMON, "--adjoint", "continuous", "-o", "continuous.csv")
        continuous = {row[0]: float(row[2]) for row in
                      (line.strip().split(",") for line in list(open("continuous.csv"))[1:])}
        for name, D in differences.items():
            error = abs(continuous[name] - D) / abs(D)
            check("%s continuous adjoint: %s %.10e, difference %.10e (relative error %.1e)"
                  % (title, name, continuous[name], D, error), error <= 3e-3)

checks.finish()
