"""Running the register-file papers' evaluations and reading their results in `warpsim rf`'s
JSON form: the helpers shared by tools/techniques_table.py (issue 14), tools/bypass_table.py
(issue 15), tools/regmutex_table.py and tools/finereg_table.py (issue 17). Each (technique, sample) simulation is one
`warpsim run`, kept in --work as soon as it ends, so a setup of many CPU-hours resumes after an
interruption. Only the standard library is needed."""

import argparse
import concurrent.futures
import gzip
import json
import math
import os
import re
import subprocess
import sys


# The `--techniques` names that are residency policies (`sm.rf.residency`), as `warpsim rf`
# knows them; every other name is an `sm.rf.technique`.
RESIDENCY = {"unlimited", "regmutex", "finereg"}

# The names that are CTA schedulers (`gpu.cta_scheduler`, issue 18).
CTA_SCHEDULERS = {"round-robin", "bcs", "paver"}


def technique_override(t):
    """The configuration override that runs technique `t` (as `warpsim rf` sets it; a CTA
    scheduler's name sets `gpu.cta_scheduler`)."""
    if t in CTA_SCHEDULERS:
        return f"gpu.cta_scheduler={t}"
    return f"sm.rf.residency={t}" if t in RESIDENCY else f"sm.rf.technique={t}"


def expand_samples(warpsim, samples):
    """Sample names of `samples`, where a suite name stands for its samples in listing order."""
    out = subprocess.run([warpsim, "list"], check=True, capture_output=True, text=True).stdout
    suites = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+\(suite: (\w+)\)", line)
        if m:
            suites.setdefault(m.group(2), []).append(m.group(1))
    names = []
    for s in samples:
        names += suites.get(s, [s])
    return names


def run_job(args, folder, setup, technique, sample):
    """One (technique, sample) simulation of a setup: exactly what `warpsim rf` runs for it
    (`warpsim run SAMPLE --set <technique's key>=T`, one host thread), as a job entry of its
    JSON (technique, sample, status, message, stats), with a few figures of each launch
    (`launches`: kernel, cycles, warp_insts, global_requests, technique and residency
    counters; absent from runs kept by earlier versions, residency counters too). Kept in `folder` and reused when its
    setup is the same, so an interrupted setup resumes where it stopped."""
    path = os.path.join(folder, f"{sample.replace('/', '__')}--{technique}.json")
    # Kept compressed (`.json.gz`, a tenth of the size: an evaluation's kept runs can be
    # committed, results/); plain `.json` as earlier versions kept them is read too.
    for kept, opener in [(path + ".gz", gzip.open), (path, open)]:
        if os.path.exists(kept):
            with opener(kept, "rt") as f:
                job = json.load(f)
            if job.get("setup") == setup:
                return job
    if args.kept_only:
        return {"technique": technique, "sample": sample, "status": "not run",
                "message": "(--kept-only)", "stats": None, "launches": [], "setup": setup}
    stats_path = path + ".stats.tmp"
    cmd = [args.warpsim, "run", sample, "--size", setup["size"], "--config", setup["config"],
           "--threads", "1", "--kernel-minsts", str(setup["kernel_minsts"]),
           "--launch-waves", str(setup["launch_waves"]), "--stats-json", stats_path]
    for o in setup["overrides"] + [technique_override(technique)]:
        cmd += ["--set", o]
    done = subprocess.run(cmd, capture_output=True, text=True)
    verdict = re.search(r"^\S+ \(.*?\): (PASS|FAIL): (.*)$", done.stdout, re.M)
    error = re.search(r"^\S+: ERROR: (.*)$", done.stdout, re.M)
    stats = None
    launches = []
    if os.path.exists(stats_path) and not error:
        with open(stats_path) as f:
            entries = json.load(f)
        stats = entries[0]["total"] if entries else None
        # Per launch, what a per-layer figure needs (a launch's whole statistics would make
        # the kept files of samples with hundreds of launches large).
        launches = [{"kernel": k["kernel"], "cycles": k["gpu_sim_cycle"],
                     "warp_insts": k["warp_insts"],
                     "global_requests": k["ldst"]["global_requests"],
                     "technique": k["technique"]["counters"],
                     "residency": k["residency"]["counters"],
                     "cta_scheduler": k.get("cta_scheduler", {}).get("counters", {})}
                    for e in entries for k in e["kernels"]]
    if verdict and stats is not None:
        status, message = verdict.group(1).lower(), verdict.group(2)
    else:
        status = "error"
        message = (error.group(1) if error else
                   (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1])
    job = {"technique": technique, "sample": sample, "status": status, "message": message,
           "stats": stats if status != "error" else None, "launches": launches,
           "setup": setup}
    # mtime=0: the same job compresses to the same bytes.
    with open(path + ".gz.tmp", "wb") as raw, gzip.GzipFile(filename="", fileobj=raw,
                                                           mode="wb", mtime=0) as f:
        f.write(json.dumps(job).encode())
    os.replace(path + ".gz.tmp", path + ".gz")
    if os.path.exists(stats_path):
        os.remove(stats_path)
    print(f"{folder}: {technique} on {sample}: {status}", file=sys.stderr)
    return job


def run_setup(args, name, config, overrides, techniques, samples=("rodinia",), baseline=True):
    """`techniques` (after the baseline, unless `baseline` is false: a variant whose
    `overrides` leave the baseline as another setup ran it) on `samples` (names or suites) on
    `config` with `overrides`, as `warpsim rf --json` would report them ({samples, jobs,
    ...}). Each
    simulation is its own `warpsim run`, --threads at once, and its statistics are kept in
    --work/<name>-<size>/: a setup that was interrupted resumes where it stopped. A whole
    `warpsim rf --json` file of the same setup in --work (<name>-<size>.json, as earlier
    versions of these scripts wrote) is reused as it is."""
    legacy = os.path.join(args.work, f"{name}-{args.size}.json")
    techniques = ["baseline"] * baseline + techniques
    if os.path.exists(legacy):
        with open(legacy) as f:
            doc = json.load(f)
        if (doc["config"], doc["overrides"], doc["size"], doc["techniques"],
                doc.get("kernel_minsts", 0), doc.get("launch_waves", 0)) == (
            config, overrides, args.size, techniques, args.kernel_minsts, args.launch_waves
        ):
            print(f"{name}: reusing {legacy}", file=sys.stderr)
            return doc
    setup = {"config": config, "overrides": overrides, "size": args.size,
             "kernel_minsts": args.kernel_minsts, "launch_waves": args.launch_waves}
    names = expand_samples(args.warpsim, samples)
    folder = os.path.join(args.work, f"{name}-{args.size}")
    os.makedirs(folder, exist_ok=True)
    todo = [(t, n) for n in names for t in techniques]
    print(f"{name}: {len(todo)} simulations on {config} ({args.size} size), kept in {folder}",
          file=sys.stderr)
    threads = args.threads or os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        jobs = list(pool.map(lambda tn: run_job(args, folder, setup, *tn), todo))
    return {**setup, "techniques": techniques, "samples": names, "jobs": jobs}


def by_sample(doc):
    """{technique: {sample: job}} of the runs that completed (failures are listed apart)."""
    out = {}
    for job in doc["jobs"]:
        if job["stats"] is not None:
            out.setdefault(job["technique"], {})[job["sample"]] = job
    return out


# The scheduler outcomes, one per scheduler per cycle (`registers`: held by the residency
# policy).
OUTCOMES = ["issued", "structural", "data", "fetch", "barrier", "idle", "registers"]


def counter(stats, key):
    return stats["technique"]["counters"].get(key, 0)


def mean(xs):
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return sum(xs) / len(xs) if xs else float("nan")


def geomean(xs):
    xs = [x for x in xs if x is not None and math.isfinite(x) and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def pct(x, signed=True):
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x * 100:+.1f}%" if signed else f"{x * 100:.1f}%"


def accesses(s):
    c = s["rf_counts"]
    return c["bank_reads"] + c["bank_writes"]


def ipc(s):
    return s["gpu_ipc"]


def dyn(s):
    return s["energy"]["rf_dynamic_pj"]


def ratio_of(runs, tech, f):
    """Per sample: f(technique) / f(baseline)."""
    base = runs["baseline"]
    return {n: f(s["stats"]) / f(base[n]["stats"])
            for n, s in runs.get(tech, {}).items()
            if n in base and f(base[n]["stats"]) > 0}


def timed_share(s):
    """Share of the run's warp instructions that the timing model simulated."""
    untimed = s.get("untimed", {}).get("warp_insts", 0)
    return s["warp_insts"] / (s["warp_insts"] + untimed)


def outcome_share(s, key):
    """Share of scheduler outcomes (one per scheduler per cycle) that were `key`."""
    st = s["stalls"]
    total = sum(st[k] for k in OUTCOMES)
    return st[key] / total if total else None


def parse_args(doc, out, minsts, waves, extra=(), work="target/techniques", size="default"):
    """The command line of a table script whose docstring is `doc`: where warpsim is, the size,
    threads, the folder of runs, the output file (default `out`), and the sampling (default
    `minsts` million warp instructions per kernel and `waves` waves per launch at the default
    and large sizes, everything timed at the small size); `extra` adds (flag, keywords)
    options of the script's own; `work` and `size` are the defaults of --work and --size."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--warpsim", default="target/release/warpsim")
    ap.add_argument("--size", default=size, choices=["small", "default", "large"])
    ap.add_argument("--threads", type=int, help="simulations at once (default: every core)")
    ap.add_argument("--work", default=work)
    ap.add_argument("--out", default=out)
    ap.add_argument("--kernel-minsts", type=int,
                    help=f"warpsim rf --kernel-minsts (default: {minsts} at the default and "
                         "large sizes, 0 at the small size)")
    ap.add_argument("--launch-waves", type=int,
                    help=f"warpsim rf --launch-waves (default: {waves} at the default and "
                         "large sizes, 0 at the small size)")
    ap.add_argument("--kept-only", action="store_true",
                    help="run nothing: tabulate the simulations kept in --work (those not yet "
                         "run are listed as such), for a partial page while a long evaluation "
                         "is under way")
    for flag, kwargs in extra:
        ap.add_argument(flag, **kwargs)
    args = ap.parse_args()
    sampled = args.size != "small"
    if args.kernel_minsts is None:
        args.kernel_minsts = minsts if sampled else 0
    if args.launch_waves is None:
        args.launch_waves = waves if sampled else 0
    os.makedirs(args.work, exist_ok=True)
    return args


def sampling_note(args):
    """How the runs were timed, for a generated page."""
    if args.kernel_minsts == 0 and args.launch_waves == 0:
        return "every instruction timed"
    return (f"sampled with `--kernel-minsts {args.kernel_minsts} --launch-waves "
            f"{args.launch_waves}`: the share timed is in the per-sample table")


def per_sample_table(cols, samples, cells, name=lambda n: n):
    """A Markdown table of one row per sample: `name(n)`, then the columns `cols` that
    `cells(n)` computes from the runs; a sample whose runs are missing or failed has the row
    "no result" (the runs that did not pass, or were not run, are listed under the page)."""
    lines = ["| sample | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for n in samples:
        try:
            row = cells(n)
        except (KeyError, TypeError, ZeroDivisionError):
            row = ["no result"] + [""] * (len(cols) - 1)
        lines.append(f"| {name(n)} | " + " | ".join(row) + " |")
    return lines


def write_page(path, lines, docs):
    """Writes the generated page `lines`, with a list of the runs of `docs` ({setup: rf JSON})
    that did not pass, if any."""
    failed = [f"{d}: {j['technique']} on {j['sample']}: {j['status']} {j['message']}"
              for d, doc in docs.items() for j in doc["jobs"]
              if j["status"].lower() != "pass"]
    if failed:
        lines = lines + ["\nRuns that did not pass:\n"] + [f"- {f}" for f in failed]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}", file=sys.stderr)
