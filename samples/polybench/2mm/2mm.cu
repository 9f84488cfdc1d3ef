// Polybench-GPU 1.0 2mm (Grauer-Gray et al.), rewritten for warpsim.
//
// Two chained matrix products, E = (A * B) * D: `mm2_kernel1` computes tmp = A * B (A ni × nk,
// B nk × nj), then `mm2_kernel2` computes E = tmp * D (D nj × nl). Both use 32 × 8 threads per
// block, one thread per output element, accumulating in global memory as Polybench-GPU does
// (the host zero-fills tmp and E first, as Polybench's CPU version does). Changed: sizes are
// kernel arguments instead of macros.

extern "C" __global__ void mm2_kernel1(const float *a, const float *b, float *tmp, int ni, int nj,
                                       int nk)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        for (int k = 0; k < nk; k++)
            tmp[i * nj + j] += a[i * nk + k] * b[k * nj + j];
    }
}

extern "C" __global__ void mm2_kernel2(const float *tmp, const float *d, float *e, int ni, int nl,
                                       int nj)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nl) {
        for (int k = 0; k < nj; k++)
            e[i * nl + j] += tmp[i * nj + k] * d[k * nl + j];
    }
}
