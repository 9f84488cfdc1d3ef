#!/usr/bin/env python3
"""Reproduces RegMutex's evaluation (issue 17; seed 000, §4.4) and writes
docs/regmutex-results.md: register-limited samples through `warpsim rf` on gtx480 (GTO) with
static residency, RegMutex and an unbounded register file, then samples that registers do not
limit on a gtx480 with half its register file, beside the paper's figures.

    python3 tools/regmutex_table.py                    # default size, sampled, every core
    python3 tools/regmutex_table.py --size small --out /tmp/r.md

Setups (docs/techniques.md says why these samples):
  full:     gtx480; techniques baseline, regmutex, unlimited; REGISTER_LIMITED samples
  half-ref: gtx480; the baseline alone; HALF_RF samples (the reference of the half-RF figures)
  half:     gtx480 with sm.registers = 16384; techniques baseline, regmutex; HALF_RF samples

At the default size each kernel's first 5 million warp instructions are timed, launch by
launch (`--kernel-minsts 5`), and every CTA of a timed launch (`--launch-waves 0`: RegMutex
changes how many CTAs run at once, so a launch cut to the baseline's first wave would hide it).
The statistics of each simulation are kept in --work (default target/techniques) as soon as it
ends; a simulation whose statistics are there from the same setup is not repeated, so an
interrupted run resumes (delete the folder after changing the simulator).
"""

from rf_runs import (OUTCOMES, by_sample, mean, parse_args, pct, per_sample_table, run_setup,
                     sampling_note, timed_share, write_page)

CONFIG = "gtx480"
# Register-limited on gtx480 at the default size (docs/workloads.md's occupancy column), the
# paper's where we have them: BFS, DWT2D, HotSpot3D, ParticleFilter, HeartWall.
REGISTER_LIMITED = [
    "parboil/bfs", "rodinia/dwt2d_53", "rodinia/dwt2d_97", "rodinia/hotspot3D",
    "rodinia/particlefilter_float", "rodinia/heartwall", "rodinia/hotspot", "rodinia/b+tree",
    "polybench/syr2k", "sdk/scalarProd", "dnn/cifarnet", "dnn/mobilenet",
]
# Not register-limited on gtx480: the paper's Gaussian, SPMV, SRAD, MRI-Q, CUTCP and TPACF;
# BlackScholes for its MonteCarlo (both SDK option pricers) and polybench/gemm for MergeSort,
# which our suites lack. (sdk/matrixMul's CTAs of 1,024 threads × 20 registers do not fit in
# half the register file at all.)
HALF_RF = [
    "rodinia/gaussian", "parboil/spmv", "rodinia/srad_v2", "parboil/mri-q", "parboil/cutcp",
    "parboil/tpacf", "sdk/BlackScholes", "polybench/gemm",
]


def rc(s, key):
    """A RegMutex counter of run statistics `s`."""
    return s["residency"]["counters"].get(key, 0)


def cycles(s):
    return s["gpu_sim_cycle"]


def change(runs, tech, n, ref=None):
    """Cycles of `tech` on sample `n` relative to the baseline (of `ref` if given), minus 1."""
    base = (ref or runs)["baseline"][n]["stats"]
    return cycles(runs[tech][n]["stats"]) / cycles(base) - 1


def split_text(s):
    """The mean split of the launches RegMutex split: base / extended (sections)."""
    k = rc(s, "split_launches")
    if not k:
        fallbacks = [f.removeprefix("fallback_") for f in
                     ["fallback_no_gain", "fallback_calls", "fallback_no_split"] if rc(s, f)]
        return "none (" + ", ".join(fallbacks) + ")" if fallbacks else "none"
    return (f"{rc(s, 'base_set') / k:.0f} + {rc(s, 'extended_set') / k:.0f} "
            f"({rc(s, 'srp_sections') / k:.0f})")


def stall_share(s):
    st = s["stalls"]
    total = sum(st[k] for k in OUTCOMES)
    return st["registers"] / total if total else None


def main():
    args = parse_args(__doc__, "docs/regmutex-results.md", 5, 0)
    docs = {
        "full": run_setup(args, "regmutex-full", CONFIG, [], ["regmutex", "unlimited"],
                          REGISTER_LIMITED),
        "half-ref": run_setup(args, "regmutex-half-ref", CONFIG, [], [], HALF_RF),
        "half": run_setup(args, "regmutex-half", CONFIG, ["sm.registers=16384"],
                          ["regmutex"], HALF_RF),
    }
    full, ref, half = (by_sample(docs[k]) for k in ["full", "half-ref", "half"])
    limited = [n for n in REGISTER_LIMITED if n in full.get("regmutex", {})]
    halved = [n for n in HALF_RF if n in half.get("regmutex", {}) and n in ref.get("baseline", {})]

    def cut(n, tech):
        return change(full, tech, n)

    bfs = "parboil/bfs"
    rows = [
        ("cycles, register-limited kernels (mean)", "−13%",
         pct(mean(cut(n, "regmutex") for n in limited))),
        ("cycles, BFS", "−23%", pct(cut(bfs, "regmutex")) if bfs in limited else "not run"),
        ("cycles, unbounded register file (mean; the bound)", "—",
         pct(mean(cut(n, "unlimited") for n in limited))),
        ("half RF, no technique: cycles vs the full RF (mean)", "+23% (Fig. 4.9: +22.9%)",
         pct(mean(change(half, "baseline", n, ref) for n in halved))),
        ("half RF with RegMutex: cycles vs the full RF (mean)", "+9% (Fig. 4.9: +10.8%)",
         pct(mean(change(half, "regmutex", n, ref) for n in halved))),
    ]

    out = ["# RegMutex: measured against the paper (generated)\n"]
    out.append(f"Generated by `python3 tools/regmutex_table.py` (`--size {args.size}`; "
               f"{sampling_note(args)}) on `{CONFIG}` (docs/techniques.md explains the setup, "
               "the quantities and the differences). Means are arithmetic means of each "
               "sample's change, as the paper averages its kernels.\n")
    out.append("| quantity | paper | warpsim |\n|---|---|---|")
    out += [f"| {q} | {paper} | {ours} |" for q, paper, ours in rows]
    out.append("")

    def acquire_cells(s):
        a = rc(s, "acquires")
        waited = rc(s, "acquires_waited") / a if a else None
        return [split_text(s), f"{a:,}", pct(waited, False), pct(stall_share(s), False)]

    out.append("## Register-limited samples, full register file\n")
    out.append("Split: base + extended registers per thread (pool sections), the mean over the "
               "launches split; acquires, the share that waited for a section, and the share of "
               "scheduler cycles stalled on registers.\n")
    cols = ["timed", "cycles", "RegMutex", "unbounded", "split", "acquires", "waited",
            "reg. stalls"]
    def full_row(n):
        b = full["baseline"][n]["stats"]
        return [pct(timed_share(b), False), f"{cycles(b):,}", pct(cut(n, "regmutex")),
                pct(cut(n, "unlimited"))] + acquire_cells(full["regmutex"][n]["stats"])

    out += per_sample_table(cols, REGISTER_LIMITED, full_row)
    out.append("")
    out.append("## Half the register file (16,384 registers per SM)\n")
    out.append("Cycles relative to the baseline with the full register file.\n")
    cols = ["timed", "cycles (full RF)", "half RF", "half RF + RegMutex", "split", "acquires",
            "waited", "reg. stalls"]
    def half_row(n):
        b = ref["baseline"][n]["stats"]
        return [pct(timed_share(b), False), f"{cycles(b):,}",
                pct(change(half, "baseline", n, ref)), pct(change(half, "regmutex", n, ref))
                ] + acquire_cells(half["regmutex"][n]["stats"])

    out += per_sample_table(cols, HALF_RF, half_row)
    write_page(args.out, out, docs)


if __name__ == "__main__":
    main()
