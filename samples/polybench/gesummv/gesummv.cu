// Polybench-GPU 1.0 gesummv (Grauer-Gray et al.), rewritten for warpsim.
//
// y = ALPHA * A x + BETA * B x with A, B n × n. One launch of `gesummv_kernel`, 256 × 1 threads
// per block, one thread per row: both dot products accumulate in global memory (tmp and y,
// zero-filled by the host) in one loop, then y = ALPHA * tmp + BETA * y. ALPHA and BETA are
// Polybench-GPU's constants. Changed: the size is a kernel argument instead of a macro.

#define ALPHA 43532.0f
#define BETA 12313.0f

extern "C" __global__ void gesummv_kernel(const float *a, const float *b, const float *x, float *y,
                                          float *tmp, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++) {
            tmp[i] += a[i * n + j] * x[j];
            y[i] += b[i * n + j] * x[j];
        }
        y[i] = ALPHA * tmp[i] + BETA * y[i];
    }
}
