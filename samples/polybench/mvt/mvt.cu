// Polybench-GPU 1.0 mvt (Grauer-Gray et al.), rewritten for warpsim.
//
// Two matrix-vector products with A n × n: x1 += A y1 (`mvt_kernel1`, one thread per row) and
// x2 += A^T y2 (`mvt_kernel2`, one thread per column). 256 × 1 threads per block; both
// accumulate into the initialised x1 and x2 in global memory, as Polybench-GPU does. Changed:
// the size is a kernel argument instead of a macro.

extern "C" __global__ void mvt_kernel1(const float *a, float *x1, const float *y1, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x1[i] += a[i * n + j] * y1[j];
    }
}

extern "C" __global__ void mvt_kernel2(const float *a, float *x2, const float *y2, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x2[i] += a[j * n + i] * y2[j];
    }
}
