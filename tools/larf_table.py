#!/usr/bin/env python3
"""Reproduces the evaluation of LARF and LAS (issue 17; seed 000, §5.6) and writes
docs/larf-results.md: the paper's DNN and matrix-multiply workloads (as near as our suites
come) through `warpsim rf` on titanx (Pascal) with the baseline, LARF with a 400-entry address
mapping table, LARF with an unbounded one, and LARF under the LAS scheduler, beside the
paper's figures.

    python3 tools/larf_table.py                        # default size, sampled, every core
    python3 tools/larf_table.py --size small --out /tmp/l.md

Setups (docs/techniques.md says why these samples):
  larf:     titanx (GTO, the vanilla Pascal baseline); techniques baseline, larf,
            larf-infinite
  larf-las: titanx with sm.scheduler = las; larf alone, the baseline being the first setup's
  larf-lrr: titanx with sm.scheduler = lrr (LAS's base policy); larf alone: what LAS's
            priority adds, apart from round robin against GTO

At the default size each kernel's first 5 million warp instructions are timed, launch by
launch (`--kernel-minsts 5`), every CTA of a timed launch (`--launch-waves 0`). The statistics
of each simulation are kept in --work (default target/techniques) as soon as it ends; one
whose statistics are there from the same setup is not repeated, so an interrupted run resumes
(delete the folder after changing the simulator).
"""

from rf_runs import (by_sample, mean, parse_args, pct, per_sample_table, run_setup,
                     sampling_note, timed_share, write_page)

CONFIG = "titanx"
# The paper's workloads: CifarNet, MobileNet and AlexNet (Tango), 2MM, 3MM and 3DCONV
# (PolyBench-GPU), and the SDK-like matrixMul of its Figure 5.11. (LeNet, from GPGPU-Sim's
# cuDNN suite, we lack.)
SAMPLES = ["dnn/cifarnet", "dnn/mobilenet", "dnn/alexnet", "polybench/2mm", "polybench/3mm",
           "polybench/3dconv", "sdk/matrixMul"]


def tc(s, key):
    """A technique counter of run statistics `s`."""
    return s["technique"]["counters"].get(key, 0)


def speedup(runs, tech, n):
    return runs["baseline"][n]["stats"]["gpu_sim_cycle"] / runs[tech][n]["stats"]["gpu_sim_cycle"]


def shared_share(s):
    loads = tc(s, "global_loads")
    return tc(s, "loads_shared") / loads if loads else None


def irregular_share(s):
    loads = tc(s, "global_loads")
    return tc(s, "loads_irregular") / loads if loads else None


def register_saving(s):
    """Register-cycles a shared copy saved, over the register-cycles allocated."""
    allocated = s["rf_counts"]["allocated_register_cycles"]
    return tc(s, "register_cycles_saved") / allocated if allocated else None


def launch_pairs(runs, tech, n):
    """(baseline launch, `tech` launch) of sample `n`, matched in launch order."""
    base = runs["baseline"][n].get("launches") or []
    other = runs[tech][n].get("launches") or []
    return [(b, o) for b, o in zip(base, other) if b["kernel"] == o["kernel"]]


def best_launch(runs, tech, names):
    """The largest per-launch speedup and global-load cut of `tech`, with where."""
    speed, cut = (0, None), (0, None)
    for n in names:
        for k, (b, o) in enumerate(launch_pairs(runs, tech, n)):
            where = f"{n} launch {k} ({o['kernel']})"
            if o["cycles"]:
                speed = max(speed, (b["cycles"] / o["cycles"], where))
            loads = o["technique"].get("global_loads", 0)
            if loads:
                cut = max(cut, (o["technique"].get("loads_shared", 0) / loads, where))
    return speed, cut


def main():
    args = parse_args(__doc__, "docs/larf-results.md", 5, 0)
    docs = {
        "larf": run_setup(args, "larf", CONFIG, [], ["larf", "larf-infinite"], SAMPLES),
        "larf-las": run_setup(args, "larf-las", CONFIG, ["sm.scheduler=las"], ["larf"],
                              SAMPLES, baseline=False),
        "larf-lrr": run_setup(args, "larf-lrr", CONFIG, ["sm.scheduler=lrr"], ["larf"],
                              SAMPLES, baseline=False),
    }
    runs = by_sample(docs["larf"])
    runs["larf+las"] = by_sample(docs["larf-las"]).get("larf", {})
    runs["larf+lrr"] = by_sample(docs["larf-lrr"]).get("larf", {})
    done = [n for n in SAMPLES
            if all(n in runs.get(t, {}) for t in ["baseline", "larf", "larf-infinite",
                                                    "larf+las", "larf+lrr"])]

    def e2e(n):
        return (f"{pct(speedup(runs, 'larf+las', n) - 1)}" if n in done else "not run")

    (speed, speed_at), (cut, cut_at) = best_launch(runs, "larf+las", done)
    two_mm = "polybench/2mm"
    def over(tech, base):
        return pct(speedup(runs, tech, two_mm) / speedup(runs, base, two_mm) - 1)

    las_gain = (f"{over('larf+las', 'larf')} over LARF (GTO); {over('larf+las', 'larf+lrr')} "
                "over LARF (LRR)" if two_mm in done else "not run")
    rows = [
        ("best per-layer (launch) speedup, LARF + LAS", "up to 3.5×",
         f"{speed:.2f}× ({speed_at})" if speed_at else "n/a"),
        ("largest cut of a launch's global loads, LARF + LAS", "up to −80%",
         f"{pct(-cut)} ({cut_at})" if cut_at else "n/a"),
        ("end to end, CifarNet", "+10%", e2e("dnn/cifarnet")),
        ("end to end, MobileNet", "+7%", e2e("dnn/mobilenet")),
        ("2MM: LAS over LARF alone", "+40%", las_gain),
        ("register saving (register-cycles a shared copy saves / allocated; mean)",
         "~50% of live registers (a different measure)",
         pct(mean(register_saving(runs["larf"][n]["stats"]) for n in done), False)),
    ]
    out = ["# LARF and LAS: measured against the paper (generated)\n"]
    out.append(f"Generated by `python3 tools/larf_table.py` (`--size {args.size}`; "
               f"{sampling_note(args)}) on `{CONFIG}` (docs/techniques.md explains the setup, "
               "the quantities and the differences). A launch is one layer of a DNN sample.\n")
    out.append("| quantity | paper | warpsim |\n|---|---|---|")
    out += [f"| {q} | {paper} | {ours} |" for q, paper, ours in rows]
    out.append("")
    out.append("## Per sample\n")
    out.append("Speedups over the baseline (GTO, no sharing) in cycles, of LARF with the "
               "baseline's GTO, with LRR (LAS's base) and with LAS; the share of global "
               "loads served from registers and of loads LARF cannot record (no single stride "
               "across the warp's lanes); entries dropped for room; the change LARF (400) makes "
               "to L1 accesses, L1 misses and DRAM reads (a served load would mostly have hit "
               "in the L1); the register saving.\n")
    cols = ["timed", "cycles", "LARF (400)", "LARF (∞)", "LARF + LRR", "LARF + LAS",
            "loads served",
            "irregular", "capacity evictions", "L1 accesses", "L1 misses", "DRAM reads",
            "register saving"]

    def mem_change(n, key):
        """The change LARF (400) makes to memory counter `key`."""
        base, ours = (runs[t][n]["stats"]["mem"] for t in ["baseline", "larf"])
        f = (lambda m: m["l1d_accesses"] - m["l1d_hits"]) if key == "l1d_misses" else \
            (lambda m: m[key])
        return pct(f(ours) / f(base) - 1) if f(base) else "n/a"

    def row(n):
        b = runs["baseline"][n]["stats"]
        s = runs["larf"][n]["stats"]
        return [pct(timed_share(b), False), f"{b['gpu_sim_cycle']:,}",
                f"{speedup(runs, 'larf', n):.3f}×", f"{speedup(runs, 'larf-infinite', n):.3f}×",
                f"{speedup(runs, 'larf+lrr', n):.3f}×", f"{speedup(runs, 'larf+las', n):.3f}×",
                pct(shared_share(s), False),
                pct(irregular_share(s), False), f"{tc(s, 'evictions_capacity'):,}",
                mem_change(n, "l1d_accesses"), mem_change(n, "l1d_misses"),
                mem_change(n, "dram_reads"), pct(register_saving(s), False)]

    out += per_sample_table(cols, SAMPLES, row)
    write_page(args.out, out, docs)


if __name__ == "__main__":
    main()
