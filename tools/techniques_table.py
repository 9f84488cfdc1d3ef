#!/usr/bin/env python3
"""Reproduces the evaluation of issue 14 (CORF, CORF++, CMRC) and writes
docs/techniques-results.md: every Rodinia sample through `warpsim rf` on each paper's setup,
then the papers' quantities computed from the runs' statistics, beside the papers' figures.

    python3 tools/techniques_table.py                      # default size, sampled, every core
    python3 tools/techniques_table.py --size small --out /tmp/t.md

At the default size the timing model is sampled (`--kernel-minsts 20 --launch-waves 2`, see
docs/techniques.md): timed whole, the nine simulations of the default size take about thirty
CPU-hours (cfd alone 1.5 G cycles per run). `--kernel-minsts 0 --launch-waves 0` times all.

Setups (docs/techniques.md says why):
  corf: gtx480-4bank with sm.scheduler=two-level  (CORF's Fermi baseline)
        techniques baseline, packing (first fit), corf, corf++
  cmrc-wid, cmrc-wshift: gtx480-cmrc with sm.rf.mapping=wid / wshift  (CMRC's baseline)
        techniques baseline, cmrc, and cmrc-ideal (wid only: the limit study's range)

The statistics of each simulation are kept in --work (default target/techniques) as soon as it
ends; one whose statistics are there from the same setup is not repeated, so an interrupted run
resumes (delete the folder after changing the simulator). Only the standard library is needed.
"""

from rf_runs import (accesses, by_sample, counter, dyn, geomean, ipc, mean, outcome_share,
                     parse_args, pct, per_sample_table, ratio_of, run_setup, sampling_note,
                     timed_share, write_page)

SETUPS = [
    ("corf", "gtx480-4bank", ["sm.scheduler=two-level"], ["packing", "corf", "corf++"]),
    ("cmrc-wid", "gtx480-cmrc", ["sm.rf.mapping=wid"], ["cmrc", "cmrc-ideal"]),
    ("cmrc-wshift", "gtx480-cmrc", ["sm.rf.mapping=wshift"], ["cmrc"]),
]


def coalesced_share(s):
    m = counter(s, "multi_source_insts")
    return counter(s, "coalesced_insts") / m if m else None


def physical_share(s, base):
    # Physical registers in use per cycle against the registers the baseline allocates per
    # cycle (resident warps x registers per thread), both averaged over each run's cycles.
    used = counter(s, "physical_register_cycles") / s["gpu_sim_cycle"]
    allocated = base["rf_counts"]["allocated_register_cycles"] / base["gpu_sim_cycle"]
    return used / allocated if allocated else None


def widths(runs):
    """Share of register reads and writes (all lanes) per width class, baseline, summed."""
    r = [0, 0, 0, 0]
    w = [0, 0, 0, 0]
    for s in runs["baseline"].values():
        for k in range(4):
            r[k] += s["stats"]["widths"]["reads_all_lanes"][k]
            w[k] += s["stats"]["widths"]["writes_all_lanes"][k]
    return [x / sum(r) for x in r], [x / sum(w) for x in w]


def main():
    args = parse_args(__doc__, "docs/techniques-results.md", 20, 2)

    docs = {name: run_setup(args, name, cfg, ov, t) for name, cfg, ov, t in SETUPS}
    corf = by_sample(docs["corf"])
    wid = by_sample(docs["cmrc-wid"])
    wshift = by_sample(docs["cmrc-wshift"])
    samples = docs["corf"]["samples"]

    def m(runs, tech, f):
        return mean(f(s["stats"]) for s in runs[tech].values())

    def g(runs, tech, f):
        return geomean(ratio_of(runs, tech, f).values()) - 1

    def reads(s):
        return s["rf_counts"]["bank_reads"]

    ideal = list(ratio_of(wid, "cmrc-ideal", ipc).values())
    phys = {t: mean(physical_share(s["stats"], corf["baseline"][n]["stats"])
                    for n, s in corf[t].items()) for t in ["packing", "corf", "corf++"]}
    def write_share(t, key):
        return (sum(counter(s["stats"], key) for s in corf[t].values())
                / max(1, sum(counter(s["stats"], "register_writes") for s in corf[t].values())))

    realloc = {t: write_share(t, "reallocations") for t in ["packing", "corf", "corf++"]}
    same_writer = {t: realloc[t] - write_share(t, "reallocations_new_writer")
                   for t in ["packing", "corf", "corf++"]}
    rows = [
        ("instructions with ≥ 2 register sources whose reads coalesce (first-fit / CORF / CORF++)",
         "4% / 23% / 48%",
         " / ".join(pct(m(corf, t, coalesced_share), False)
                    for t in ["packing", "corf", "corf++"])),
        ("RF access reduction, reads + writes (CORF / CORF++)", "10% / 23%",
         " / ".join(pct(-g(corf, t, accesses), False) for t in ["corf", "corf++"])),
        ("RF read reduction (CORF / CORF++)", "—",
         " / ".join(pct(-g(corf, t, reads), False) for t in ["corf", "corf++"])),
        ("IPC (CORF / CORF++)", "+4% / +9%",
         " / ".join(pct(g(corf, t, ipc)) for t in ["corf", "corf++"])),
        ("RF dynamic energy (CORF / CORF++)", "−8.5% / −17%",
         " / ".join(pct(g(corf, t, dyn)) for t in ["corf", "corf++"])),
        ("allocated physical registers against the baseline's (packing / CORF / CORF++)",
         "−34% (packing)",
         " / ".join(pct(phys[t] - 1) for t in ["packing", "corf", "corf++"])),
        ("writes that reallocate a grown value (packing / CORF / CORF++)", "< 0.3%",
         " / ".join(pct(realloc[t], False) for t in ["packing", "corf", "corf++"])),
        ("… of which the grown value's instruction also wrote the value before (packing / "
         "CORF / CORF++; the rest: a register reused for another value)", "—",
         " / ".join(pct(same_writer[t], False) for t in ["packing", "corf", "corf++"])),
        ("RF bank accesses (CMRC wid / wshift)", "−31.8% / −30.5%",
         f"{pct(g(wid, 'cmrc', accesses))} / {pct(g(wshift, 'cmrc', accesses))}"),
        ("RF bank reads (CMRC wid / wshift)", "—",
         f"{pct(g(wid, 'cmrc', reads))} / {pct(g(wshift, 'cmrc', reads))}"),
        ("IPC (CMRC wid / wshift; ideal, range over samples)", "+15.3% / +16.5%; +7% to +40%",
         f"{pct(g(wid, 'cmrc', ipc))} / {pct(g(wshift, 'cmrc', ipc))}; "
         f"{pct(min(ideal) - 1)} to {pct(max(ideal) - 1)}"),
        ("RF dynamic energy (CMRC wid / wshift)", "−31.1% / −32.2%",
         f"{pct(g(wid, 'cmrc', dyn))} / {pct(g(wshift, 'cmrc', dyn))}"),
    ]
    rw, ww = widths(corf)

    out = []
    out.append("# Register-file techniques: measured against the papers (generated)\n")
    sampling = sampling_note(args)
    out.append(f"Generated by `python3 tools/techniques_table.py` (`--size {args.size}`; "
               f"{sampling}): "
               f"{len(samples)} Rodinia samples through `warpsim rf` on each paper's setup "
               "(docs/techniques.md explains the setups, the quantities and the differences). "
               "Means are over samples: shares are arithmetic means of each sample's share, "
               "changes geometric means of each sample's ratio to the baseline.\n")
    out.append("| quantity | paper | warpsim |\n|---|---|---|")
    for q, paper, ours in rows:
        out.append(f"| {q} | {paper} | {ours} |")
    out.append("")
    out.append("Width of the values, all 32 lanes, baseline on the CORF setup "
               "(1 / 2 / 3 / 4 bytes): reads "
               + " / ".join(pct(x, False) for x in rw) + "; writes "
               + " / ".join(pct(x, False) for x in ww) + ".\n")

    out.append("Where the baseline's schedulers spend their cycles (mean over samples of the "
               "share of scheduler outcomes, CMRC setup, `wid`): issued "
               + " / ".join(f"{k} {pct(m(wid, 'baseline', lambda s, k=k: outcome_share(s, k)), False)}"
                            for k in ["issued", "structural", "data", "fetch", "barrier", "idle"])
               .removeprefix("issued ")
               + "; read conflicts per bank read "
               + f"{m(wid, 'baseline', lambda s: s['rf']['bank_conflicts'] / max(1, s['rf']['reads'])):.2f}.\n")
    out.append("## Per sample\n")
    out.append("CORF setup (gtx480-4bank, two-level scheduling): coalesced share of "
               "instructions with ≥ 2 register sources, and IPC, RF accesses and RF dynamic "
               "energy relative to the baseline. CMRC setup (gtx480-cmrc, `wid`): the same "
               "relative figures, and the share of the baseline's scheduler outcomes that found "
               "no warp at all (idle).\n")
    cols = ["timed", "≥2-src insts", "coal. first-fit", "coal. CORF", "coal. CORF++", "IPC CORF",
            "IPC CORF++", "acc. CORF", "acc. CORF++", "dyn CORF", "dyn CORF++", "IPC CMRC",
            "IPC ideal", "acc. CMRC", "dyn CMRC", "idle"]

    def row(n):
        b = corf["baseline"][n]["stats"]
        share2 = sum(b["insts_by_sources"][2:]) / b["warp_insts"]
        cells = [pct(timed_share(b), False), pct(share2, False)]
        cells += [pct(coalesced_share(corf[t][n]["stats"]), False)
                  for t in ["packing", "corf", "corf++"]]
        for f in [ipc, accesses, dyn]:
            cells += [pct(ratio_of(corf, t, f)[n] - 1) for t in ["corf", "corf++"]]
        return cells + [pct(ratio_of(wid, "cmrc", ipc)[n] - 1),
                        pct(ratio_of(wid, "cmrc-ideal", ipc)[n] - 1),
                        pct(ratio_of(wid, "cmrc", accesses)[n] - 1),
                        pct(ratio_of(wid, "cmrc", dyn)[n] - 1),
                        pct(outcome_share(wid["baseline"][n]["stats"], "idle"), False)]

    out += per_sample_table(cols, samples, row, lambda n: n.removeprefix("rodinia/"))
    write_page(args.out, out, docs)


if __name__ == "__main__":
    main()
