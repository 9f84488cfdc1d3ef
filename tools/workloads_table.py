#!/usr/bin/env python3
"""Writes docs/workloads.md: one table per suite, one row per sample, joining what each sample
is (the hand-written tables of docs/workloads/<suite>*.md: kernels, sizes, where the default
comes from, how it is validated; a column they leave out, as Rodinia's leaves out kernels and
sizes, comes from `warpsim list`) with what was measured here: default-size cycles and IPC on
the gtx480, registers per thread (warpsim's allocation against ptxas's), and each kernel's
occupancy and its limiter.

    python3 tools/workloads_table.py                          # every suite
    python3 tools/workloads_table.py --suites sdk --out /tmp/w.md

Each sample runs once, `warpsim run S --size default --stats-json F` (the timing model, every
instruction timed, except for the samples of --sampled), several at once; the JSON of each run
is kept in --work (default target/workloads) and not repeated while it is there (delete the
folder after changing the simulator or a sample).
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

SUITES = ["rodinia", "parboil", "polybench", "sdk", "dnn"]
# The samples whose full default-size timing takes longest (docs/rodinia.md).
LONGEST = ["rodinia/cfd", "rodinia/hybridsort", "rodinia/heartwall", "rodinia/leukocyte"]
TITLES = {"rodinia": "Rodinia", "parboil": "Parboil", "polybench": "Polybench-GPU",
          "sdk": "CUDA SDK kernels", "dnn": "DNN inference layers"}


def run_arguments(ap):
    """Adds the options of how samples are run and cached (shared with rodinia_timing.py)."""
    ap.add_argument("--warpsim", default="target/release/warpsim")
    ap.add_argument("--config", default="gtx480")
    ap.add_argument("--threads", type=int, default=os.cpu_count(),
                    help="simulations at once (default: every core)")
    ap.add_argument("--sampled", default=",".join(LONGEST),
                    help="comma-separated samples sampled at the default size: each kernel "
                         "timed until --sampled-minsts million of its warp instructions were, "
                         "its later launches run functionally (default: %(default)s, the "
                         "longest under full timing: 12 to 105 minutes each on one core)")
    ap.add_argument("--sampled-minsts", type=int, default=20,
                    help="warpsim run --kernel-minsts of the --sampled samples "
                         "(default %(default)s)")
    ap.add_argument("--cached-only", action="store_true",
                    help="run nothing: use the runs already in --work, and mark the others "
                         "as not measured")
    ap.add_argument("--work", default="target/workloads")


def parse_run_arguments(ap):
    """Parses the command line of `ap` (which has run_arguments' options)."""
    args = ap.parse_args()
    args.sampled = {s for s in args.sampled.split(",") if s}
    os.makedirs(args.work, exist_ok=True)
    return args


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    run_arguments(ap)
    ap.add_argument("--suites", default=",".join(SUITES),
                    help="comma-separated suites (default: %(default)s)")
    ap.add_argument("--out", default="docs/workloads.md")
    args = parse_run_arguments(ap)
    args.suites = [s for s in args.suites.split(",") if s]
    for s in args.suites:
        if s not in SUITES:
            ap.error(f"unknown suite `{s}` (one of {', '.join(SUITES)})")
    return args


def samples_of(args):
    """{suite: [sample names in listing order]} and {sample: {column: text}} of each sample's
    kernels and sizes, from `warpsim list`."""
    out = subprocess.run([args.warpsim, "list"], check=True, capture_output=True, text=True)
    names = {s: [] for s in args.suites}
    listed, current = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r"^(\S+)\s+\(suite: (\w+)\)", line)
        if m:
            current = m.group(1)
            listed[current] = {}
            if m.group(2) in names:
                names[m.group(2)].append(current)
            continue
        m = re.match(r"^\s+(kernels:|small|default|large)\s+(.*)$", line)
        if m and current:
            listed[current][m.group(1).rstrip(":")] = m.group(2).strip()
    return names, listed


def timed_run(args, sample, size, minsts):
    """The stats JSON of `sample` at `size` on --config, each kernel timed until `minsts` million
    of its warp instructions were (0: no limit), cached in --work; an error text, or `None` (not
    measured, with --cached-only)."""
    tag = "" if size == "default" else f"{size}-"
    path = os.path.join(args.work, f"{args.config}-{tag}m{minsts}-"
                        f"{sample.replace('/', '_')}.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)[0]
    if args.cached_only:
        return None
    cmd = [args.warpsim, "run", sample, "--size", size, "--config", args.config,
           "--kernel-minsts", str(minsts), "--stats-json", path + ".tmp"]
    started = time.time()
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return f"{' '.join(cmd)} failed: {(run.stdout + run.stderr).strip()[-300:]}"
    os.replace(path + ".tmp", path)
    print(f"{sample} ({size}): {time.time() - started:.0f} s", file=sys.stderr)
    with open(path) as f:
        return json.load(f)[0]


def measure(args, sample):
    """The default-size run of `sample`: every instruction timed unless --sampled names it."""
    return timed_run(args, sample, "default", args.sampled_minsts if sample in args.sampled else 0)


def registers(args, suite):
    """{kernel name: (warpsim, ptxas)} of the suite's PTX, from `warpsim regs`."""
    out = subprocess.run([args.warpsim, "regs", f"samples/{suite}"], check=True,
                         capture_output=True, text=True)
    regs = {}
    for line in out.stdout.splitlines()[1:]:
        cols = line.split()
        if len(cols) == 5 and cols[2].isdigit():
            regs[(cols[0], cols[1])] = (cols[2], cols[3])
    return regs


def described(suite):
    """The prose and the table rows ({sample: {column: text}}, header order) of the
    hand-written docs/workloads/<suite>*.md files."""
    prose, rows, header = [], {}, None
    folder = "docs/workloads"
    for name in sorted(os.listdir(folder)):
        if not (name.startswith(suite) and name.endswith(".md")):
            continue
        table = None
        with open(os.path.join(folder, name)) as f:
            for line in f.read().splitlines():
                if line.startswith("|"):
                    # Cells split at unescaped pipes (`\|` is a pipe inside a cell).
                    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
                    if table is None:
                        table = header = cells
                    elif not set("".join(cells)) <= set("-: "):
                        rows[cells[0].strip("`")] = dict(zip(table, cells))
                elif not line.startswith("#"):
                    prose.append(line)
    return "\n".join(prose).strip(), rows, header or ["sample"]


def kernel_registers(regs, sample, kernel):
    """`warpsim/ptxas` of `kernel`: from the sample's own folder (samples/<sample>/), else the
    only kernel of that name in the suite."""
    own = [v for (f, k), v in regs.items() if k == kernel and f.startswith(f"samples/{sample}/")]
    found = own or [v for (f, k), v in regs.items() if k == kernel]
    return "/".join(found[0]) if len(found) == 1 else "?"


def measured_columns(sample, stats, regs):
    """(cycles, IPC, registers warpsim/ptxas per kernel, occupancy per kernel); a sampled run's
    cycles and IPC are those of its timed part, and say how much of the run that was."""
    if isinstance(stats, str):
        return ["failed", "", "", ""]
    if stats is None:
        return ["not measured yet", "", "", ""]
    kernels = []
    for k in stats["kernels"]:
        if k["kernel"] not in [n for n, _ in kernels]:
            kernels.append((k["kernel"], k["occupancy"]))
    reg_cells, occ_cells = [], []
    for name, occ in kernels:
        reg_cells.append(kernel_registers(regs, sample, name))
        occ_cells.append(f"{occ['ctas_per_sm']} × {occ['warps_per_cta']}, {occ['limiter']}")
    total = stats["total"]
    cycles = f"{total['gpu_sim_cycle']:,}"
    untimed = total.get("untimed", {}).get("warp_insts", 0)
    if untimed:
        timed = total["warp_insts"] / (total["warp_insts"] + untimed)
        cycles += f" (sampled: {timed:.1%} of the warp instructions timed)"
    return [cycles, f"{total['gpu_ipc']:.1f}", "; ".join(reg_cells), "; ".join(occ_cells)]


def main():
    args = parse_args()
    names, listed = samples_of(args)
    everything = [s for suite in args.suites for s in names[suite]]
    with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
        results = dict(zip(everything, pool.map(lambda s: measure(args, s), everything)))
    sampled = sorted(args.sampled & set(everything))
    timed = "every instruction timed"
    if sampled:
        timed += (f"; {', '.join(sampled)} sampled: each kernel timed until "
                  f"{args.sampled_minsts} M of its warp instructions were, its later launches "
                  "run functionally, "
                  "because full timing takes 12 to 105 minutes each on one core")
    lines = [
        "# Workloads",
        "",
        "<!-- generated by tools/workloads_table.py from docs/workloads/*.md; edit those -->",
        "",
        "Every sample `warpsim list` shows, by suite; `warpsim run --suite NAME` runs a suite,",
        "`warpsim rf --suite NAME` and `warpsim characterize --suite NAME` take them too",
        "(`rodinia`, `parboil`, `polybench`, `sdk`, `dnn`, `all`). Each sample is our own CUDA",
        "C after the suite's algorithm, kernels and launch sequence, compiled by NVRTC 12.9 to",
        "the committed PTX, with a Rust host driver: seeded inputs and a CPU reference.",
        "Kernels and sizes as `warpsim list` gives them where the suite's page leaves them out.",
        "",
        f"Measured columns: `warpsim run S --size default --stats-json F` on the {args.config}",
        f"({timed}); cycles and IPC (thread instructions per cycle) over every launch of the",
        "run; registers per thread are warpsim's allocation / `ptxas -v`'s (sm_70), and",
        "occupancy CTAs per SM × warps per CTA with the limiting resource, per kernel in launch",
        "order. Validation is in both modes: small under the timing model and functional,",
        "every size functional.",
    ]
    for suite in args.suites:
        prose, rows, header = described(suite)
        regs = registers(args, suite)
        header = header[:1] + [c for c in ["kernels", "small", "default", "large"]
                               if c not in header] + header[1:]
        cols = header + ["default cycles", "IPC", "registers (warpsim/ptxas)",
                         "occupancy (gtx480)"]
        lines += ["", f"## {TITLES[suite]}", "", prose, "",
                  "| " + " | ".join(cols) + " |",
                  "|" + "|".join("---:" if c in ("default cycles", "IPC") else "---"
                                 for c in cols) + "|"]
        for sample in names[suite]:
            row = {**listed.get(sample, {}), **rows.get(sample, {})}
            cells = [row.get(c, "") for c in header]
            cells[0] = f"`{sample}`"
            lines.append("| " + " | ".join(cells + measured_columns(sample, results[sample], regs))
                         + " |")
        missing = sorted(set(rows) - set(names[suite]))
        if missing:
            print(f"warning: described but not registered: {', '.join(missing)}",
                  file=sys.stderr)
    failed = [f"- {s}: {r}" for s, r in results.items() if isinstance(r, str)]
    if failed:
        lines += ["", "Runs that failed:", ""] + failed
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
