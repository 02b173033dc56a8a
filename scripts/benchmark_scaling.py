#!/usr/bin/env python3
"""Scaling benchmark: the rigid chain and a geometrically exact beam, forward run and gradient, at several rank counts,
with the direct solver (KLU on one rank, MUMPS with the distributed input on several), the gathered KLU and the
iterative one (GMRES preconditioned by the interface Schur complement; `schwarz`: by overlapping Schwarz).

Per run it records what does not depend on how many cores the machine has, so that rank counts past the cores
(mpirun --oversubscribe) still say something: every rank's peak resident memory (GNU time's %M), the bytes each
rank sends (Open MPI's pml monitoring: point-to-point messages, collectives counted as the messages they are made
of), Newton and GMRES iterations; and the wall times that flexadj reports (meaningful only up to the core count).

  scripts/benchmark_scaling.py [--ranks 1,2,4,8,16] [--chain-links 18182] [--beam-elements 10000] [--steps 5]
                               [--json benchmarks/runs/scaling.json] [--only chain|beam]
                               [--solvers direct,klu_gathered,iterative,schwarz]
                               [--gradient-solvers direct,iterative]

FLEXADJ=PATH measures another build of the program. Prints a table and writes JSON. 18182 links are 2 x 10^5 unknowns (coordinates and multipliers).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FLEXADJ = os.environ.get("FLEXADJ", os.path.join(ROOT, "build", "apps", "flexadj"))  # the program measured


def cases(args):
    chain = [os.path.join(ROOT, "meshes", "rigid_chain.yaml"), "--set", f"chain.count={args.chain_links}",
             "--set", f"integrator.end_time={args.steps * 2e-3}"]
    # The beam: the swing-up model with many elements and a few steps of 1e-5 s (at 10^4 elements of 0.1 mm,
    # Newton does not converge in a step of 1e-4 s).
    beam = [os.path.join(ROOT, "meshes", "beam_swing_up.yaml"), "--set", f"beams[0].elements={args.beam_elements}",
            "--set", "integrator.step_size=1e-5", "--set", f"integrator.end_time={args.steps * 1e-5}"]
    out = []
    if args.only in (None, "chain"):
        out.append(("rigid chain", chain))
    if args.only in (None, "beam"):
        out.append(("beam", beam))
    return out


def run(np, command, model_args, solver, work):
    """One mpirun; returns the parsed record."""
    prof = os.path.join(work, "prof")
    for f in os.listdir(work):
        os.remove(os.path.join(work, f))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    mpirun = ["mpirun", "-np", str(np), "--oversubscribe", "--mca", "pml_monitoring_enable", "1",
              "--mca", "pml_monitoring_enable_output", "3", "--mca", "pml_monitoring_filename", prof]
    if solver == "schwarz":
        settings = ["--set", "integrator.linear_solver=iterative", "--set", "integrator.preconditioner=schwarz"]
    else:
        settings = ["--set", f"integrator.linear_solver={solver}"]
    flexadj = [FLEXADJ, command] + model_args + settings
    if command == "simulate":
        flexadj += ["--no-output", "--summary", os.path.join(work, "summary.json")]
    else:
        flexadj += ["-o", os.path.join(work, "gradient.csv")]
    # GNU time around each rank: its peak RSS, tagged with its rank.
    wrapped = ["sh", "-c", '/usr/bin/time -f "rank $OMPI_COMM_WORLD_RANK peak_rss_kib %M" "$@"', "sh"] + flexadj
    start = time.monotonic()
    p = subprocess.run(mpirun + wrapped, capture_output=True, text=True, env=env)
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        raise SystemExit(f"benchmark_scaling: np {np} {command} {solver} failed (exit {p.returncode})")
    text = p.stdout + p.stderr
    rss = {}
    for rank, kib in re.findall(r"rank (\d+) peak_rss_kib (\d+)", text):
        rss[int(rank)] = int(kib) / 1024.0
    record = {"ranks": np, "command": command, "solver": solver, "mpirun_seconds": wall,
              "peak_rss_mib": [rss[r] for r in sorted(rss)]}
    record["bytes_sent"] = sent_bytes(work, np)
    if command == "simulate":
        with open(os.path.join(work, "summary.json")) as f:
            summary = json.load(f)
        record["steps"] = summary["steps"]
        record["seconds"] = summary["wall_seconds"]
        record["newton_iterations"] = summary["newton_iterations"]
        record["linear_solver"] = summary["linear_solver"]
        for share in ("assembly", "factorization", "solve"):
            record[f"{share}_seconds_per_rank"] = summary[f"{share}_seconds_per_rank"]
        if "krylov_iterations_mean" in summary:
            record["gmres_per_solve_mean"] = summary["krylov_iterations_mean"]
            record["gmres_per_solve_max"] = summary["krylov_iterations_max"]
    else:
        m = re.search(r"timing\s+forward ([0-9.]+) s, adjoint ([0-9.]+) s", text)
        record["forward_seconds"], record["adjoint_seconds"] = float(m.group(1)), float(m.group(2))
        record["seconds"] = record["forward_seconds"] + record["adjoint_seconds"]
    return record


def sent_bytes(work, np):
    """Bytes each rank sent (point-to-point, and collectives as their messages), from Open MPI's monitoring files."""
    sent = [0] * np
    for name in os.listdir(work):
        if not name.startswith("prof"):
            continue
        with open(os.path.join(work, name)) as f:
            for line in f:
                # "E\t<from>\t<to>\t<bytes> bytes\t<count> msgs sent" (and C for collectives' internal messages)
                fields = line.split("\t")
                if (len(fields) >= 4 and fields[0] in ("E", "C") and fields[1] != fields[2]
                        and fields[3].endswith("bytes")):
                    sent[int(fields[1])] += int(fields[3].split()[0])
    return sent


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", default="1,2,4,8,16")
    parser.add_argument("--chain-links", type=int, default=18182)
    parser.add_argument("--beam-elements", type=int, default=10000)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--only", choices=["chain", "beam"])
    parser.add_argument("--solvers", default="direct,klu_gathered,iterative,schwarz",
                        help="forward runs' linear solvers")
    parser.add_argument("--gradient-solvers", default="direct,iterative", help="gradients' linear solvers")
    parser.add_argument("--json", default=os.path.join(ROOT, "benchmarks", "runs", "scaling.json"))
    args = parser.parse_args()
    if not os.access(FLEXADJ, os.X_OK):
        raise SystemExit("benchmark_scaling: build flexadj first (scripts/setup.sh)")
    if not shutil.which("mpirun") or not os.access("/usr/bin/time", os.X_OK):
        raise SystemExit("benchmark_scaling: needs mpirun and GNU time (/usr/bin/time)")
    ranks = [int(r) for r in args.ranks.split(",")]
    records = []
    work = tempfile.mkdtemp(prefix="flexadj_scaling_")
    header = (f"{'case':12} {'run':9} {'solver':10} {'np':>3} {'seconds':>8} {'rank0 MiB':>9} {'median MiB':>10} "
              f"{'r0/med':>6} {'MB sent/step/rank':>17} {'GMRES/solve':>11}")
    print(header)
    try:
        for label, model_args in cases(args):
            for command, solvers in (("simulate", args.solvers.split(",")),
                                     ("gradient", [s for s in args.gradient_solvers.split(",") if s])):
                for solver in solvers:
                    for np in ranks:
                        r = run(np, command, model_args, solver, work)
                        r["case"] = label
                        r["steps_requested"] = args.steps
                        records.append(r)
                        median = statistics.median(r["peak_rss_mib"])
                        per_step = statistics.mean(r["bytes_sent"]) / args.steps / 1e6
                        gmres = (f"{r['gmres_per_solve_mean']:.1f}/{r['gmres_per_solve_max']}"
                                 if "gmres_per_solve_mean" in r else "")
                        print(f"{label:12} {command:9} {solver:10} {np:3d} {r['seconds']:8.2f} "
                              f"{r['peak_rss_mib'][0]:9.0f} {median:10.0f} {r['peak_rss_mib'][0] / median:6.2f} "
                              f"{per_step:17.3f} {gmres:>11}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"benchmark": "scaling", "cores": os.cpu_count(), "records": records}, f, indent=1)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
