// Polybench-GPU 1.0 2DConvolution (Grauer-Gray et al.), rewritten for warpsim.
//
// A 3 × 3 convolution with Polybench-GPU's fixed coefficients over an ni × nj image: one launch
// of `Convolution2D_kernel`, 32 × 8 threads per block, one thread per pixel; the border rows
// and columns are left untouched. Changed: sizes are kernel arguments instead of macros.

extern "C" __global__ void Convolution2D_kernel(const float *a, float *b, int ni, int nj)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
    const float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
    const float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1) {
        b[i * nj + j] = c11 * a[(i - 1) * nj + (j - 1)] + c21 * a[(i - 1) * nj + j]
                        + c31 * a[(i - 1) * nj + (j + 1)] + c12 * a[i * nj + (j - 1)]
                        + c22 * a[i * nj + j] + c32 * a[i * nj + (j + 1)]
                        + c13 * a[(i + 1) * nj + (j - 1)] + c23 * a[(i + 1) * nj + j]
                        + c33 * a[(i + 1) * nj + (j + 1)];
    }
}
