#!/usr/bin/env python3
"""Rewrites the two timing tables of docs/rodinia.md (small and default size on the gtx480)
from runs of the current simulator: per benchmark, each kernel's occupancy and its limiter,
cycles, IPC, achieved occupancy, the share of narrow operands and the L1D hit rate.

    python3 tools/rodinia_timing.py                   # runs what is not cached, then rewrites
    python3 tools/rodinia_timing.py --cached-only     # only what is in target/workloads

Runs and their cache are tools/workloads_table.py's (`warpsim run S --size SIZE --stats-json F`,
one sample per process, so each starts on a cold GPU): the default-size runs serve both pages.
Each table sits between `<!-- rodinia_timing.py: SIZE -->` and `<!-- end -->` lines in the page;
the rest of the page is left as it is.
"""

import argparse
import concurrent.futures
import re
import sys

from workloads_table import parse_run_arguments, run_arguments, samples_of, timed_run

HEADER = ["benchmark", "occupancy on gtx480", "cycles", "IPC", "achieved occupancy",
          "1 B / ≤ 2 B operands", "L1D hits"]


def row(sample, stats):
    """The table cells of one benchmark's run (`None`: not measured; a text: it failed)."""
    name = sample.split("/", 1)[1]
    if stats is None or isinstance(stats, str):
        return [name, "not measured" if stats is None else "failed"] + [""] * 5
    occupancy, seen = [], set()
    for k in stats["kernels"]:
        if k["kernel"] not in seen:
            seen.add(k["kernel"])
            o = k["occupancy"]
            occupancy.append(f"{o['ctas_per_sm']} × {o['warps_per_cta']}, {o['limiter']}")
    t = stats["total"]
    cycles = f"{t['gpu_sim_cycle']:,}"
    untimed = t.get("untimed", {}).get("warp_insts", 0)
    if untimed:
        cycles += f" (sampled: {t['warp_insts'] / (t['warp_insts'] + untimed):.1%} timed)"
    w = t["widths"]
    accesses = [r + wr for r, wr in zip(w["reads_all_lanes"], w["writes_all_lanes"])]
    total = sum(accesses) or 1
    m = t["mem"]
    l1d = m["l1d_hits"] / m["l1d_accesses"] if m["l1d_accesses"] else 0.0
    return [name, "; ".join(occupancy), cycles, f"{t['gpu_ipc']:.1f}",
            f"{t['achieved_occupancy']:.0%}",
            f"{accesses[0] / total:.0%} / {(accesses[0] + accesses[1]) / total:.0%}",
            f"{l1d:.1%}"]


def table(rows):
    return ["| " + " | ".join(HEADER) + " |",
            "|" + "|".join(["---"] * 2 + ["---:"] * 5) + "|"] + \
           ["| " + " | ".join(r) + " |" for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    run_arguments(ap)
    ap.add_argument("--page", default="docs/rodinia.md")
    args = parse_run_arguments(ap)
    args.suites = ["rodinia"]
    samples = samples_of(args)[0]["rodinia"]
    page = open(args.page).read()
    failed = []
    for size in ["small", "default"]:
        def one(s):
            minsts = args.sampled_minsts if size == "default" and s in args.sampled else 0
            return timed_run(args, s, size, minsts)
        with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
            results = dict(zip(samples, pool.map(one, samples)))
        failed += [f"{s} ({size}): {r}" for s, r in results.items() if isinstance(r, str)]
        marker = f"<!-- rodinia_timing.py: {size} -->"
        pattern = re.compile(re.escape(marker) + r"\n.*?<!-- end -->", re.S)
        if not pattern.search(page):
            sys.exit(f"{args.page}: no `{marker}` ... `<!-- end -->` block")
        body = "\n".join([marker] + table(row(s, results[s]) for s in samples) +
                         ["<!-- end -->"])
        page = pattern.sub(lambda _: body, page)
    with open(args.page, "w") as f:
        f.write(page)
    print(f"wrote {args.page}", file=sys.stderr)
    for f in failed:
        print(f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
