// Polybench-GPU 1.0 3mm (Grauer-Gray et al.), rewritten for warpsim.
//
// Three matrix products, G = (A * B) * (C * D): `mm3_kernel1` computes E = A * B (A ni × nk,
// B nk × nj), `mm3_kernel2` F = C * D (C nj × nm, D nm × nl) and `mm3_kernel3` G = E * F. One
// kernel body serves all three (as Polybench-GPU's three kernels are the same loop on different
// arrays): 32 × 8 threads per block, one thread per output element, which zeroes its element
// (as the suite's PolyBench-ACC revision does; 1.0 relies on zero-filled buffers) and
// accumulates in global memory. Changed: sizes are kernel arguments instead of macros.

__device__ void matmul(const float *x, const float *y, float *z, int rows, int cols, int inner)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols) {
        z[i * cols + j] = 0.0f;
        for (int k = 0; k < inner; k++)
            z[i * cols + j] += x[i * inner + k] * y[k * cols + j];
    }
}

extern "C" __global__ void mm3_kernel1(const float *a, const float *b, float *e, int ni, int nj,
                                       int nk)
{
    matmul(a, b, e, ni, nj, nk);
}

extern "C" __global__ void mm3_kernel2(const float *c, const float *d, float *f, int nj, int nl,
                                       int nm)
{
    matmul(c, d, f, nj, nl, nm);
}

extern "C" __global__ void mm3_kernel3(const float *e, const float *f, float *g, int ni, int nl,
                                       int nj)
{
    matmul(e, f, g, ni, nl, nj);
}
