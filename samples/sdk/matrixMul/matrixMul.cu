// CUDA SDK matrixMul (shared-memory tiled), written for warpsim.
//
// C = A * B with row-major matrices: every block of BLOCK_SIZE x BLOCK_SIZE threads computes
// one BLOCK_SIZE x BLOCK_SIZE tile of C, walking the tiles of A's block row and B's block
// column in step: each thread loads one element of each into shared memory, the block
// synchronises, and every thread accumulates BLOCK_SIZE products from shared memory (the SDK's
// fully unrolled inner loop). BLOCK_SIZE is 16, the SDK's classic tile; the matrix dimensions
// must be multiples of it (as the SDK requires).

#define BLOCK_SIZE 16

extern "C" __global__ void matrixMul(float *C, const float *A, const float *B, int wA, int wB)
{
    const int bx = blockIdx.x, by = blockIdx.y;
    const int tx = threadIdx.x, ty = threadIdx.y;

    // First, last and step of the tiles of A (a block row) and of B (a block column).
    const int aBegin = wA * BLOCK_SIZE * by;
    const int aEnd = aBegin + wA - 1;
    const int aStep = BLOCK_SIZE;
    const int bBegin = BLOCK_SIZE * bx;
    const int bStep = BLOCK_SIZE * wB;

    float Csub = 0.0f;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += As[ty][k] * Bs[k][tx];
        // The next iteration overwrites the tiles only once every thread is done with them.
        __syncthreads();
    }
    const int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}
