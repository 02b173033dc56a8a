#!/usr/bin/python3
"""Independent reference measurements of the inertia identification (Nachbagauer et al. 2015, sec. 5.2;
meshes/hanging_rigid_body.yaml): the velocity of the centre of mass C of the hanging body, integrated here in
minimal coordinates without flexadj.

The point S of the body follows s(t) e_k (k = x, y, z on [0, 1), [1, 2), [2, 3]); d = C - S in body axes. With
the body-axis angular velocity w and the rotation R (unit quaternion e), Newton-Euler about the moving point S:
    I_S w' + w x I_C w + m d x (w x (w x d)) = m d x R^T (g - a_S),   I_S = I_C + m (|d|^2 E - d d^T)
    e' = 1/2 e * (0, w),   v_C = s'(t) e_k + R (w x d).
Classical Runge-Kutta (order 4), restarted at t = 1 and 2 where a_S jumps. Default step 5e-4 s: it differs from
steps 2.5e-4 and 1.25e-4 by at most 1.2e-13 m/s (measured; max |v_C| = 0.30 m/s). flexadj's generalized-alpha
differs from it by 2.1e-5, 4.2e-5, 8.8e-5 m/s (max) at h = 1e-3, 2e-3, 4e-3 s (measured).
Writes a CSV t,vx,vy,vz every --every seconds (default 1e-3 s), the format of identification_measurements.py.

usage: identification_reference.py OUT.csv [--step 5e-4] [--every 1e-3]
"""
import argparse
import math

import numpy as np

# meshes/hanging_rigid_body.yaml (Table 1 "correct"; gravity RECON).
MASS = 692.747
IXX, IYY, IZZ, IXY, IXZ, IYZ = 132.285, 162.054, 92.809, 22.382, -42.342, 2.689
I_C = np.array([[IXX, IXY, IXZ], [IXY, IYY, IYZ], [IXZ, IYZ, IZZ]])  # tensor entries (Ixy = -int x y dm)
D = np.array([0.0, 0.0, -0.916])  # C - S in body axes (identity orientation at t = 0)
GRAVITY = np.array([0.0, 0.0, -9.81])
I_S = I_C + MASS * (D @ D * np.eye(3) - np.outer(D, D))
I_S_INV = np.linalg.inv(I_S)


def s(t, derivative):
    """0.05 (1 + sin(2 pi (t - 1/4))) and its derivatives."""
    phase = 2.0 * math.pi * (t - 0.25)
    w = 2.0 * math.pi
    return [0.05 * (1.0 + math.sin(phase)), 0.05 * w * math.cos(phase), -0.05 * w * w * math.sin(phase)][derivative]


def rotation(e):
    e0, e1, e2, e3 = e / np.linalg.norm(e)
    return np.array([[1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                     [2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e0 * e1)],
                     [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1 * e1 + e2 * e2)]])


def rate(t, axis, state):
    e, w = state[:4], state[4:]
    a_s = np.zeros(3)
    a_s[axis] = s(t, 2)
    torque = MASS * np.cross(D, rotation(e).T @ (GRAVITY - a_s))
    dw = I_S_INV @ (torque - np.cross(w, I_C @ w) - MASS * np.cross(D, np.cross(w, np.cross(w, D))))
    e0, e1, e2, e3 = e
    de = 0.5 * np.array([-e1 * w[0] - e2 * w[1] - e3 * w[2],
                         e0 * w[0] + e2 * w[2] - e3 * w[1],
                         e0 * w[1] + e3 * w[0] - e1 * w[2],
                         e0 * w[2] + e1 * w[1] - e2 * w[0]])
    return np.concatenate([de, dw])


def velocity_of_c(t, axis, state):
    v = rotation(state[:4]) @ np.cross(state[4:], D)
    v[axis] += s(t, 1)
    return v


def integrate(step, every, end=3.0):
    """Rows (t, v_C) every `every` seconds."""
    per_output = int(round(every / step))
    per_segment = int(round(1.0 / step))
    assert abs(per_output * step - every) < 1e-14 and abs(per_segment * step - 1.0) < 1e-12
    state = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    rows = [(0.0, velocity_of_c(0.0, 0, state))]
    for axis in range(int(round(end))):
        for n in range(per_segment):
            t = axis + n * step
            k1 = rate(t, axis, state)
            k2 = rate(t + step / 2, axis, state + step / 2 * k1)
            k3 = rate(t + step / 2, axis, state + step / 2 * k2)
            k4 = rate(t + step, axis, state + step * k3)
            state = state + step / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            if (n + 1) % per_output == 0:
                t_end = axis + (n + 1) * step
                rows.append((t_end, velocity_of_c(t_end, axis, state)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--step", type=float, default=5e-4)
    parser.add_argument("--every", type=float, default=1e-3)
    args = parser.parse_args()
    rows = integrate(args.step, args.every)
    with open(args.output, "w") as out:
        out.write("t,vx,vy,vz\n")
        for t, v in rows:
            out.write("%.17g,%.17g,%.17g,%.17g\n" % (t, v[0], v[1], v[2]))


if __name__ == "__main__":
    main()
