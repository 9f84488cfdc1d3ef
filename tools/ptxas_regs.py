#!/usr/bin/env python3
"""Record how many registers ptxas allocates for every kernel in the corpus.

Runs ``ptxas -arch=sm_XX -v`` on every committed ``.ptx`` under samples/ and
writes ``samples/ptxas-registers.tsv`` with the columns

    file<TAB>kernel<TAB>registers

(a header row, then one row per ``.entry``, file paths relative to the
repository root, sorted by file then kernel).  The architecture is taken from the module's
``.target sm_XX`` directive (so sm_70 normally, sm_75/sm_80 for the files
compiled with ``// nvrtc-flags: --gpu-architecture=compute_75/80``), never
lower than sm_70.  The numbers are a reference point for the emulator's own
register accounting / occupancy estimates; they depend on the ptxas version
(12.9 for the committed file, see samples/corpus/README.md).

ptxas ships in a pip wheel::

    pip install nvidia-cuda-nvcc-cu12

and is looked up in ``$PTXAS``, then ``site-packages/nvidia/cuda_nvcc/bin/ptxas``
of any importable site directory, then ``$PATH``.

Usage::

    python3 tools/ptxas_regs.py            # (re)write samples/ptxas-registers.tsv
    python3 tools/ptxas_regs.py --check    # exit 1 if the committed TSV differs
"""

import argparse
import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
OUT = SAMPLES / "ptxas-registers.tsv"
MIN_SM = 70

TARGET_RE = re.compile(r"^\s*\.target\s+sm_(\d+)", re.M)
ENTRY_RE = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$%][\w$]*)", re.M)
COMPILING_RE = re.compile(r"Compiling entry function '([^']+)' for 'sm_(\d+)'")
USED_RE = re.compile(r"Used (\d+) registers")


def find_ptxas():
    env = os.environ.get("PTXAS")
    if env:
        return env
    dirs = []
    try:
        dirs.extend(site.getsitepackages())
    except AttributeError:
        pass
    try:
        dirs.append(site.getusersitepackages())
    except AttributeError:
        pass
    dirs.extend(p for p in sys.path if p)
    for d in dirs:
        cand = Path(d) / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    found = shutil.which("ptxas")
    if found:
        return found
    sys.exit("ptxas_regs: ptxas not found; install it with\n"
             "    pip install nvidia-cuda-nvcc-cu12\n"
             "or set PTXAS=/path/to/ptxas")


def ptxas_version(ptxas):
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if "release" in l or l.startswith("Build")]
    return "; ".join(lines) or out.strip().splitlines()[-1]


def arch_for(ptx_text):
    m = TARGET_RE.search(ptx_text)
    sm = int(m.group(1)) if m else MIN_SM
    return f"sm_{max(sm, MIN_SM)}"


def registers(ptxas, ptx: Path):
    """Return [(kernel, registers)] for one PTX file (fails loudly)."""
    text = ptx.read_text()
    arch = arch_for(text)
    proc = subprocess.run([ptxas, f"-arch={arch}", "-v", str(ptx), "-o", os.devnull],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"ptxas_regs: ptxas -arch={arch} failed on {ptx}:\n{proc.stdout}{proc.stderr}")
    rows = {}
    current = None
    for line in (proc.stdout + proc.stderr).splitlines():
        m = COMPILING_RE.search(line)
        if m:
            current = m.group(1)
            continue
        m = USED_RE.search(line)
        if m and current is not None:
            rows[current] = int(m.group(1))
            current = None
    entries = ENTRY_RE.findall(text)
    missing = [e for e in entries if e not in rows]
    if missing:
        sys.exit(f"ptxas_regs: no register count for {', '.join(missing)} in {ptx}")
    return arch, [(e, rows[e]) for e in entries]


def render(ptxas):
    rows = []
    # The committed PTX; the PTX sets of samples/ptx-sets are other compilers' output.
    for ptx in sorted(p for p in SAMPLES.rglob("*.ptx") if SAMPLES / "ptx-sets" not in p.parents):
        rel = ptx.relative_to(REPO).as_posix()
        arch, kernels = registers(ptxas, ptx)
        for kernel, regs in kernels:
            rows.append((rel, kernel, regs))
        print(f"{rel:40s} {arch}  {len(kernels)} kernel(s)", file=sys.stderr)
    rows.sort()
    print(f"ptxas: {ptxas_version(ptxas)}", file=sys.stderr)
    lines = ["file\tkernel\tregisters"]
    lines += [f"{f}\t{k}\t{r}" for f, k, r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if samples/ptxas-registers.tsv is out of date")
    args = ap.parse_args(argv)
    ptxas = find_ptxas()
    text = render(ptxas)
    if args.check:
        old = OUT.read_text() if OUT.exists() else ""
        if old != text:
            print(f"{OUT.relative_to(REPO)} is out of date; run: python3 tools/ptxas_regs.py",
                  file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(REPO)} is up to date", file=sys.stderr)
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(REPO)} ({text.count(chr(10)) - 1} kernels)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
