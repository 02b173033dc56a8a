#!/usr/bin/env python3
"""Joint-coordinate benchmark: Maciag et al.'s joint-space Hamiltonian integrator against the absolute-coordinate
Hamiltonian integrator and generalized-alpha (index 3), per forward step and per gradient step (forward + adjoint),
on the planar rigid chain of benchmarks/planar_chain.yaml, one rank.

    scripts/benchmark_joint_coordinates.py [--flexadj PROGRAM] [--counts 10,20,50,100] [--json FILE]
                                           [--repeats 3] [--target-seconds 4] [--no-continuous]
                                           [--variational | --only-variational]
    scripts/benchmark_joint_coordinates.py --table-from FILE.json [--markdown]

Row kinds, each `flexadj gradient benchmarks/planar_chain.yaml` with h = 1e-4 s, gradient for all component
parameters, trajectory in memory:

    joint              integrator {type: hamiltonian, coordinates: joint}, its discrete adjoint
    joint_continuous   the same forward run, --adjoint continuous (Maciag et al.'s joint-coordinate adjoint ODE)
    absolute           integrator {type: hamiltonian, coordinates: absolute} (projection, index 2), discrete adjoint
    generalized_alpha  integrator {type: generalized_alpha, spectral_radius: 0.9} (index 3), discrete adjoint
    null_space         (--variational) integrator {type: variational, coordinates: joint}: the midpoint variational
                       integrator in the null-space form with nodal reparametrization (Schubert et al. 2024, sec. 3),
                       its discrete adjoint (k adjoint variables per step)
    joint_midpoint     (--variational) integrator {type: variational, coordinates: joint_midpoint}: the midpoint
                       rule in the joint coordinates (Schubert et al. 2024, sec. 2.3), its discrete adjoint (k adjoint
                       variables per step)
    rattle             (--variational) integrator {type: variational}: the same scheme in the RATTLE form
                       (multipliers), its discrete adjoint

Cost per step is marginal: (T(2 S) - T(S)) / S for the forward and the adjoint times that flexadj prints on its
`timing` line, so the one-off parts (initial projection, set-up, the adjoint's initial terms) drop out. Each of
T(S) and T(2 S) is the minimum of --repeats runs; the row kinds run alternately (repeat 1 of every kind, then
repeat 2, ...) so that their ratios come from the same stretch of the run on a shared machine. S is chosen per
row from one probe run of 20 steps so that a run of S steps takes about --target-seconds (at least 10 steps, at
most 20 000).

Unknowns: k joint coordinates (one revolute joint per link: k = N) for the joint rows, n + m (coordinates +
multipliers, as flexadj reports them) for the others. Ratios joint/index-3 and joint/absolute (and of the
null-space and joint-midpoint rows to RATTLE) are of the gradient cost per step (forward + adjoint) of the same N.

Prints a table (--markdown: the form of docs/benchmarks.md) and writes JSON (default results/joint_coordinates_np1.json). Use a
copy of the program (--flexadj, default $FLEXADJ or build/apps/flexadj) if the build tree may change during the
run. --table-from prints the table of an earlier run's JSON without running anything. Standard library only.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "benchmarks", "planar_chain.yaml")
STEP = 1e-4
KINDS = {
    "joint": (["--set", "integrator.coordinates=joint"], []),
    "joint_continuous": (["--set", "integrator.coordinates=joint"], ["--adjoint", "continuous"]),
    "absolute": (["--set", "integrator.coordinates=absolute"], []),
    "generalized_alpha": (["--set", "integrator.type=generalized_alpha", "--set", "integrator.spectral_radius=0.9"],
                          []),
}
VARIATIONAL = {
    "null_space": (["--set", "integrator.type=variational", "--set", "integrator.coordinates=joint"], []),
    "joint_midpoint": (["--set", "integrator.type=variational", "--set", "integrator.coordinates=joint_midpoint"], []),
    "rattle": (["--set", "integrator.type=variational", "--set", "integrator.coordinates=absolute"], []),
}
KINDS.update(VARIATIONAL)
LABEL = {"joint": "joint (discrete adj.)", "joint_continuous": "joint (continuous adj.)",
         "absolute": "absolute, index 2", "generalized_alpha": "gen.-α, index 3",
         "null_space": "variational, null-space", "joint_midpoint": "variational, joint midpoint",
         "rattle": "variational, RATTLE"}
MINIMAL = ("joint", "joint_continuous", "null_space", "joint_midpoint")  # rows whose unknowns are the k joint coordinates
TIMING = re.compile(r"^timing\s+forward ([0-9.eE+-]+) s, adjoint ([0-9.eE+-]+) s", re.M)
MODEL_LINE = re.compile(r"(\d+) coordinate\(s\), (\d+) multiplier\(s\)")
OBJECTIVE = re.compile(r"^J = (\S+)", re.M)


class RunError(Exception):
    pass


def run_once(program, kind, links, steps, workdir):
    """One `flexadj gradient` run of `steps` steps; returns (forward s, adjoint s, n + m, J)."""
    integrator, extra = KINDS[kind]
    cmd = ([program, "gradient", MODEL, "--set", f"chain.count={links}",
            "--set", f"objective=[{{type: final_square, coordinate: link{links}.x}}]",
            "--set", f"integrator.step_size={STEP!r}", "--set", f"integrator.end_time={STEP * steps!r}"]
           + integrator + extra)
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)
    out = p.stdout + p.stderr
    m = TIMING.search(out)
    if p.returncode != 0 or not m:
        tail = "\n".join(out.strip().splitlines()[-5:])
        raise RunError(f"exit {p.returncode}: {' '.join(cmd)}\n{tail}")
    size = MODEL_LINE.search(out)
    j = OBJECTIVE.search(out)
    return (float(m.group(1)), float(m.group(2)), int(size.group(1)) + int(size.group(2)) if size else None,
            float(j.group(1)) if j else None)


def machine_info(program):
    cpu = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    git = lambda *a: subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True).stdout.strip()
    dirty = git("status", "--porcelain", "--untracked-files=no") != ""
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(), "cpu": cpu, "cpus": os.cpu_count(), "load_average_start": list(os.getloadavg()),
            "git_commit": git("rev-parse", "--short", "HEAD") + ("+changes" if dirty else ""),
            "program": os.path.abspath(program)}


def measure(program, counts, kinds, repeats, target, workdir, log):
    rows = []
    for links in counts:
        row = {}
        for kind in kinds:
            r = {"kind": kind, "links": links}
            try:
                f, a, nm, _ = run_once(program, kind, links, 20, workdir)
                r["steps"] = min(20000, max(10, math.ceil(target / ((f + a) / 20))))
                r["coordinates_and_multipliers"] = nm
                r["unknowns"] = links if kind in MINIMAL else nm
            except RunError as e:
                r["error"] = str(e)
                log(f"N {links} {kind}: probe FAILED: {e}")
            row[kind] = r
        best = {kind: {} for kind in kinds}
        for rep in range(repeats):
            for kind in kinds:
                r = row[kind]
                if "error" in r:
                    continue
                for steps in (r["steps"], 2 * r["steps"]):
                    try:
                        f, a, _, j = run_once(program, kind, links, steps, workdir)
                    except RunError as e:
                        r["error"] = str(e)
                        log(f"N {links} {kind} {steps} steps: FAILED: {e}")
                        break
                    b = best[kind].setdefault(steps, {"forward": [], "adjoint": []})
                    b["forward"].append(f)
                    b["adjoint"].append(a)
                    if steps == 2 * r["steps"]:
                        r["objective"] = j
            log(f"N {links}: repeat {rep + 1}/{repeats} done")
        for kind in kinds:
            r = row[kind]
            if "error" in r:
                rows.append(r)
                continue
            s = r["steps"]
            one, two = best[kind][s], best[kind][2 * s]
            r["forward_seconds"] = {"S": one["forward"], "2S": two["forward"]}
            r["adjoint_seconds"] = {"S": one["adjoint"], "2S": two["adjoint"]}
            r["forward_seconds_per_step"] = (min(two["forward"]) - min(one["forward"])) / s
            r["adjoint_seconds_per_step"] = (min(two["adjoint"]) - min(one["adjoint"])) / s
            rows.append(r)
    return rows


def derived(rows):
    """Per-step gradient cost and the ratios of the joint rows to index 3 and absolute of the same N."""
    by = {(r["links"], r["kind"]): r for r in rows}
    out = []
    for r in rows:
        d = dict(r)
        if "error" not in r:
            d["gradient_seconds_per_step"] = r["forward_seconds_per_step"] + r["adjoint_seconds_per_step"]
            d["adjoint_over_forward"] = r["adjoint_seconds_per_step"] / r["forward_seconds_per_step"]
        out.append(d)
    for d in out:
        if d["kind"] not in MINIMAL or "error" in d:
            continue
        others = (("rattle", "over_rattle"),) if d["kind"] in ("null_space", "joint_midpoint") else (
            ("generalized_alpha", "over_index3"), ("absolute", "over_absolute"))
        for other, key in others:
            o = by.get((d["links"], other))
            if o and "error" not in o:
                d["gradient_" + key] = d["gradient_seconds_per_step"] / (
                    o["forward_seconds_per_step"] + o["adjoint_seconds_per_step"])
    return out


def fmt(x):
    return f"{x:.3g}" if abs(x) < 100 else f"{x:,.0f}".replace(",", " ")


def table(data, markdown):
    head = ["N", "formulation", "unknowns", "S", "fwd µs/step", "gradient µs/step", "adj/fwd",
            "joint/index-3 (gradient)", "joint/absolute (gradient)", "variational/RATTLE (gradient)"]
    lines = []
    for d in derived(data["runs"]):
        unknowns = ("" if d.get("unknowns") is None else
                    f"k = {d['unknowns']}" if d["kind"] in MINIMAL else f"n+m = {d['unknowns']}")
        if "error" in d:
            lines.append([str(d["links"]), LABEL[d["kind"]], unknowns, "", "failed: " + d["error"].splitlines()[-1],
                          "", "", "", "", ""])
            continue
        ratio = lambda k: f"{d[k]:.3g}" if k in d else ""
        lines.append([str(d["links"]), LABEL[d["kind"]], unknowns, str(d["steps"]),
                      fmt(1e6 * d["forward_seconds_per_step"]), fmt(1e6 * d["gradient_seconds_per_step"]),
                      f"{d['adjoint_over_forward']:.2f}", ratio("gradient_over_index3"), ratio("gradient_over_absolute"),
                      ratio("gradient_over_rattle")])
    info = data.get("info", {})
    loads = [x for k in ("load_average_start", "load_average_end") for x in info.get(k, [])[:1]] or [0.0]
    note = (f"Per step: marginal (T(2S) - T(S))/S, each T the minimum of {data.get('repeats', '?')} runs, h = 1e-4 s, "
            "one rank; gradient = forward + adjoint. "
            f"Run: {info.get('date', '?')[:16].replace('T', ' ')} UTC, {info.get('host', '?')} ({info.get('cpu', '?')}, "
            f"{info.get('cpus', '?')} cores), load average {min(loads):.1f}-{max(loads):.1f}, "
            f"commit {info.get('git_commit', '?')}.")
    if not any(line[-1] for line in lines):  # no variational rows: no RATTLE column
        head, lines = head[:-1], [line[:-1] for line in lines]
    if markdown:
        align = ["---:", "---"] + ["---:"] * (len(head) - 2)
        text = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
        text += ["| " + " | ".join(c for c in line) + " |" for line in lines]
        return "\n".join(text) + "\n\n" + note
    widths = [max(len(h), *(len(l[i]) for l in lines)) if lines else len(h) for i, h in enumerate(head)]
    text = ["  ".join(h.rjust(w) for h, w in zip(head, widths))]
    text += ["  ".join(c.rjust(w) for c, w in zip(line, widths)) for line in lines]
    return "\n".join(text) + "\n" + note


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flexadj", default=os.environ.get("FLEXADJ", os.path.join(ROOT, "build", "apps", "flexadj")))
    parser.add_argument("--counts", default="10,20,50,100")
    parser.add_argument("--json", default=os.path.join(ROOT, "results", "joint_coordinates_np1.json"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--target-seconds", type=float, default=4.0)
    parser.add_argument("--no-continuous", action="store_true", help="leave out the joint_continuous rows")
    parser.add_argument("--variational", action="store_true",
                        help="add the variational integrator's rows (null-space, joint-midpoint and RATTLE forms)")
    parser.add_argument("--only-variational", action="store_true",
                        help="only the variational integrator's rows (null-space, joint-midpoint and RATTLE forms)")
    parser.add_argument("--table-from", metavar="FILE.json", help="print the table of an earlier run and stop")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown (the form of docs/benchmarks.md)")
    parser.add_argument("--note", help="a remark kept in the JSON's info (e.g. which build the program copy is)")
    a = parser.parse_args()
    if a.table_from:
        with open(a.table_from) as f:
            print(table(json.load(f), a.markdown))
        return 0
    if not os.access(a.flexadj, os.X_OK):
        sys.exit(f"benchmark_joint_coordinates: {a.flexadj} is not an executable flexadj (option --flexadj)")
    counts = [int(c) for c in a.counts.split(",") if c]
    kinds = [k for k in KINDS if not (a.no_continuous and k == "joint_continuous")
             and (k in VARIATIONAL) <= (a.variational or a.only_variational)
             and (k in VARIATIONAL or not a.only_variational)]
    log = lambda msg: print(msg, file=sys.stderr, flush=True)
    info = machine_info(a.flexadj)
    if a.note:
        info["note"] = a.note
    with tempfile.TemporaryDirectory(prefix="flexadj_joint_bench_") as workdir:
        rows = measure(a.flexadj, counts, kinds, a.repeats, a.target_seconds, workdir, log)
    info["load_average_end"] = list(os.getloadavg())
    info["date_end"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    data = {"benchmark": "joint_coordinates", "ranks": 1, "model": os.path.relpath(MODEL, ROOT), "step_size": STEP,
            "repeats": a.repeats, "target_seconds": a.target_seconds,
            "per_step": "marginal (min T(2S) - min T(S)) / S of flexadj's timing line", "info": info, "runs": rows}
    data["runs"] = derived(rows)
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(table(data, a.markdown))
    print(f"JSON: {a.json}", file=sys.stderr)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
