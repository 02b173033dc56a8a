#!/usr/bin/python3
"""Makes the README's pictures (docs/images/*.png) from flexadj's own output.

Runs flexadj on models of meshes/ in a scratch folder, then draws from the HDF5 files it writes:
  crane.png                  the overhead crane after `optimize`: cable and load at snapshots, the load's path
                             against the target path (meshes/overhead_crane.yaml)
  beam_swing_up.png          the very flexible beam swung up by the optimised torque (meshes/beam_swing_up.yaml)
  chain.png                  a rigid chain of 10 links falling from a diagonal (meshes/rigid_chain.yaml)
  optimization_history.png   J / J0 and the projected gradient norm per iteration of both optimisations

usage: scripts/make_gallery.py [--flexadj BINARY] [--np N] [--out DIR] [--work DIR]

Without --flexadj the runs go through scripts/flexadj (the build in build/); with it, through mpirun on that
binary. About a minute on one core. Needs python3-matplotlib and python3-h5py (Debian).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRANE_ITERATIONS = 150
BEAM_ITERATIONS = 30
DPI = 100


def run(prefix, args, work):
    command = prefix + args
    print("+", " ".join(command), flush=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    result = subprocess.run(command + ["-q"], cwd=work, env=env)
    if result.returncode != 0:
        sys.exit(f"make_gallery: '{' '.join(command)}' failed with exit code {result.returncode}")


def names(f, key):
    return [n.decode() if isinstance(n, bytes) else str(n) for n in f[key][:]]


def crane_target(t):
    tau = t / 3.0
    p = 70 * tau**9 - 315 * tau**8 + 540 * tau**7 - 420 * tau**6 + 126 * tau**5
    return 5 * p, -(4 - 3 * p)


def draw_crane(work, out):
    with h5py.File(os.path.join(work, "crane_opt.h5"), "r") as f:
        t = f["time"][:]
        body = names(f, "model/body_names")
        position = f["bodies/position"][:]
    trolley = position[:, body.index("trolley"), :2]
    load = position[:, body.index("load"), :2]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.axhline(0, color="0.3", lw=2)
    tx, ty = crane_target(np.linspace(0, 3, 200))
    ax.plot(tx, ty, "k--", lw=1.2, label="target path of the load")
    ax.plot(load[:, 0], load[:, 1], color="C3", lw=1.8, label=f"load after {CRANE_ITERATIONS} iterations")
    snapshots = [min(np.searchsorted(t, time), len(t) - 1) for time in (0.0, 1.0, 1.4, 1.8, 3.0)]
    for k, i in enumerate(snapshots):
        shade = plt.cm.viridis(k / (len(snapshots) - 1))
        ax.plot([trolley[i, 0], load[i, 0]], [trolley[i, 1], load[i, 1]], color=shade, lw=1)
        ax.plot(trolley[i, 0], trolley[i, 1], "s", color=shade, ms=9)
        ax.plot(load[i, 0], load[i, 1], "o", color=shade, ms=8)
        ax.annotate(f"t = {t[i]:.1f} s", (load[i, 0], load[i, 1]), textcoords="offset points",
                    xytext=(9, -3), ha="left", fontsize=8)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_xlim(-0.4, 5.9)
    ax.set_ylim(-4.4, 0.4)
    ax.set_title("Overhead crane: the load carried along a target path", fontsize=11)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "crane.png"), dpi=DPI)
    plt.close(fig)


def draw_beam(work, out):
    with h5py.File(os.path.join(work, "beam_opt.h5"), "r") as f:
        t = f["time"][:]
        body = names(f, "model/body_names")
        position = f["bodies/position"][:]
    nodes = [i for i, n in enumerate(body) if n.startswith("beam.node")]
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    frames = np.linspace(0, len(t) - 1, 11).astype(int)
    for k, i in enumerate(frames):
        xy = position[i][nodes, :2]
        ax.plot(xy[:, 0], xy[:, 1], "-o", color=plt.cm.plasma(k / 11), ms=3, lw=1.6,
                label=f"t = {t[i]:.2f} s" if k in (0, len(frames) // 2, len(frames) - 1) else None)
    ax.plot(0, 0, "k^", ms=10)
    ax.plot([0], [1], "kx", ms=10, label="target of the tip")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("Flexible beam swung up by an optimised torque", fontsize=11)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "beam_swing_up.png"), dpi=DPI)
    plt.close(fig)


def draw_chain(work, out):
    with h5py.File(os.path.join(work, "chain.h5"), "r") as f:
        t = f["time"][:]
        centre = f["bodies/position"][:]
        axis = f["bodies/axis_x"][:]
    half = 0.25  # links of length 0.5 along their x axis (meshes/rigid_chain.yaml)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    frames = np.linspace(0, len(t) - 1, 9).astype(int)
    for k, i in enumerate(frames):
        ends = np.vstack([centre[i, 0] - half * axis[i, 0], centre[i] + half * axis[i]])
        ax.plot(ends[:, 0], ends[:, 2], "-o", color=plt.cm.viridis(k / 9), ms=2.5, lw=1.5,
                label=f"t = {t[i]:.2f} s" if k in (0, len(frames) - 1) else None)
    tip = centre[:, -1] + half * axis[:, -1]
    ax.plot(tip[:, 0], tip[:, 2], ":", color="0.4", lw=1, label="path of the free end")
    ax.plot(0, 0, "k^", ms=10)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_xlim(-3.2, 4.2)
    ax.set_title("Rigid chain of 10 links under gravity (spherical joints)", fontsize=11)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "chain.png"), dpi=DPI)
    plt.close(fig)


def draw_history(work, out):
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for ax, (prefix, title) in zip(axes, [("crane_opt", "overhead crane (trust region, bounds)"),
                                          ("beam_opt", "beam swing-up (Barzilai-Borwein)")]):
        with h5py.File(os.path.join(work, prefix + "_history.h5"), "r") as f:
            iteration = f["history/iteration"][:]
            objective = f["history/objective"][:]
            gradient = f["history/gradient_norm"][:]
        ax.semilogy(iteration, objective / objective[0], label="J / J0")
        ax.semilogy(iteration, gradient / gradient[0], label="|grad| / |grad0|")
        ax.set_xlabel("iteration")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("flexadj optimize: objective and projected gradient norm per iteration", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "optimization_history.png"), dpi=DPI)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flexadj", help="a flexadj binary, run with mpirun (default: scripts/flexadj)")
    parser.add_argument("--np", type=int, default=1, help="MPI ranks of each run (default 1)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "images"))
    parser.add_argument("--work", help="folder for the runs' files (default: a temporary folder, removed)")
    args = parser.parse_args()
    if args.flexadj:
        prefix = ["mpirun", "-np", str(args.np), os.path.abspath(args.flexadj)]
    else:
        prefix = [os.path.join(ROOT, "scripts", "flexadj"), "-np", str(args.np)]
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    meshes = os.path.join(ROOT, "meshes")
    with tempfile.TemporaryDirectory() as scratch:
        work = os.path.abspath(args.work) if args.work else scratch
        os.makedirs(work, exist_ok=True)
        run(prefix, ["optimize", os.path.join(meshes, "overhead_crane.yaml"), "-o", "crane_opt",
                     "--max-iterations", str(CRANE_ITERATIONS)], work)
        run(prefix, ["optimize", os.path.join(meshes, "beam_swing_up.yaml"), "-o", "beam_opt",
                     "--max-iterations", str(BEAM_ITERATIONS)], work)
        run(prefix, ["simulate", os.path.join(meshes, "rigid_chain.yaml"), "--set", "integrator.end_time=1.2",
                     "-o", "chain.h5", "--no-xdmf"], work)
        draw_crane(work, out)
        draw_beam(work, out)
        draw_chain(work, out)
        draw_history(work, out)
    for name in ("crane", "beam_swing_up", "chain", "optimization_history"):
        path = os.path.join(out, name + ".png")
        print(f"{path}  {os.path.getsize(path) / 1024:.0f} kB")


if __name__ == "__main__":
    main()
