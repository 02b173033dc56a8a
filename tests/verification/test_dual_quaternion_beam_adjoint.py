#!/usr/bin/python3
"""The discrete adjoints of the dual-quaternion beam (Schubert et al. 2024, sec. 4.4; `formulation: dual_quaternion`,
elements/dual_quaternion_beam.cpp) through the command line, on the swing-up of meshes/beam_swing_up_dual_quaternion.yaml
shortened to 0.03 s (180 steps) with design variables of every kind: the boundary torque (51 values), material and
section data of single elements (E, rho, eta, the shear factor k2 (in the plane of the motion); parameters of order 1 or more: the check steps by
max(1, |p|), which would multiply an area moment of 5e-7 many times over), an initial velocity and an initial position of a node.

1. `flexadj check` (Taylor test of order 2, central and extrapolated differences of the discrete J) passes for the
   step-by-step discrete adjoint at np 1 (the RATTLE sweep over the trapezoidal discrete Euler-Lagrange equations)
   and for the all-at-once spacetime adjoint at np 2 (Belos on the space-time grid).
2. The gradient is the same at np 1 and np 2, and the spacetime adjoint's is the sweep's (relative 1e-8).
3. Checkpoints and an HDF5 trajectory give the gradient of memory storage.
4. Refusals with exit 2 naming the element: another integrator type, joint coordinates, a free final time.

usage: test_dual_quaternion_beam_adjoint.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR
"""
import re
import sys

from cli_checks import CliChecks

checks = CliChecks(sys.argv)
check, run = checks.check, checks.run
model = checks.source + "/meshes/beam_swing_up_dual_quaternion.yaml"
SHORT = ["--set", "integrator.end_time=0.03",
         "--set", "design_variables=[{control: torque}, beam.element1.youngs_modulus, beam.element3.density, "
                  "beam.element2.shear_viscosity, beam.element5.shear_factor_2, {initial_velocity: beam.node3.d1}, "
                  "{initial_position: beam.node5.d2}]"]


def gradient(*options, ranks=1):
    """J (from the output) and the gradient column of the CSV file."""
    out = run("gradient", model, "-o", "gradient.csv", *SHORT, *options, ranks=ranks)
    value = float(re.search(r"^J = (\S+)", out, re.M).group(1))
    with open("gradient.csv") as f:
        rows = [line.strip().split(",") for line in f][1:]
    return value, [float(row[2]) for row in rows]


def deviation(a, b):
    scale = max(abs(x) for x in a)
    return max(abs(x - y) for x, y in zip(a, b)) / scale if len(a) == len(b) and scale > 0 else 1.0


# 1. flexadj check, both adjoints, np 1 and np 2.
# The spacetime system of the ambient coordinates spans stiffness 1e7 to rotary inertia 1e-4: GMRES's explicit
# residual stalls near 1e-10 of the right-hand side at np 2 (2 slabs), so it is asked for 1e-8 (the gradient then
# still agrees with the sweep to 1e-8, item 2).
SPACETIME = ["--adjoint", "spacetime", "--spacetime-tolerance", "1e-8"]
# (The sweep at np 1 and the spacetime adjoint at np 2; item 2 ties the other two combinations to these.)
for ranks, name, adjoint in ((1, "discrete", ["--adjoint", "discrete"]), (2, "spacetime", SPACETIME)):
    out = run("check", model, *SHORT, *adjoint, ranks=ranks)
    check("np %d, %s adjoint: flexadj check passes" % (ranks, name), "check passed" in out)

# 2. np 1 = np 2; spacetime = sweep.
J1, g1 = gradient()
J2, g2 = gradient(ranks=2)
Js, gs = gradient(*SPACETIME, ranks=2)
check("J at np 1 and np 2 equal (%.16g, %.16g)" % (J1, J2), abs(J1 - J2) <= 1e-12 * abs(J1))
check("gradient at np 1 and np 2 equal (%d values, relative deviation %.1e <= 1e-9)" % (len(g1), deviation(g1, g2)),
      deviation(g1, g2) <= 1e-9)
check("spacetime adjoint (np 2) = discrete sweep (relative deviation %.1e <= 1e-8)" % deviation(g1, gs),
      deviation(g1, gs) <= 1e-8)
check("every kind of design variable has a non-zero derivative (%s)" % ", ".join("%.3g" % g for g in g1[51:]),
      len(g1) == 57 and all(g != 0.0 for g in g1[51:]))

# 3. Trajectory kinds.
for kind in ("checkpoints", "hdf5"):
    _, gk = gradient("--trajectory", kind)
    check("--trajectory %s: the gradient of memory storage (relative deviation %.1e)" % (kind, deviation(g1, gk)),
          deviation(g1, gk) <= 1e-12)

# 4. Refusals.
cantilever = checks.source + "/meshes/dual_quaternion_cantilever.yaml"
TIP = ["--set", "objective=[{type: final_square, sensor: {body: beam.end, component: y}}]"]
for path, options, key in ((model, ["--set", "integrator.type=generalized_alpha"], "dual_quaternion"),
                           (model, ["--set", "integrator.coordinates=joint"], "dual_quaternion"),
                           (cantilever, TIP + ["--set", "design_variables=[integrator.end_time]"],
                            "dual-quaternion beam")):
    out = run("gradient", path, "--set", "integrator.end_time=0.01", *options, expect=2)
    check("refused (%s): the message names it" % " ".join(options[1:]), key in out, out.strip().splitlines()[-1])

checks.finish()
