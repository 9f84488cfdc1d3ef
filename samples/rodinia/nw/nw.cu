// Rodinia 3.1 nw (Needleman-Wunsch), written for warpsim.
//
// Global alignment of two sequences: the (n+1) x (n+1) score matrix is filled by dynamic
// programming, score[i][j] = max(score[i-1][j-1] + ref[i][j], score[i][j-1] - penalty,
// score[i-1][j] - penalty). The matrix is cut into 16 x 16 tiles processed along
// anti-diagonals of tiles: the host launches needle_cuda_shared_1 for the tile diagonals
// 1..block_width of the upper-left triangle (grid = i CTAs) and needle_cuda_shared_2 for the
// diagonals block_width-1..1 of the lower-right one. A CTA of 16 threads copies its tile's
// reference scores and the row above / column to the left into shared memory, sweeps the tile's
// own 31 anti-diagonals (one cell per thread, a barrier between diagonals) and writes back.

#define BLOCK_SIZE 16

__device__ int maximum(int a, int b, int c)
{
    int k = (a <= b) ? b : a;
    return (k <= c) ? c : k;
}

// Fills the tile at (tile_x, tile_y): shared by both kernels, as the two Rodinia kernels have
// the same body apart from the tile coordinates and the order of the first loads.
__device__ void fill_tile(const int *reference, int *matrix, int cols, int penalty, int tile_x,
                          int tile_y, bool corner_first)
{
    int tx = threadIdx.x;

    int base = cols * BLOCK_SIZE * tile_y + BLOCK_SIZE * tile_x;
    int index = base + tx + (cols + 1);  // this thread's column, first row of the tile
    int index_n = base + tx + 1;         // the row above the tile
    int index_w = base + cols;           // the column left of the tile
    int index_nw = base;                 // the corner

    __shared__ int score[BLOCK_SIZE + 1][BLOCK_SIZE + 1];
    __shared__ int ref[BLOCK_SIZE][BLOCK_SIZE];

    if (corner_first) {
        if (tx == 0)
            score[0][0] = matrix[index_nw];
        for (int ty = 0; ty < BLOCK_SIZE; ty++)
            ref[ty][tx] = reference[index + cols * ty];
        __syncthreads();
    } else {
        for (int ty = 0; ty < BLOCK_SIZE; ty++)
            ref[ty][tx] = reference[index + cols * ty];
        __syncthreads();
        if (tx == 0)
            score[0][0] = matrix[index_nw];
    }

    score[tx + 1][0] = matrix[index_w + cols * tx];
    __syncthreads();

    score[0][tx + 1] = matrix[index_n];
    __syncthreads();

    // The upper-left half of the tile's anti-diagonals: diagonal m has m + 1 cells.
    for (int m = 0; m < BLOCK_SIZE; m++) {
        if (tx <= m) {
            int x = tx + 1;
            int y = m - tx + 1;
            score[y][x] = maximum(score[y - 1][x - 1] + ref[y - 1][x - 1],
                                  score[y][x - 1] - penalty,
                                  score[y - 1][x] - penalty);
        }
        __syncthreads();
    }

    // The lower-right half.
    for (int m = BLOCK_SIZE - 2; m >= 0; m--) {
        if (tx <= m) {
            int x = tx + BLOCK_SIZE - m;
            int y = BLOCK_SIZE - tx;
            score[y][x] = maximum(score[y - 1][x - 1] + ref[y - 1][x - 1],
                                  score[y][x - 1] - penalty,
                                  score[y - 1][x] - penalty);
        }
        __syncthreads();
    }

    for (int ty = 0; ty < BLOCK_SIZE; ty++)
        matrix[index + ty * cols] = score[ty + 1][tx + 1];
}

extern "C" __global__ void needle_cuda_shared_1(const int *reference, int *matrix, int cols,
                                                int penalty, int i, int block_width)
{
    (void)block_width;
    // Tile diagonal i (1-based) of the upper-left triangle: tiles (bx, i - 1 - bx).
    int bx = blockIdx.x;
    fill_tile(reference, matrix, cols, penalty, bx, i - 1 - bx, true);
}

extern "C" __global__ void needle_cuda_shared_2(const int *reference, int *matrix, int cols,
                                                int penalty, int i, int block_width)
{
    // The lower-right triangle: tiles (bx + block_width - i, block_width - 1 - bx).
    int bx = blockIdx.x;
    fill_tile(reference, matrix, cols, penalty, bx + block_width - i, block_width - bx - 1,
              false);
}
