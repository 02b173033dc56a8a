#!/usr/bin/python3
"""The joint-space Hamiltonian equations of Maciag, Malczyk and Fraczek 2022 (`integrator: {type: hamiltonian,
coordinates: joint}`, integrators/joint_hamiltonian.hpp) and their exact discrete adjoint, through the command line:

1. Held and Seifried's torsional pendulum (meshes/torsional_pendulum_state_space.yaml) in its one joint coordinate,
   the rod angle: the minimal-coordinate adjoint of their Table 1, discrete (exact for the discrete psi) and
   continuous (Maciag et al.'s joint-coordinate adjoint ODE, --adjoint continuous). psi and dpsi/d(l, c_r, m)
   against the closed form psi = l sin(alpha0 cos(w t1)), w = sqrt(c_r/(m l^2)), at h = 2e-3, 1e-3, 5e-4: observed
   order in (1.9, 2.1) between both pairs, and the relative error after Richardson extrapolation (h^2 and h^3
   removed) at most 1e-10.
2. `flexadj check` (Taylor test of order 2, central and extrapolated differences of the discrete J) passes on the
   torsional pendulum (a geometric parameter of the joint, a force and a mass parameter) and on the double pendulum
   on a cart (meshes/double_pendulum_cart_hamiltonian.yaml, controls, a prismatic and two revolute joints) in joint
   coordinates.
3. The joint and absolute Hamiltonian integrators' discrete adjoints and the joint-coordinate continuous adjoint
   approximate one continuous gradient: on the double pendulum driven by F = 2 N their dJ/dF differ by O(h^2)
   (ratio near 4 on halving h; [MMF22] Fig. 6 compares the same three kinds of gradient).
3b. The spinning spherical pendulum (meshes/spherical_pendulum_spin.yaml, off-axis spin, three Cardan angles): flexadj
   check with geometric, inertia and initial-state design variables, and the three gradients O(h^2) apart.
3c. Chains, where the products' recursions over the tree run through many levels: flexadj check on a planar chain
   of 20 links (benchmarks/planar_chain.yaml) and a spatial chain of 5 links on spherical joints
   (meshes/rigid_chain.yaml).
4. Checkpoints, an HDF5 trajectory and the spacetime adjoint give the gradient of memory storage.
5. Refusals with exit 2 naming the key: two ranks, a spatial distance joint, a closed loop.

usage: test_joint_coordinates.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR
"""
import math
import os
import re
import sys

from cli_checks import CliChecks

checks = CliChecks(sys.argv)
source = checks.source
check, run = checks.check, checks.run


def gradient(model, *sets):
    out = run("gradient", model, "--set", "integrator.type=hamiltonian", "--set", "integrator.coordinates=joint", *sets)
    value = float(re.search(r"^J = (\S+)", out, re.M).group(1))
    derivatives = {m.group(1): float(m.group(3)) for m in re.finditer(r"^  (\S+)\s+(\S+)\s+(\S+)$", out, re.M)
                   if m.group(1) != "design"}
    return value, derivatives


# 1. Table 1 of Held and Seifried in the joint coordinate.
pendulum = source + "/meshes/torsional_pendulum_state_space.yaml"
m, l, c, alpha0, t1 = 2.0, 1.5, 5.0, math.pi / 2, 10.0
w = math.sqrt(c / (m * l * l))
psi = l * math.sin(alpha0 * math.cos(w * t1))
dpsi_dw = l * math.cos(alpha0 * math.cos(w * t1)) * alpha0 * (-math.sin(w * t1)) * t1
exact = {"J": psi, "rod.length": math.sin(alpha0 * math.cos(w * t1)) + dpsi_dw * (-w / l),
         "torsion.stiffness": dpsi_dw * w / (2 * c), "mass.mass": dpsi_dw * (-w / (2 * m))}
check("closed form dpsi/dl = -12.110969458645705", abs(exact["rod.length"] + 12.110969458645705) < 1e-12)
steps = [2e-3, 1e-3, 5e-4]
for adjoint in ["discrete", "continuous"]:
    print("   %s adjoint:" % adjoint)
    values = {}
    for h in steps:
        J, d = gradient(pendulum, "--set", "integrator.step_size=%g" % h, "--adjoint", adjoint)
        values[h] = dict(d, J=J)
    for name in ["J", "rod.length", "torsion.stiffness", "mass.mass"]:
        e = [values[h][name] - exact[name] for h in steps]
        orders = [math.log2(abs(e[0] / e[1])), math.log2(abs(e[1] / e[2]))]
        # Richardson: g(h) = g + c2 h^2 + c3 h^3 + ...; with h, h/2, h/4 both terms removed.
        g1, g2, g3 = (values[h][name] for h in steps)
        r12, r23 = (4 * g2 - g1) / 3, (4 * g3 - g2) / 3
        extrapolated = (8 * r23 - r12) / 7
        relative = abs(extrapolated - exact[name]) / abs(exact[name])
        print("   %-18s exact % .12e  h=1e-3 % .12e (rel %.1e)  orders %.3f %.3f  extrapolated rel %.1e" % (
            name, exact[name], values[1e-3][name], abs(e[1] / exact[name]), orders[0], orders[1], relative))
        check("%s, %s adjoint: order 2 (1.9 .. 2.1)" % (name, adjoint), all(1.9 < o < 2.1 for o in orders),
              "%.3f %.3f" % tuple(orders))
        check("%s, %s adjoint: relative error after extrapolation <= 1e-10" % (name, adjoint), relative <= 1e-10,
              "%.1e" % relative)

# 2. flexadj check with the defaults (the torsional pendulum over 2 s: 2000 steps per run).
for model, sets in [(pendulum, ["--set", "integrator.type=hamiltonian", "--set", "integrator.end_time=2"]),
                    (source + "/meshes/double_pendulum_cart_hamiltonian.yaml", [])]:
    out = run("check", model, "--set", "integrator.coordinates=joint", *sets)
    check("flexadj check passes on %s" % os.path.basename(model), "check passed" in out)

# 3. Joint against absolute coordinates, double pendulum released at 30 degrees with F = 2 N.
swinging = open(source + "/meshes/double_pendulum_cart_hamiltonian.yaml").read()
swinging = swinging.replace("value: 0}", "value: 2}")
with open("swinging.yaml", "w") as f:
    f.write(swinging)
def three_gradients(model, title, *sets, rows=None):
    """The discrete gradients in absolute and joint coordinates and the continuous joint-coordinate one at h = 1e-3
    and 5e-4 (the first `rows` design values): each pair's largest difference relative to max |g| must fall by
    about 4 (O(h^2): three approximations of one continuous gradient)."""
    differences = {"joint": [], "continuous": []}
    for h in [1e-3, 5e-4]:
        grads = {}
        for label, coordinates, adjoint in [("absolute", "absolute", "discrete"), ("joint", "joint", "discrete"),
                                            ("continuous", "joint", "continuous")]:
            run("gradient", model, "--set", "integrator.coordinates=" + coordinates, "--adjoint", adjoint,
                "--set", "integrator.step_size=%g" % h, *sets, "-o", "g.csv")
            with open("g.csv") as f:
                grads[label] = [float(line.split(",")[2]) for line in list(f)[1:]][:rows]
        check("%s: the same number of derivatives from each" % title,
              len(set(len(g) for g in grads.values())) == 1 and len(grads["joint"]) > 0)
        scale = max(abs(x) for x in grads["absolute"])
        differences["joint"].append(max(abs(a - b) for a, b in zip(grads["absolute"], grads["joint"])) / scale)
        differences["continuous"].append(max(abs(a - b) for a, b in zip(grads["joint"], grads["continuous"])) / scale)
    for label, what in [("joint", "discrete adjoints in joint and absolute coordinates"),
                        ("continuous", "continuous and discrete joint-coordinate adjoints")]:
        d = differences[label]
        print("   %s, %s: max difference / max |g|: %.2e at h = 1e-3, %.2e at 5e-4, ratio %.2f" % (
            title, what, d[0], d[1], d[0] / d[1]))
        check("%s: %s differ by O(h^2) (ratio 3.5 .. 4.5)" % (title, what), 3.5 < d[0] / d[1] < 4.5 and d[0] < 1e-2)


three_gradients("swinging.yaml", "double pendulum, F[0..199]", "--set", "integrator.end_time=1", rows=200)

# 3b. The same in space: the spinning spherical pendulum of meshes/spherical_pendulum_spin.yaml (a box with an
# off-axis spin on a spherical joint; three Cardan angles), which the planar examples cannot replace: it exercises
# the rotational terms. flexadj check with the joint's geometry, the inertia tensor and an initial velocity, then the
# three gradients against each other at h = 1e-3, 5e-4.
spatial = "".join(line for line in open(source + "/meshes/spherical_pendulum_spin.yaml")
                  if not line.strip().startswith("spectral_radius"))
with open("spatial.yaml", "w") as f:
    f.write(spatial)
SPATIAL = ["--set", "integrator.type=hamiltonian", "--set", "integrator.end_time=0.5",
           "--set", "design_variables=[box.mass, box.inertia_xz, pivot.point_b_z, pivot.point_a_x, "
                    "{initial_velocity: box.x}]"]
out = run("check", "spatial.yaml", "--set", "integrator.coordinates=joint", *SPATIAL)
check("flexadj check passes on the spinning spherical pendulum in joint coordinates", "check passed" in out)
three_gradients("spatial.yaml", "spinning spherical pendulum", *SPATIAL)

# 3c. Chains: the recursions of the O(n) products (integrators/joint_space_equations.hpp) through many levels.
out = run("check", source + "/benchmarks/planar_chain.yaml", "--set", "chain.count=20",
          "--set", "objective=[{type: final_square, coordinate: link20.x}]", "--set", "integrator.step_size=1e-3",
          "--set", "integrator.end_time=0.05", "--set", "integrator.coordinates=joint")
check("flexadj check passes on a planar chain of 20 links in joint coordinates", "check passed" in out)
chain = "".join(line for line in open(source + "/meshes/rigid_chain.yaml")
                if not line.strip().startswith("spectral_radius"))
with open("spatial_chain.yaml", "w") as f:
    f.write(chain)
out = run("check", "spatial_chain.yaml", "--set", "chain.count=5", "--set", "integrator.type=hamiltonian",
          "--set", "integrator.coordinates=joint", "--set", "integrator.end_time=0.05",
          "--set", "integrator.step_size=1e-3")
check("flexadj check passes on a spatial chain of 5 links (spherical joints) in joint coordinates",
      "check passed" in out)

# 4. The trajectory kinds and the spacetime adjoint give the discrete gradient of memory storage.
reference = None
for options in [[], ["--checkpoints", "7"], ["--trajectory", "hdf5"], ["--adjoint", "spacetime"]]:
    run("gradient", "swinging.yaml", "--set", "integrator.coordinates=joint", "--set", "integrator.end_time=0.5",
        "-o", "kinds.csv", *options)
    with open("kinds.csv") as f:
        g = [float(line.split(",")[2]) for line in f if line.startswith("control:F[")]
    if reference is None:
        reference = g
        continue
    deviation = max(abs(a - b) for a, b in zip(g, reference)) / max(abs(x) for x in reference)
    bound = 1e-10 if "spacetime" in options else 0.0
    check("%s: the gradient of memory storage (relative %.1e <= %g)" % (" ".join(options), deviation, bound),
          len(g) == len(reference) and deviation <= bound)

# 5. Refusals.
out = run("simulate", pendulum, "--set", "integrator.type=hamiltonian", "--set", "integrator.coordinates=joint",
          "-o", "two.h5", expect=2, ranks=2)
check("two ranks refused naming integrator.coordinates", "integrator.coordinates" in out and "one rank" in out)
with open("spatial_distance.yaml", "w") as f:
    f.write(spatial.replace("{name: pivot, type: spherical, bodies: [ground, box], point: [0, 0, 0]}",
                            "{name: pivot, type: distance, bodies: [ground, box], points: [[0, 0, 0.1], [0, 0, 0]], "
                            "length: 0.1}"))
out = run("simulate", "spatial_distance.yaml", "--set", "integrator.type=hamiltonian",
          "--set", "integrator.coordinates=joint", "-o", "spatial.h5", expect=2)
check("a spatial distance joint refused naming the joint", "joints.pivot" in out and "spherical joints in spatial" in out)
loop = swinging.replace("  - {name: hinge2, type: revolute, bodies: [link1, link2], point: [0, -0.5]}",
                        "  - {name: hinge2, type: revolute, bodies: [link1, link2], point: [0, -0.5]}\n"
                        "  - {name: rope, type: distance, bodies: [cart, link2], points: [[0, 0], [0, -1]], length: 1}")
with open("loop.yaml", "w") as f:
    f.write(loop)
out = run("simulate", "loop.yaml", "--set", "integrator.coordinates=joint", "-o", "loop.h5", expect=2)
check("a closed loop refused naming the joint", "joints.rope" in out and "tree" in out)

checks.finish()
