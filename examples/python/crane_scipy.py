#!/usr/bin/env python3
"""Optimal control of the overhead crane (meshes/overhead_crane.yaml: Nachbagauer et al. 2015, sec. 5.1) with
scipy's L-BFGS-B on flexadj's adjoint gradient, within the model's bounds on the controls; plots the cart force F(t)
and the drum torque M(t) before and after, and J over the iterations (crane_scipy.png).

The optimiser works on the controls scaled by the square roots of their trapezoidal weights on the time grid, so that
its Euclidean inner product is the L2 product of the control functions (the metric `flexadj optimize` uses). On the
raw values the gradient is the grid step times smaller than the functions' and L-BFGS-B's steps drive the crane to
controls whose forward run fails.

    scripts/python examples/python/crane_scipy.py [--iterations N] [--output FILE.png]
    scripts/python -np 2 examples/python/crane_scipy.py      (every rank iterates; rank 0 prints and plots)
"""
import argparse
import pathlib
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.optimize import minimize  # noqa: E402

import flexadj  # noqa: E402

MODEL = pathlib.Path(__file__).resolve().parents[2] / "meshes" / "overhead_crane.yaml"


def trapezoidal_weights(problem):
    """One weight per design scalar: the trapezoidal weight of each control value on its time grid."""
    weights = np.ones(len(problem.design_names))
    for control in ("F", "M"):
        columns = [i for i, name in enumerate(problem.design_names) if name.startswith(f"control:{control}[")]
        steps = np.diff(problem.control_times(control))
        weights[columns] = np.concatenate(([0.0], steps / 2)) + np.concatenate((steps / 2, [0.0]))
    return weights


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=1000, help="L-BFGS-B iterations at most (default 1000)")
    parser.add_argument("--output", default="crane_scipy.png", help="the plot (default crane_scipy.png)")
    args = parser.parse_args()
    root = flexadj.rank() == 0

    problem = flexadj.Problem(str(MODEL))
    x0 = problem.design_values()
    lower, upper = problem.bounds()
    scale = np.sqrt(trapezoidal_weights(problem))
    history = []

    def objective_and_gradient(y):  # y = scale * x
        J, g = problem.gradient(y / scale)
        history.append(J)
        return J, g / scale

    start = time.perf_counter()
    result = minimize(objective_and_gradient, x0 * scale, jac=True, method="L-BFGS-B",
                      bounds=list(zip(lower * scale, upper * scale)),
                      options={"maxiter": args.iterations, "ftol": 0.0, "gtol": 1e-12})
    seconds = time.perf_counter() - start
    x = result.x / scale
    J0 = history[0]
    if not root:
        return
    print(f"J before {J0:.6g}, after {result.fun:.6g} (J/J0 = {result.fun / J0:.3g}); {result.nit} iterations, "
          f"{result.nfev} gradient evaluations, {seconds:.1f} s on {flexadj.size()} rank(s); {result.message}")

    names = problem.design_names
    figure, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for axis, control, unit in zip(axes, ["F", "M"], ["N", "N m"]):
        columns = [i for i, name in enumerate(names) if name.startswith(f"control:{control}[")]
        t = problem.control_times(control)
        axis.plot(t, x0[columns], "--", color="grey", label="initial guess")
        axis.plot(t, x[columns], color="C0", label=f"L-BFGS-B, {result.nit} iterations")
        axis.set(xlabel="t [s]", ylabel=f"{control} [{unit}]", title=f"control {control}")
        axis.legend()
    axes[2].semilogy(np.arange(len(history)), history)
    axes[2].set(xlabel="evaluation", ylabel="J [m$^2$ s]", title="objective")
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    print(f"plot: {args.output}")


if __name__ == "__main__":
    main()
