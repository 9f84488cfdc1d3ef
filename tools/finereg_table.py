#!/usr/bin/env python3
"""Reproduces FineReg's evaluation (issue 17; seed 001, §VI) and writes
docs/finereg-results.md: samples through `warpsim rf` on gtx980 (the paper's GTX 980-like
baseline, 4 GTO schedulers) with static residency, FineReg and an unbounded register file,
beside the paper's figures.

    python3 tools/finereg_table.py                     # default size, sampled, every core
    python3 tools/finereg_table.py --size small --out /tmp/f.md

Setups (docs/techniques.md says why these samples):
  finereg:      gtx980; techniques baseline, finereg, unlimited; REGISTER_LIMITED samples (the
                paper's Type-R: registers limit their CTAs) and SCHEDULING_LIMITED ones (its
                Type-S, where warpsim's FineReg, without Virtual Thread, falls back to static
                residency)
  finereg-pcrf: the same with a quarter of the register file as the PCRF
                (sm.rf.finereg.pending_registers = 16384: 64 KB + 192 KB); finereg alone, the
                baseline being the first setup's

At the default size each kernel's first 5 million warp instructions are timed, launch by
launch (`--kernel-minsts 5`), and every CTA of a timed launch (`--launch-waves 0`: FineReg
changes how many CTAs run at once). The statistics of each simulation are kept in --work
(default target/techniques) as soon as it ends; a simulation whose statistics are there from
the same setup is not repeated, so an interrupted run resumes (delete the folder after changing
the simulator).
"""

from rf_runs import (mean, outcome_share, parse_args, pct, per_sample_table, run_setup,
                     sampling_note, timed_share, by_sample, write_page)

CONFIG = "gtx980"
# Register-limited on gtx980 at the default size (registers per thread above 32, or CTAs whose
# registers exhaust the file first), the paper's where we have them: LBM, CFD, HotSpot (3D).
# (The slowest to simulate last, so that an interrupted run has the others.)
REGISTER_LIMITED = [
    "parboil/lbm", "rodinia/cfd", "rodinia/hotspot3D", "rodinia/dwt2d_53", "rodinia/dwt2d_97",
    "parboil/sad", "parboil/mri-gridding", "polybench/covariance", "dnn/cifarnet",
    "dnn/mobilenet", "rodinia/leukocyte", "rodinia/heartwall",
]
# Limited by threads or CTA slots on gtx980: the paper's BFS and NW (Type-S).
SCHEDULING_LIMITED = ["rodinia/bfs", "rodinia/nw"]
# A quarter of gtx980's 65,536 registers as the PCRF.
QUARTER_PCRF = "sm.rf.finereg.pending_registers=16384"


def rc(s, key):
    """A residency counter of run statistics `s`."""
    return s["residency"]["counters"].get(key, 0)


def cycles(s):
    return s["gpu_sim_cycle"]


def ipc_change(runs, tech, n):
    return runs[tech][n]["stats"]["gpu_ipc"] / runs["baseline"][n]["stats"]["gpu_ipc"] - 1


def concurrency(s):
    """Warps resident per cycle (summed over SMs)."""
    return s["resident_warp_cycles"] / cycles(s)


def concurrency_change(runs, tech, n):
    return (concurrency(runs[tech][n]["stats"]) /
            concurrency(runs["baseline"][n]["stats"]) - 1)


def energy_change(runs, tech, n):
    e = lambda t: runs[t][n]["stats"]["energy"]["rf_total_pj"]
    return e(tech) / e("baseline") - 1


def live_share(s):
    """Of the registers allocated to the CTAs FineReg suspended, the share live (moved)."""
    allocated = rc(s, "allocated_registers_suspended")
    return rc(s, "live_registers_moved") / allocated if allocated else None


def fallback_text(s):
    """Why launches fell back to static residency. Reasons only: runs kept before warpsim
    stopped reporting a policy's per-launch plan for untimed launches (f450278) count those
    too, so the counts would mix timed and untimed launches."""
    names = ["fallback_no_gain", "fallback_acrf_too_small"]
    hits = [f.removeprefix("fallback_") for f in names if rc(s, f)]
    return ", ".join(hits) if hits else "—"


def main():
    args = parse_args(__doc__, "docs/finereg-results.md", 5, 0)
    docs = {
        "finereg": run_setup(args, "finereg", CONFIG, [], ["finereg", "unlimited"],
                             REGISTER_LIMITED + SCHEDULING_LIMITED),
        "finereg-pcrf": run_setup(args, "finereg-pcrf", CONFIG, [QUARTER_PCRF], ["finereg"],
                                  REGISTER_LIMITED, baseline=False),
    }
    runs = by_sample(docs["finereg"])
    # The quarter-PCRF runs under their own name beside the others.
    runs["finereg-pcrf"] = by_sample(docs["finereg-pcrf"]).get("finereg", {})
    done = lambda names: [n for n in names if n in runs.get("finereg", {})
                          and n in runs.get("baseline", {})]
    limited = done(REGISTER_LIMITED)
    scheduling = done(SCHEDULING_LIMITED)

    def over(names, f, tech="finereg"):
        """The mean of f over the samples of `names` that `tech` ran."""
        return pct(mean(f(runs, tech, n) for n in names if n in runs.get(tech, {})))

    def share(names, f):
        return pct(mean(f(runs["finereg"][n]["stats"]) for n in names), False)

    rows = [
        ("IPC (mean)", "+32.8% (all 18 kernels)", over(limited, ipc_change)),
        ("IPC, unbounded register file (mean; the bound)", "—",
         over(limited, ipc_change, "unlimited")),
        ("IPC, PCRF a quarter of the file (64 + 192 KB; mean)", "—",
         over(limited, ipc_change, "finereg-pcrf")),
        ("concurrent CTAs (resident warps per cycle, mean)",
         "+111.8% (text) / +141.7% (Fig. 12); Type-R +79.8%", over(limited, concurrency_change)),
        ("register-file depletion stalls (share of scheduler cycles)", "1.3%",
         share(limited, lambda s: outcome_share(s, "registers"))),
        ("register-file energy, dynamic + leakage (mean)", "−21.3%",
         over(limited, energy_change)),
        ("live share of a suspended CTA's registers", "55.3% of allocated registers touched "
         "in 1,000-instruction windows (a different measure)", share(limited, live_share)),
        ("IPC, scheduling-limited samples (mean)", "Type-S: +~40% (with Virtual Thread)",
         over(scheduling, ipc_change)),
    ]

    out = ["# FineReg: measured against the paper (generated)\n"]
    out.append(f"Generated by `python3 tools/finereg_table.py` (`--size {args.size}`; "
               f"{sampling_note(args)}) on `{CONFIG}` (docs/techniques.md explains the setup, "
               "the quantities and the differences). Means are arithmetic means of each "
               "sample's change; rows other than the last are over the register-limited "
               "samples.\n")
    out.append("| quantity | paper | warpsim |\n|---|---|---|")
    out += [f"| {q} | {paper} | {ours} |" for q, paper, ours in rows]
    out.append("")
    out.append("## Per sample\n")
    out.append("IPC and resident warps per cycle relative to the baseline; suspensions (moves "
               "to the pending-CTA register file, swaps included) per CTA, the live share of "
               "the suspended CTAs' registers, the scheduler cycles stalled on registers, and "
               "why launches fell back to static residency (some or all of them).\n")
    cols = ["timed", "cycles", "FineReg IPC", "¼ PCRF IPC", "unbounded IPC", "resident warps",
            "suspensions", "per CTA", "live share", "reg. stalls", "RF energy", "fallback"]

    def row(n):
        b = runs["baseline"][n]["stats"]
        f = runs["finereg"][n]["stats"]
        suspended = rc(f, "suspensions")
        quarter = (pct(ipc_change(runs, "finereg-pcrf", n)) if n in runs["finereg-pcrf"]
                   else "—")
        return [pct(timed_share(b), False), f"{cycles(b):,}", pct(ipc_change(runs, "finereg", n)),
                quarter, pct(ipc_change(runs, "unlimited", n)),
                pct(concurrency_change(runs, "finereg", n)), f"{suspended:,}",
                f"{suspended / f['ctas']:.2f}", pct(live_share(f), False),
                pct(outcome_share(f, "registers"), False), pct(energy_change(runs, "finereg", n)),
                fallback_text(f)]

    out += per_sample_table(cols, REGISTER_LIMITED + SCHEDULING_LIMITED, row)
    write_page(args.out, out, docs)


if __name__ == "__main__":
    main()
