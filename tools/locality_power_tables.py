#!/usr/bin/env python3
"""Reproduces the evaluations of issue 18 in one command: tools/paver_table.py (PAVER, BCS
and round robin at the default size, sampled, on gtx480 and titanx), tools/snooze_table.py
(cache leakage, small size, gtx480 and titanx) and tools/slumber_table.py (register-file
leakage, small size, gtx480), in turn, each with its own defaults. They write
docs/paver-results.md, docs/snooze-results.md and docs/slumber-results.md, which
docs/techniques.md discusses.

    python3 tools/locality_power_tables.py [--warpsim target/release/warpsim]

Each script keeps every simulation as soon as it ends, so an interrupted run resumes.
"""

import os
import subprocess
import sys

SCRIPTS = [("paver_table.py", []), ("snooze_table.py", ["--size", "small"]),
           ("slumber_table.py", [])]


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return 0
    if args and (len(args) != 2 or args[0] != "--warpsim"):
        print("locality_power_tables.py: the only option is --warpsim PATH; run the scripts "
              "one by one for theirs", file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    for script, extra in SCRIPTS:
        done = subprocess.run([sys.executable, os.path.join(here, script)] + extra + args)
        if done.returncode != 0:
            print(f"locality_power_tables.py: {script} failed (exit {done.returncode})",
                  file=sys.stderr)
            return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
