// Polybench-GPU 1.0 syr2k (Grauer-Gray et al.), rewritten for warpsim.
//
// Symmetric rank-2k update C = ALPHA * A * B^T + ALPHA * B * A^T + BETA * C with A, B n × m
// and C n × n. One launch of `syr2k_kernel`, 32 × 8 threads per block, one thread per element
// of C: scale by BETA, then accumulate both products in global memory. ALPHA and BETA are
// Polybench-GPU's constants. Changed: sizes are kernel arguments instead of macros.

#define ALPHA 12435.0f
#define BETA 4546.0f

extern "C" __global__ void syr2k_kernel(const float *a, const float *b, float *c, int n, int m)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        c[i * n + j] *= BETA;
        for (int k = 0; k < m; k++)
            c[i * n + j] += ALPHA * a[i * m + k] * b[j * m + k] + ALPHA * b[i * m + k] * a[j * m + k];
    }
}
