#!/usr/bin/env python3
"""Issue 48's hidden holdout: kernel launches kept aside from samples/ (and so from any model
tuning done on the main corpus), run on warpsim and on GPGPU-Sim by compare.py.

    python3 tools/gpgpusim/holdout/gen.py            # inputs + launches.toml
    python3 tools/gpgpusim/holdout/gen.py --ptx      # first recompile src/*.cu (NVRTC 12,
                                                     # compute_70) and recount ptxas registers
    python3 tools/gpgpusim/holdout/gen.py --check    # then run every launch on warpsim
                                                     # (functional) against a numpy reference

The default writes each launch's input buffers (pure Python, fixed seeds: the same bytes on
every machine, so the committed GPGPU-Sim figures stay valid) into
target/gpgpusim-holdout/inputs/, and tools/gpgpusim/holdout/launches.toml, which names them
relative to the repository. The PTX (ptx/, from src/) and ptx/registers.tsv (`ptxas
-arch=sm_70 -v`'s registers per kernel, given to warpsim as `regs = N` since these files are
not in samples/ptxas-registers.tsv) are committed; `--ptx` needs the nvidia-cuda-nvrtc-cu12
and nvidia-cuda-nvcc-cu12 wheels (as tools/regen_ptx.py), `--check` needs numpy and
target/release/warpsim.

Not for tuning: the point of the set is that nothing was fitted to it.
"""

import argparse
import array
import importlib.util
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
SRC = HERE / "src"
PTX = HERE / "ptx"
REGISTERS = PTX / "registers.tsv"
LAUNCHES = HERE / "launches.toml"
INPUTS = REPO / "target" / "gpgpusim-holdout" / "inputs"
ARCH = "compute_70"

CODES = {"f32": "f", "f64": "d", "u32": "I", "i32": "i"}


# ---------------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------------

class In:
    """An input buffer: `values` written as TYPE into the inputs folder."""
    def __init__(self, name, ty, values):
        self.name, self.ty, self.values = name, ty, values


class Zeros:
    def __init__(self, ty, n):
        self.ty, self.n = ty, n


class Scalar:
    def __init__(self, ty, value):
        self.ty, self.value = ty, value


def floats(rng, n, lo=-1.0, hi=1.0):
    """n floats in [lo, hi) on a 1/1024 grid (exact in f32)."""
    span = hi - lo
    return [lo + span * rng.randrange(1024) / 1024.0 for _ in range(n)]


# ---------------------------------------------------------------------------------------------
# The launches: each returns (name, source, kernel, grid, block, args, checks), where checks
# maps an argument's number to a function of the numpy inputs giving the expected output and
# a tolerance (rtol, atol).
# ---------------------------------------------------------------------------------------------

def matmul(name, k, seed):
    """C = A.B for 128 x k by k x 128 matrices, one thread an element of C."""
    m = n = 128
    rng = random.Random(seed)
    args = [In("a", "f32", floats(rng, m * k)), In("b", "f32", floats(rng, k * n)),
            Zeros("f32", m * n), Scalar("i32", m), Scalar("i32", n), Scalar("i32", k)]
    check = {2: (lambda v: (v[0].reshape(m, k).astype("f8") @ v[1].reshape(k, n)).ravel(),
                 (1e-4, 1e-4))}
    return name, name, name, f"{n // 16},{m // 16}", "16,16", args, check


def mm_naive():
    return matmul("mm_naive", 64, 4801)


def mm_tiled():
    return matmul("mm_tiled", 128, 4802)


def stencil5():
    w, h = 512, 384
    rng = random.Random(4803)
    args = [In("in", "f32", floats(rng, w * h, 0.0, 4.0)), Zeros("f32", w * h),
            Scalar("i32", w), Scalar("i32", h), Scalar("f32", 0.5), Scalar("f32", 0.125)]

    def ref(v):
        g = v[0].reshape(h, w)
        out = g.copy()
        out[1:-1, 1:-1] = (0.5 * g[1:-1, 1:-1]
                           + 0.125 * (g[1:-1, :-2] + g[1:-1, 2:] + g[:-2, 1:-1] + g[2:, 1:-1]))
        return out.ravel()
    return ("stencil5", "stencil5", "stencil5", f"{w // 32},{h // 8}", "32,8", args,
            {1: (ref, (1e-5, 1e-5))})


def block_scan():
    n = 40000
    blocks = (n + 255) // 256
    rng = random.Random(4804)
    args = [In("in", "i32", [rng.randrange(-50, 100) for _ in range(n)]), Zeros("i32", n),
            Zeros("i32", blocks), Scalar("i32", n)]

    def scan(v):
        import numpy as np
        x = np.zeros(blocks * 256, dtype=np.int64)
        x[:n] = v[0]
        return np.cumsum(x.reshape(blocks, 256), axis=1)

    return ("block_scan", "block_scan", "block_scan", str(blocks), "256", args,
            {1: (lambda v: scan(v).ravel()[:n], (0, 0)), 2: (lambda v: scan(v)[:, -1], (0, 0))})


def bitonic_step():
    n, j, k = 1 << 18, 64, 4096
    rng = random.Random(4805)
    args = [In("data", "f32", floats(rng, n)), Scalar("u32", j), Scalar("u32", k)]

    def ref(v):
        import numpy as np
        d = v[0].copy()
        i = np.arange(n)
        p = i ^ j
        lo = i[p > i]
        hi = lo ^ j
        a, b = d[lo].copy(), d[hi].copy()
        up = (lo & k) == 0
        swap = (a > b) == up
        d[lo[swap]], d[hi[swap]] = b[swap], a[swap]
        return d
    return ("bitonic_step", "bitonic_step", "bitonic_step", str(n // 256), "256", args,
            {0: (ref, (0, 0))})


def spmv_csr():
    rows = cols = 6144
    rng = random.Random(4806)
    lengths = []
    for _ in range(rows):
        u = rng.random()
        # Mostly short rows, a few long ones: within a warp the lengths differ widely.
        lengths.append(rng.randrange(1, 8) if u < 0.7 else
                       rng.randrange(8, 32) if u < 0.97 else rng.randrange(64, 200))
    starts = [0]
    for length in lengths:
        starts.append(starts[-1] + length)
    nnz = starts[-1]
    col = []
    for r, length in enumerate(lengths):
        # Half the entries near the diagonal, half anywhere.
        col += sorted((r + rng.randrange(-64, 64)) % cols if rng.random() < 0.5
                      else rng.randrange(cols) for _ in range(length))
    args = [Scalar("i32", rows), In("row_start", "i32", starts), In("col", "i32", col),
            In("val", "f32", floats(rng, nnz)), In("x", "f32", floats(rng, cols)),
            Zeros("f32", rows)]

    def ref(v):
        import numpy as np
        starts, col, val, x = v[1], v[2], v[3], v[4]
        prod = val.astype("f8") * x[col]
        return np.add.reduceat(prod, starts[:-1]) * (np.diff(starts) > 0)
    return ("spmv_csr", "spmv_csr", "spmv_csr", str(rows // 128), "128", args,
            {5: (ref, (1e-4, 1e-4))})


def histo_smem():
    n = 1 << 17
    rng = random.Random(4807)
    words = []
    for _ in range(n):
        # Skewed bytes: a quarter of them in eight bins.
        b = [rng.randrange(8) * 3 if rng.random() < 0.25 else rng.randrange(256)
             for _ in range(4)]
        words.append(b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24)
    args = [In("words", "u32", words), Scalar("i32", n), Zeros("u32", 256)]

    def ref(v):
        import numpy as np
        w = v[0]
        parts = np.concatenate([(w >> s) & 0xff for s in (0, 8, 16, 24)])
        return np.bincount(parts, minlength=256)
    return "histo_smem", "histo_smem", "histo_smem", "60", "256", args, {2: (ref, (0, 0))}


def atomic_count():
    n = 1 << 15
    rng = random.Random(4808)
    args = [In("keys", "u32", [rng.randrange(1 << 20) for _ in range(n)]), Scalar("i32", n),
            Zeros("u32", 48), Zeros("u32", 1)]

    def counts(v):
        import numpy as np
        return np.bincount(v[0] % 48, minlength=48)

    def total(v):
        k = v[0].astype("u8")
        return [int(((k & 0xff) * (k & 1)).sum()) & 0xffffffff]
    return ("atomic_count", "atomic_count", "atomic_count", str(n // 256), "256", args,
            {2: (counts, (0, 0)), 3: (total, (0, 0))})


def nbody():
    n = 512
    rng = random.Random(4809)
    pos = []
    for _ in range(n):
        pos += floats(rng, 3) + [0.5 + rng.randrange(512) / 1024.0]
    args = [In("pos", "f32", pos), Zeros("f32", 4 * n), Scalar("i32", n),
            Scalar("f32", 0.01)]

    def ref(v):
        import numpy as np
        p = v[0].reshape(n, 4).astype("f8")
        d = p[None, :, :3] - p[:, None, :3]
        inv = 1.0 / np.sqrt((d * d).sum(-1) + 0.01)
        a = (d * (p[None, :, 3] * inv ** 3)[..., None]).sum(1)
        return np.concatenate([a, np.zeros((n, 1))], 1).ravel()
    return ("nbody", "nbody", "nbody_accel", str(n // 64), "64", args,
            {1: (ref, (2e-3, 2e-2))})


def softmax():
    rows, cols = 1024, 160
    rng = random.Random(4810)
    args = [In("in", "f32", floats(rng, rows * cols, -4.0, 4.0)), Zeros("f32", rows * cols),
            Scalar("i32", rows), Scalar("i32", cols)]

    def ref(v):
        import numpy as np
        x = v[0].reshape(rows, cols).astype("f8")
        e = np.exp(x - x.max(1, keepdims=True))
        return (e / e.sum(1, keepdims=True)).ravel()
    return ("softmax", "softmax", "softmax_rows", str(rows // 4), "128", args,
            {1: (ref, (1e-4, 1e-7))})


def gather():
    n, stride = 1 << 17, 1031
    rng = random.Random(4811)
    idx = list(range(n))
    rng.shuffle(idx)
    args = [In("src", "f32", floats(rng, n)), In("idx", "i32", idx), Zeros("f32", n),
            Scalar("i32", n), Scalar("i32", stride)]

    def ref(v):
        import numpy as np
        i = np.arange(n, dtype=np.uint64)
        return v[0][v[1]] + np.float32(0.5) * v[0][(i * stride) & (n - 1)]
    return ("gather", "gather", "gather_strided", str(n // 256), "256", args,
            {2: (ref, (1e-6, 1e-6))})


def transpose():
    w, h = 1024, 384
    rng = random.Random(4812)
    args = [In("in", "f32", floats(rng, w * h)), Zeros("f32", w * h), Scalar("i32", w),
            Scalar("i32", h)]
    return ("transpose", "transpose", "transpose_tiled", f"{w // 32},{h // 32}", "32,8", args,
            {1: (lambda v: v[0].reshape(h, w).T.ravel(), (0, 0))})


def gemv():
    rows, cols = 1024, 384
    rng = random.Random(4813)
    args = [In("a", "f32", floats(rng, rows * cols)), In("x", "f32", floats(rng, cols)),
            In("y", "f32", floats(rng, rows)), Scalar("i32", rows), Scalar("i32", cols),
            Scalar("f32", 0.5)]
    return ("gemv", "gemv", "gemv_warp", str(rows // 8), "256", args,
            {2: (lambda v: v[0].reshape(rows, cols).astype("f8") @ v[1] + 0.5 * v[2],
                 (1e-4, 1e-4))})


def daxpy_dot():
    n, blocks = 1 << 17, 96
    rng = random.Random(4814)
    x = [rng.randrange(-4096, 4096) / 4096.0 for _ in range(n)]
    y = [rng.randrange(-4096, 4096) / 4096.0 for _ in range(n)]
    args = [Scalar("i32", n), Scalar("f64", 1.5), In("x", "f64", x), In("y", "f64", y),
            Zeros("f64", blocks)]

    def partial(v):
        import numpy as np
        x, y = v[2], v[3]
        prod = x * (1.5 * x + y)
        step = blocks * 256
        owner = (np.arange(n) % step) // 256
        return np.bincount(owner, weights=prod, minlength=blocks)
    return ("daxpy_dot", "daxpy_dot", "daxpy_dot", str(blocks), "256", args,
            {3: (lambda v: 1.5 * v[2] + v[3], (0, 1e-12)), 4: (partial, (1e-12, 1e-9))})


def divergent():
    n = 12288
    rng = random.Random(4815)
    trips = [rng.randrange(96) for _ in range(n)]
    args = [In("trips", "u32", trips), In("in", "f32", floats(rng, n, 0.0, 1.0)),
            Zeros("f32", n), Scalar("i32", n)]

    def ref(v):
        import numpy as np
        t, x = v[0], v[1].astype("f8")
        out = x.copy()
        for i in range(n):
            val = out[i]
            if t[i] & 1:
                for _ in range(t[i] >> 1):
                    val = val * 0.75 + 0.25
            else:
                for _ in range(t[i] >> 2):
                    val = val * val * 0.5 + 0.125
            out[i] = val
        return out
    return ("divergent", "divergent", "divergent_loop", str(n // 128), "128", args,
            {2: (ref, (1e-4, 1e-5))})


def poly_small():
    n = 1 << 17
    rng = random.Random(4816)
    args = [In("x", "f32", floats(rng, n)), Zeros("f32", n), Scalar("i32", n)]

    def ref(v):
        p = 0.03125
        x = v[0].astype("f8")
        for c in (-0.0625, 0.125, -0.25, 0.5, -1.0, 1.5, -2.0, 3.0):
            p = p * x + c
        return p
    return "poly_small", "poly_small", "poly_small", "4", "128", args, {1: (ref, (1e-5, 1e-5))}


def bias_relu():
    n, cols = 1 << 18, 1000
    rng = random.Random(4817)
    args = [In("x", "f32", floats(rng, n)), In("bias", "f32", floats(rng, cols, -0.5, 0.5)),
            Zeros("f32", n), Scalar("i32", n), Scalar("i32", cols)]

    def ref(v):
        import numpy as np
        return np.maximum(v[0] + v[1][np.arange(n) % cols], 0.0)
    return ("bias_relu", "bias_relu", "bias_relu", str(n // 64), "64", args,
            {2: (ref, (0, 0))})


def int_hash():
    n = 1 << 15
    rng = random.Random(4818)
    args = [In("in", "u32", [rng.randrange(1 << 32) for _ in range(n)]), Zeros("u32", n),
            Scalar("i32", n), Scalar("u32", 0x2545F491)]

    def ref(v):
        import numpy as np
        h = (v[0] ^ np.uint32(0x2545F491)).astype(np.uint64)
        mask = np.uint64(0xffffffff)
        for r in range(12):
            h ^= h >> np.uint64(16)
            h = (h * np.uint64(0x85ebca6b)) & mask
            h ^= (h * np.uint64(0xc2b2ae35)) >> np.uint64(32)
            h = (h + np.uint64((r * 0x9e3779b9) & 0xffffffff)) & mask
        return h
    return "int_hash", "int_hash", "int_hash", str(n // 256), "256", args, {1: (ref, (0, 0))}


LAUNCHES_ALL = [mm_naive, mm_tiled, stencil5, block_scan, bitonic_step, spmv_csr, histo_smem,
                atomic_count, nbody, softmax, gather, transpose, gemv, daxpy_dot, divergent,
                poly_small, bias_relu, int_hash]


# ---------------------------------------------------------------------------------------------
# PTX and registers
# ---------------------------------------------------------------------------------------------

def load_tool(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_ptx():
    regen = load_tool("regen_ptx")
    ptxas = load_tool("ptxas_regs").find_ptxas()
    nvrtc = regen.Nvrtc(12)
    PTX.mkdir(exist_ok=True)
    rows = []
    for cu in sorted(SRC.glob("*.cu")):
        ptx, _log = nvrtc.compile(cu.read_text(), cu.name, [f"--gpu-architecture={ARCH}"])
        out = PTX / f"{cu.stem}.ptx"
        out.write_text(ptx)
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([ptxas, "-arch=sm_70", "-v", str(out), "-o",
                                   str(Path(tmp) / "a.cubin")], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"ptxas failed on {out}:\n{done.stderr}")
        kernel = None
        for line in done.stderr.splitlines():
            m = re.search(r"Compiling entry function '([^']+)'", line)
            if m:
                kernel = m.group(1)
            m = re.search(r"Used (\d+) registers", line)
            if m and kernel:
                rows.append(f"{out.name}\t{kernel}\t{m.group(1)}")
                kernel = None
        print(f"compiled {cu.relative_to(REPO)} -> {out.relative_to(REPO)}")
    REGISTERS.write_text("file\tkernel\tregisters\n" + "\n".join(rows) + "\n")


def registers():
    regs = {}
    for line in REGISTERS.read_text().splitlines()[1:]:
        file, kernel, n = line.split("\t")
        regs[(file, kernel)] = int(n)
    return regs


# ---------------------------------------------------------------------------------------------
# Inputs, launches.toml and the check
# ---------------------------------------------------------------------------------------------

def build(inputs):
    """Writes the input files; returns the launches with run-ptx argument strings."""
    assert sys.byteorder == "little"
    inputs.mkdir(parents=True, exist_ok=True)
    try:
        where = inputs.relative_to(REPO)
    except ValueError:
        where = inputs
    regs = registers()
    built = []
    for make in LAUNCHES_ALL:
        name, src, kernel, grid, block, args, checks = make()
        specs = []
        for k, a in enumerate(args):
            if isinstance(a, In):
                path = inputs / f"{name}.{a.name}.bin"
                data = array.array(CODES[a.ty], a.values).tobytes()
                if not path.exists() or path.read_bytes() != data:
                    path.write_bytes(data)
                specs.append(f"bin:{a.ty}:{where / path.name}")
            elif isinstance(a, Zeros):
                specs.append(f"zeros:{a.ty}:{a.n}")
            else:
                specs.append(f"{a.ty}:{a.value}")
        ptx = f"{src}.ptx"
        built.append({"name": f"holdout/{name}", "ptx": str((PTX / ptx).relative_to(REPO)),
                      "kernel": kernel, "grid": grid, "block": block,
                      "regs": regs[(ptx, kernel)], "args": specs, "inputs": args,
                      "checks": checks})
    return built


def write_launches(built):
    out = ["# Issue 48's hidden holdout (written by tools/gpgpusim/holdout/gen.py: edit that, not",
           "# this). Kernels written for this set, in no sample: never tune the model on them.",
           "# The bin: inputs are made by `python3 tools/gpgpusim/holdout/gen.py`; `regs` is",
           "# ptxas's count (ptx/registers.tsv).",
           "#",
           "#   python3 tools/gpgpusim/compare.py tools/gpgpusim/holdout/launches.toml \\",
           "#       --presets gtx480,titanx,v100,rtx2060,rtx3070 \\",
           "#       --reference tools/gpgpusim/holdout/reference.json --out target/gpgpusim-holdout",
           ""]
    for b in built:
        out += ["[[launch]]", f'name = "{b["name"]}"', f'ptx = "{b["ptx"]}"',
                f'kernel = "{b["kernel"]}"', f'grid = "{b["grid"]}"', f'block = "{b["block"]}"',
                f'regs = {b["regs"]}', "args = ["]
        out += [f'    "{a}",' for a in b["args"]]
        out += ["]", ""]
    LAUNCHES.write_text("\n".join(out))


def check(built, warpsim, only):
    import numpy as np
    dtypes = {"f32": np.float32, "f64": np.float64, "u32": np.uint32, "i32": np.int32}
    bad = 0
    with tempfile.TemporaryDirectory(prefix="holdout-") as tmp:
        for b in built:
            if only and b["name"].split("/")[-1] not in only:
                continue
            values = {}
            for k, a in enumerate(b["inputs"]):
                if isinstance(a, In):
                    values[k] = np.array(a.values, dtype=dtypes[a.ty])
                elif isinstance(a, Scalar):
                    values[k] = a.value
            cmd = [str(warpsim), "run-ptx", str(REPO / b["ptx"]), "--kernel", b["kernel"],
                   "--grid", b["grid"], "--block", b["block"], "--memory-check", "device"]
            for a in b["args"]:
                parts = a.split(":", 2)
                if parts[0] == "bin" and not Path(parts[2]).is_absolute():
                    a = f"bin:{parts[1]}:{REPO / parts[2]}"
                cmd += ["--arg", a]
            outs = {k: Path(tmp) / f"{k}.npy" for k in b["checks"]}
            for k, path in outs.items():
                cmd += ["--out", f"{k}:{path}"]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{b['name']}: warpsim failed:\n{done.stderr}")
                bad += 1
                continue
            for k, (ref, (rtol, atol)) in b["checks"].items():
                got = np.load(outs[k]).astype(np.float64)
                want = np.asarray(ref(values), dtype=np.float64).ravel()
                ok = got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol)
                err = np.max(np.abs(got - want)) if got.shape == want.shape else "shape"
                print(f"{b['name']:<24} arg {k}: {'ok' if ok else 'MISMATCH'} "
                      f"(max abs error {err})")
                bad += not ok
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ptx", action="store_true", help="recompile src/*.cu and recount registers")
    p.add_argument("--check", action="store_true",
                   help="run each launch on warpsim (functional) against a numpy reference")
    p.add_argument("--only", default="", help="with --check: these launches (comma-separated)")
    p.add_argument("--warpsim", type=Path, default=REPO / "target" / "release" / "warpsim")
    p.add_argument("--inputs", type=Path, default=INPUTS)
    o = p.parse_args()
    if o.ptx:
        compile_ptx()
    built = build(o.inputs.resolve())
    write_launches(built)
    print(f"wrote {len(built)} launches to {LAUNCHES.relative_to(REPO)}, inputs in {o.inputs}")
    if o.check:
        bad = check(built, o.warpsim, [s for s in o.only.split(",") if s])
        if bad:
            sys.exit(f"{bad} mismatches")
        print("every output matches")


if __name__ == "__main__":
    main()
