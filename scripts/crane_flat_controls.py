#!/usr/bin/python3
"""Exact zero-cost controls of the overhead crane of Nachbagauer et al. 2015, sec. 5.1, by inverse dynamics.

The crane is flat: the load path r(t) = (x(t), y(t)) fixes everything. The load obeys m r'' = T e - m g e_y,
so the cable force is T e = m (x'', y'' + g) (e: unit vector from the load to the trolley). The trolley sits
on the rail (y = 0), which fixes the cable length L = -y / e_y and the trolley position x_c = x + L e_x; the
drum angle is theta = (L - L0)/r. Then
    F = m_c x_c'' + T e_x          (trolley along the rail)
    M = T r - J_d theta''          (drum; the model applies -M to the drum, so M = m g r holds the load)
Data as in meshes/overhead_crane.yaml. Writes the controls on the model's grid as a design-values file
(read back with --set optimization.start_from=FILE) and prints their ranges.

usage: crane_flat_controls.py OUT.yaml [--count 301]
"""
import argparse

import numpy as np

M_LOAD, M_CART, J_DRUM, RADIUS, G, L0, T_END = 100.0, 10.0, 0.1, 0.1, 9.81, 4.0, 3.0
P = np.polynomial.Polynomial([0, 0, 0, 0, 0, 126, -420, 540, -315, 70])  # P(tau), tau = t/3


def load_path(t, order):
    """d^order/dt^order of the target path (x, y) of the load."""
    tau = t / T_END
    d = P.deriv(order) if order else P
    scale = T_END ** -order
    x = 5.0 * d(tau) * scale
    y = (-(4.0 - 3.0 * d(tau)) if order == 0 else 3.0 * d(tau)) * scale
    return x, y


def trolley_and_drum(t):
    x, y = load_path(t, 0)
    ax, ay = load_path(t, 2)
    tension_vector = M_LOAD * np.array([ax, ay + G])
    tension = np.hypot(*tension_vector)
    ex, ey = tension_vector / tension
    length = -y / ey
    return x + length * ex, (length - L0) / RADIUS, tension, ex


def second_derivative(f, t, h=1e-3):
    # Richardson-extrapolated central differences (error O(h^4)).
    d = lambda s: (f(t + s) - 2.0 * f(t) + f(t - s)) / (s * s)
    return (4.0 * d(h / 2) - d(h)) / 3.0


def controls(t):
    xc = lambda s: trolley_and_drum(s)[0]
    theta = lambda s: trolley_and_drum(s)[1]
    _, _, tension, ex = trolley_and_drum(t)
    force = M_CART * second_derivative(xc, t) + tension * ex
    torque = tension * RADIUS - J_DRUM * second_derivative(theta, t)
    return force, torque


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--count", type=int, default=301)
    args = parser.parse_args()
    t = np.linspace(0.0, T_END, args.count)
    force, torque = controls(t)
    with open(args.output, "w") as out:
        out.write("# Exact (flat) controls of the overhead crane by inverse dynamics (scripts/crane_flat_controls.py)\n")
        out.write("design_values:\n")
        out.write('  "control:F": [' + ", ".join("%.17g" % v for v in force) + "]\n")
        out.write('  "control:M": [' + ", ".join("%.17g" % v for v in torque) + "]\n")
    print("F in [%.3f, %.3f] N, M in [%.3f, %.3f] N m" % (force.min(), force.max(), torque.min(), torque.max()))


if __name__ == "__main__":
    main()
