// Polybench-GPU 1.0 atax (Grauer-Gray et al.), rewritten for warpsim.
//
// y = A^T (A x) with A nx × ny. `atax_kernel1` computes tmp = A x (one thread per row of A),
// `atax_kernel2` y = A^T tmp (one thread per column, so its loads are coalesced and kernel 1's
// are not). 256 × 1 threads per block; both accumulate in global memory (the host zero-fills
// tmp and y), as Polybench-GPU does. Changed: sizes are kernel arguments instead of macros.

extern "C" __global__ void atax_kernel1(const float *a, const float *x, float *tmp, int nx, int ny)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        for (int j = 0; j < ny; j++)
            tmp[i] += a[i * ny + j] * x[j];
    }
}

extern "C" __global__ void atax_kernel2(const float *a, float *y, const float *tmp, int nx, int ny)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        for (int i = 0; i < nx; i++)
            y[j] += a[i * ny + j] * tmp[i];
    }
}
