// Rodinia 3.1 pathfinder (dynamic programming over a grid, "pyramid" tiling), rewritten for
// warpsim.
//
// Row by row, dst[x] = wall[t][x] + min(src[x-1], src[x], src[x+1]) (neighbours clamped at
// the edges). Each launch advances `iteration` rows (the pyramid height) in shared memory:
// a 256-thread block loads 256 columns, and after every row one more column on each side
// becomes stale, so a block owns BLOCK_SIZE - 2*iteration*HALO columns of the result. The
// host launches ceil((rows-1)/pyramid_height) times, swapping the two result buffers.

#define BLOCK_SIZE 256
#define HALO 1

#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

extern "C" __global__ void dynproc_kernel(int iteration, int *gpuWall, int *gpuSrc,
                                          int *gpuResults, int cols, int rows, int startStep,
                                          int border)
{
    __shared__ int prev[BLOCK_SIZE];
    __shared__ int result[BLOCK_SIZE];

    const int bx = blockIdx.x;
    const int tx = threadIdx.x;

    // Columns this block owns at the end, and the window it loads (border columns of halo
    // on each side).
    const int small_block_cols = BLOCK_SIZE - iteration * HALO * 2;
    const int blkX = small_block_cols * bx - border;
    const int blkXmax = blkX + BLOCK_SIZE - 1;
    const int xidx = blkX + tx;

    // The part of the window inside the grid.
    const int validXmin = (blkX < 0) ? -blkX : 0;
    const int validXmax = (blkXmax > cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - cols + 1)
                                                : BLOCK_SIZE - 1;
    const int W = (tx - 1 < validXmin) ? validXmin : tx - 1;
    const int E = (tx + 1 > validXmax) ? validXmax : tx + 1;
    const bool isValid = IN_RANGE(tx, validXmin, validXmax);

    if (IN_RANGE(xidx, 0, cols - 1))
        prev[tx] = gpuSrc[xidx];
    __syncthreads();

    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        // Row i is exact only away from the stale edges of the window.
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) {
            computed = true;
            int shortest = MIN(prev[W], prev[tx]);
            shortest = MIN(shortest, prev[E]);
            result[tx] = shortest + gpuWall[cols * (startStep + i) + xidx];
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            prev[tx] = result[tx];
        __syncthreads();
    }

    // After the last row only the owned columns are still flagged.
    if (computed)
        gpuResults[xidx] = result[tx];
}
