#!/usr/bin/env python3
"""Writes the spring-chain peer model (benchmarks/peers/README.md) as a flexadj YAML file.

A planar chain of N point masses joined by linear spring-dampers, the first mass tied to a ground anchor at the
origin by a spring-damper (spring 1), mass i to mass i-1 by spring i (i = 2..N). Gravity in -y. The masses start
at rest near the horizontal line y = 0 at spacing L0 = the free length, each displaced by a small deterministic
perturbation, so that the springs start slightly stretched or compressed and the chain falls and swings under
gravity. 1000 steps of 1e-3 s, trapezoidal rule (generalized-alpha with rho_inf = 1). J = y of mass N at the
final time; design variables: the N stiffnesses.

The same numbers come from spring_chain_petsc.c (chain_setup): keep the two in step.
"""
import argparse
import math
import sys


def parameters(n):
    """Masses, initial positions and spring data shared with spring_chain_petsc.c."""
    L0, mass, damping = 0.1, 1.0, 1.0
    positions = []
    for i in range(1, n + 1):
        positions.append((i * L0 + 0.01 * L0 * math.sin(1.3 * i), 0.01 * L0 * math.cos(2.1 * i)))
    stiffness = [1000.0 * (1.0 + 0.1 * math.sin(0.7 * i)) for i in range(1, n + 1)]
    return L0, mass, damping, positions, stiffness


def write_model(n, steps, h, out):
    L0, mass, damping, positions, stiffness = parameters(n)
    w = out.write
    w(f"# Spring-chain peer model (benchmarks/peers/spring_chain_model.py --count {n}); the same equations as\n")
    w("# benchmarks/peers/spring_chain_petsc.c. Generated: do not edit.\n")
    w(f"title: spring chain peer model, {n} point masses\n")
    w("dimension: 2\n")
    w("gravity: [0, -9.81]\n")
    w("integrator:\n")
    w("  type: generalized_alpha\n")
    w("  spectral_radius: 1\n")
    w(f"  end_time: {steps * h!r}\n")
    w(f"  step_size: {h!r}\n")
    w("  linear_solver: direct\n")
    w("bodies:\n")
    for i, (x, y) in enumerate(positions, start=1):
        w(f"  - {{name: m{i}, type: point_mass, mass: {mass!r}, position: [{x!r}, {y!r}]}}\n")
    w("forces:\n")
    x1, y1 = positions[0]
    w(f"  - {{name: s1, type: spring_damper, bodies: [ground, m1], points: [[0, 0], [{x1!r}, {y1!r}]], "
      f"stiffness: {stiffness[0]!r}, damping: {damping!r}, free_length: {L0!r}}}\n")
    for i in range(2, n + 1):
        w(f"  - {{name: s{i}, type: spring_damper, bodies: [m{i - 1}, m{i}], stiffness: {stiffness[i - 1]!r}, "
          f"damping: {damping!r}, free_length: {L0!r}}}\n")
    w("objective:\n")
    w(f"  - {{type: final_value, coordinate: m{n}.y}}\n")
    w("design_variables:\n")
    for i in range(1, n + 1):
        w(f"  - s{i}.stiffness\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, required=True, help="number of point masses N (>= 1)")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--step-size", type=float, default=1e-3)
    ap.add_argument("-o", "--output", default="-", help="YAML file (default: standard output)")
    a = ap.parse_args()
    if a.count < 1 or a.steps < 1 or a.step_size <= 0:
        ap.error("count and steps must be >= 1, step size > 0")
    if a.output == "-":
        write_model(a.count, a.steps, a.step_size, sys.stdout)
    else:
        with open(a.output, "w") as f:
            write_model(a.count, a.steps, a.step_size, f)


if __name__ == "__main__":
    main()
