// Polybench-GPU 1.0 bicg (Grauer-Gray et al.), rewritten for warpsim.
//
// The BiCG sub-kernel: s = A^T r and q = A p with A nx × ny. `bicg_kernel1` computes s (one
// thread per column of A, coalesced), `bicg_kernel2` q (one thread per row). 256 × 1 threads
// per block; each thread zeroes its element and accumulates in global memory, as Polybench-GPU
// does. Changed: sizes are kernel arguments instead of macros.

extern "C" __global__ void bicg_kernel1(const float *a, const float *r, float *s, int nx, int ny)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        s[j] = 0.0f;
        for (int i = 0; i < nx; i++)
            s[j] += r[i] * a[i * ny + j];
    }
}

extern "C" __global__ void bicg_kernel2(const float *a, const float *p, float *q, int nx, int ny)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        q[i] = 0.0f;
        for (int j = 0; j < ny; j++)
            q[i] += a[i * ny + j] * p[j];
    }
}
