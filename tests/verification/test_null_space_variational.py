#!/usr/bin/python3
"""The null-space variational integrator with nodal reparametrization (Schubert et al. 2024, sec. 3; `integrator:
{type: variational, coordinates: joint}`, integrators/null_space_variational.hpp) and its discrete adjoint, through
the command line:

1. The same discrete motion as the RATTLE form: P^T r = 0 if and only if r = C_q^T Lambda, so both forms solve the
   same configuration equations and their exact discrete adjoints give the same J and dJ to round-off (the RATTLE
   adjoint, integrators/variational.cpp, is an independent derivation with multipliers: adjoint variables of
   dimension n + m against the null-space form's k = n - m). Asserted (relative 1e-9) on the constrained Cartesian
   pendulum (200 controls), Held and Seifried's torsional pendulum (a joint length, a spring stiffness, a mass), the
   double pendulum on a cart (controls; prismatic and revolute joints), the spinning spherical pendulum (three
   Cardan angles; inertia, joint geometry and initial-velocity design variables) and a planar chain of 10 links.
2. `flexadj check` (Taylor test of order 2, central and extrapolated differences of the discrete J) passes on the
   shipped model meshes/pendulum_swing_up_null_space.yaml, the torsional pendulum (T = 2 s) and the spinning spherical
   pendulum.
3. Checkpoints, an HDF5 trajectory, disk checkpoints with --restart files and the spacetime adjoint give the gradient
   of memory storage.
4. Refusals with exit 2 naming the key: two ranks, a free final time, coordinates with generalized_alpha.

usage: test_null_space_variational.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR
"""
import sys

from cli_checks import CliChecks

checks = CliChecks(sys.argv)
source = checks.source
check, run, gradient = checks.check, checks.run, checks.gradient
NULL_SPACE = ["--set", "integrator.type=variational", "--set", "integrator.coordinates=joint"]
RATTLE = ["--set", "integrator.type=variational", "--set", "integrator.coordinates=absolute"]


# The models of the joint-coordinate tests (tests/verification/test_joint_coordinates.py).
pendulum = source + "/meshes/pendulum_swing_up_variational.yaml"
torsional, swinging, spatial, SPATIAL = checks.joint_models()
CHAIN = ["--set", "chain.count=10", "--set", "objective=[{type: final_square, coordinate: link10.x}]",
         "--set", "design_variables=[link3.mass, link7.inertia_zz]", "--set", "integrator.step_size=1e-3",
         "--set", "integrator.end_time=0.1"]

# 1. The null-space form against the RATTLE form.
cases = [("constrained Cartesian pendulum, 200 controls", pendulum, []),
         ("torsional pendulum, length/stiffness/mass", torsional, []),
         ("double pendulum on a cart, controls", "swinging.yaml", ["--set", "integrator.end_time=1"]),
         ("spinning spherical pendulum", spatial, SPATIAL),
         ("planar chain of 10 links", source + "/benchmarks/planar_chain.yaml", CHAIN)]
for title, model, options in cases:
    J0, g0, _ = gradient(model, *(RATTLE + options))
    J1, g1, out = gradient(model, *(NULL_SPACE + options))
    scale = max(abs(x) for x in g0)
    deviation = max(abs(a - b) for a, b in zip(g0, g1)) / scale if len(g0) == len(g1) and scale > 0 else 1.0
    check("%s: J of both forms equal (%.16g, %.16g)" % (title, J0, J1), abs(J0 - J1) <= 1e-9 * max(1.0, abs(J0)))
    check("%s: gradient of both forms equal (%d values, max |dJ| %.3e, relative deviation %.1e <= 1e-9)"
          % (title, len(g0), scale, deviation), deviation <= 1e-9)
    check("%s: the null-space integrator ran" % title, "null-space form" in out)

# 2. flexadj check.
out = run("check", source + "/meshes/pendulum_swing_up_null_space.yaml")
check("flexadj check passes on meshes/pendulum_swing_up_null_space.yaml (its defaults)", "check passed" in out)
out = run("check", torsional, *NULL_SPACE, "--set", "integrator.end_time=2")
check("flexadj check passes on the torsional pendulum", "check passed" in out)
out = run("check", spatial, *(NULL_SPACE + SPATIAL))
check("flexadj check passes on the spinning spherical pendulum", "check passed" in out)

# 3. Trajectory kinds and the spacetime adjoint.
SHORT = NULL_SPACE + ["--set", "integrator.end_time=0.5"]
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
out = run("simulate", pendulum, *NULL_SPACE, "-o", "two.h5", expect=2, ranks=2)
check("two ranks refused naming integrator.coordinates", "integrator.coordinates" in out and "one rank" in out)
out = run("gradient", torsional, *NULL_SPACE, "--set", "design_variables=[integrator.end_time]", expect=2)
check("a free final time refused naming design_variables", "design_variables" in out and "null-space" in out)
out = run("simulate", torsional, "--set", "integrator.type=generalized_alpha", "--set",
          "integrator.coordinates=joint", "-o", "ga.h5", expect=2)
check("coordinates with generalized_alpha refused naming integrator.coordinates",
      "integrator.coordinates" in out and "hamiltonian and variational" in out)

checks.finish()
