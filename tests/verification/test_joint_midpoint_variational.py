#!/usr/bin/python3
"""The variational integrator with the midpoint rule in the joint coordinates (Schubert et al. 2024, sec. 2.3;
`integrator: {type: variational, coordinates: joint_midpoint}`, integrators/joint_midpoint_variational.hpp) and its
discrete adjoint, through the command line (the paper's scalar equations and the orders are asserted by
test_variational_orders.cpp):

1. `flexadj check` (Taylor test of order 2, central and extrapolated differences of the discrete J) passes on the
   shipped model meshes/pendulum_swing_up_minimal.yaml (200 controls), Held and Seifried's torsional pendulum (a joint
   length, a spring stiffness, a mass), the double pendulum on a cart (401 controls; prismatic and revolute joints)
   and the spinning spherical pendulum (three Cardan angles; mass, inertia, joint geometry, initial velocity), all
   with the exact Newton and adjoint matrix (k <= 4), and the five-axis manipulator (k = 5: Newton's approximate
   matrix and the adjoint equation by iterative refinement; three masses).
2. The same motion as the RATTLE form to second order: both are second-order discretisations of the same equations,
   so |J_midpoint - J_RATTLE| shrinks about fourfold per halving of h (asserted >= 3 on the double pendulum).
3. Checkpoints, an HDF5 trajectory, disk checkpoints with --restart files and the spacetime adjoint give the gradient
   of memory storage.
4. Refusals with exit 2 naming the key: two ranks, a free final time, joint_midpoint with type hamiltonian.

usage: test_joint_midpoint_variational.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR
"""
import sys

from cli_checks import CliChecks

checks = CliChecks(sys.argv)
source = checks.source
check, run, gradient = checks.check, checks.run, checks.gradient
MIDPOINT = ["--set", "integrator.type=variational", "--set", "integrator.coordinates=joint_midpoint"]
RATTLE = ["--set", "integrator.type=variational", "--set", "integrator.coordinates=absolute"]


torsional, swinging, spatial, SPATIAL = checks.joint_models()

# 1. flexadj check.
out = run("check", source + "/meshes/pendulum_swing_up_minimal.yaml")
check("flexadj check passes on meshes/pendulum_swing_up_minimal.yaml (its defaults)", "check passed" in out)
_, _, out = gradient(source + "/meshes/pendulum_swing_up_minimal.yaml")
check("the joint-midpoint integrator ran", "midpoint rule in joint coordinates" in out)
for title, model, options in [("the torsional pendulum", torsional, ["--set", "integrator.end_time=2"]),
                              ("the double pendulum on a cart", swinging, ["--set", "integrator.end_time=1"]),
                              ("the spinning spherical pendulum", spatial, SPATIAL)]:
    out = run("check", model, *(MIDPOINT + options))
    check("flexadj check passes on %s" % title, "check passed" in out)

# The five-axis manipulator (k = 5 joint coordinates): Newton with the approximate matrix and the adjoint equation
# by iterative refinement (joint_midpoint_variational.hpp, beyond kExactJacobianMax = 4).
with open("manipulator.yaml", "w") as f:
    f.write("".join(line for line in open(source + "/meshes/manipulator.yaml")
                    if not line.strip().startswith("spectral_radius")))
out = run("check", "manipulator.yaml", *(MIDPOINT + ["--set", "integrator.end_time=0.1"]))
check("flexadj check passes on the manipulator (5 joint coordinates: the refined adjoint solve)", "check passed" in out)

# 2. Second-order agreement with the RATTLE form.
differences = []
for h in ["0.01", "0.005"]:
    options = ["--set", "integrator.end_time=1", "--set", "integrator.step_size=" + h]
    J_rattle, _, _ = gradient("swinging.yaml", *(RATTLE + options))
    J_midpoint, _, _ = gradient("swinging.yaml", *(MIDPOINT + options))
    differences.append(abs(J_midpoint - J_rattle))
    print("h = %s: J RATTLE %.15g, joint midpoint %.15g" % (h, J_rattle, J_midpoint))
ratio = differences[0] / differences[1] if differences[1] > 0 else 0.0
check("|J_midpoint - J_RATTLE| %.3e -> %.3e when h halves (ratio %.2f >= 3)" % (differences[0], differences[1], ratio),
      ratio >= 3.0 and differences[0] > 0)

# 3. Trajectory kinds and the spacetime adjoint.
SHORT = MIDPOINT + ["--set", "integrator.end_time=0.5"]
_, reference, _ = gradient("swinging.yaml", *SHORT)
for options in [["--checkpoints", "7"], ["--trajectory", "hdf5"],
                ["--checkpoints", "5", "--disk-checkpoints", "10", "--checkpoint-folder", "files"],
                ["--adjoint", "spacetime"]]:
    _, g, _ = gradient("swinging.yaml", *(SHORT + options))
    deviation = max(abs(a - b) for a, b in zip(g, reference)) / max(abs(x) for x in reference)
    bound = 1e-10 if "spacetime" in options else 0.0
    check("%s: the gradient of memory storage (relative %.1e <= %g)" % (" ".join(options), deviation, bound),
          len(g) == len(reference) and deviation <= bound)

# 4. Refusals.
minimal = source + "/meshes/pendulum_swing_up_minimal.yaml"
out = run("simulate", minimal, "-o", "two.h5", expect=2, ranks=2)
check("two ranks refused naming integrator.coordinates", "integrator.coordinates" in out and "one rank" in out)
out = run("gradient", torsional, *MIDPOINT, "--set", "design_variables=[integrator.end_time]", expect=2)
check("a free final time refused naming design_variables", "design_variables" in out and "joint_midpoint" in out)
out = run("simulate", minimal, "--set", "integrator.type=hamiltonian", "-o", "h.h5", expect=2)
check("joint_midpoint with type hamiltonian refused naming integrator.coordinates",
      "integrator.coordinates" in out and "joint_midpoint" in out)

checks.finish()
