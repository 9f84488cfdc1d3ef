// Polybench-GPU 1.0 3DConvolution (Grauer-Gray et al.), rewritten for warpsim.
//
// A 3 × 3 × 3 stencil over an ni × nj × nk volume with Polybench-GPU's integer coefficients and
// its fifteen terms (the suite reads some corners more than once; kept, since it is the
// workload). The host launches `convolution3D_kernel` once per interior plane i = 1 .. ni-2,
// each launch a 2-D grid of 32 × 8 blocks over (k, j); border points are left untouched.
// Changed: sizes are kernel arguments instead of macros.

extern "C" __global__ void convolution3D_kernel(const float *a, float *b, int i, int ni, int nj,
                                                int nk)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const float c11 = +2, c21 = +5, c31 = -8;
    const float c12 = -3, c22 = +6, c32 = -9;
    const float c13 = +4, c23 = +7, c33 = +10;
    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1 && k > 0 && k < nk - 1) {
        const int p = nj * nk; // plane stride
#define A(di, dj, dk) a[(i + (di)) * p + (j + (dj)) * nk + (k + (dk))]
        b[i * p + j * nk + k] = c11 * A(-1, -1, -1) + c13 * A(+1, -1, -1)
                                + c21 * A(-1, -1, -1) + c23 * A(+1, -1, -1)
                                + c31 * A(-1, -1, -1) + c33 * A(+1, -1, -1)
                                + c12 * A(0, -1, 0) + c22 * A(0, 0, 0)
                                + c32 * A(0, +1, 0) + c11 * A(-1, -1, +1)
                                + c13 * A(+1, -1, +1) + c21 * A(-1, 0, +1)
                                + c23 * A(+1, 0, +1) + c31 * A(-1, +1, +1)
                                + c33 * A(+1, +1, +1);
#undef A
    }
}
