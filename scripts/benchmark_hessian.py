#!/usr/bin/env python3
"""Cost of one exact Hessian-vector product H v (`flexadj hessian --direction`) in forward runs, against the goal
of at most 4 forward runs per product, on models covering the design variable kinds the second-order adjoint takes.

    scripts/benchmark_hessian.py [--flexadj PROGRAM] [--np 1] [--repeats 3] [--models a,b,...] [--scale 1]
                                 [--trajectory memory|hdf5|checkpoints] [--seed 1] [--json FILE] [--markdown]
                                 [--note TEXT]
    scripts/benchmark_hessian.py --table-from FILE.json [--markdown]

Models (generalized-alpha, fixed steps; sizes so that a forward run takes about 1 s on a
2-core development machine):

    rigid_chain   meshes/rigid_chain.yaml, 100 spatial links, 250 steps; the file's component parameters
                  (two masses, an inertia entry, gravity)
    planar_chain  benchmarks/planar_chain.yaml, 100 planar links, generalized-alpha, 2000 steps; masses, an inertia
                  and gravity of links
    crane         meshes/overhead_crane.yaml, h = 1.5e-4 s (20 000 steps); its 602 control values
    oscillator    meshes/oscillator.yaml (on its rail, a prismatic joint), 30 000 steps; the spring stiffness and
                  the initial velocity
    beam          meshes/beam_swing_up.yaml with 30 elements, 600 steps; its 51 control values
    dual_quaternion_beam
                  meshes/beam_swing_up_dual_quaternion.yaml (variational integrator, 5 elements, 3000 steps);
                  its 51 control values

Per model and repeat: `flexadj gradient` (its timing line: forward and adjoint seconds), then `flexadj hessian
--direction v.csv` with v standard normal per design scalar (--seed; names from the gradient's CSV). The hessian
command's timing line gives the forward run alone (recording the trajectory in memory) and the product alone: the
tangent-linear sweep along v plus the backward sweep that repeats the first-order adjoint and differentiates it
along v. product/forward is the ratio of the minima over --repeats of those two times, measured in the same
processes; adjoint/forward likewise from the gradient runs. The models alternate (repeat 1 of every model, then
repeat 2, ...) so that all rows come from the same stretch of a shared machine. The goal is met where
product/forward <= 4.

--scale multiplies the number of steps (e.g. 0.05 for a smoke run of a few seconds). --trajectory: where the
forward (and tangent) states wait for the backward sweeps, for the gradient and the product alike (default memory;
checkpoints: the default number, which recomputes each step at most twice). --np N runs the program under
mpirun -np N. Prints a table (--markdown: the form of README.md) and writes JSON (default
benchmarks/runs/hessian_np<N>.json, or hessian_np<N>_<STORAGE>.json for another storage; stamp it with
scripts/benchmark_tables.py stamp). --table-from prints the table
of an earlier run's JSON. Standard library only.
"""
import argparse
import csv
import datetime
import json
import math
import os
import platform
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import benchmark_tables  # noqa: E402  (the Markdown table, shared with the README)

GOAL = 4.0  # forward runs per product
# scale: which of end_time and step_size --scale changes (the crane's controls fix its horizon).
MODELS = {
    "rigid_chain": {"label": "spatial rigid chain, 100 links", "file": "meshes/rigid_chain.yaml",
                    "design": "component parameters", "end_time": 0.5, "step_size": 2e-3, "scale": "end_time",
                    "sets": ["chain.count=100"]},
    "planar_chain": {"label": "planar rigid chain, 100 links", "file": "benchmarks/planar_chain.yaml",
                     "design": "component parameters", "end_time": 0.2, "step_size": 1e-4, "scale": "end_time",
                     "sets": ["chain.count=100", "integrator.type=generalized_alpha", "integrator.spectral_radius=0.9",
                              "objective=[{type: final_square, coordinate: link100.x}]",
                              "design_variables=[link1.mass, link50.mass, link100.mass, link50.inertia_zz, "
                              "link1.gravity_y]"]},
    "crane": {"label": "overhead crane", "file": "meshes/overhead_crane.yaml", "design": "control values",
              "end_time": 3.0, "step_size": 1.5e-4, "scale": "step_size", "sets": []},
    "oscillator": {"label": "oscillator on its rail", "file": "meshes/oscillator.yaml",
                   "design": "parameter, initial velocity", "end_time": 15 * math.pi, "step_size": math.pi / 2000,
                   "scale": "end_time", "sets": []},
    "beam": {"label": "flexible beam swing-up, 30 elements", "file": "meshes/beam_swing_up.yaml",
             "design": "control values", "end_time": 0.5, "step_size": 0.5 / 600, "scale": "end_time",
             "sets": ["beams[0].elements=30"]},
    "dual_quaternion_beam": {"label": "dual-quaternion beam swing-up, variational, 5 elements",
                             "file": "meshes/beam_swing_up_dual_quaternion.yaml", "design": "control values",
                             "end_time": 0.5, "step_size": 0.5 / 3000, "scale": "end_time", "sets": []},
}
GRADIENT_TIMING = re.compile(r"^timing\s+forward ([0-9.eE+-]+) s, adjoint ([0-9.eE+-]+) s", re.M)
HESSIAN_TIMING = re.compile(r"^timing\s+forward ([0-9.eE+-]+) s, ([0-9.eE+-]+) s per product", re.M)
MODEL_LINE = re.compile(r"(\d+) coordinate\(s\), (\d+) multiplier\(s\)")
STEPS_LINE = re.compile(r"(\d+) steps")


class RunError(Exception):
    pass


STORAGE = []  # the --trajectory option of every run


def overrides(model, scale):
    end, h = model["end_time"], model["step_size"]
    if model["scale"] == "end_time":
        end *= scale
    else:
        h /= scale
    sets = model["sets"] + [f"integrator.end_time={end!r}", f"integrator.step_size={h!r}"]
    return [x for s in sets for x in ("--set", s)]


def run(prefix, args, workdir, timeout):
    p = subprocess.run(prefix + args, capture_output=True, text=True, cwd=workdir, timeout=timeout)
    out = p.stdout + p.stderr
    if p.returncode != 0:
        tail = "\n".join(out.strip().splitlines()[-5:])
        raise RunError(f"exit {p.returncode}: {' '.join(prefix + args)}\n{tail}")
    return out


def gradient_once(prefix, model, scale, workdir, timeout):
    """One `flexadj gradient`: (forward s, adjoint s, n + m, steps); writes gradient.csv."""
    args = ["gradient", os.path.join(ROOT, model["file"]), "-o", "gradient.csv"] + overrides(model, scale) + STORAGE
    out = run(prefix, args, workdir, timeout)
    m, size, steps = GRADIENT_TIMING.search(out), MODEL_LINE.search(out), STEPS_LINE.search(out)
    if not m:
        raise RunError(f"no timing line: {' '.join(prefix + args)}")
    return (float(m.group(1)), float(m.group(2)), int(size.group(1)) + int(size.group(2)) if size else None,
            int(steps.group(1)) if steps else None)


def hessian_once(prefix, model, scale, workdir, timeout):
    """One `flexadj hessian --direction direction.csv`: (forward s, product s, v . H v)."""
    args = (["hessian", os.path.join(ROOT, model["file"]), "--direction", "direction.csv", "-o", "product.csv"]
            + overrides(model, scale) + STORAGE)
    out = run(prefix, args, workdir, timeout)
    m = HESSIAN_TIMING.search(out)
    if not m:
        raise RunError(f"no timing line: {' '.join(prefix + args)}")
    with open(os.path.join(workdir, "direction.csv")) as f:
        v = {name: float(x) for name, x in csv.reader(f)}
    with open(os.path.join(workdir, "product.csv")) as f:
        vhv = sum(v[r["name"]] * float(r["product"]) for r in csv.DictReader(f))
    return float(m.group(1)), float(m.group(2)), vhv


def write_direction(workdir, seed):
    """v standard normal per design scalar, in the order of the gradient's CSV; returns the count."""
    with open(os.path.join(workdir, "gradient.csv")) as f:
        names = [r["name"] for r in csv.DictReader(f)]
    rng = random.Random(seed)
    with open(os.path.join(workdir, "direction.csv"), "w") as f:
        f.writelines(f"{n},{rng.gauss(0.0, 1.0)!r}\n" for n in names)
    return len(names)


def machine_info(program, np):
    git = lambda *a: subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True).stdout.strip()
    dirty = git("status", "--porcelain", "--untracked-files=no") != ""
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(), "cpus": os.cpu_count(), "ranks": np,
            "load_average_start": list(os.getloadavg()),
            "git_commit": git("rev-parse", "--short", "HEAD") + ("+changes" if dirty else ""),
            "program": os.path.abspath(program)}


def measure(prefix, names, repeats, scale, seed, timeout, log):
    rows = {n: {"model": n, "label": MODELS[n]["label"], "file": MODELS[n]["file"], "design": MODELS[n]["design"],
                "overrides": overrides(MODELS[n], scale)[1::2], "gradient_forward_seconds": [],
                "adjoint_seconds": [], "forward_seconds": [], "product_seconds": [], "v_dot_Hv": []}
            for n in names}
    with tempfile.TemporaryDirectory(prefix="flexadj_hessian_bench_") as tmp:
        for rep in range(repeats):
            for n in names:
                r = rows[n]
                if "error" in r:
                    continue
                workdir = os.path.join(tmp, n)
                os.makedirs(workdir, exist_ok=True)
                try:
                    f, a, nm, steps = gradient_once(prefix, MODELS[n], scale, workdir, timeout)
                    if rep == 0:
                        r.update(unknowns=nm, steps=steps, design_scalars=write_direction(workdir, seed))
                    r["gradient_forward_seconds"].append(f)
                    r["adjoint_seconds"].append(a)
                    f, p, vhv = hessian_once(prefix, MODELS[n], scale, workdir, timeout)
                    r["forward_seconds"].append(f)
                    r["product_seconds"].append(p)
                    r["v_dot_Hv"].append(vhv)
                    log(f"{n} repeat {rep + 1}: forward {f:.3f} s, product {p:.3f} s ({p / f:.2f}), "
                        f"adjoint/forward {a / r['gradient_forward_seconds'][-1]:.2f}")
                except (RunError, subprocess.TimeoutExpired) as e:
                    r["error"] = str(e)
                    log(f"{n}: FAILED: {e}")
    out = []
    for n in names:
        r = rows[n]
        if "error" not in r:
            f, p = min(r["forward_seconds"]), min(r["product_seconds"])
            r["product_over_forward"] = p / f
            r["adjoint_over_forward"] = min(r["adjoint_seconds"]) / min(r["gradient_forward_seconds"])
            r["goal_met"] = r["product_over_forward"] <= GOAL
        out.append(r)
    return out


def plain_table(data):
    head = ["model", "design", "scalars", "unknowns", "steps", "forward s", "adj/fwd", "product s", "product/fwd",
            f"<= {data['goal_forward_runs']:g} forward runs"]
    lines = []
    for r in data["runs"]:
        if "error" in r:
            lines.append([r["model"], r["design"], "", "", "", "failed: " + r["error"].splitlines()[-1], "", "", "", ""])
            continue
        lines.append([r["model"], r["design"], str(r["design_scalars"]), str(r["unknowns"]), str(r["steps"]),
                      f"{min(r['forward_seconds']):.3f}", f"{r['adjoint_over_forward']:.2f}",
                      f"{min(r['product_seconds']):.3f}", f"{r['product_over_forward']:.2f}",
                      "met" if r["goal_met"] else "not met"])
    widths = [max(len(h), *(len(l[i]) for l in lines)) if lines else len(h) for i, h in enumerate(head)]
    text = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
            for row in [head] + lines]
    return "\n".join(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flexadj", default=os.environ.get("FLEXADJ", os.path.join(ROOT, "build", "apps", "flexadj")))
    parser.add_argument("--np", type=int, default=1, help="ranks (mpirun -np N when N > 1)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma-separated subset of {', '.join(MODELS)}")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the number of steps of every model")
    parser.add_argument("--trajectory", default="memory", help="memory, hdf5 or checkpoints")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random direction v")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per program run")
    parser.add_argument("--json", help="default benchmarks/runs/hessian_np<N>.json")
    parser.add_argument("--table-from", metavar="FILE.json", help="print the table of an earlier run and stop")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown (the form of README.md)")
    parser.add_argument("--note", help="a remark kept in the JSON (e.g. which build the program copy is)")
    a = parser.parse_args()
    if a.table_from:
        with open(a.table_from) as f:
            data = json.load(f)
        print(benchmark_tables.hessian_table(data) if a.markdown else plain_table(data))
        return 0
    def refuse(message):  # bad input: exit 2, as flexadj's own
        print(f"benchmark_hessian: {message}", file=sys.stderr)
        sys.exit(2)
    if not os.access(a.flexadj, os.X_OK):
        refuse(f"{a.flexadj} is not an executable flexadj (option --flexadj)")
    for option, value, least in (("--np", a.np, 1), ("--repeats", a.repeats, 1)):
        if value < least:
            refuse(f"{option} {value}: at least {least}")
    if not a.scale > 0:
        refuse(f"--scale {a.scale}: a positive factor")
    if a.trajectory not in ("memory", "hdf5", "checkpoints"):
        refuse(f"--trajectory {a.trajectory}: expected memory, hdf5 or checkpoints")
    STORAGE[:] = ["--trajectory", a.trajectory]
    names = [n for n in a.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        refuse(f"unknown model(s) {', '.join(unknown)} (known: {', '.join(MODELS)})")
    prefix = [a.flexadj]
    if a.np > 1:  # as scripts/flexadj does
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        prefix = ["mpirun"] + (["--oversubscribe"] if a.np > (os.cpu_count() or 1) else []) + ["-np", str(a.np),
                                                                                              a.flexadj]
    log = lambda msg: print(msg, file=sys.stderr, flush=True)
    run_info = machine_info(a.flexadj, a.np)
    if a.note:
        run_info["note"] = a.note
    rows = measure(prefix, names, a.repeats, a.scale, a.seed, a.timeout, log)
    run_info["load_average_end"] = list(os.getloadavg())
    run_info["date_end"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    data = {"benchmark": "hessian", "ranks": a.np, "trajectory": a.trajectory, "repeats": a.repeats, "scale": a.scale, "seed": a.seed,
            "goal_forward_runs": GOAL,
            "timed": "flexadj hessian --direction: the forward run alone and the product alone (tangent-linear sweep "
                     "plus the backward sweep with its derivative along v), minima over the repeats; adjoint/forward "
                     "from flexadj gradient's timing line",
            "run": run_info, "runs": rows}
    suffix = "" if a.trajectory == "memory" else "_" + a.trajectory
    path = a.json or os.path.join(ROOT, "benchmarks", "runs", f"hessian_np{a.np}{suffix}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(benchmark_tables.hessian_table(data) if a.markdown else plain_table(data))
    print(f"JSON: {path}", file=sys.stderr)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
