"""numba-cuda kernels, unmodified, on warpsim: numba finds the CUDA driver as it always does
(cuda-python's bindings dlopen libcuda.so.1), and clients/run.sh puts a libcuda.so.1 link to
libwarpsim_cuda.so on LD_LIBRARY_PATH. Each result is checked against numpy."""

import math
import sys

import numpy as np
from numba import cuda, float32, int32


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


THREADS = 128


@cuda.jit
def block_sums(x, partial):
    """Each block sums its slice in shared memory, halving the active threads each step."""
    tile = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = tile[0]


@cuda.jit
def histogram(values, bins):
    """Atomic increments into a small histogram, many threads per bin."""
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, 1)


@cuda.jit
def global_max(x, result):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.max(result, 0, x[i])


def main():
    dev = cuda.get_current_device()
    print(f"numba sees: {dev.name.decode() if isinstance(dev.name, bytes) else dev.name}, "
          f"compute capability {dev.compute_capability[0]}.{dev.compute_capability[1]}")
    rng = np.random.default_rng(21)
    failures = 0

    n = 10_000
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    out = cuda.device_array_like(a)
    vector_add[math.ceil(n / 256), 256](cuda.to_device(a), cuda.to_device(b), out)
    ok = np.array_equal(out.copy_to_host(), a + b)
    failures += not ok
    print(f"vector add of {n}: {'ok' if ok else 'WRONG'}")

    x = rng.random(20_000, dtype=np.float32)
    blocks = math.ceil(x.size / THREADS)
    partial = cuda.device_array(blocks, dtype=np.float32)
    block_sums[blocks, THREADS](cuda.to_device(x), partial)
    got = partial.copy_to_host()
    want = np.array([x[k * THREADS:(k + 1) * THREADS].sum(dtype=np.float64) for k in range(blocks)])
    ok = np.allclose(got, want, rtol=1e-5) and math.isclose(got.sum(dtype=np.float64), x.sum(dtype=np.float64), rel_tol=1e-5)
    failures += not ok
    print(f"shared-memory reduction of {x.size} in {blocks} blocks: {'ok' if ok else 'WRONG'} (sum {got.sum():.4f})")

    values = rng.integers(0, 1 << 20, size=50_000, dtype=np.int32)
    bins = cuda.to_device(np.zeros(16, dtype=np.int32))
    histogram[math.ceil(values.size / 256), 256](cuda.to_device(values), bins)
    got = bins.copy_to_host()
    want = np.bincount(values % 16, minlength=16).astype(np.int32)
    ok = np.array_equal(got, want)
    failures += not ok
    print(f"atomic histogram of {values.size} values into 16 bins: {'ok' if ok else 'WRONG'}")

    ints = rng.integers(-1_000_000, 1_000_000, size=30_000, dtype=np.int32)
    result = cuda.to_device(np.array([np.iinfo(np.int32).min], dtype=np.int32))
    global_max[math.ceil(ints.size / 256), 256](cuda.to_device(ints), result)
    ok = int(result.copy_to_host()[0]) == int(ints.max())
    failures += not ok
    print(f"atomic max of {ints.size} values: {'ok' if ok else 'WRONG'}")

    print(f"numba-cuda client: {4 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
