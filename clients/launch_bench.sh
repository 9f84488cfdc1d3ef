#!/usr/bin/env bash
# The hardware harness (tools/hardware.py driving c/launch_bench.c, issue 48 item 5) against
# libwarpsim_cuda.so instead of a GPU's libcuda: a few microbenchmarks and corpus launches,
# functional and under the v100 timing model (a bandwidth on gtx480). Checks: every output buffer equals what
# `warpsim run-ptx` writes for the same launch; SAXPY's and vectorAdd's outputs equal fma(a,x,y)
# and a+b computed here from the input bytes; each microbenchmark's figure under v100 equals
# tools/microbench.py's (the same PTX through run-ptx); the harness's event time x clock equals
# run-ptx's kernel cycles; bad input (a missing PTX file, an unknown kernel, PTX that does not
# compile, a bad manifest) fails with a message naming it and a non-zero status; GPU names
# map to the right presets.
source "$(dirname "$0")/env.sh"
export WARPSIM_CUDA_LIB=$lib
out=$work/launch_bench
rm -rf "$out"
mkdir -p "$out"
hw() { "$python" "$root/tools/hardware.py" --lib warpsim --warpsim "$warpsim" "$@"; }

# Functional: two repetitions (inputs copied again before the second), run-ptx's outputs.
hw --mode functional --only lat_ffma,chase_l1,thr_iadd --samples saxpy,sdk/vectorAdd,parboil/spmv \
    --repeat 2 --out "$out/functional" >"$out/functional.log"
# v100: one repetition (the simulated caches persist across a process's launches); measured
# without the comparison, which --compare-only then adds (the path used after a GPU run).
hw --mode v100 --only lat_ffma,lat_sin,chase_l1,chase_dram,thr_iadd --samples saxpy \
    --repeat 1 --no-compare --out "$out/v100" >"$out/v100.log"
hw --compare-only "$out/v100" >"$out/v100-compare.log"
# The corpus as a GPU's machine gets it (--export-corpus: no warpsim binary needed to run it).
hw --export-corpus "$out/export" --samples saxpy >"$out/export.log"
"$python" "$root/tools/hardware.py" --lib warpsim --warpsim "$out/no-warpsim" --mode functional \
    --no-micro --corpus "$out/export/corpus.toml" --repeat 1 --out "$out/exported" >"$out/exported.log" 2>&1
# A bandwidth (its figure from the event time), on gtx480: 15 SMs simulate fastest.
hw --mode gtx480 --only bw_l2 --no-corpus --repeat 1 --out "$out/gtx480" >"$out/gtx480.log"

# The GPU's recipe (--lib cuda: gcc -l:libcuda.so.1) with env.sh's libcuda.so.1 link to warpsim.
LIBRARY_PATH=$work/lib LD_LIBRARY_PATH=$work/lib:$libdir "$python" "$root/tools/hardware.py" \
    --only lat_ffma --no-corpus --no-compare --repeat 1 --out "$out/as-libcuda" >"$out/as-libcuda.log"
grep -q '"name": "warpsim a100 (functional)"' "$out/as-libcuda/device.json"
echo "ok   --lib cuda: built with -l:libcuda.so.1, ran on $(grep -o '"name": "[^"]*"' "$out/as-libcuda/device.json")"

"$python" - "$out" "$warpsim" "$root" <<'PY'
import json, math, pathlib, struct, subprocess, sys
from fractions import Fraction
import numpy as np

out, warpsim, root = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run_ptx(args, outs, extra=()):
    """run-ptx on the same launch; {K: bytes of buffer K}."""
    cmd = [warpsim, "run-ptx", str(root / args[0])] + args[1:] + list(extra)
    for k in outs:
        cmd += ["--out", f"{k}:{out / f'rp.{k}.npy'}"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    return {k: np.load(out / f"rp.{k}.npy").tobytes() for k in outs}


def arg_file(args, k):
    """The file of --arg number K (bin:TYPE:PATH)."""
    specs = [args[i + 1] for i, a in enumerate(args) if a == "--arg"]
    return pathlib.Path(specs[k].split(":", 2)[2])


def f32_nearest(q):
    """The float32 nearest the rational q (ties to even), exactly."""
    c = np.float32(float(q))
    best = None
    for v in (np.nextafter(c, np.float32(-np.inf)), c, np.nextafter(c, np.float32(np.inf))):
        d = abs(Fraction(float(v)) - q)
        key = (d, int(v.view(np.uint32)) & 1)
        if best is None or key < best[0]:
            best = (key, v)
    return best[1]


# ---- functional: outputs equal run-ptx's ---------------------------------------------------
fun = out / "functional"
micro = json.loads((fun / "microbench.json").read_text())["results"]
for name, r in micro.items():
    mine = pathlib.Path(r["outputs"]["0"]).read_bytes()
    theirs = run_ptx(r["run_ptx"], [0])[0]
    check(mine == theirs, f"functional {name}: output buffer equals run-ptx's ({len(mine)} bytes)")
corpus = json.loads((fun / "corpus.json").read_text())["results"]
check(set(corpus) == {"saxpy.0.saxpy", "sdk/vectorAdd.0.vectorAdd", "parboil/spmv.0.spmv_jds"},
      f"functional corpus launches: {sorted(corpus)}")
for name, r in corpus.items():
    outs = {int(k): pathlib.Path(v).read_bytes() for k, v in r["outputs"].items()}
    theirs = run_ptx(r["run_ptx"], sorted(outs))
    check(len(r["ms"]) == 2 and all(outs[k] == theirs[k] for k in outs),
          f"functional {name}: {len(outs)} buffers equal run-ptx's")

exported = json.loads((out / "exported" / "corpus.json").read_text())["results"]["saxpy.0.saxpy"]
check(pathlib.Path(exported["outputs"]["3"]).read_bytes() == pathlib.Path(corpus["saxpy.0.saxpy"]["outputs"]["3"]).read_bytes(),
      "exported corpus (saxpy) ran without warpsim: the same output as the captured launch")

# SAXPY: y = fma(a, x, y), rounded once, from the input bytes.
r = corpus["saxpy.0.saxpy"]
args = r["run_ptx"]
n = int(args[args.index("--arg") + 1].split(":")[1])
a = np.float32(args[args.index("--arg") + 3].split(":")[1])
x = np.frombuffer(arg_file(args, 2).read_bytes(), "<f4")[:n]
y = np.frombuffer(arg_file(args, 3).read_bytes(), "<f4")[:n]
got = np.frombuffer(pathlib.Path(r["outputs"]["3"]).read_bytes(), "<f4")[:n]
want = np.array([f32_nearest(Fraction(float(a)) * Fraction(float(xi)) + Fraction(float(yi)))
                 for xi, yi in zip(x, y)], dtype="<f4")
check(np.array_equal(got.view("<u4"), want.view("<u4")), f"saxpy: {n} elements equal fma(a, x, y) computed here")
# vectorAdd: C = A + B (the sum of two float32s is exact in float64, rounded once to float32).
r = corpus["sdk/vectorAdd.0.vectorAdd"]
args = r["run_ptx"]
n = int([args[i + 1] for i, v in enumerate(args) if v == "--arg"][3].split(":")[1])
A = np.frombuffer(arg_file(args, 0).read_bytes(), "<f4")[:n]
B = np.frombuffer(arg_file(args, 1).read_bytes(), "<f4")[:n]
C = np.frombuffer(pathlib.Path(r["outputs"]["2"]).read_bytes(), "<f4")[:n]
want = (A.astype(np.float64) + B.astype(np.float64)).astype(np.float32)
check(np.array_equal(C.view("<u4"), want.view("<u4")), f"vectorAdd: {n} elements equal a + b computed here")

# ---- v100: figures equal tools/microbench.py's, cycles equal run-ptx's ---------------------
for preset in ("v100", "gtx480"):
    v = json.loads((out / preset / "microbench.json").read_text())
    check(v["preset"] == preset, f"device `{v['device']}` maps to preset {v['preset']}")
    for name, r in v["results"].items():
        ok = "warpsim" in r and math.isclose(r["figure"], r["warpsim"], rel_tol=1e-5)
        check(ok, f"{preset} {name}: harness {r['figure']:.4f} == microbench.py {r.get('warpsim')} {r['unit']}")
r = json.loads((out / "v100" / "corpus.json").read_text())["results"]["saxpy.0.saxpy"]
stats = out / "rp.stats.json"
run_ptx(r["run_ptx"], [], ["--timing", "v100", "--stats-json", str(stats)])
cycles = json.loads(stats.read_text())[0]["total"]["gpu_sim_cycle"]
check(abs(r["cycles_estimate"] - cycles) <= 1, f"v100 saxpy: event ms x clock {r['cycles_estimate']} == run-ptx {cycles} cycles")
check("warpsim_cycles" in r and (out / "v100" / "table.md").exists(), "v100: --compare-only added warpsim's cycles and table.md")

# GPU names as cuDeviceGetName gives them -> presets.
sys.path.insert(0, str(root / "tools"))
import hardware
names = {"NVIDIA H100 80GB HBM3": "h100", "NVIDIA H100 PCIe": "h100", "NVIDIA H200": "h100",
         "Tesla V100-SXM2-16GB": "v100", "NVIDIA A100-SXM4-40GB": "a100",
         "NVIDIA GeForce RTX 3070": "rtx3070", "NVIDIA GeForce RTX 2060": "rtx2060",
         "NVIDIA GeForce RTX 4090": None, "warpsim a100 (functional)": None}
got = {n: hardware.matching_preset(n)[0] for n in names}
check(got == names, f"GPU names map to presets: {got}")

if failures:
    sys.exit(f"launch_bench: {len(failures)} check(s) failed")
PY

# Bad input: a clear message and a non-zero status, no crash.
exe=$root/target/hardware/work/launch_bench.warpsim
expect_failure() {  # NAME EXPECTED-TEXT MANIFEST-TEXT
    printf '%s\n' "$3" >"$out/bad.txt"
    set +e
    LD_LIBRARY_PATH=$libdir "$exe" "$out/bad.txt" "$out/bad.json" 2>"$out/bad.err"
    rc=$?
    set -e
    if [ "$rc" -ne 1 ] || ! grep -qF -- "$2" "$out/bad.err"; then
        echo "FAIL bad input ($1): status $rc, stderr:"; cat "$out/bad.err"; exit 1
    fi
    echo "ok   bad input ($1): $(tail -n1 "$out/bad.err")"
}
saxpy="kernel saxpy
grid 1
block 32
arg i32 32
arg f32 1
arg zeros 128
arg zeros 128
end"
expect_failure "missing PTX" "cannot open PTX file" "launch a
ptx $out/no-such.ptx
$saxpy"
expect_failure "unknown kernel" "cuModuleGetFunction(&s->function, module, s->kernel) failed: CUDA_ERROR_NOT_FOUND" \
    "launch a
ptx $root/samples/saxpy/saxpy.ptx
${saxpy/kernel saxpy/kernel saxpy_nope}"
printf '.version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() { bogus; }\n' >"$out/bad.ptx"
expect_failure "PTX that does not compile" "cuModuleLoadDataEx(&module, ptx, 4, options, values) failed: CUDA_ERROR_INVALID_PTX" \
    "launch a
ptx $out/bad.ptx
${saxpy/kernel saxpy/kernel k}"
expect_failure "bad manifest" "bad.txt:4: unknown keyword \`gird\`" "launch a
ptx $root/samples/saxpy/saxpy.ptx
kernel saxpy
gird 1"
expect_failure "alias of a scalar" "names a scalar" "launch a
ptx $root/samples/saxpy/saxpy.ptx
kernel saxpy
arg i32 1
arg alias 0
end"
echo "launch_bench: all checks passed"
