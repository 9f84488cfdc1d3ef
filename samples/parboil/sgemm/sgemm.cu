// Parboil sgemm (the `cuda` version, `mysgemmNT`), written for warpsim.
//
// C = alpha * A * B^T + beta * C for column-major A (m x k, lda = m), B^T given as B stored
// k rows of n (ldb = n: element (n, kk) of B^T at B[n + kk * ldb]) and column-major C
// (m x n, ldc = m), the 'N', 'T' case Parboil's host code calls.
//
// Register tiling as in Parboil: a CTA of TILE_N x TILE_TB_HEIGHT (16 x 8) threads computes a
// TILE_M x TILE_N (128 x 16) tile of C. Each of the 128 threads owns one row m of the tile and
// keeps its 16 partial sums in registers; per step of TILE_TB_HEIGHT along k the CTA stages an
// 8 x 16 slice of B^T in shared memory, and every thread streams its own A elements from
// global memory (coalesced: consecutive threads read consecutive m). Like Parboil, the kernel
// requires m % TILE_M == 0, n % TILE_N == 0 and k % TILE_TB_HEIGHT == 0 (the host checks).

#define TILE_N 16
#define TILE_TB_HEIGHT 8
#define TILE_M (TILE_N * TILE_TB_HEIGHT)

extern "C" __global__ void mysgemmNT(const float *A, int lda, const float *B, int ldb,
                                     float *C, int ldc, int k, float alpha, float beta)
{
    __shared__ float b_tile[TILE_TB_HEIGHT][TILE_N];

    // The 16 partial sums of this thread's row of the tile.
    float acc[TILE_N];
#pragma unroll
    for (int c = 0; c < TILE_N; c++)
        acc[c] = 0.0f;

    int tid = threadIdx.y * blockDim.x + threadIdx.x; // 0 .. TILE_M - 1
    int row = blockIdx.x * TILE_M + tid;              // the row of C this thread owns
    int col = blockIdx.y * TILE_N + threadIdx.x;      // the column of B^T this thread stages

    for (int kb = 0; kb < k; kb += TILE_TB_HEIGHT) {
        b_tile[threadIdx.y][threadIdx.x] = B[col + (kb + threadIdx.y) * ldb];
        __syncthreads();
#pragma unroll
        for (int j = 0; j < TILE_TB_HEIGHT; j++) {
            float a = A[row + (kb + j) * lda];
#pragma unroll
            for (int c = 0; c < TILE_N; c++)
                acc[c] += a * b_tile[j][c];
        }
        __syncthreads();
    }

    int out = ldc * blockIdx.y * TILE_N + row;
#pragma unroll
    for (int c = 0; c < TILE_N; c++)
        C[out + c * ldc] = C[out + c * ldc] * beta + alpha * acc[c];
}
