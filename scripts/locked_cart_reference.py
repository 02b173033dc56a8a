#!/usr/bin/python3
"""Independent reference for the cart stabilisation of Maciag et al. 2022, sec. 5.2: lock the cart with a
constraint x = 0, record the constraint's reaction force, apply that force as the control F of the free model
(on the same 401-value grid) and evaluate J = 1/2 int x^2 dt + 1/2 x(t_f)^2 with it. The paper notes that this
force gives J about 0; the optimised J of `flexadj optimize` is compared with it.

    scripts/locked_cart_reference.py [MODEL.yaml] [--flexadj PATH] [--work DIR]

Prints J of the reaction force, the largest |x| of the cart under it, and writes DIR/reaction.csv.
"""
import csv
import os
import subprocess
import sys

import h5py
import numpy as np
import yaml

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
def option(name, default):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default
flexadj = option("--flexadj", os.path.join(root, "scripts", "flexadj"))
work = os.path.abspath(option("--work", "locked_cart"))
model_path = os.path.abspath(args[0] if args else os.path.join(root, "meshes", "double_pendulum_cart_stabilization.yaml"))
os.makedirs(work, exist_ok=True)

def run(*command):
    result = subprocess.run([flexadj, *command], cwd=work, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("flexadj %s failed:\n%s%s" % (" ".join(command), result.stdout, result.stderr))
    return result.stdout

model = yaml.safe_load(open(model_path))
# 1. The cart locked at x = 0 (the same model with one more constraint, no control force).
locked = {k: v for k, v in model.items() if k not in ("objective", "design_variables", "optimization")}
locked["controls"] = [dict(c, value=0) for c in model["controls"]]
locked["joints"] = model["joints"] + [{"name": "lock", "type": "prescribed_coordinate", "body": "cart",
                                       "coordinate": 0, "value": 0}]
yaml.safe_dump(locked, open(os.path.join(work, "locked.yaml"), "w"))
run("simulate", "locked.yaml", "-q", "--no-xdmf", "-o", "locked.h5")
with h5py.File(os.path.join(work, "locked.h5")) as f:
    names = [n.decode() for n in f["model/multiplier_names"][:]]
    times = f["time"][:]
    lam = f["state/lambda"][:, names.index("lock[0]")]
# R = M a - Q + C_q^T lambda with C = x: the constraint adds -lambda to the cart's force balance, so the
# control force that replaces it is F = -lambda.
grid = model["controls"][0]["grid"]
grid_times = np.linspace(grid["start"], grid["end"], grid["count"])
force = np.interp(grid_times, times, -lam)
with open(os.path.join(work, "reaction.csv"), "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["t", "F"])
    for t, F in zip(grid_times, force):
        writer.writerow(["%.17g" % t, "%.17g" % F])
# 2. The free model driven by that force: J and the cart's excursion.
free = dict(model)
free.pop("optimization", None)
free["controls"] = [{"name": "F", "file": "reaction.csv", "column": "F"}]
yaml.safe_dump(free, open(os.path.join(work, "free.yaml"), "w"))
J = float(next(l for l in run("gradient", "free.yaml").splitlines() if l.startswith("J = ")).split()[2])
run("simulate", "free.yaml", "-q", "--no-xdmf", "-o", "free.h5")
with h5py.File(os.path.join(work, "free.h5")) as f:
    coordinates = [n.decode() for n in f["model/coordinate_names"][:]]
    x = f["state/q"][:, coordinates.index("cart.x")]
print("locked-cart reaction force: max |F| = %.6g N, J = %.6e, max |x_cart| = %.3e m" % (np.abs(force).max(), J,
                                                                                        np.abs(x).max()))
