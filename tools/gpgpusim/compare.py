#!/usr/bin/env python3
"""Run a list of kernel launches on warpsim and on GPGPU-Sim, and tabulate them counter by counter.

    python3 tools/gpgpusim/compare.py LAUNCHES.toml [--presets gtx480,v100] [--out DIR]
        [--warpsim target/release/warpsim] [--reference FILE] [--rerun-gpgpusim]

LAUNCHES.toml lists launches in run-ptx's terms::

    [[launch]]
    name = "saxpy_2^16"
    ptx = "samples/saxpy/saxpy.ptx"          # relative to the repository
    kernel = "saxpy"
    grid = "256"                             # X[,Y,Z]
    block = "256"
    shared = 0                               # dynamic shared memory, bytes (optional)
    args = ["u32:65536", "f32:2.0", "seq:f32:65536:97", "rand:f32:65536:7"]

(a `bin:` path relative to the repository; `regs = N` gives warpsim's occupancy N registers per
thread, for PTX not in samples/ptxas-registers.tsv; default `--regs ptxas`) or captures launches
of a sample (`warpsim run SAMPLE --capture-launches`, functional) and
picks some by their number in the run::

    [[capture]]
    sample = "rodinia/hotspot"
    size = "default"                         # warpsim run's --size (default: default)
    launches = [0, 1]                        # launch numbers, from 0 (launches.toml's names)
    per_kernel = 2                           # launches captured per kernel (default: 1)

Captures are kept in the output folder's capture/ (`--recapture` makes them again). A launch
may set module variables (`symbols = ["NAME=bin:u8:PATH"]`, run-ptx's `--symbol`).

An argument is any of run-ptx's (`u32:V`, `f32:V`, `zeros:TYPE:N`, `@K`, ...) or a generated
buffer, written once into the output folder and passed to both simulators as `bin:TYPE:PATH`:
`seq:TYPE:N:M` (element i is i mod M), `rand:TYPE:N:SEED` (a fixed 64-bit LCG: integers
below 2^16, floats in [0, 1)) and `chase:TYPE:N:S` (element i is (i + S) mod N: a pointer-chase
ring of indices, as tools/microbench.py makes them).

Each launch runs on warpsim (`run-ptx --timing PRESET --regs ptxas --memory-check device
--stats-json`) and on GPGPU-Sim with the matching configuration of its tested-cfgs (built by
tools/gpgpusim/build.sh; power model off, `-gpgpu_perf_sim_memcpy 0` so the L2 starts cold as
in warpsim, and no kernel launch latency, which warpsim does not model, unless
`--keep-launch-latency`). GPGPU-Sim's figures are kept in the reference file (default
tools/gpgpusim/reference.json) with the simulator's commit, keyed by launch and preset with a
hash of the launch, its PTX and the options, and rerun only when missing, stale or asked for
(`--rerun-gpgpusim`, after a new GPGPU-Sim): they change only when GPGPU-Sim or the launch does,
so a comparison needs no GPGPU-Sim build when they are committed. The output folder gets table.md (per preset: every counter of both
simulators and their ratio; the correlation and mean absolute error of cycles), results.json and
cycles.svg (warpsim's cycles against GPGPU-Sim's, log-log, one colour a preset).
"""

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
WORK = REPO / "target" / "gpgpusim"
DEFAULT_REFERENCE = Path(__file__).resolve().parent / "reference.json"

# warpsim's preset -> GPGPU-Sim 4.2's tested configuration of the same GPU.
CONFIGS = {
    "gtx480": "SM2_GTX480",
    "titanx": "SM6_TITANX",
    "v100": "SM7_QV100",
    "rtx2060": "SM75_RTX2060",
    "rtx3070": "SM86_RTX3070",
}
# Options appended to every configuration, and lines of the 4.2-era configurations it refuses.
GPGPUSIM_OPTIONS = [
    "-power_simulation_enabled 0",
    "-enable_ptx_file_line_stats 0",
    "-gpgpu_perf_sim_memcpy 0",
]
# The modern configurations count a kernel launch latency (5,000 cycles) inside a kernel's
# cycles; warpsim models none, so it is set to 0 unless --keep-launch-latency.
NO_LAUNCH_LATENCY = "-gpgpu_kernel_launch_latency 0"
REFUSED_OPTIONS = re.compile(r"^-gpuwattch_xml_file\b.*$", re.M)

# The counters compared: name -> (warpsim's from its statistics, GPGPU-Sim's from its log).
COUNTERS = [
    "cycles",
    "warp_insts",
    "l1d_accesses",
    "l1d_misses",
    "l2_accesses",
    "l2_misses",
    "dram_reads",
    "dram_writes",
    "ctas_per_sm",
    "regs",
]


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------

PACK = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q", "i8": "b", "i16": "h", "i32": "i",
        "i64": "q", "f32": "f", "f64": "d"}


def lcg(seed):
    state = seed & (2**64 - 1)
    while True:
        state = (state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        yield state >> 33


def generated(spec, folder):
    """`seq:`/`rand:` arguments become `bin:TYPE:PATH` files in `folder`; others stay."""
    kind, _, rest = spec.partition(":")
    if kind not in ("seq", "rand", "chase"):
        return spec
    parts = rest.split(":")
    if len(parts) != 3 or parts[0] not in PACK:
        sys.exit(f"compare.py: bad generated argument `{spec}` (seq:TYPE:N:M, rand:TYPE:N:SEED "
                 "or chase:TYPE:N:S)")
    ty, n, k = parts[0], int(parts[1]), int(parts[2])
    path = folder / f"{kind}_{ty}_{n}_{k}.bin"
    if not path.exists():
        if kind == "seq":
            values = [i % k for i in range(n)]
        elif kind == "chase":
            values = [(i + k) % n for i in range(n)]
        else:
            g = lcg(k)
            values = [next(g) % 65536 for _ in range(n)]
            if ty.startswith("f"):
                values = [v / 65536.0 for v in values]
        if ty.startswith("f"):
            values = [float(v) for v in values]
        path.write_bytes(struct.pack(f"<{n}{PACK[ty]}", *values))
    return f"bin:{ty}:{path}"


# ---------------------------------------------------------------------------------------------
# The two simulators
# ---------------------------------------------------------------------------------------------

def captured(warpsim, entry, folder, recapture):
    """The launches a `[[capture]]` entry picks, captured by warpsim into `folder`/capture/."""
    sample, size = entry["sample"], entry.get("size", "default")
    per_kernel = entry.get("per_kernel", 1)
    where = folder / "capture" / f"{size}-{per_kernel}"
    listing = where / sample / "launches.toml"
    if recapture or not listing.exists():
        # One host thread: CTAs then run in one order, so a launch whose inputs depend on
        # the order of atomics between CTAs (a BFS frontier) is captured the same every time
        # and keeps matching its GPGPU-Sim figure.
        cmd = [str(warpsim), "run", sample, "--size", size, "--functional", "--threads", "1",
               "--capture-launches", str(where), "--capture-per-kernel", str(per_kernel)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"compare.py: capturing {sample} ({size}) failed:\n{done.stdout}{done.stderr}")
    found = {}
    for launch in tomllib.loads(listing.read_text()).get("launch", []):
        found[int(launch["name"].split(".")[-2])] = launch
    picked = []
    for n in entry["launches"]:
        launch = found.get(n)
        if launch is None:
            sys.exit(f"compare.py: {sample} ({size}) has no captured launch {n} (have: "
                     f"{sorted(found)}; raise per_kernel?)")
        if "unreplayable" in launch:
            sys.exit(f"compare.py: {launch['name']} cannot be replayed: {launch['unreplayable']}")
        launch = dict(launch)
        ptx = Path(launch["ptx"])
        if ptx.is_absolute() and ptx.is_relative_to(REPO):
            launch["ptx"] = str(ptx.relative_to(REPO))
        picked.append(launch)
    return picked


def in_repo(launch):
    """A `[[launch]]` whose `bin:` inputs (arguments and symbols) name relative paths: made
    absolute from the repository root, as `ptx` is (GPGPU-Sim runs in a folder of its own)."""
    def absolute(spec):
        parts = spec.split(":", 2)
        if parts[0] == "bin" and len(parts) == 3 and not Path(parts[2]).is_absolute():
            return f"bin:{parts[1]}:{REPO / parts[2]}"
        return spec

    def symbol(spec):
        name, _, value = spec.partition("=")
        return f"{name}={absolute(value)}"
    launch = dict(launch)
    if "args" in launch:
        launch["args"] = [absolute(a) for a in launch["args"]]
    if "symbols" in launch:
        launch["symbols"] = [symbol(v) for v in launch["symbols"]]
    return launch


def file_stem(launch):
    """A launch's name as a file name (captured names hold the sample's `suite/`)."""
    return launch["name"].replace("/", "-")


def run_warpsim(warpsim, launch, args, preset, folder):
    stats = folder / f"{file_stem(launch)}.{preset}.warpsim.json"
    cmd = [str(warpsim), "run-ptx", str(REPO / launch["ptx"]), "--kernel", launch["kernel"],
           "--grid", str(launch["grid"]), "--block", str(launch["block"]),
           "--shared", str(launch.get("shared", 0)), "--timing", preset,
           "--regs", str(launch.get("regs", "ptxas")),
           "--memory-check", "device", "--stats-json", str(stats)]
    for a in args:
        cmd += ["--arg", a]
    for v in launch.get("symbols", []):
        cmd += ["--symbol", v]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise Failed("warpsim: " + " / ".join(done.stderr.strip().splitlines()[-3:]))
    total = json.loads(stats.read_text())[0]["total"]
    mem = total["mem"]
    return {
        "cycles": total["gpu_sim_cycle"],
        "warp_insts": total["warp_insts"],
        "l1d_accesses": mem["l1d_accesses"],
        "l1d_misses": mem["l1d_misses"],
        # In sectors, as GPGPU-Sim's sectored L2 counts them (one access a sector request).
        "l2_accesses": mem["l2_sector_accesses"],
        "l2_misses": mem["l2_sector_misses"],
        "dram_reads": mem["dram_reads"],
        "dram_writes": mem["dram_writes"],
        "ctas_per_sm": total["occupancy"]["ctas_per_sm"],
        "regs": total["occupancy"]["regs_needed"],
        "slots": dict(total["stalls"]),
        # Mean cycles from an L1 access to the reply of each packet it sent below (GPGPU-Sim's
        # averagemflatency); not in COUNTERS: the committed GPGPU-Sim figures predate it.
        "fetch_latency": round(mem["fetch_latency"] / max(1, mem["fetches"])),
    }


def gpgpusim_log_counters(log):
    """The counters of a GPGPU-Sim log (the totals it prints at exit)."""
    def last(name):
        found = re.findall(rf"^{re.escape(name)}\s*=\s*(\d+)", log, re.M)
        if not found:
            raise ValueError(f"`{name}` missing from GPGPU-Sim's log")
        return int(found[-1])

    l1 = re.findall(r"L1D_cache_core\[\d+\]: Access = (\d+), Miss = (\d+)", log)
    ctas = re.findall(r"CTA/core = (\d+)", log)
    regs = re.findall(r"Kernel '[^']*' : regs=(\d+)", log)
    mfl = re.findall(r"^averagemflatency\s*=\s*(\d+)", log, re.M)
    return {
        "cycles": last("gpu_tot_sim_cycle"),
        "warp_insts": last("gpgpu_n_tot_w_icount"),
        "l1d_accesses": sum(int(a) for a, _ in l1),
        "l1d_misses": sum(int(m) for _, m in l1),
        "l2_accesses": last("L2_total_cache_accesses"),
        "l2_misses": last("L2_total_cache_misses"),
        "dram_reads": sum(int(n) for n in re.findall(r"\bn_rd=(\d+)", log)),
        "dram_writes": sum(int(n) for n in re.findall(r"\bn_write=(\d+)", log)),
        "ctas_per_sm": int(ctas[-1]) if ctas else None,
        "regs": int(regs[-1]) if regs else None,
        "slots": issue_slots(log),
        "stall_dramfull": last("gpu_stall_dramfull"),
        "stall_icnt2sh": last("gpu_stall_icnt2sh"),
        # Printed only under -gpgpu_memlatency_stat (every tested configuration sets it).
        "fetch_latency": int(mfl[-1]) if mfl else None,
    }


def issue_slots(log):
    """GPGPU-Sim's warp issue distribution (its `Stall:... W0_Idle:... W0_Scoreboard:... W1:...
    W32:...` line): scheduler slots that issued (W1..W32, by active threads), found every warp
    waiting on the scoreboard, found no warp, or stalled in the pipeline."""
    line = re.findall(r"^Stall:.*$", log, re.M)
    if not line:
        raise ValueError("the warp issue distribution is missing from GPGPU-Sim's log")
    fields = dict((k, int(v)) for k, v in re.findall(r"(\w+):(\d+)", line[-1]))
    return {
        "issued": sum(v for k, v in fields.items() if re.fullmatch(r"W([1-9]|[12]\d|3[0-2])", k)),
        "scoreboard": fields.get("W0_Scoreboard", 0),
        "idle": fields.get("W0_Idle", 0),
        "stall": fields.get("Stall", 0),
    }


class Failed(Exception):
    """A simulator did not complete a launch (recorded and reported, not fatal)."""


def run_gpgpusim(launch, args, preset, folder, options, timeout):
    config_dir = WORK / "gpgpu-sim" / "configs" / "tested-cfgs" / CONFIGS[preset]
    with tempfile.TemporaryDirectory(prefix="gpgpusim-") as run_dir:
        run_dir = Path(run_dir)
        for f in config_dir.iterdir():
            shutil.copy(f, run_dir)
        config = run_dir / "gpgpusim.config"
        text = REFUSED_OPTIONS.sub("", config.read_text())
        config.write_text(text + "\n" + "\n".join(options) + "\n")
        cmd = ["bash", "-c", 'source "$1"; shift; exec ptxsim "$@"', "env",
               str(WORK / "env.sh"), str(REPO / launch["ptx"]), "--kernel", launch["kernel"],
               "--grid", str(launch["grid"]), "--block", str(launch["block"]),
               "--shared", str(launch.get("shared", 0))]
        for a in args:
            cmd += ["--arg", a]
        for v in launch.get("symbols", []):
            cmd += ["--symbol", v]
        log_file = folder / f"{file_stem(launch)}.{preset}.gpgpusim.log"
        try:
            done = subprocess.run(cmd, cwd=run_dir, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired as e:
            log_file.write_text((e.stdout or b"").decode(errors="replace")
                                if isinstance(e.stdout, bytes) else (e.stdout or ""))
            raise Failed(f"GPGPU-Sim did not finish in {timeout} s")
        log = done.stdout + done.stderr
        log_file.write_text(log)
        if done.returncode != 0 or "exit detected" not in log:
            last = [line for line in log.splitlines() if line.strip()][-3:]
            raise Failed(f"GPGPU-Sim exited with {done.returncode}: " + " / ".join(last))
        return gpgpusim_log_counters(log)


def gpgpusim_commit():
    head = subprocess.run(["git", "-C", str(WORK / "gpgpu-sim"), "rev-parse", "HEAD"],
                          capture_output=True, text=True)
    if head.returncode != 0:
        sys.exit("compare.py: GPGPU-Sim is not built: run tools/gpgpusim/build.sh GIT_DIR first")
    return head.stdout.strip()


def launch_key(launch, preset, options):
    """What a GPGPU-Sim figure depends on besides the simulator: the launch, its PTX and input
    files (by content, wherever they lie), the configuration and the options given."""
    def content(spec):
        parts = spec.split(":", 2)
        if parts[0] != "bin" or len(parts) != 3:
            return spec
        return f"bin:{parts[1]}:{hashlib.sha256(Path(parts[2]).read_bytes()).hexdigest()}"

    def symbol(spec):
        name, _, value = spec.partition("=")
        return f"{name}={content(value)}"
    fields = {k: v for k, v in launch.items() if k != "warp_insts"}
    fields["args"] = [content(a) for a in launch.get("args", [])]
    fields["symbols"] = [symbol(v) for v in launch.get("symbols", [])]
    text = json.dumps([fields, preset, options], sort_keys=True)
    ptx = (REPO / launch["ptx"]).read_bytes()
    return hashlib.sha256(text.encode() + ptx).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# Statistics and output
# ---------------------------------------------------------------------------------------------

def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else float("nan")


def ratio(w, g):
    if w is None or g is None:
        return "n/a"
    if g == 0:
        return "=" if w == 0 else "inf"
    return f"{w / g:.2f}"


def shares(slots):
    """`issued 28% · data 37% · ...`: each category's share of the slots, largest first."""
    if not slots:
        return "n/a"
    total = sum(slots.values()) or 1
    parts = sorted(slots.items(), key=lambda kv: -kv[1])
    return " · ".join(f"{k} {100 * v / total:.0f}%" for k, v in parts if v)


def within(rows, counter, tolerance):
    """The share of `rows` whose `counter` is within `tolerance` of GPGPU-Sim's (equal zeros
    count as within)."""
    def ok(r):
        w, g = r["warpsim"][counter], r["gpgpusim"][counter]
        return w == g or (g > 0 and abs(w / g - 1) <= tolerance)
    return sum(ok(r) for r in rows) / len(rows)


def bars(mine):
    """Issue 48's bars for one preset: cycles' mean absolute error, launches outside ±25%,
    Pearson correlation; L2 misses and DRAM reads within 20%."""
    ws = [r["warpsim"]["cycles"] for r in mine]
    gs = [r["gpgpusim"]["cycles"] for r in mine]
    errors = [abs(w / g - 1) for w, g in zip(ws, gs)]
    return {
        "launches": len(mine),
        "cycles_mae": sum(errors) / len(mine),
        "cycles_outside_25": sum(e > 0.25 for e in errors),
        "cycles_pearson": pearson(ws, gs),
        "l2_misses_within_20": within(mine, "l2_misses", 0.20),
        "dram_reads_within_20": within(mine, "dram_reads", 0.20),
    }


def table(rows, presets):
    out = ["## Summary against issue 48's bars\n",
           "Bars: cycles' mean absolute error ≤ 10%, no launch outside ±25%, Pearson ≥ 0.98; "
           "L2 misses and DRAM reads within 20% on ≥ 90% of launches.\n",
           "| preset | launches | cycles MAE | outside ±25% | Pearson | L2 misses ±20% | "
           "DRAM reads ±20% | failed |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for preset in presets:
        mine = [r for r in rows if r["preset"] == preset and "failed" not in r]
        failed = sum(r["preset"] == preset and "failed" in r for r in rows)
        if mine:
            b = bars(mine)
            out.append(f"| {preset} | {b['launches']} | {100 * b['cycles_mae']:.1f}% | "
                       f"{b['cycles_outside_25']} | {b['cycles_pearson']:.3f} | "
                       f"{100 * b['l2_misses_within_20']:.0f}% | "
                       f"{100 * b['dram_reads_within_20']:.0f}% | {failed} |")
    out.append("")
    failures = [r for r in rows if "failed" in r]
    if failures:
        out.append("## Launches that did not complete\n")
        out.append("| launch | preset | why |")
        out.append("|---|---|---|")
        out += [f"| {r['name']} | {r['preset']} | {r['failed']} |" for r in failures]
        out.append("")
    rows = [r for r in rows if "failed" not in r]
    for preset in presets:
        mine = [r for r in rows if r["preset"] == preset]
        if not mine:
            continue
        b = bars(mine)
        out.append(f"## {preset} against GPGPU-Sim's {CONFIGS[preset]}\n")
        out.append(f"{len(mine)} launches; cycles: correlation {b['cycles_pearson']:.3f}, mean "
                   f"absolute error {100 * b['cycles_mae']:.1f}%.\n")
        out.append("| launch | " + " | ".join(COUNTERS) + " |")
        out.append("|---|" + "---:|" * len(COUNTERS))
        for r in mine:
            cells = [f"{r['warpsim'][c]} / {r['gpgpusim'][c]} ({ratio(r['warpsim'][c], r['gpgpusim'][c])})"
                     for c in COUNTERS]
            out.append(f"| {r['name']} | " + " | ".join(cells) + " |")
        out.append("")
    out.append("Each cell: warpsim / GPGPU-Sim (warpsim ÷ GPGPU-Sim). DRAM reads and writes in "
               "both simulators' access units (32-byte bursts); L1D summed over the SMs.\n")
    out.append("## Scheduler slots\n")
    out.append("Each simulator's own categories, as shares of its scheduler slots (warpsim: "
               "issued, waiting on data, structural hazard, fetch, barrier, idle, register "
               "residency; GPGPU-Sim: issued, every warp on the scoreboard, no warp, pipeline "
               "stall), and GPGPU-Sim's memory-stall counters.\n")
    out.append("| launch | preset | warpsim | GPGPU-Sim | GPGPU-Sim dramfull / icnt2sh |")
    out.append("|---|---|---|---|---:|")
    for r in rows:
        g = r["gpgpusim"]
        out.append(f"| {r['name']} | {r['preset']} | {shares(r['warpsim'].get('slots'))} | "
                   f"{shares(g.get('slots'))} | {g.get('stall_dramfull', 'n/a')} / "
                   f"{g.get('stall_icnt2sh', 'n/a')} |")
    out.append("")
    return "\n".join(out)


def scatter(rows, presets):
    """warpsim's cycles against GPGPU-Sim's, log-log, with the diagonal and decade ticks."""
    points = [(r["gpgpusim"]["cycles"], r["warpsim"]["cycles"], r["preset"]) for r in rows
              if "failed" not in r]
    if not points:
        return ""
    lo = math.floor(math.log10(min(min(p[0], p[1]) for p in points)) * 2) / 2
    hi = math.ceil(math.log10(max(max(p[0], p[1]) for p in points)) * 2) / 2
    size, pad = 480, 70
    at = lambda v: pad + (math.log10(v) - lo) / (hi - lo) * (size - 2 * pad)
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{size}" height="{size}" fill="white"/>',
           f'<rect x="{pad}" y="{pad}" width="{size - 2 * pad}" height="{size - 2 * pad}" '
           f'fill="none" stroke="#333"/>',
           f'<line x1="{pad}" y1="{size - pad}" x2="{size - pad}" y2="{pad}" stroke="#999" '
           f'stroke-dasharray="4 3"/>',
           f'<text x="{size / 2}" y="{size - 20}" text-anchor="middle">GPGPU-Sim cycles</text>',
           f'<text x="{pad}" y="{pad - 12}">warpsim cycles (dashed: equal)</text>']
    # Ticks at 1, 2 and 5 times each power of ten inside the range.
    for e in range(int(lo) - 1, int(hi) + 1):
        for m in (1, 2, 5):
            v = m * 10**e
            if lo <= math.log10(v) <= hi:
                x, label = at(v), f"{v:,}"
                svg.append(f'<line x1="{x:.1f}" y1="{size - pad}" x2="{x:.1f}" '
                           f'y2="{size - pad + 5}" stroke="#333"/>')
                svg.append(f'<text x="{x:.1f}" y="{size - pad + 18}" text-anchor="middle" '
                           f'font-size="10">{label}</text>')
                svg.append(f'<line x1="{pad - 5}" y1="{size - x:.1f}" x2="{pad}" '
                           f'y2="{size - x:.1f}" stroke="#333"/>')
                svg.append(f'<text x="{pad - 8}" y="{size - x + 4:.1f}" text-anchor="end" '
                           f'font-size="10">{label}</text>')
    for i, preset in enumerate(presets):
        colour = colours[i % len(colours)]
        y = pad + 16 + 16 * i
        svg.append(f'<circle cx="{pad + 12}" cy="{y - 4}" r="4" fill="{colour}"/>')
        svg.append(f'<text x="{pad + 22}" y="{y}">{preset}</text>')
        for g, w, p in points:
            if p == preset:
                svg.append(f'<circle cx="{at(g):.1f}" cy="{size - at(w):.1f}" r="4" '
                           f'fill="{colour}" fill-opacity="0.8"/>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("launches", type=Path)
    p.add_argument("--presets", default="gtx480", help="comma-separated; of " + ", ".join(CONFIGS))
    p.add_argument("--out", type=Path, default=REPO / "target" / "gpgpusim-compare")
    p.add_argument("--warpsim", type=Path, default=REPO / "target" / "release" / "warpsim")
    p.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    p.add_argument("--keep-launch-latency", action="store_true",
                   help="keep the configurations' kernel launch latency (default: 0, as warpsim)")
    p.add_argument("--rerun-gpgpusim", action="store_true",
                   help="run GPGPU-Sim even where the reference file has the launch")
    p.add_argument("--gpgpusim-timeout", type=int, default=3600, metavar="SECONDS",
                   help="give up on a GPGPU-Sim run after this long (recorded as failed)")
    p.add_argument("--jobs", type=int, default=1,
                   help="launches run at once (each simulator run is one process)")
    p.add_argument("--reference-only", action="store_true",
                   help="never run GPGPU-Sim: compare only the launches the reference file has")
    p.add_argument("--rerun-failed", action="store_true",
                   help="run GPGPU-Sim again where the reference file records a failure")
    p.add_argument("--recapture", action="store_true",
                   help="capture the [[capture]] entries' samples again")
    o = p.parse_args()
    # GPGPU-Sim runs in a folder of its own: every path handed to it must be absolute.
    o.out = o.out.resolve()
    presets = o.presets.split(",")
    for preset in presets:
        if preset not in CONFIGS:
            sys.exit(f"compare.py: no GPGPU-Sim configuration for preset `{preset}` (have: "
                     f"{', '.join(CONFIGS)})")
    if not o.warpsim.exists():
        sys.exit(f"compare.py: no warpsim at {o.warpsim} (cargo build --release -p warpsim)")
    listed = tomllib.loads(o.launches.read_text())
    o.out.mkdir(parents=True, exist_ok=True)
    launches = [in_repo(launch) for launch in listed.get("launch", [])]
    for entry in listed.get("capture", []):
        launches += captured(o.warpsim, entry, o.out, o.recapture)
    if not launches:
        sys.exit(f"compare.py: {o.launches} lists no [[launch]] or [[capture]]")
    options = GPGPUSIM_OPTIONS + ([] if o.keep_launch_latency else [NO_LAUNCH_LATENCY])
    reference = json.loads(o.reference.read_text()) if o.reference.exists() else {}
    lock = threading.Lock()

    def one(launch, preset):
        row = {"name": launch["name"], "preset": preset}
        args = [generated(a, o.out) for a in launch.get("args", [])]
        key = launch_key(launch, preset, options)
        with lock:
            entry = reference.get(launch["name"], {}).get(preset)
        stale = entry is None or entry["key"] != key
        if o.reference_only and stale:
            return None
        if o.rerun_gpgpusim or stale or (o.rerun_failed and "failed" in entry):
            entry = {"key": key, "commit": gpgpusim_commit()}
            try:
                entry["counters"] = run_gpgpusim(launch, args, preset, o.out, options,
                                                 o.gpgpusim_timeout)
            except Failed as e:
                # A failure of GPGPU-Sim itself (a deadlock, say) is a figure too: kept, and
                # reported rather than rerun every time.
                entry["failed"] = str(e)
            # Written as each finishes, so an interrupted run resumes where it stopped.
            with lock:
                reference.setdefault(launch["name"], {})[preset] = entry
                o.reference.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")
        try:
            row["warpsim"] = run_warpsim(o.warpsim, launch, args, preset, o.out)
        except Failed as e:
            row["failed"] = str(e)
        if "failed" in entry:
            row["failed"] = entry["failed"]
        if "failed" in row:
            print(f"{launch['name']:<48} {preset:<8} FAILED: {row['failed']}", flush=True)
            return row
        row["gpgpusim"] = gs = entry["counters"]
        ws = row["warpsim"]
        print(f"{launch['name']:<48} {preset:<8} cycles warpsim {ws['cycles']:>10} "
              f"GPGPU-Sim {gs['cycles']:>10}  {ratio(ws['cycles'], gs['cycles'])}", flush=True)
        return row

    work = [(launch, preset) for launch in launches for preset in presets]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, o.jobs)) as pool:
        rows = [r for r in pool.map(lambda lp: one(*lp), work) if r is not None]
    if o.reference_only:
        print(f"{len(rows)} of {len(work)} launches have GPGPU-Sim figures in {o.reference}")
    (o.out / "results.json").write_text(json.dumps(rows, indent=1) + "\n")
    (o.out / "table.md").write_text(table(rows, presets))
    (o.out / "cycles.svg").write_text(scatter(rows, presets))
    print(f"wrote {o.out / 'table.md'}, results.json and cycles.svg")


if __name__ == "__main__":
    main()
