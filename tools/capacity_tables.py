#!/usr/bin/env python3
"""Reproduces the evaluations of issue 17's techniques (register capacity and sharing) in
one command: tools/regmutex_table.py, tools/finereg_table.py and tools/larf_table.py in turn,
with the same options (--size, --threads, --work, --kernel-minsts, --launch-waves, --warpsim;
--out is each script's own). They write docs/regmutex-results.md, docs/finereg-results.md and
docs/larf-results.md, which docs/techniques.md discusses.

    python3 tools/capacity_tables.py                  # default size, sampled, every core

Each simulation is kept in --work as soon as it ends, so an interrupted run resumes.
"""

import os
import subprocess
import sys

SCRIPTS = ["regmutex_table.py", "finereg_table.py", "larf_table.py"]


def main():
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__)
        return 0
    if any(a == "--out" or a.startswith("--out=") for a in sys.argv[1:]):
        print("capacity_tables.py: --out is each script's own; run the scripts one by one",
              file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    for script in SCRIPTS:
        done = subprocess.run([sys.executable, os.path.join(here, script)] + sys.argv[1:])
        if done.returncode != 0:
            print(f"capacity_tables.py: {script} failed (exit {done.returncode})",
                  file=sys.stderr)
            return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
