#!/usr/bin/env bash
# The C host program on the driver API: compiled with the system gcc against
# libwarpsim_cuda.so, SAXPY in functional mode, then under the v100 timing model with
# statistics (simulated event time, a JSON per launch and a summary).
source "$(dirname "$0")/env.sh"
gcc -O2 -Wall -Wextra -Werror -o "$work/saxpy" "$root/clients/c/saxpy.c" \
    -L"$libdir" -lwarpsim_cuda -lm
LD_LIBRARY_PATH=$libdir "$work/saxpy" "$root/samples/saxpy/saxpy.ptx"
rm -rf "$work/stats"
WARPSIM_MODE=v100 WARPSIM_STATS=$work/stats LD_LIBRARY_PATH=$libdir \
    "$work/saxpy" "$root/samples/saxpy/saxpy.ptx"
"$python" - "$work/stats" <<'PY'
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
s = json.loads((d / "summary.json").read_text())
launches = sorted(d.glob("launch-*.json"))
assert s["launches"] == 2 == len(launches), s
assert s["mode"] == "v100" and s["cycles"] > 0 and s["simulated_ms"] > 0, s
assert all(json.loads(p.read_text())["timing"][0]["gpu_sim_cycle"] > 0 for p in launches)
print(f"timing statistics: {s['launches']} launches, {s['cycles']} cycles, {s['simulated_ms']:.6f} simulated ms")
PY
