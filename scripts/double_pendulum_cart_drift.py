#!/usr/bin/python3
"""Constraint drift of the double pendulum on a cart (Maciag et al. 2022, sec. 5.1; meshes/double_pendulum_cart*.yaml)
along a run, from its HDF5 output (`flexadj simulate MODEL -o RUN.h5`), independently of flexadj's assembly: the
rail (cart y = 0) and the two hinges (link ends of half length 0.25 m, body x axis along the link), at position
level |C(q)| and velocity level |C_q v|, the largest over each quarter of the run. The kind of the paper's Fig. 7.

    scripts/double_pendulum_cart_drift.py RUN.h5 [RUN2.h5 ...]

Reads the datasets with h5dump (17 digits); needs no Python packages.
"""
import math
import subprocess
import sys

HALF = 0.25  # half length of the links (RECON, meshes/double_pendulum_cart.yaml)


def dataset(path, name):
    text = subprocess.run(["h5dump", "-m", "%.17g", "-y", "-w", "0", "-d", name, path], check=True,
                          capture_output=True, text=True).stdout
    body = text[text.index("DATA {") + len("DATA {"):text.rindex("}", 0, text.rindex("}"))]
    return [float(x) for x in body.replace("}", " ").replace(",", " ").split()]


def constraints(q, v):
    xc, yc, x1, y1, t1, x2, y2, t2 = q
    vxc, vyc, vx1, vy1, w1, vx2, vy2, w2 = v
    c1, s1, c2, s2 = math.cos(t1), math.sin(t1), math.cos(t2), math.sin(t2)
    position = [yc,
                xc - x1 + HALF * c1, yc - y1 + HALF * s1,                            # cart = link1 start
                x1 + HALF * c1 - x2 + HALF * c2, y1 + HALF * s1 - y2 + HALF * s2]    # link1 end = link2 start
    velocity = [vyc,
                vxc - vx1 - HALF * s1 * w1, vyc - vy1 + HALF * c1 * w1,
                vx1 - HALF * s1 * w1 - vx2 - HALF * s2 * w2, vy1 + HALF * c1 * w1 - vy2 + HALF * c2 * w2]
    return max(map(abs, position)), max(map(abs, velocity))


for path in sys.argv[1:]:
    time = dataset(path, "/time")
    q, v = dataset(path, "/state/q"), dataset(path, "/state/v")
    end = time[-1]
    quarters = [[0.0, 0.0] for _ in range(4)]
    for n, t in enumerate(time):
        p, w = constraints(q[8 * n:8 * n + 8], v[8 * n:8 * n + 8])
        k = min(3, int(4 * t / end))
        quarters[k][0] = max(quarters[k][0], p)
        quarters[k][1] = max(quarters[k][1], w)
    print(path + ": max |C(q)| and max |C_q v| per quarter of [0, %g] s" % end)
    for k, (p, w) in enumerate(quarters):
        print("  t in [%.2f, %.2f]: |C| %.2e  |C_q v| %.2e" % (k * end / 4, (k + 1) * end / 4, p, w))
