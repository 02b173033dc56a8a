#!/usr/bin/env python3
"""The benchmark tables of docs/benchmarks.md, made from the benchmarks' JSON files.

    scripts/benchmark_tables.py stamp FILE...          adds the run's machine, date, load and commit to JSON files
                                                       (the benchmark scripts call it after each run)
    scripts/benchmark_tables.py print KIND [--results DIR]
                                                       prints one table (scaling, forward, gradient, checkpoints, beams, peers,
                                                       spacetime, state_space, hessian, two_ranks)
    scripts/benchmark_tables.py readme [--results DIR] [--readme PAGE...] [--check]
                                                       rewrites every table of the page that sits between
                                                       <!-- benchmark-table: KIND --> and <!-- end benchmark-table -->
                                                       from DIR (default: benchmarks/runs, the committed JSON of the
                                                       runs behind the page); --check only reports differences

Every figure in a table comes from a JSON file; nothing is typed in by hand. Ratios (np2/np1, adjoint/forward,
flexadj/PETSc) are formed from the same run, as the machines are shared.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def machine_info():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip() != ""
    except OSError:
        commit, dirty = "", False
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(), "cpu": cpu, "cpus": os.cpu_count(), "load_average": list(os.getloadavg()),
            "git_commit": commit + ("+changes" if dirty else "")}


def stamp(paths):
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if isinstance(data, list):  # the checkpoint benchmark writes its rows only
            data = {"benchmark": "checkpoints", "runs": data}
        data["info"] = machine_info()
        with open(path, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")


def load(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        data = json.load(f)
    if isinstance(data, list):
        data = {"runs": data}
    return data


def run_line(*datas):
    """'Run: date, host (cpu, n cores), load average a-b, commit c.' from the info of one or more files."""
    infos = [d["info"] for d in datas if d and "info" in d]
    if not infos:
        return "Run: machine and date not recorded in the JSON (a run before `stamp`)."
    i = infos[0]
    dates = sorted({x["date"][:16].replace("T", " ") for x in infos})
    loads = [x[key][0] for x in infos for key in ("load_average", "load_average_start", "load_average_end") if key in x]
    loads = loads or [0.0]
    # "<hash>+changes": a build of the working tree on top of that commit (the hash shortened, the mark kept)
    commits = sorted({"+".join([c.split("+")[0][:12]] + c.split("+")[1:])
                      for c in (x.get("git_commit", "") for x in infos) if c})
    return (f"Run: {dates[0]}{' .. ' + dates[-1] if len(dates) > 1 else ''} UTC, {i.get('host', '?')} "
            f"({i.get('cpu', '?')}, {i.get('cpus', '?')} cores), load average {min(loads):.1f}-{max(loads):.1f}"
            + (f", commit {', '.join(commits)}" if commits else "") + ".")


def secs(x):
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def thousands(n):
    return f"{n:,}".replace(",", " ")


def table(head, rows):
    align = ["---" if h in ("solver", "problem", "storage", "model", "command", "design") else "---:" for h in head]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def forward(results):
    files = {(s, np): load(results, f"forward_chain_{s}_np{np}.json") for s in ("direct", "iterative") for np in (1, 2)}
    rows = []
    for solver in ("direct", "iterative"):
        one, two = files[(solver, 1)], files[(solver, 2)]
        if not one or not two:
            continue
        by_links = {r["links"]: r for r in two["runs"]}
        for a in one["runs"]:
            b = by_links.get(a["links"])
            if b:
                rows.append([a["links"], thousands(a["unknowns"]), solver, f"{a['steps_per_second']:.1f}",
                             f"{b['steps_per_second']:.1f}", f"{b['steps_per_second'] / a['steps_per_second']:.2f}",
                             f"{a['newton_iterations_per_step']:.2f}"])
    if not rows:
        return None
    return (table(["links", "unknowns", "solver", "np 1 steps/s", "np 2 steps/s", "np2/np1", "Newton/step"], rows)
            + "\n\n" + run_line(*files.values()))


def gradient(results):
    one, two = load(results, "gradient_np1.json"), load(results, "gradient_np2.json")
    if not one:
        return None
    other = {(r["problem"], r["size"]): r for r in (two["runs"] if two else [])}
    rows = []
    for a in one["runs"]:
        b = other.get((a["problem"], a["size"]))
        speedup = a["finite_difference_seconds"] / (a["forward_seconds"] + a["adjoint_seconds"])
        rows.append([a["problem"], thousands(a["size"]), thousands(a["design_variables"]),
                     f"{a['adjoint_over_forward']:.2f}", f"{b['adjoint_over_forward']:.2f}" if b else "",
                     f"{a['continuous_adjoint_seconds'] / a['forward_seconds']:.2f}",
                     f"{thousands(round(speedup))} {'m' if a['finite_differences_measured'] else 'e'}"])
    return (table(["problem", "size", "design variables", "adjoint/forward np 1", "np 2", "continuous/forward np 1",
                   "speed-up over central FD (np 1)"], rows) + "\n\n" + run_line(one, two))


def checkpoints(results):
    data = load(results, "checkpoints_np1.json")
    if not data:
        return None
    rows = []
    for r in data["runs"]:
        memory = r["storage"] == "memory"
        rows.append([thousands(r["steps"]), r["storage"], "" if memory else r["slots"], secs(r['forward_s']),
                     secs(r['gradient_s']), f"{r['gradient_s'] / r['forward_s']:.2f}",
                     "" if memory else thousands(r["recomputed"]), "" if memory else thousands(r["optimum"]),
                     r.get("disk_files") or "", f"{r['disk_s']:.3f}" if r.get("disk_files") else "",
                     f"{r['peak_rss_mb']:.1f}"])
    return (table(["steps", "storage", "slots", "forward s", "gradient s", "gradient/forward", "recomputed", "optimum",
                   "files", "disk s", "peak RSS MB"], rows) + "\n\n" + run_line(data))


def beams(results):
    one, two = load(results, "beams_np1.json"), load(results, "beams_np2.json")
    if not one:
        return None
    other = {r["elements"]: r for r in (two["runs"] if two else [])}
    marginal = all("forward_marginal_seconds_per_step" in r for r in one["runs"])  # older files have none
    rows = []
    for a in one["runs"]:
        b = other.get(a["elements"], {})
        f1, a1 = a["forward_seconds_per_step"], a["adjoint_seconds_per_step"]
        row = [thousands(a["elements"]), thousands(a["unknowns"]), f"{f1:.3g}", f"{a1:.3g}", f"{a1 / f1:.2f}",
               f"{1e6 * f1 / a['elements']:.1f}"]
        if marginal:
            fm, am = a["forward_marginal_seconds_per_step"], a["adjoint_marginal_seconds_per_step"]
            row += [f"{1e6 * fm / a['elements']:.1f}", f"{am / fm:.2f}"]
        row += [f"{b['forward_seconds_per_step']:.3g}" if b else "",
                f"{b['adjoint_seconds_per_step']:.3g}" if b else "",
                f"{b['forward_seconds_per_step'] / f1:.2f}" if b else ""]
        rows.append(row)
    def solver_of(data):  # the runs' own solver names (older files: one name for the file, or none)
        names = sorted({r["linear_solver"] for r in data["runs"] if "linear_solver" in r})
        return ", ".join(names) or data.get("linear_solver", "direct")
    solver = "np 1 " + solver_of(one) + (", np 2 " + solver_of(two) if two else "")
    header = ["elements", "unknowns", "fwd s/step np 1", "adj s/step np 1", "adj/fwd np 1",
              "µs per element and fwd step np 1"]
    if marginal:
        header += ["marginal µs per element and fwd step np 1", "marginal adj/fwd np 1"]
    header += ["fwd s/step np 2", "adj s/step np 2", "np2/np1 fwd"]
    return table(header, rows) + f"\n\nSolver: {solver}. " + run_line(one, two)


def peers(results):
    data = load(results, "peers_np1.json")
    if not data:
        return None
    rows = []
    for w in data["rows"]:
        f, p = w["flexadj"], w["petsc"]
        rows.append([thousands(w["count"]), f"{thousands(w['unknowns_flexadj'])} / {thousands(w['unknowns_petsc'])}",
                     w["run"], secs(f['forward_s']), secs(f['adjoint_s']), f"{f['adjoint_over_forward']:.2f}",
                     secs(p['forward_s']), secs(p['adjoint_s']), f"{p['adjoint_over_forward']:.2f}",
                     f"**{w['flexadj_over_petsc_total']:.2f}**", f"{f['newton_per_step']:.2f} / {p['newton_per_step']:.2f}",
                     f"{w['gradient_rel_diff_2']:.1e}"])
    return (table(["N", "unknowns flexadj / PETSc", "run", "flexadj fwd s", "adj s", "adj/fwd", "PETSc fwd s", "adj s",
                   "adj/fwd", "flexadj / PETSc (fwd + adj)", "Newton/step flexadj / PETSc", "gradient rel. diff."], rows)
            + "\n\n" + run_line(data))


def spacetime(results):
    """GMRES iterations (and adjoint steps per sequential sweep) of --adjoint spacetime against N and P, one rank."""
    cells, datas = {}, []
    for scheme in ("generalized_alpha", "variational"):
        for suffix in ("", "_10000"):
            data = load(results, f"spacetime_iterations_{scheme}{suffix}.json")
            if not data:
                continue
            datas.append(data)
            for r in data["runs"]:
                text = (f"{r['iterations']} ({r['adjoint_steps'] / (r['steps'] + 1):.1f})" if r["converged"]
                        else "no convergence")
                cells[(r["steps"], r["slabs"], scheme, r["solver"])] = text
    if not cells:
        return None
    columns = [(s, v) for s in ("generalized_alpha", "variational") for v in ("gmres-slab", "gmres-two-level")]
    rows = []
    for n, p in sorted({(k[0], k[1]) for k in cells}):
        rows.append([thousands(n), p] + [cells.get((n, p, s, v), "") for s, v in columns])
    return (table(["N", "P", "generalized-alpha, slab", "generalized-alpha, two-level", "variational, slab",
                   "variational, two-level"], rows)
            + "\n\nGMRES iterations and, in parentheses, the adjoint steps of the solve per step of the sequential sweep. "
            + run_line(*datas))


def state_space(results):
    """The state-space integrator (saddle-point path) against generalized-alpha per step, np 1 and np 2."""
    datas = [load(results, f"state_space_np{np}.json") for np in (1, 2)]
    rows = []
    for np, data in zip((1, 2), datas):
        if not data:
            continue
        by = {(r["integrator"], r["links"]): r for r in data["runs"]}
        for links in sorted({r["links"] for r in data["runs"]}):
            s, g = by.get(("state_space", links)), by.get(("generalized_alpha", links))
            if not s or not g:
                continue
            sf, gf = s["forward_seconds_per_step"], g["forward_seconds_per_step"]
            sg, gg = sf + s["adjoint_seconds_per_step"], gf + g["adjoint_seconds_per_step"]
            rows.append([thousands(links), thousands(s["unknowns"]), np, f"{sf:.3g}", f"{gf:.3g}", f"{sf / gf:.1f}",
                         f"{sg:.3g}", f"{gg:.3g}", f"{sg / gg:.1f}"])
    if not rows:
        return None
    return (table(["links", "unknowns", "np", "state-space fwd s/step", "gen.-α fwd s/step", "ratio",
                   "state-space gradient s/step", "gen.-α gradient s/step", "ratio"], rows)
            + "\n\nPer step: marginal over runs of S and 2 S steps (h = 1e-4 s); gradient = forward + discrete adjoint; "
            + "ratios from the same run. " + run_line(*datas))


def hessian_table(one, two=None):
    """One Hessian-vector product in forward runs against the goal, from scripts/benchmark_hessian.py's JSON."""
    goal = one["goal_forward_runs"]
    other = {r["model"]: r for r in (two["runs"] if two else []) if "error" not in r}
    rows = []
    for r in one["runs"]:
        if "error" in r:
            rows.append([r["label"], r["design"], "", "", "", "failed", "", "", "", ""] + ([""] if two else []))
            continue
        b = other.get(r["model"])
        b = b if b and b["steps"] == r["steps"] else None  # np 2 of the same size only
        rows.append([r["label"], r["design"], thousands(r["design_scalars"]), thousands(r["unknowns"]),
                     thousands(r["steps"]), secs(min(r["forward_seconds"])), f"{r['adjoint_over_forward']:.2f}",
                     secs(min(r["product_seconds"])), f"**{r['product_over_forward']:.2f}**",
                     "met" if r["goal_met"] else "not met"]
                    + ([f"{b['product_over_forward']:.2f}" if b else ""] if two else []))
    head = ["model", "design", "scalars", "unknowns", "steps", "forward s", "adjoint/forward", "product s",
            "product/forward", f"goal: ≤ {goal:g} forward runs"] + (["product/forward np 2"] if two else [])
    return (table(head, rows)
            + f"\n\nOne product H v along a random v (`flexadj hessian --direction`), np {one['ranks']}: the forward "
            "run and the product (tangent-linear sweep and second-order adjoint sweep) timed apart in the same "
            f"process, each the minimum of {one['repeats']} runs; adjoint/forward from `flexadj gradient` in the same "
            "run" + (f"; np 2: a separate run of {two['repeats']} repeats" if two else "") + ". " + run_line(one, two))


def hessian(results):
    one = load(results, "hessian_np1.json")
    return hessian_table(one, load(results, "hessian_np2.json")) if one else None


def scaling(results):
    data = load(results, "scaling.json")
    if not data:
        return None
    rows = []
    for r in data["records"]:
        rss = sorted(r["peak_rss_mib"])
        median = statistics.median(rss)
        gmres = f"{r['gmres_per_solve_mean']:.1f} / {r['gmres_per_solve_max']}" if "gmres_per_solve_mean" in r else ""
        shares = ""
        if "assembly_seconds_per_rank" in r:
            shares = " / ".join(secs(r[f"{k}_seconds_per_rank"][0]) for k in ("assembly", "factorization", "solve"))
        solver = {"iterative": "iterative (interface Schur)", "schwarz": "iterative (Schwarz)"}.get(r["solver"], r["solver"])
        rows.append([r["case"], r["command"], solver, r["ranks"], f"{r['peak_rss_mib'][0]:.0f}", f"{median:.0f}",
                     f"{r['peak_rss_mib'][0] / median:.2f}", f"{max(r['bytes_sent']) / r['steps_requested'] / 1e6:.1f}",
                     gmres, secs(r["seconds"]), shares])
    return (table(["model", "command", "solver", "np", "rank 0 MiB", "median MiB", "rank 0 / median",
                   "MB sent per step (largest rank)", "GMRES per solve (mean / max)", "seconds",
                   "rank 0 assembly / factorization / solves (s)"], rows)
            + f"\n\n{data['records'][0]['steps_requested']} steps per run; ranks past {data.get('cores', '?')} are "
            "oversubscribed (memory, messages and iterations hold, the seconds do not). " + run_line(data))


def two_ranks(results):
    """np 2 against np 1 on the rigid chain (scaling_np1_np2.json): the one-rank run with KLU against the two-rank
    runs with every solver measured, each ratio from the same repeat (records with "repeat" k; one repeat runs np 1
    and np 2 back to back)."""
    data = load(results, "scaling_np1_np2.json")
    if not data:
        return None
    records = data["records"]
    repeats = sorted({r.get("repeat", 0) for r in records})
    rows = []
    for command in ("simulate", "gradient"):
        for solver in sorted({r["solver"] for r in records if r["command"] == command and r["ranks"] == 2}):
            ones, twos, ratios = [], [], []
            for k in repeats:
                one = [r for r in records if r.get("repeat", 0) == k and r["command"] == command and r["ranks"] == 1
                       and r["solver"] == "direct"]
                two = [r for r in records if r.get("repeat", 0) == k and r["command"] == command and r["ranks"] == 2
                       and r["solver"] == solver]
                if one and two:
                    ones.append(one[0]["seconds"]), twos.append(two[0]["seconds"])
                    ratios.append(one[0]["seconds"] / two[0]["seconds"])
            if not ratios:
                continue
            label = {"iterative": "iterative (interface Schur)", "direct": "direct (MUMPS)"}.get(solver, solver)
            rows.append([records[0]["case"], command, label, " / ".join(secs(x) for x in ones),
                         " / ".join(secs(x) for x in twos), " / ".join(f"{x:.2f}" for x in ratios),
                         f"{statistics.median(ratios):.2f}"])
    return (table(["model", "command", "solver", "np 1 seconds (KLU)", "np 2 seconds", "np 1 / np 2",
                   "median np 1 / np 2"], rows)
            + f"\n\n{records[0]['steps_requested']} steps per run, both cores; {len(repeats)} repeats, each running "
            "np 1 and np 2 back to back; the solver is that of the np 2 run. " + run_line(data))


KINDS = {"scaling": scaling, "two_ranks": two_ranks, "forward": forward, "gradient": gradient, "checkpoints": checkpoints, "beams": beams, "peers": peers,
         "spacetime": spacetime, "state_space": state_space, "hessian": hessian}
BLOCK = re.compile(r"(<!-- benchmark-table: (\w+) -->\n)(.*?)(<!-- end benchmark-table -->)", re.S)


def readme(results, path, check):
    with open(path) as f:
        text = f.read()
    changed, missing = [], []

    def replace(m):
        kind = m.group(2)
        if kind not in KINDS:
            sys.exit(f"benchmark_tables: {path}: unknown table kind '{kind}' (known: {', '.join(KINDS)})")
        made = KINDS[kind](results)
        if made is None:
            missing.append(kind)
            return m.group(0)
        new = m.group(1) + made + "\n" + m.group(4)
        if new != m.group(0):
            changed.append(kind)
        return new

    new_text = BLOCK.sub(replace, text)
    for kind in missing:
        print(f"benchmark_tables: no JSON for '{kind}' in {results}: its table is left as it is", file=sys.stderr)
    print(f"benchmark_tables: {len(changed)} table(s) {'differ' if check else 'rewritten'}: {', '.join(changed) or '-'}")
    if check:
        return 1 if changed else 0
    with open(path, "w") as f:
        f.write(new_text)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("stamp")
    p.add_argument("files", nargs="+")
    p = sub.add_parser("print")
    p.add_argument("kind", choices=sorted(KINDS))
    p.add_argument("--results", default=os.path.join(ROOT, "results"))
    p = sub.add_parser("readme")
    p.add_argument("--results", default=os.path.join(ROOT, "benchmarks", "runs"))
    p.add_argument("--readme", nargs="+", default=[os.path.join(ROOT, "docs", "benchmarks.md")],
                   help="the Markdown pages with tables (default docs/benchmarks.md)")
    p.add_argument("--check", action="store_true")
    a = parser.parse_args()
    if a.command == "stamp":
        stamp(a.files)
        return 0
    if a.command == "print":
        made = KINDS[a.kind](a.results)
        if made is None:
            sys.exit(f"benchmark_tables: no JSON for '{a.kind}' in {a.results}")
        print(made)
        return 0
    return max(readme(a.results, page, a.check) for page in a.readme)


if __name__ == "__main__":
    sys.exit(main())
