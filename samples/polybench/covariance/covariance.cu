// Polybench-GPU 1.0 covariance (Grauer-Gray et al.), rewritten for warpsim.
//
// The covariance matrix of m variables (columns) over n observations (rows). Like
// Polybench-GPU the arrays are (n + 1) × (m + 1) with 1-based indices (row and column 0 unused)
// and three kernels run in turn: `mean_kernel` (column means divided by the suite's float_n,
// 256 × 1 threads per block), `reduce_kernel` (centre every element; 32 × 8) and `covar_kernel`
// (one thread per column j1 computing row j1 of the upper triangle, diagonal included, and
// mirroring it; 256 × 1). Accumulation is in global memory, as in the suite. Changed: sizes are
// kernel arguments instead of macros.

#define FLOAT_N 3214212.01f

extern "C" __global__ void mean_kernel(float *mean, const float *data, int m, int n)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (j <= m) {
        mean[j] = 0.0f;
        for (int i = 1; i <= n; i++)
            mean[j] += data[i * (m + 1) + j];
        mean[j] /= FLOAT_N;
    }
}

extern "C" __global__ void reduce_kernel(const float *mean, float *data, int m, int n)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i <= n && j <= m)
        data[i * (m + 1) + j] -= mean[j];
}

extern "C" __global__ void covar_kernel(float *symmat, const float *data, int m, int n)
{
    const int j1 = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (j1 <= m) {
        for (int j2 = j1; j2 <= m; j2++) {
            symmat[j1 * (m + 1) + j2] = 0.0f;
            for (int i = 1; i <= n; i++)
                symmat[j1 * (m + 1) + j2] += data[i * (m + 1) + j1] * data[i * (m + 1) + j2];
            symmat[j2 * (m + 1) + j1] = symmat[j1 * (m + 1) + j2];
        }
    }
}
