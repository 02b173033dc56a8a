#!/usr/bin/env python3
"""PETSc side by side: flexadj's gradient of the spring chain against PETSc's TSAdjoint.

Run through scripts/benchmark_peers.sh, which builds the PETSc program first. For each N of --counts:
writes the flexadj model (spring_chain_model.py), runs `flexadj simulate` once for its Newton iterations per
step, then --repeats times `flexadj gradient` and `spring_chain_petsc` one after the other (one rank each), and
compares the two gradients. For N <= --reference-max-count it also runs PETSc with a 10x finer step as the
reference of the time discretisation. Before that, at N = --verify-count, central finite differences of each
code's own J and the same fine-step reference for both codes. Prints a table and writes --json.

All figures are measured in this run: nothing is stored in this script.
"""
import argparse
import csv
import datetime
import hashlib
import json
import math
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import spring_chain_model  # noqa: E402


def run(cmd, log):
    """Runs cmd, returns (stdout, wall seconds); the output goes to log as well. Fails loudly."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n" + p.stdout + f"(exit {p.returncode}, {wall:.3f} s)\n\n")
    if p.returncode != 0:
        sys.exit(f"benchmark_peers: command failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}")
    return p.stdout, wall


def binary_identity(path):
    """sha256 and modification time of a program file: a rebuild during the benchmark would mix versions."""
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    mtime = datetime.datetime.fromtimestamp(os.stat(path).st_mtime).astimezone().isoformat(timespec="seconds")
    return {"path": os.path.abspath(path), "sha256": digest, "modified": mtime}


def grab(pattern, text, what):
    m = re.search(pattern, text, re.M)
    if not m:
        sys.exit(f"benchmark_peers: no {what} in the output:\n{text[-2000:]}")
    return m


def read_gradient(path):
    """(values, gradient) of a name,value,gradient CSV (flexadj gradient -o, spring_chain_petsc -o)."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [float(r["value"]) for r in rows], [float(r["gradient"]) for r in rows]


def rel_diff(a, b):
    """|a - b|_2 / |b|_2 and max_i |a_i - b_i| / max_i |b_i|."""
    if len(a) != len(b):
        sys.exit("benchmark_peers: gradients of different lengths")
    d2 = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
    n2 = math.sqrt(sum(y * y for y in b))
    dm = max(abs(x - y) for x, y in zip(a, b))
    nm = max(abs(y) for y in b)
    return d2 / n2, dm / nm


class Runner:
    def __init__(self, a):
        self.a = a
        self.log = os.path.join(a.workdir, "runs.log")

    def model(self, n):
        path = os.path.join(self.a.workdir, f"spring_chain_{n}.yaml")
        with open(path, "w") as f:
            spring_chain_model.write_model(n, self.a.steps, self.a.step_size, f)
        return path

    def flexadj_gradient(self, model, csv_path, sets=()):
        cmd = [self.a.flexadj, "gradient", model, "-o", csv_path]
        for s in sets:
            cmd += ["--set", s]
        out, wall = run(cmd, self.log)
        J = float(grab(r"^J = (\S+)", out, "J").group(1))
        m = grab(r"timing\s+forward ([0-9.eE+-]+) s, adjoint ([0-9.eE+-]+) s", out, "timing line")
        return {"J": J, "forward_s": float(m.group(1)), "adjoint_s": float(m.group(2)), "process_s": wall}

    def flexadj_objective(self, model, sets):
        cmd = [self.a.flexadj, "gradient", model]
        for s in sets:
            cmd += ["--set", s]
        out, _ = run(cmd, self.log)
        return float(grab(r"^J = (\S+)", out, "J").group(1))

    def flexadj_newton(self, model, n):
        h5 = os.path.join(self.a.workdir, f"simulate_{n}.h5")
        out, _ = run([self.a.flexadj, "simulate", model, "--set", f"output.path={h5}",
                      "--set", f"output.every={self.a.steps}", "--set", "output.xdmf=false"], self.log)
        os.remove(h5)
        m = grab(r"Newton iterations (\d+) \(([0-9.]+) per step, at most (\d+)\)", out, "Newton summary")
        return int(m.group(1)) / self.a.steps, int(m.group(3))

    def petsc(self, n, csv_path, steps=None, dt=None, extra=()):
        steps = steps or self.a.steps
        dt = dt or self.a.step_size
        cmd = [self.a.petsc, "-n", str(n), "-steps", str(steps), "-dt", repr(dt), "-o", csv_path] + list(extra)
        out, wall = run(cmd, self.log)
        r = {"J": float(grab(r"^J = (\S+)", out, "J").group(1)), "process_s": wall}
        m = grab(r"timing\s+forward ([0-9.eE+-]+) s, adjoint ([0-9.eE+-]+) s", out, "timing line")
        r["forward_s"], r["adjoint_s"] = float(m.group(1)), float(m.group(2))
        r["newton_per_step"] = float(grab(r"newton\s+\d+ iterations, ([0-9.]+) per step", out, "Newton").group(1))
        r["fd"] = [{"spring": int(f.group(1)), "adjoint": float(f.group(2)), "fd": float(f.group(3)),
                    "rel_diff": float(f.group(4))}
                   for f in re.finditer(r"^fd\s+s(\d+)\.stiffness\s+adjoint (\S+)\s+central FD (\S+)\s+rel diff (\S+)",
                                        out, re.M)]
        return r


def verify(rn, n):
    """Finite differences of each code's own J, the cross-code difference and the 10x finer reference, at N = n."""
    a = rn.a
    wd = a.workdir
    model = rn.model(n)
    springs = sorted({1, max(1, n // 2), n})
    rel = a.fd_rel
    print(f"verification at N = {n}: central differences (relative step {rel:g}) for springs {springs}", flush=True)
    f_csv, p_csv = os.path.join(wd, f"verify_flexadj_{n}.csv"), os.path.join(wd, f"verify_petsc_{n}.csv")
    rn.flexadj_gradient(model, f_csv)
    k, gf = read_gradient(f_csv)
    fd_flexadj = []
    for s in springs:
        ks = k[s - 1]
        Jp = rn.flexadj_objective(model, [f"forces[{s - 1}].stiffness={ks * (1 + rel)!r}"])
        Jm = rn.flexadj_objective(model, [f"forces[{s - 1}].stiffness={ks * (1 - rel)!r}"])
        fd = (Jp - Jm) / (2 * rel * ks)
        fd_flexadj.append({"spring": s, "adjoint": gf[s - 1], "fd": fd, "rel_diff": abs(gf[s - 1] - fd) / abs(fd)})
    pr = rn.petsc(n, p_csv, extra=["-fd", ",".join(map(str, springs)), "-fd_rel", repr(rel)])
    _, gp = read_gradient(p_csv)
    # the reference: 10x finer step, both codes
    fine_steps, fine_dt = 10 * a.steps, a.step_size / 10
    fr_csv, pr_csv = os.path.join(wd, f"verify_flexadj_{n}_fine.csv"), os.path.join(wd, f"verify_petsc_{n}_fine.csv")
    rn.flexadj_gradient(model, fr_csv, sets=[f"integrator.step_size={fine_dt!r}"])
    rn.petsc(n, pr_csv, steps=fine_steps, dt=fine_dt)
    _, gfr = read_gradient(fr_csv)
    _, gpr = read_gradient(pr_csv)
    v = {
        "count": n, "fd_relative_step": rel,
        "fd_flexadj": fd_flexadj, "fd_petsc": pr["fd"],
        "cross_code_rel_diff": rel_diff(gf, gp)[0],
        "cross_code_rel_diff_fine": rel_diff(gfr, gpr)[0],
        "flexadj_vs_own_fine": rel_diff(gf, gfr)[0], "petsc_vs_own_fine": rel_diff(gp, gpr)[0],
        "flexadj_vs_petsc_fine": rel_diff(gf, gpr)[0],
    }
    for code, rows in (("flexadj", fd_flexadj), ("PETSc", pr["fd"])):
        for r in rows:
            print(f"  {code:7s} dJ/dk_{r['spring']:<5d} adjoint {r['adjoint']: .12e}  central FD {r['fd']: .12e}  "
                  f"rel diff {r['rel_diff']:.2e}")
    print(f"  gradients: flexadj vs PETSc {v['cross_code_rel_diff']:.2e} (h = {a.step_size:g}), "
          f"{v['cross_code_rel_diff_fine']:.2e} (h = {fine_dt:g}); against their own h/10 run: "
          f"flexadj {v['flexadj_vs_own_fine']:.2e}, PETSc {v['petsc_vs_own_fine']:.2e}", flush=True)
    return v


def fmt(x, digits=3):
    if x is None:
        return ""
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:.1f}"
    return f"{x:.{digits}g}"


def sci(x):
    return "" if x is None else f"{x:.2e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flexadj", required=True)
    ap.add_argument("--petsc", required=True)
    ap.add_argument("--counts", default="10,100,1000,10000")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--step-size", type=float, default=1e-3)
    ap.add_argument("--reference-max-count", type=int, default=1000,
                    help="PETSc reference run with a 10x finer step for N up to this (0: none)")
    ap.add_argument("--verify-count", type=int, default=10, help="N of the finite-difference check (0: skip)")
    ap.add_argument("--fd-rel", type=float, default=1e-4, help="relative stiffness step of the central differences")
    ap.add_argument("--workdir", default="results/peers")
    ap.add_argument("--json", default="results/peers_np1.json")
    a = ap.parse_args()
    counts = [int(c) for c in a.counts.split(",") if c]
    os.makedirs(a.workdir, exist_ok=True)
    rn = Runner(a)
    open(rn.log, "w").close()

    info = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), ""),
        "load_average_start": list(os.getloadavg()),
        "petsc": subprocess.run(["pkg-config", "--modversion", "petsc"], capture_output=True, text=True).stdout.strip(),
        "flexadj": binary_identity(a.flexadj),
        "petsc_program": binary_identity(a.petsc),
        # "+changes": the working tree differs from the commit (the binary may hold the difference).
        "git_commit": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        + ("+changes" if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                        text=True).stdout.strip() else ""),
        "steps": a.steps, "step_size": a.step_size, "ranks": 1,
    }
    result = {"benchmark": "peers: spring chain, flexadj gradient vs PETSc TSCN + TSAdjoint", "info": info}
    if a.verify_count > 0:
        result["verification"] = verify(rn, a.verify_count)

    rows = []
    for n in counts:
        model = rn.model(n)
        newton_f, newton_f_max = rn.flexadj_newton(model, n)
        ref = None
        if n <= a.reference_max_count:
            ref_csv = os.path.join(a.workdir, f"reference_petsc_{n}.csv")
            rr = rn.petsc(n, ref_csv, steps=10 * a.steps, dt=a.step_size / 10)
            ref = read_gradient(ref_csv)[1]
        for r in range(1, a.repeats + 1):
            f_csv = os.path.join(a.workdir, f"flexadj_{n}_run{r}.csv")
            p_csv = os.path.join(a.workdir, f"petsc_{n}_run{r}.csv")
            load = os.getloadavg()[0]
            fr = rn.flexadj_gradient(model, f_csv)
            pr = rn.petsc(n, p_csv)
            _, gf = read_gradient(f_csv)
            _, gp = read_gradient(p_csv)
            d2, dmax = rel_diff(gf, gp)
            row = {
                "count": n, "run": r, "load_average_1min": load,
                "unknowns_flexadj": 2 * n, "unknowns_petsc": 4 * n,
                "flexadj": {**fr, "total_s": fr["forward_s"] + fr["adjoint_s"], "newton_per_step": newton_f,
                            "newton_max": newton_f_max},
                "petsc": {k: v for k, v in pr.items() if k != "fd"},
                "J_rel_diff": abs(fr["J"] - pr["J"]) / abs(pr["J"]),
                "gradient_rel_diff_2": d2, "gradient_rel_diff_max": dmax,
            }
            row["petsc"]["total_s"] = pr["forward_s"] + pr["adjoint_s"]
            row["flexadj"]["adjoint_over_forward"] = fr["adjoint_s"] / fr["forward_s"]
            row["petsc"]["adjoint_over_forward"] = pr["adjoint_s"] / pr["forward_s"]
            row["flexadj_over_petsc_total"] = row["flexadj"]["total_s"] / row["petsc"]["total_s"]
            if ref is not None:
                row["reference"] = "PETSc, h/10"
                row["flexadj"]["error_vs_reference"] = rel_diff(gf, ref)[0]
                row["petsc"]["error_vs_reference"] = rel_diff(gp, ref)[0]
            rows.append(row)
            print(f"N = {n} run {r}: flexadj {row['flexadj']['total_s']:.3f} s, PETSc {row['petsc']['total_s']:.3f} s, "
                  f"ratio {row['flexadj_over_petsc_total']:.2f}, gradient rel diff {d2:.1e}", flush=True)
    info["load_average_end"] = list(os.getloadavg())
    for key, path in (("flexadj", a.flexadj), ("petsc_program", a.petsc)):
        if binary_identity(path)["sha256"] != info[key]["sha256"]:
            info[key]["changed_during_run"] = True
            print(f"benchmark_peers: WARNING: {path} changed during the run: the timings mix two versions",
                  file=sys.stderr)
    result["rows"] = rows
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(result, f, indent=1)

    head = ("| N | unknowns flexadj | unknowns PETSc | run | flexadj fwd s | adj s | total s | adj/fwd "
            "| PETSc fwd s | adj s | total s | adj/fwd | flexadj/PETSc | Newton/step flexadj | PETSc "
            "| grad rel diff | error vs h/10 flexadj | PETSc |")
    print()
    print(head)
    print("|" + "---:|" * (head.count("|") - 1))
    for w in rows:
        f, p = w["flexadj"], w["petsc"]
        print(f"| {w['count']} | {w['unknowns_flexadj']} | {w['unknowns_petsc']} | {w['run']} "
              f"| {fmt(f['forward_s'])} | {fmt(f['adjoint_s'])} | {fmt(f['total_s'])} | {f['adjoint_over_forward']:.2f} "
              f"| {fmt(p['forward_s'])} | {fmt(p['adjoint_s'])} | {fmt(p['total_s'])} | {p['adjoint_over_forward']:.2f} "
              f"| {w['flexadj_over_petsc_total']:.2f} | {f['newton_per_step']:.2f} | {p['newton_per_step']:.2f} "
              f"| {w['gradient_rel_diff_2']:.1e} | {sci(f.get('error_vs_reference'))} | {sci(p.get('error_vs_reference'))} |")
    print(f"\nload average {info['load_average_start'][0]:.2f} at the start, {info['load_average_end'][0]:.2f} at the "
          f"end; flexadj {info['flexadj']['path']} (sha256 {info['flexadj']['sha256'][:12]}, "
          f"{info['flexadj']['modified']}); {a.json}; logs in {rn.log}")


if __name__ == "__main__":
    main()
