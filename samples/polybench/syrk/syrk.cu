// Polybench-GPU 1.0 syrk (Grauer-Gray et al.), rewritten for warpsim.
//
// Symmetric rank-k update C = ALPHA * A * A^T + BETA * C with A n × m and C n × n. One launch
// of `syrk_kernel`, 32 × 8 threads per block, one thread per element of C (the whole matrix,
// not one triangle, as in Polybench-GPU): scale by BETA, then accumulate
// ALPHA * A[i][k] * A[j][k] in global memory. ALPHA and BETA are Polybench-GPU's constants.
// Changed: sizes are kernel arguments instead of macros.

#define ALPHA 12435.0f
#define BETA 4546.0f

extern "C" __global__ void syrk_kernel(const float *a, float *c, int n, int m)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        c[i * n + j] *= BETA;
        for (int k = 0; k < m; k++)
            c[i * n + j] += ALPHA * a[i * m + k] * a[j * m + k];
    }
}
