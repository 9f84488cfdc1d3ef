// Polybench-GPU 1.0 correlation (Grauer-Gray et al.), rewritten for warpsim.
//
// The correlation matrix of m variables (columns) over n observations (rows). Like
// Polybench-GPU the arrays are (n + 1) × (m + 1) with 1-based indices (row and column 0 unused)
// and four kernels run in turn: `mean_kernel` (column means, 256 × 1 threads per block),
// `std_kernel` (column standard deviations, clamped to 1 below EPS; 256 × 1), `reduce_kernel`
// (centre and scale every element; 32 × 8) and `corr_kernel` (one thread per column j1
// computing row j1 of the upper triangle and mirroring it; 256 × 1). FLOAT_N and EPS are the
// suite's constants (FLOAT_N is deliberately not n). Accumulation is in global memory, as in
// the suite. Changed: sizes are kernel arguments, and the host rounds the 1-D grids up (the
// suite truncates them, dropping columns when m is not a multiple of 256).

#define FLOAT_N 3214212.01f
#define EPS 0.005f

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

extern "C" __global__ void std_kernel(const float *mean, float *std, const float *data, int m,
                                      int n)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (j <= m) {
        std[j] = 0.0f;
        for (int i = 1; i <= n; i++)
            std[j] += (data[i * (m + 1) + j] - mean[j]) * (data[i * (m + 1) + j] - mean[j]);
        std[j] /= FLOAT_N;
        std[j] = sqrtf(std[j]);
        if (std[j] <= EPS)
            std[j] = 1.0f;
    }
}

extern "C" __global__ void reduce_kernel(const float *mean, const float *std, float *data, int m,
                                         int n)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i <= n && j <= m) {
        data[i * (m + 1) + j] -= mean[j];
        data[i * (m + 1) + j] /= sqrtf(FLOAT_N) * std[j];
    }
}

extern "C" __global__ void corr_kernel(float *symmat, const float *data, int m, int n)
{
    const int j1 = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (j1 < m) {
        symmat[j1 * (m + 1) + j1] = 1.0f;
        for (int j2 = j1 + 1; j2 <= m; j2++) {
            symmat[j1 * (m + 1) + j2] = 0.0f;
            for (int i = 1; i <= n; i++)
                symmat[j1 * (m + 1) + j2] += data[i * (m + 1) + j1] * data[i * (m + 1) + j2];
            symmat[j2 * (m + 1) + j1] = symmat[j1 * (m + 1) + j2];
        }
    }
}
