// Polybench-GPU 1.0 gemm (Grauer-Gray et al.), rewritten for warpsim.
//
// C = ALPHA * A * B + BETA * C with A ni × nk, B nk × nj, C ni × nj (row-major floats). One
// launch of `gemm_kernel`, 32 × 8 threads per block, one thread per element of C: the thread
// scales its element by BETA, then accumulates ALPHA * A[i][k] * B[k][j] for k = 0 .. nk-1
// directly in global memory, as Polybench-GPU does (no restrict, so the compiler keeps the
// store of every step). ALPHA and BETA are Polybench-GPU's constants. Changed: the sizes are
// kernel arguments instead of macros, so that one PTX serves every dataset.

#define ALPHA 32412.0f
#define BETA 2123.0f

extern "C" __global__ void gemm_kernel(const float *a, const float *b, float *c, int ni, int nj,
                                       int nk)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        c[i * nj + j] *= BETA;
        for (int k = 0; k < nk; k++)
            c[i * nj + j] += ALPHA * a[i * nk + k] * b[k * nj + j];
    }
}
