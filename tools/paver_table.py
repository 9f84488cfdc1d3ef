#!/usr/bin/env python3
"""Reproduces PAVER's evaluation (issue 18; seed 002, chapter 3) and writes
docs/paver-results.md: the seed's workloads under the round-robin CTA scheduler (the seed's
LRR), BCS and PAVER (RB-TS with task stealing) on the Fermi-like gtx480 and the Pascal-like
titanx, then the speedups over round robin by the seed's locality categories, the L1 and L2
hit rates, and what LocalityGuru's graph saw, beside the seed's figures.

    python3 tools/paver_table.py                      # default size, sampled, every core
    python3 tools/paver_table.py --size small --out /tmp/p.md

The seed's benchmarks and the samples standing for them (two have none: StoreGPU and
MummerGPU). Each simulation is kept in --work (default target/techniques) as soon as it ends,
so an interrupted run resumes (delete the folder after changing the simulator).
"""

import math

from rf_runs import (by_sample, geomean, parse_args, per_sample_table, run_setup,
                     sampling_note, timed_share, write_page)

CONFIGS = [("gtx480", "Fermi"), ("titanx", "Pascal")]
SCHEDULERS = ["round-robin", "bcs", "paver"]

# (seed's name, sample, the seed's locality category: Table 3.2 and §3.5.2).
WORKLOADS = [
    ("SYR2K", "polybench/syr2k", "high"),
    ("SYRK", "polybench/syrk", "high"),
    ("MM", "sdk/matrixMul", "high"),
    ("BTR", "rodinia/b+tree", "high"),
    ("HTW", "rodinia/heartwall", "high"),
    ("HS", "rodinia/hotspot", "high"),
    ("SRAD", "rodinia/srad_v2", "high"),
    ("BFS", "rodinia/bfs", "low"),
    ("TPACF", "parboil/tpacf", "low"),
    ("DWT", "rodinia/dwt2d_53", "low"),
    ("SPMV", "parboil/spmv", "low"),
    ("PF", "rodinia/pathfinder", "low"),
    ("MGS", "rodinia/hybridsort", "low"),
    ("SAD", "parboil/sad", "none"),
    ("BP", "rodinia/backprop", "none"),
    ("BLK", "sdk/BlackScholes", "none"),
]

# The seed's RB-TS speedups over LRR (Figure 3.11), by category: (Fermi, Pascal).
PAPER = {"high": ("+29.0%", "+49.1%"), "low": ("+3.8%", "+3.7%"),
         "none": ("−0.5%", "n/a"), "all": ("+12.6%", "+20.5%")}


def mem(s, key):
    return s["mem"].get(key, 0)


def l1_hit(s):
    a = mem(s, "l1d_accesses")
    return mem(s, "l1d_hits") / a if a else float("nan")


def l2_hit(s):
    a = mem(s, "l2_accesses")
    return mem(s, "l2_hits") / a if a else float("nan")


def sched(s, key):
    return s.get("cta_scheduler", {}).get("counters", {}).get(key, 0)


def speedup(runs, tech, n):
    return runs["round-robin"][n]["stats"]["gpu_sim_cycle"] / runs[tech][n]["stats"]["gpu_sim_cycle"]


def sp(x):
    return "n/a" if x is None or not math.isfinite(x) else f"{(x - 1) * 100:+.1f}%"


def hr(x):
    return "n/a" if not math.isfinite(x) else f"{x * 100:.1f}%"


def config_section(doc, label):
    runs = by_sample(doc)
    names = {s: w for w, s, _ in WORKLOADS}
    out = [f"## {doc['config']} ({label}-like)\n"]

    def cells(n):
        rr, bcs, pv = (runs[t][n]["stats"] for t in SCHEDULERS)
        lines = sched(pv, "lines")
        weight = sched(pv, "edge_weight")
        loads = sched(pv, "static_loads") + sched(pv, "data_dependent_loads")
        return [f"{rr['gpu_sim_cycle']:,}", sp(speedup(runs, "bcs", n)),
                sp(speedup(runs, "paver", n)),
                f"{hr(l1_hit(rr))} → {hr(l1_hit(pv))}", f"{hr(l2_hit(rr))} → {hr(l2_hit(pv))}",
                f"{(mem(pv, 'l2_accesses') / mem(rr, 'l2_accesses') - 1) * 100:+.1f}%"
                if mem(rr, "l2_accesses") else "n/a",
                f"{sched(pv, 'shared_lines') / lines * 100:.0f}%" if lines else "n/a",
                f"{sched(pv, 'edge_weight_in_groups') / weight * 100:.0f}%" if weight else "no edge",
                f"{sched(pv, 'data_dependent_loads') / loads * 100:.0f}%" if loads else "n/a",
                f"{sched(pv, 'stolen_ctas'):,}", f"{timed_share(rr) * 100:.0f}%"]

    samples = [s for _, s, _ in WORKLOADS]
    out += per_sample_table(
        ["cycles (round robin)", "BCS", "PAVER", "L1 hit rate RR → PAVER",
         "L2 hit rate RR → PAVER", "L2 accesses", "lines shared", "edge weight in groups",
         "loads from data", "CTAs stolen", "timed"],
        samples, cells, name=lambda n: f"{names[n]} ({n})")
    out.append("")
    col = 0 if label == "Fermi" else 1
    out += ["| category | samples | BCS | PAVER | seed (RB-TS) |", "|---|---|---|---|---|"]
    for cat in ["high", "low", "none", "all"]:
        members = [s for _, s, c in WORKLOADS if cat in (c, "all")
                   and all(s in runs.get(t, {}) for t in SCHEDULERS)]
        b = geomean([speedup(runs, "bcs", n) for n in members])
        p = geomean([speedup(runs, "paver", n) for n in members])
        out.append(f"| {cat} | {len(members)} | {sp(b)} | {sp(p)} | {PAPER[cat][col]} |")
    out.append("")
    return out


def main():
    args = parse_args(__doc__, "docs/paver-results.md", 10, 4)
    samples = [s for _, s, _ in WORKLOADS]
    docs = {}
    for config, _ in CONFIGS:
        docs[config] = run_setup(args, f"paver-{config}", config, [], SCHEDULERS, samples,
                                 baseline=False)
    lines = [
        "# PAVER: measured (generated by tools/paver_table.py)\n",
        f"Size `{args.size}`, {sampling_note(args)}. Speedup = round robin's cycles / the "
        "scheduler's (the seed's LRR is warpsim's round robin); category averages are "
        "geometric means. PAVER's analysis runs at launch (the seed's JIT time) and costs "
        "no simulated cycle, as in the seed's speedups, which add a JIT overhead of about 1%. "
        "`lines shared`: of the global lines LocalityGuru found the timed CTAs read, those "
        "read by more than one; `edge weight in groups`: the share of the graph's weight "
        "inside PAVER's groups; `loads from data`: global loads whose address depends on "
        "loaded data (not analysed, as in the seed). docs/techniques.md discusses the "
        "differences.\n",
    ]
    for config, label in CONFIGS:
        lines += config_section(docs[config], label)
    write_page(args.out, lines, docs)


if __name__ == "__main__":
    main()
