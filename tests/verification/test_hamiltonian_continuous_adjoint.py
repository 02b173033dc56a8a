#!/usr/bin/python3
"""The redundant-coordinate continuous adjoint of the constrained Hamiltonian equations (Maciag, Malczyk and Fraczek
2022, eqs. (21a)-(21c) with the terminal values (A.4), and its index-1 form (22a)/(22b); `flexadj gradient --adjoint
continuous --continuous-form hamiltonian` (or hamiltonian_index1) with `integrator: {type: hamiltonian}`;
adjoint/hamiltonian_continuous_adjoint.hpp), through the command line, both forms where not said otherwise:

1. Held and Seifried's torsional pendulum (meshes/torsional_pendulum_state_space.yaml, a point mass on a distance
   joint): psi and dpsi/d(l, c_r, m, initial velocity) against the closed form at h = 2e-3, 1e-3, 5e-4: order in
   (1.9, 2.1) between both pairs, relative error after Richardson extrapolation (h^2 and h^3 removed) <= 1e-9.
2. The spinning spherical pendulum (meshes/spherical_pendulum_spin.yaml: an Euler-parameter rigid body, whose mass
   matrix depends on q; terminal position and velocity terms and a velocity tracking term, all ten design variables)
   and a chain of four spatial rigid bodies: the continuous gradient and the exact discrete one differ by O(h^2)
   (ratio of the differences on halving h in (3.6, 4.4)), at most 1e-4 of the largest entry at h = 1e-3.
3. np 2 (its own mpiexec) = np 1 to 1e-12 on the chain; HDF5 trajectory, memory and disk checkpoints give the
   gradient of memory storage byte for byte (the index-1 form: np 2 to 1e-10, as its central differences along the
   trajectory amplify the ranks' summation order, and memory checkpoints).
4. [MMF22] Fig. 7, the adjoint's constraint D^T xi = C_q xi = 0 ([MMF22] eq. (28)) along the sweep, on the cart
   stabilisation at u = 0 (meshes/double_pendulum_cart_stabilization.yaml, T = 2 s): the joint-coordinate adjoint
   (xi = H xi_hat, eq. (27a)) holds it to round-off (<= 1e-13 max |xi|); the redundant one to its integration error,
   which falls at order 2 (ratio in (3.6, 4.4) from h = 1e-3 to 5e-4) and stays below 1e-4 max |xi|; the two
   adjoints' xi(t0) agree to 1e-2 (O(h^2) apart, both ~52); the index-1 form's drift is O(h^2) too and at least 3x
   the index-2 form's (measured 8.3x).
5. Refusals with exit 2 naming the option or key, also a --restart with the form changed.

usage: test_hamiltonian_continuous_adjoint.py FLEXADJ MPIEXEC WORKDIR SOURCE_DIR
"""
import csv
import glob
import math
import os
import re
import shutil
import signal
import subprocess
import time

from cli_checks import CliChecks
import sys

checks = CliChecks(sys.argv)
source = checks.source
check, run = checks.check, checks.run
FORM = ["--adjoint", "continuous", "--continuous-form", "hamiltonian"]
FORMS = {"hamiltonian": FORM, "hamiltonian_index1": ["--adjoint", "continuous", "--continuous-form",
                                                     "hamiltonian_index1"]}


def gradient(model, *options, ranks=1, out="gradient.csv"):
    text = run("gradient", model, "-o", out, *options, ranks=ranks)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    return text, {row["name"]: float(row["gradient"]) for row in rows}


def largest_difference(a, b):
    scale = max(abs(x) for x in a.values())
    return max(abs(a[k] - b[k]) for k in a) / scale


# 1. Held and Seifried's Table 1 in absolute coordinates, with the closed form.
pendulum = source + "/meshes/torsional_pendulum_state_space.yaml"
m, l, c, alpha0, t1 = 2.0, 1.5, 5.0, math.pi / 2, 10.0
w = math.sqrt(c / (m * l * l))
dpsi_dw = l * math.cos(alpha0 * math.cos(w * t1)) * alpha0 * (-math.sin(w * t1)) * t1
exact = {"J": l * math.sin(alpha0 * math.cos(w * t1)),
         "rod.length": math.sin(alpha0 * math.cos(w * t1)) + dpsi_dw * (-w / l),
         "torsion.stiffness": dpsi_dw * w / (2 * c), "mass.mass": dpsi_dw * (-w / (2 * m)),
         # x' = -l alpha' at alpha0 = pi/2: alpha(t1) gains -(v0 / l) sin(w t1) / w.
         "initial_velocity:mass.x": -math.cos(alpha0 * math.cos(w * t1)) * math.sin(w * t1) / w}
steps = [2e-3, 1e-3, 5e-4]
for form in FORMS:
    values = {}
    for h in steps:
        text, d = gradient(pendulum, "--set", "integrator.type=hamiltonian", "--set", "integrator.step_size=%g" % h,
                           "--set", "design_variables=[rod.length, torsion.stiffness, mass.mass, "
                                    "{initial_velocity: mass.x}]", *FORMS[form])
        d["J"] = float(re.search(r"^J = (\S+)", text, re.M).group(1))
        values[h] = d
    check("%s: the report names the adjoint" % form,
          "redundant-coordinate adjoint of the constrained Hamiltonian" in text and
          (("index-1 form" in text) == (form == "hamiltonian_index1")))
    for name in exact:
        e = [values[h][name] - exact[name] for h in steps]
        orders = [math.log2(abs(e[0] / e[1])), math.log2(abs(e[1] / e[2]))]
        g1, g2, g3 = (values[h][name] for h in steps)
        r12, r23 = (4 * g2 - g1) / 3, (4 * g3 - g2) / 3
        relative = abs((8 * r23 - r12) / 7 - exact[name]) / abs(exact[name])
        print("   %-18s %-24s exact % .12e  h=1e-3 % .12e  orders %.3f %.3f  extrapolated rel %.1e" % (
            form, name, exact[name], values[1e-3][name], orders[0], orders[1], relative))
        check("%s, %s: order 2 (1.9 .. 2.1)" % (form, name), all(1.9 < o < 2.1 for o in orders),
              "%.3f %.3f" % tuple(orders))
        check("%s, %s: relative error after extrapolation <= 1e-9" % (form, name), relative <= 1e-9,
              "%.1e" % relative)

# 2. Rigid bodies in Euler parameters: against the exact discrete gradient, O(h^2) apart.
with open("spatial.yaml", "w") as f:
    f.write("".join(line for line in open(source + "/meshes/spherical_pendulum_spin.yaml")
                    if not line.strip().startswith("spectral_radius")))
with open("chain.yaml", "w") as f:
    f.write("".join(line for line in open(source + "/meshes/rigid_chain.yaml")
                    if not line.strip().startswith("spectral_radius")))
cases = {"spatial.yaml": ["--set", "integrator.end_time=0.5"],
         "chain.yaml": ["--set", "integrator.end_time=0.2", "--set", "chain.count=4"]}
for model, sets in cases.items():
    options = ["--set", "integrator.type=hamiltonian"] + sets
    differences = {form: [] for form in FORMS}
    for h in [1e-3, 5e-4]:
        step = options + ["--set", "integrator.step_size=%g" % h]
        _, discrete = gradient(model, *step)
        for form in FORMS:
            _, continuous = gradient(model, *step, *FORMS[form])
            differences[form].append(largest_difference(discrete, continuous))
    for form, (coarse, fine) in differences.items():
        ratio = coarse / fine
        print("   %s, %s: %d values, continuous - discrete %.2e, %.2e of the largest entry, ratio %.2f" % (
            model, form, len(discrete), coarse, fine, ratio))
        check("%s, %s: continuous = discrete to 1e-4 at h = 1e-3" % (model, form), coarse <= 1e-4, "%.1e" % coarse)
        check("%s, %s: O(h^2) apart (ratio 3.6 .. 4.4)" % (model, form), 3.6 < ratio < 4.4, "%.2f" % ratio)

# 3. Ranks and trajectory storages.
chain = ["--set", "integrator.type=hamiltonian", "--set", "integrator.end_time=0.2", "--set", "chain.count=4",
         "--set", "integrator.step_size=1e-3"] + FORM
_, one = gradient("chain.yaml", *chain, out="one.csv")
text, two = gradient("chain.yaml", *chain, ranks=2, out="two.csv")
check("np 2 ran on 2 ranks", "; 2 rank(s)" in text)
check("np 2 = np 1 to 1e-12", largest_difference(one, two) <= 1e-12, "%.1e" % largest_difference(one, two))
memory = open("one.csv").read()
index1 = chain[:-1] + ["hamiltonian_index1"]
_, one_index1 = gradient("chain.yaml", *index1, out="one_index1.csv")
_, two_index1 = gradient("chain.yaml", *index1, ranks=2, out="two_index1.csv")
# Its central differences along the trajectory (epsilon = 1e-6 T) amplify the ranks' summation order: 1e-10.
check("index-1 form: np 2 = np 1 to 1e-10", largest_difference(one_index1, two_index1) <= 1e-10,
      "%.1e" % largest_difference(one_index1, two_index1))
gradient("chain.yaml", *index1, "--trajectory", "checkpoints", "--checkpoints", "5", out="stored.csv")
check("index-1 form: checkpoints = memory byte for byte", open("stored.csv").read() == open("one_index1.csv").read())
for name, storage in [("hdf5", ["--trajectory", "hdf5", "--trajectory-file", "states.h5"]),
                      ("checkpoints", ["--trajectory", "checkpoints", "--checkpoints", "5"]),
                      ("disk checkpoints", ["--trajectory", "checkpoints", "--checkpoints", "4", "--disk-checkpoints",
                                            "6", "--checkpoint-folder", "files"])]:
    gradient("chain.yaml", *chain, *storage, out="stored.csv")
    check("%s = memory byte for byte" % name, open("stored.csv").read() == memory)

# 4. [MMF22] Fig. 7 on the cart stabilisation at u = 0.
with open("stabilization.yaml", "w") as f:
    f.write("".join(line for line in open(source + "/meshes/double_pendulum_cart_stabilization.yaml")
                    if not line.strip().startswith("spectral_radius")))


def history(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [float(r["time"]) for r in rows], [float(r["violation"]) for r in rows], [float(r["xi"]) for r in rows]


stabilization = ["--set", "integrator.type=hamiltonian"]
text = run("gradient", "stabilization.yaml", *stabilization, "--set", "integrator.coordinates=joint", "--adjoint",
           "continuous", "--adjoint-violation", "joint.csv")
check("joint: the report gives the largest violation", "adjoint constraint  max |C_q xi|" in text)
_, joint, joint_xi = history("joint.csv")
check("joint: C_q xi = 0 to round-off (<= 1e-13 max |xi|)", max(joint) <= 1e-13 * max(joint_xi),
      "%.1e of %.1f" % (max(joint), max(joint_xi)))
largest = []
for h in [1e-3, 5e-4]:
    run("gradient", "stabilization.yaml", *stabilization, "--set", "integrator.step_size=%g" % h, *FORM,
        "--adjoint-violation", "redundant.csv")
    times, redundant, redundant_xi = history("redundant.csv")
    check("redundant: a value per step", len(times) == round(2 / h) + 1 and times[-1] == 2.0)
    largest.append(max(redundant))
    if h == 1e-3:
        check("redundant: xi(t0) = the joint adjoint's to 1e-2 relative",
              abs(redundant_xi[0] - joint_xi[0]) <= 1e-2 * joint_xi[0], "%.4f %.4f" % (redundant_xi[0], joint_xi[0]))
        check("redundant: C_q xi below 1e-4 max |xi|, above round-off", 1e-10 < largest[0] / max(redundant_xi) <= 1e-4,
              "%.1e" % (largest[0] / max(redundant_xi)))
ratio = largest[0] / largest[1]
print("   max |C_q xi|: joint %.1e; redundant %.2e (h = 1e-3), %.2e (h = 5e-4), ratio %.2f" % (
    max(joint), largest[0], largest[1], ratio))
check("redundant: C_q xi falls at order 2 (ratio 3.6 .. 4.4)", 3.6 < ratio < 4.4, "%.2f" % ratio)
# The paper's index-1 form holds D^T xi = 0 only through its second derivative: its drift is larger, also O(h^2).
largest_index1 = []
for h in [1e-3, 5e-4]:
    run("gradient", "stabilization.yaml", *stabilization, "--set", "integrator.step_size=%g" % h,
        *FORMS["hamiltonian_index1"], "--adjoint-violation", "index1.csv")
    _, index1_violation, _ = history("index1.csv")
    largest_index1.append(max(index1_violation))
ratio = largest_index1[0] / largest_index1[1]
print("   max |C_q xi|, index-1 form: %.2e (h = 1e-3), %.2e (h = 5e-4), ratio %.2f" % (
    largest_index1[0], largest_index1[1], ratio))
check("index-1 form: C_q xi falls at order 2 (ratio 3.6 .. 4.4)", 3.6 < ratio < 4.4, "%.2f" % ratio)
check("index-1 form: its drift above the index-2 form's (at least 3x at h = 1e-3)",
      largest_index1[0] >= 3 * largest[0], "%.2e against %.2e" % (largest_index1[0], largest[0]))

# 5. Refusals.
def refused(label, words, *args):
    out = run(*args, expect=2)
    check(label, all(w in out for w in words), out.strip().splitlines()[-1] if out.strip() else "")


refused("an unknown form", ["--continuous-form", "expected dae, hamiltonian or hamiltonian_index1"], "gradient", pendulum, "--set",
        "integrator.type=hamiltonian", "--adjoint", "continuous", "--continuous-form", "index1")
refused("the form with another integrator", ["integrator.type", "two continuous adjoints"], "gradient", pendulum,
        "--set", "integrator.type=generalized_alpha", *FORM)
refused("the form with the discrete adjoint", ["--continuous-form", "this run's adjoint is discrete"], "gradient",
        pendulum, "--set", "integrator.type=hamiltonian", "--continuous-form", "hamiltonian")
refused("--adjoint-violation with the discrete adjoint", ["--adjoint-violation"], "gradient", pendulum, "--set",
        "integrator.type=hamiltonian", "--adjoint-violation", "v.csv")
refused("--adjoint-violation with the adjoint DAE", ["--adjoint-violation"], "gradient", pendulum, "--set",
        "integrator.type=hamiltonian", "--adjoint", "continuous", "--adjoint-violation", "v.csv")
refused("--adjoint-steps with the form", ["--adjoint-steps", "forward grid"], "gradient", pendulum, "--set",
        "integrator.type=hamiltonian", *FORM, "--adjoint-steps", "100")
refused("a free final time with the form", ["design_variables", "does not differentiate a free final time"], "gradient", pendulum, "--set",
        "integrator.type=hamiltonian", "--set", "design_variables=[rod.length, integrator.end_time]", *FORM)
# A run with disk checkpoints killed after its second checkpoint file, then --restart with the form changed: refused
# (the checkpoint's run identity names the adjoint's form), never resumed into the other form.
killed = ["stabilization.yaml", "--set", "integrator.type=hamiltonian", "--set", "integrator.step_size=2.5e-4",
          "--trajectory", "checkpoints", "--disk-checkpoints", "4", "--checkpoint-folder", "restart_files", "-o", "r.csv"]
shutil.rmtree("restart_files", ignore_errors=True)
process = subprocess.Popen([checks.flexadj, "gradient", *killed, *FORM], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
for _ in range(20000):
    if len(glob.glob("restart_files/checkpoint_*.h5")) >= 2 or process.poll() is not None:
        break
    time.sleep(0.002)
os.killpg(process.pid, signal.SIGKILL)
process.wait()
check("the run was killed with two checkpoint files", process.returncode == -signal.SIGKILL and
      len(glob.glob("restart_files/checkpoint_*.h5")) >= 2)
refused("--restart with the form changed", ["checkpoint belongs to another run", "hamiltonian_index1"], "gradient",
        *killed, *FORMS["hamiltonian_index1"], "--restart")
refused("--adjoint-violation into a missing folder", ["--adjoint-violation", "cannot write"], "gradient", pendulum,
        "--set", "integrator.type=hamiltonian", *FORM, "--adjoint-violation", "missing/v.csv")
checks.finish()
