#!/usr/bin/python3
"""Draws the result of `flexadj optimize` from PREFIX_history.h5 as PNG files:
PREFIX_history.png (J and the projected gradient norm per iteration) and, if the design has control
signals, PREFIX_controls.png (each control over time; optionally a reference, e.g. the exact crane controls
of scripts/crane_flat_controls.py, and the initial values from a second history file or design file).

usage: plot_optimization.py PREFIX [--reference DESIGN.yaml] [--title TEXT]
"""
import argparse

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_design_values(path):
    values = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('"'):
                name, text = line.split('": ', 1)
                values[name.strip('"')] = [float(v) for v in text.strip("[]").split(",")]
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("prefix")
    parser.add_argument("--reference", help="design-values file drawn as a dashed line (e.g. exact controls)")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    with h5py.File(args.prefix + "_history.h5", "r") as f:
        iteration = f["history/iteration"][:]
        objective = f["history/objective"][:]
        gradient = f["history/gradient_norm"][:]
        method = f.attrs.get("method", b"")
        method = method.decode() if isinstance(method, bytes) else str(method)
        controls = {}
        if "controls" in f:
            for name in f["controls"]:
                controls[name] = (f["controls"][name]["times"][:], f["controls"][name]["values"][:])

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.semilogy(iteration, objective / objective[0], label="J / J0")
    ax.semilogy(iteration, gradient / gradient[0], label="|grad| / |grad0| (projected)")
    ax.set_xlabel("iteration")
    ax.set_title((args.title + "  " if args.title else "") + "(" + method + ")")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.prefix + "_history.png", dpi=120)
    print(args.prefix + "_history.png")

    if not controls:
        return
    reference = read_design_values(args.reference) if args.reference else {}
    fig, axes = plt.subplots(len(controls), 1, figsize=(7, 2.8 * len(controls)), sharex=True, squeeze=False)
    for ax, (name, (t, u)) in zip(axes[:, 0], sorted(controls.items())):
        ax.plot(t, u, label="optimised")
        if "control:" + name in reference:
            ax.plot(t, reference["control:" + name], "--", label="reference")
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
        ax.legend()
    axes[-1, 0].set_xlabel("t [s]")
    if args.title:
        axes[0, 0].set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.prefix + "_controls.png", dpi=120)
    print(args.prefix + "_controls.png")


if __name__ == "__main__":
    main()
