"""Running `warpsim rf` for the register-file papers' evaluations and reading its JSON: the
helpers shared by tools/techniques_table.py (issue 14) and tools/bypass_table.py (issue 15).
Only the standard library is needed."""

import argparse
import json
import math
import os
import subprocess
import sys


def run_setup(args, name, config, overrides, techniques, samples=("rodinia",)):
    """The `warpsim rf` JSON of `techniques` (after the baseline) on `samples` (names or
    suites) on `config` with `overrides`, run now unless --work holds it from the same
    setup."""
    path = os.path.join(args.work, f"{name}-{args.size}.json")
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
        if (doc["config"], doc["overrides"], doc["size"], doc["techniques"],
                doc.get("kernel_minsts", 0), doc.get("launch_waves", 0)) == (
            config, overrides, args.size, ["baseline"] + techniques,
            args.kernel_minsts, args.launch_waves
        ):
            print(f"{name}: reusing {path}", file=sys.stderr)
            return doc
    cmd = [args.warpsim, "rf", "--samples", ",".join(samples), "--size", args.size,
           "--config", config, "--techniques", ",".join(["baseline"] + techniques),
           "--kernel-minsts", str(args.kernel_minsts),
           "--launch-waves", str(args.launch_waves),
           "--json", path, "--quiet"]
    for o in overrides:
        cmd += ["--set", o]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    print(f"{name}: {' '.join(cmd)}", file=sys.stderr)
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if not os.path.exists(path):
        sys.exit(f"{name}: warpsim rf failed (exit {done.returncode})")
    with open(path) as f:
        return json.load(f)


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


def parse_args(doc, out, minsts, waves, extra=()):
    """The command line of a table script whose docstring is `doc`: where warpsim is, the size,
    threads, the folder of runs, the output file (default `out`), and the sampling (default
    `minsts` million warp instructions per kernel and `waves` waves per launch at the default
    and large sizes, everything timed at the small size); `extra` adds (flag, keywords)
    options of the script's own."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--warpsim", default="target/release/warpsim")
    ap.add_argument("--size", default="default", choices=["small", "default", "large"])
    ap.add_argument("--threads", type=int, help="simulations at once (default: every core)")
    ap.add_argument("--work", default="target/techniques")
    ap.add_argument("--out", default=out)
    ap.add_argument("--kernel-minsts", type=int,
                    help=f"warpsim rf --kernel-minsts (default: {minsts} at the default and "
                         "large sizes, 0 at the small size)")
    ap.add_argument("--launch-waves", type=int,
                    help=f"warpsim rf --launch-waves (default: {waves} at the default and "
                         "large sizes, 0 at the small size)")
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
