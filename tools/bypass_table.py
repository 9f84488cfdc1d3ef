#!/usr/bin/env python3
"""Reproduces the evaluation of issue 15 (BOW, BOW-WR, half-size BOW-WR, the register-file
cache) and writes docs/bypass-results.md: every Rodinia sample through `warpsim rf` on BOW's
setup at instruction windows of 2, 3 and 7, then the paper's quantities computed from the
runs' statistics, beside the paper's figures.

    python3 tools/bypass_table.py                      # default size, sampled, every core
    python3 tools/bypass_table.py --size small --out /tmp/b.md

Setup (docs/techniques.md says why): titanx-bow (the BOW paper's Pascal TITAN X, Table 3.2:
56 SMs, 32 warps per SM, 256 KB register file in 32 banks, 32 collector units, GTO).
  iw3: techniques baseline, bow, bow-wr, bow-half, rfc   (sm.rf.bow.window = 3, the paper's)
  iw2, iw7: techniques bow, bow-wr                     (sm.rf.bow.window = 2 / 7;
            `--windows 3` leaves them out; their baseline is iw3's, the window being
            BOW's alone)
and `warpsim characterize` (its 16 CTAs per launch, and --kernel-minsts) for the
opportunity: the operands reused within each window (the paper's Figure 3.3) and the values
read once (the register-file cache's motivation).

At the default size the timing model is sampled (`--kernel-minsts 5 --launch-waves 1`: the
56-SM titanx-bow times a wave of four times as many CTAs as the Fermi setups of
tools/techniques_table.py, at half their speed). The statistics of each simulation are kept in
--work as soon as it ends; one whose statistics are there from the same setup is not repeated,
so an interrupted run resumes. The default --work, results/bypass, is committed (compressed,
results/README.md): the evaluation is several CPU-hours on the 2-core machine and goes on
across sessions. Delete it after changing the timing model.
"""

import json
import os
import subprocess
import sys

from rf_runs import (by_sample, counter, dyn, expand_samples, geomean, ipc, mean, parse_args, pct,
                     per_sample_table, ratio_of, run_setup, sampling_note, timed_share,
                     write_page)

CONFIG = "titanx-bow"
# The instruction windows, in the order their setups run.
WINDOWS = [2, 7, 3]


def setup(window):
    """(name, overrides, techniques, whether the baseline runs) of the runs at instruction
    window `window`. The baseline runs at IW = 3 alone: the window is read by BOW only, so the
    baseline's statistics are the same at every window."""
    techniques = ["bow", "bow-wr"] + (["bow-half", "rfc"] if window == 3 else [])
    return f"bow-iw{window}", [f"sm.rf.bow.window={window}"], techniques, window == 3


def forwarded_share(s):
    """Register reads forwarded from the collector (or, for rfc, hits in the cache)."""
    reads = counter(s, "operand_reads")
    hits = counter(s, "forwarded_reads") + counter(s, "cache_hits")
    return hits / reads if reads else None


def saved_share(s):
    """Register writes that never reach the register file."""
    writes = counter(s, "register_writes")
    saved = sum(counter(s, k) for k in ["writes_consolidated", "writes_dropped",
                                        "writes_retired", "writes_dead"])
    return saved / writes if writes else None


def split(runs, tech):
    """BOW-WR's write targets over the results they were decided for (whole writes read at
    least once), summed over samples: RF only, window only, both; and the shares among all
    results of those nothing reads, of those written by fewer lanes than alive with no copy to
    merge into (sent to the register file), and of those merged into a copy."""
    keys = ["writes_rf_only", "writes_window_only", "writes_both", "writes_unread",
            "writes_partial", "writes_merged", "register_writes"]
    t = {k: sum(counter(s["stats"], k) for s in runs[tech].values()) for k in keys}
    decided = t["writes_rf_only"] + t["writes_window_only"] + t["writes_both"]
    shares = [t[k] / decided for k in keys[:3]] if decided else [None] * 3
    return shares, [t[k] / t["register_writes"] for k in keys[3:6]]


def residency(s):
    """Cycles from collector allocation to dispatch per warp instruction."""
    return s["rf"]["collector_wait_cycles"] / max(1, s["warp_insts"])


def characterization(args):
    """`warpsim characterize` of every Rodinia sample (observing at most --kernel-minsts
    million warp instructions per kernel, and 16 CTAs per launch, its default): the
    mean over samples of the share of values read once, and of BOW's bypassable reads and
    writes per window ({window: (reads, writes)}, the paper's Figure 3.3), in percent."""
    path = os.path.join(args.work, f"characterize-{args.size}.json")
    names = expand_samples(args.warpsim, ["rodinia"])
    kept = []
    if os.path.exists(path):
        with open(path) as f:
            kept = json.load(f)["samples"]
    # `warpsim characterize` rewrites its file after every sample, so one cut short holds the
    # samples it finished; each sample's row depends on that sample alone, so the missing ones
    # are characterized by themselves and merged in (--kept-only tabulates those it holds).
    missing = [n for n in names if n not in {s["sample"] for s in kept}]
    if missing and args.kept_only:
        print(f"characterize: {len(missing)} samples not in {path} (--kept-only)",
              file=sys.stderr)
    elif missing:
        part = path + ".part.json"
        cmd = [args.warpsim, "characterize", *missing, "--size", args.size, "--json", part]
        if args.kernel_minsts:
            cmd += ["--kernel-minsts", str(args.kernel_minsts)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        print(f"characterize: {' '.join(cmd)}", file=sys.stderr)
        subprocess.run(cmd, stdout=subprocess.DEVNULL)
        if not os.path.exists(part):
            sys.exit("warpsim characterize failed")
        with open(part) as f:
            doc = json.load(f)
        order = {n: i for i, n in enumerate(names)}
        doc["samples"] = sorted(kept + doc["samples"], key=lambda s: order[s["sample"]])
        # warpsim's per-column average covered the last run's samples only; the means this
        # script reports are computed from the rows.
        doc.pop("average", None)
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
        os.remove(part)
    if not os.path.exists(path):
        return None, {w: (None, None) for w in [2, 3, 7]}
    with open(path) as f:
        summaries = [s["summary"] for s in json.load(f)["samples"]]
    once = mean(s["values_read_once"] for s in summaries)
    windows = {}
    for w in [2, 3, 7]:
        per = [b for s in summaries for b in s["bypass"] if b["window"] == w]
        windows[w] = (mean(b["reads"] for b in per), mean(b["writes"] for b in per))
    return once, windows


def main():
    args = parse_args(__doc__, "docs/bypass-results.md", 5, 1,
                      extra=[("--windows", {"default": "2,3,7",
                                            "help": "instruction windows to time (3 always: "
                                                    "default 2,3,7)"})],
                      work="results/bypass")
    windows = sorted({3} | {int(w) for w in args.windows.split(",")})

    docs = {name: run_setup(args, name, CONFIG, ov, t, baseline=b)
            for name, ov, t, b in map(setup, [w for w in WINDOWS if w in windows])}
    runs = {name: by_sample(doc) for name, doc in docs.items()}
    for name in runs:
        runs[name].setdefault("baseline", runs["bow-iw3"]["baseline"])
    iw3, iw2, iw7 = (runs.get(f"bow-iw{w}") for w in [3, 2, 7])
    samples = docs["bow-iw3"]["samples"]
    once, opportunity = characterization(args)

    def m(r, tech, f):
        return mean(f(s["stats"]) for s in r.get(tech, {}).values())

    def g(r, tech, f):
        return geomean(ratio_of(r, tech, f).values()) - 1

    def bypassed(r, window):
        reads, writes = opportunity[window]
        timed = (f"{pct(m(r, 'bow-wr', forwarded_share), False)} / "
                 f"{pct(m(r, 'bow-wr', saved_share), False)}" if r else "not timed (--windows)")
        seen = f"{reads:.1f}% / {writes:.1f}%" if reads is not None else "not characterized"
        return f"opportunity {seen}; BOW-WR {timed}"

    def ipcs(r):
        return f"{pct(g(r, 'bow', ipc))} / {pct(g(r, 'bow-wr', ipc))}" if r else "not timed"

    (rf_only, window_only, both), (unread, partial, merged) = split(iw3, "bow-wr")
    rows = [
        ("reads / writes bypassed, IW = 2", "45% / 35%", bypassed(iw2, 2)),
        ("reads / writes bypassed, IW = 3", "59% / 52%", bypassed(iw3, 3)),
        ("reads / writes bypassed, IW = 7", "> 70% reads", bypassed(iw7, 7)),
        ("IPC: BOW / BOW-WR / half-size BOW-WR (IW = 3)", "+11% / +13% / ~+11%",
         " / ".join(pct(g(iw3, t, ipc)) for t in ["bow", "bow-wr", "bow-half"])),
        ("IPC: BOW / BOW-WR, IW = 2 and IW = 7", "IW 2 below IW 3; little beyond",
         f"IW 2: {ipcs(iw2)}; IW 7: {ipcs(iw7)}"),
        ("collector residency (BOW, IW = 3)", "−60%", pct(g(iw3, "bow", residency))),
        ("RF dynamic energy: BOW / BOW-WR (IW = 3)", "−36% / −55%",
         " / ".join(pct(g(iw3, t, dyn)) for t in ["bow", "bow-wr"])),
        ("BOW-WR write targets: RF only / window only / both (IW = 3)", "21% / 52% / 27%",
         " / ".join(pct(x, False) for x in [rf_only, window_only, both])),
        ("RFC IPC on the same setup", "< +2%", pct(g(iw3, "rfc", ipc))),
        ("RFC: reads hitting the cache / writes never reaching the RF / RF dynamic energy", "—",
         f"{pct(m(iw3, 'rfc', forwarded_share), False)} / "
         f"{pct(m(iw3, 'rfc', saved_share), False)} / {pct(g(iw3, 'rfc', dyn))}"),
        ("values read once (the RFC's motivation)", "~70%",
         f"{once:.1f}%" if once is not None else "not characterized"),
    ]

    iw3_techniques = ["baseline", "bow", "bow-wr", "bow-half", "rfc"]
    timed_all = sum(all(n in iw3.get(t, {}) for t in iw3_techniques) for n in samples)
    out = ["# BOW and the register-file cache: measured against the paper (generated)\n"]
    sampling = sampling_note(args)
    out.append(f"Generated by `python3 tools/bypass_table.py` (`--size {args.size}`; "
               f"{sampling}): {len(samples)} Rodinia samples ({timed_all} with every IW = 3 run) "
               "through `warpsim rf` on "
               f"`{CONFIG}` (docs/techniques.md explains the setup, the quantities and the "
               "differences). Shares are arithmetic means of each sample's share, changes "
               "geometric means of each sample's ratio to the baseline.\n")
    out.append("| quantity | paper | warpsim |\n|---|---|---|")
    out += [f"| {q} | {paper} | {ours} |" for q, paper, ours in rows]
    out.append("")
    out.append("BOW-WR results written by fewer lanes than the warp has alive (a guard, or "
               "lanes waiting on the SIMT stack): merged into the collector's copy and directed "
               f"by the hint {pct(merged, False)}, with no copy to merge into and so sent to the "
               f"register file {pct(partial, False)} (of all results); results nothing reads: "
               f"{pct(unread, False)}.\n")
    base = iw3["baseline"]
    out.append("Baseline (mean over samples): collector residency "
               f"{m(iw3, 'baseline', residency):.1f} cycles per warp instruction; bank "
               "conflicts per bank read "
               f"{m(iw3, 'baseline', lambda s: s['rf']['bank_conflicts'] / max(1, s['rf']['reads'])):.2f}; "
               "scheduler outcomes issued "
               f"{pct(mean(s['stats']['stalls']['issued'] / max(1, sum(s['stats']['stalls'][k] for k in ['issued', 'structural', 'data', 'fetch', 'barrier', 'idle'])) for s in base.values()), False)}.\n")
    out.append("## Per sample (IW = 3)\n")
    out.append("Reads forwarded and writes saved by BOW-WR; IPC, collector residency and RF "
               "dynamic energy relative to the baseline.\n")
    cols = ["timed", "fwd reads", "saved writes", "IPC BOW", "IPC BOW-WR", "IPC half",
            "IPC RFC", "res. BOW", "dyn BOW", "dyn BOW-WR", "dyn RFC"]
    def row(n):
        wr = iw3["bow-wr"][n]["stats"]
        cells = [pct(timed_share(base[n]["stats"]), False),
                 pct(forwarded_share(wr), False), pct(saved_share(wr), False)]
        cells += [pct(ratio_of(iw3, t, ipc)[n] - 1) for t in ["bow", "bow-wr", "bow-half", "rfc"]]
        cells.append(pct(ratio_of(iw3, "bow", residency)[n] - 1))
        cells += [pct(ratio_of(iw3, t, dyn)[n] - 1) for t in ["bow", "bow-wr", "rfc"]]
        return cells

    out += per_sample_table(cols, samples, row, lambda n: n.removeprefix("rodinia/"))
    write_page(args.out, out, docs)


if __name__ == "__main__":
    main()
