#!/usr/bin/env python3
"""Reproduces Snooze's evaluation (issue 18; seed 002, chapter 5) and writes
docs/snooze-results.md: the L1 and L2 leakage left by bank-level and line-level gating
(`mem.snooze.gating`), the share of unit-cycles ON, in Sleep and OFF, and what the wake-ups
cost in cycles, on the Fermi-like gtx480 (the seed's setup) and the Pascal-like titanx, beside
the seed's figures.

    python3 tools/snooze_table.py --size small        # what docs/snooze-results.md holds
    python3 tools/snooze_table.py --size small --threads 2 --out /tmp/s.md

Per configuration, one `warpsim run` per (variant, sample), each kept in --work (default
target/techniques) as soon as it ends, so an interrupted run resumes (delete the folder after
changing the simulator). The variants: no Snooze (the cycles every cost is relative to), bank
gating, line gating with 32-byte blocks (the default) and with 128-byte blocks (whole lines),
and, to show what the queues' lookahead hides, bank and line gating with a gating logic that
sees a request only when it reaches the array (`mem.snooze.lookahead=0`).
"""

import math

from rf_runs import by_sample, parse_args, run_setup, sampling_note, write_page

CONFIGS = [("gtx480", "Fermi"), ("titanx", "Pascal")]

# (name, overrides): the setups each configuration runs.
VARIANTS = [
    ("none", []),
    ("bank", ["mem.snooze.gating=bank"]),
    ("line", ["mem.snooze.gating=line"]),
    ("line128", ["mem.snooze.gating=line", "mem.snooze.block=128"]),
    ("bank-late", ["mem.snooze.gating=bank", "mem.snooze.lookahead=0"]),
    ("line-late", ["mem.snooze.gating=line", "mem.snooze.lookahead=0"]),
]
GATED = ["bank", "line", "line128"]
LABEL = {"bank": "bank", "line": "line, 32 B", "line128": "line, 128 B"}

# The seed's thesis evaluates Snooze on 20 benchmarks of ISPASS, the CUDA SDK, Rodinia and
# Polybench without listing them; these are the samples standing for its chapter-3 workloads
# (the same suites, tools/paver_table.py).
SAMPLES = [
    "polybench/syr2k", "polybench/syrk", "sdk/matrixMul", "rodinia/b+tree",
    "rodinia/heartwall", "rodinia/hotspot", "rodinia/srad_v2", "rodinia/bfs", "parboil/tpacf",
    "rodinia/dwt2d_53", "parboil/spmv", "rodinia/pathfinder", "rodinia/hybridsort",
    "parboil/sad", "rodinia/backprop", "sdk/BlackScholes",
]

# The seed's leakage left (Figures 5.11, 5.12): {config: {level: (bank, block)}}.
PAPER = {"gtx480": {"l1": ("28.56%", "11.17%"), "l2": ("36.27%", "7.31%")},
         "titanx": {"l1": ("31.62%", "6.21%"), "l2": ("30.87%", "5.37%")}}
# The seed's geometric-mean state distributions on Fermi (§5.3.2), (OFF, Sleep, ON) in %:
# they are geometric means taken state by state, so they do not sum to 100.
PAPER_STATES = {("l1", "bank"): (9.95, 42.61, 12.50), ("l1", "line"): (27.72, 24.50, 1.187),
                ("l2", "bank"): (0.86, 76.81, 12.78), ("l2", "line"): (37.49, 14.85, 0.08)}


def power(s, level):
    return s["cache_power"][level]


def left(s, level):
    p = power(s, level)
    return p["leakage_pj"] / p["baseline_leakage_pj"]


def left_of_used(s, level):
    """Leakage left of the units used in their launch: those never used (OFF throughout, at
    1.5%) left out of both sides."""
    p = power(s, level)
    c = p["cycles"]
    per_cycle = p["baseline_leakage_pj"] / (c["on"] + c["sleep"] + c["off"])
    unused = p["unused_cycles"] * per_cycle
    base = p["baseline_leakage_pj"] - unused
    return (p["leakage_pj"] - unused * 0.015) / base if base > 0 else float("nan")


def unused_share(s, level):
    c = power(s, level)["cycles"]
    return power(s, level)["unused_cycles"] / (c["on"] + c["sleep"] + c["off"])


def share(s, level, state):
    c = power(s, level)["cycles"]
    return c[state] / (c["on"] + c["sleep"] + c["off"])


def geomean(xs):
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    if not xs or any(x <= 0 for x in xs):
        return float("nan")
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def mean(xs):
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return sum(xs) / len(xs) if xs else float("nan")


def pc(x, digits=1):
    return "n/a" if not math.isfinite(x) else f"{x * 100:.{digits}f}%"


def cost(runs, variant, n):
    """Cycles of `variant` over no Snooze's, minus one."""
    return runs[variant][n]["stats"]["gpu_sim_cycle"] / runs["none"][n]["stats"]["gpu_sim_cycle"] - 1


def config_section(config, label, docs):
    runs = {v: by_sample(docs[v]).get("baseline", {}) for v, _ in VARIANTS}
    samples = [n for n in SAMPLES if all(n in runs[v] for v, _ in VARIANTS)]
    missing = [n for n in SAMPLES if n not in samples]
    out = [f"## {config} ({label}-like)\n"]
    if missing:
        out.append(f"No result for {', '.join(missing)} (listed below the page).\n")
    cols = ["cycles", "L1 left: bank", "line 32 B", "line 128 B", "L2 left: bank",
            "line 32 B", "line 128 B", "cost, lookahead 2", "cost, lookahead 0: bank", "line"]
    out += ["| sample | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for n in samples:
        s = {v: runs[v][n]["stats"] for v, _ in VARIANTS}
        hidden = max(abs(cost(runs, v, n)) for v in GATED)
        out.append("| " + " | ".join(
            [n, f"{s['none']['gpu_sim_cycle']:,}"]
            + [pc(left(s[v], "l1")) for v in GATED] + [pc(left(s[v], "l2")) for v in GATED]
            + ["0" if hidden == 0 else pc(hidden, 3),
               pc(cost(runs, "bank-late", n), 2), pc(cost(runs, "line-late", n), 2)]) + " |")
    out.append("")
    # Averages beside the seed.
    out += [f"Leakage left, of every unit ON throughout (geometric mean over the {len(samples)} "
            "samples; arithmetic mean in brackets), beside the seed:\n",
            "| level | bank | line, 32 B | line, 128 B | seed: bank | seed: block |",
            "|---|---|---|---|---|---|"]
    for level in ["l1", "l2"]:
        for f, what in [(left, ""), (left_of_used, ", of the units used")]:
            cells = [f"{pc(geomean([f(runs[v][n]['stats'], level) for n in samples]), 2)} "
                     f"({pc(mean([f(runs[v][n]['stats'], level) for n in samples]), 2)})"
                     for v in GATED]
            out.append(f"| {level.upper()}{what} | " + " | ".join(cells) + " | "
                       + (" | ".join(PAPER[config][level]) if not what else " | ") + " |")
    out.append("")
    out.append("Unit-cycles of units never used in their launch (OFF throughout), of all "
               "(arithmetic mean over the samples): " + "; ".join(
                   f"{level.upper()} {LABEL[v]} {pc(mean([unused_share(runs[v][n]['stats'], level) for n in samples]))}"
                   for level in ["l1", "l2"] for v in GATED) + ". `of the units used` leaves "
               "them out of both sides: an L1 is unused when its SM ran no global access (at "
               "the small size most grids have fewer CTAs than there are SMs).\n")
    out += ["Unit-cycles by state (arithmetic mean over the samples of each sample's shares; "
            "geometric means state by state in brackets, as the seed reports them):\n",
            "| level, gating | ON | Sleep | OFF | wake-ups per 1,000 unit-cycles | seed (Fermi): ON / Sleep / OFF |",
            "|---|---|---|---|---|---|"]
    for level in ["l1", "l2"]:
        for v in GATED:
            st = {k: [share(runs[v][n]["stats"], level, k) for n in samples]
                  for k in ["on", "sleep", "off"]}
            wakes = mean([power(runs[v][n]["stats"], level)["cycles"]["wakeups"] * 1000
                          / max(1, sum(power(runs[v][n]["stats"], level)["cycles"][k]
                                       for k in ["on", "sleep", "off"])) for n in samples])
            seed = PAPER_STATES.get((level, v)) if config == "gtx480" else None
            seed = (f"{seed[2]}% / {seed[1]}% / {seed[0]}%" if seed else "")
            out.append(f"| {level.upper()}, {LABEL[v]} | " + " | ".join(
                f"{pc(mean(st[k]))} ({pc(geomean(st[k]))})" for k in ["on", "sleep", "off"])
                + f" | {wakes:.2f} | {seed} |")
    out.append("")
    late = {v: [cost(runs, v, n) for n in samples] for v in ["bank-late", "line-late"]}
    stall = {v: [power(runs[v][n]["stats"], lv)["cycles"]["wake_stall_cycles"]
                 for n in samples for lv in ["l1", "l2"]] for v in ["bank-late", "line-late"]}
    hidden = [cost(runs, v, n) for v in GATED for n in samples]
    out.append(
        f"Cycle cost: with the queues' lookahead (2 cycles, the default) "
        f"{'no sample loses a cycle' if all(c == 0 for c in hidden) else 'some samples lose cycles'}"
        f" under any gating (largest change {pc(max(abs(c) for c in hidden), 3)}); "
        f"a gating logic that sees a request only at the array costs "
        f"{pc(mean(late['bank-late']), 2)} (bank) and {pc(mean(late['line-late']), 2)} (line) "
        f"on average, at most {pc(max(late['bank-late']), 2)} and {pc(max(late['line-late']), 2)} "
        f"({sum(stall['bank-late']):,} and {sum(stall['line-late']):,} cycles of accesses "
        "waiting for a wake-up, summed over the samples).\n")
    return out


def main():
    args = parse_args(__doc__, "docs/snooze-results.md", 10, 4)
    docs = {}
    for config, _ in CONFIGS:
        docs[config] = {v: run_setup(args, f"snooze-{config}-{v}", config, overrides, [],
                                     SAMPLES) for v, overrides in VARIANTS}
    lines = [
        "# Snooze: measured (generated by tools/snooze_table.py)\n",
        f"Size `{args.size}`, {sampling_note(args)}; the seed's workloads' stand-ins "
        f"(tools/snooze_table.py lists them). `left`: the leakage of the L1 data arrays (all "
        "SMs) or the L2's, with Snooze, as a share of the same arrays ON for every cycle of "
        "every launch; ON counts the 2 waking cycles of each wake-up, Sleep leaks 22.8% and "
        "OFF 1.5% (the seed's Table 5.2). `cost`: cycles over those without Snooze; with the "
        "default lookahead every wake-up is hidden and the statistics are the baseline's, so "
        "the column says `0` when no gating variant changed a cycle. docs/techniques.md "
        "explains the differences from the seed.\n",
    ]
    for config, label in CONFIGS:
        lines += config_section(config, label, docs[config])
    write_page(args.out, lines, {f"{c}-{v}": d for c, ds in docs.items() for v, d in ds.items()})


if __name__ == "__main__":
    main()
