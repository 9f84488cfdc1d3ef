// Naive matrix multiply, the baseline the CUDA SDK's matrixMul is measured against, written for
// warpsim.
//
// C = A * B with row-major matrices: one thread per element of C, reading A's row and B's
// column straight from global memory (no shared memory). 16 x 16 threads per block, as the
// tiled version, so the two samples compare on the same grid; the guard lets the dimensions be
// any size.

extern "C" __global__ void matrixMul_naive(float *C, const float *A, const float *B, int hA,
                                           int wA, int wB)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= hA || col >= wB)
        return;
    float sum = 0.0f;
    for (int k = 0; k < wA; ++k)
        sum += A[row * wA + k] * B[k * wB + col];
    C[row * wB + col] = sum;
}
