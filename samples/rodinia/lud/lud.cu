// Rodinia 3.1 lud, written for warpsim.
//
// In-place LU decomposition (Doolittle, no pivoting) of a dense n x n float matrix in 16 x 16
// tiles. For every tile step `offset` = 0, 16, ... the host launches
//   lud_diagonal  <<<1, 16>>>                          factor the diagonal tile,
//   lud_perimeter <<<n/16 - step - 1, 32>>>            the tiles right of it (U, first half of
//                                                      the threads) and below it (L, second half),
//   lud_internal  <<<(k, k), (16, 16)>>>, k = n/16 - step - 1: update the trailing submatrix,
// and a last lud_diagonal for the bottom-right tile. As in Rodinia, the diagonal tile's first
// row is never written back (it is not modified).

#define BLOCK_SIZE 16

extern "C" __global__ void lud_diagonal(float *m, int matrix_dim, int offset)
{
    __shared__ float tile[BLOCK_SIZE][BLOCK_SIZE];
    int t = threadIdx.x;

    int at = offset * matrix_dim + offset;
    for (int r = 0; r < BLOCK_SIZE; r++) {
        tile[r][t] = m[at + t];
        at += matrix_dim;
    }
    __syncthreads();

    for (int i = 0; i < BLOCK_SIZE - 1; i++) {
        // Column i of L below the diagonal: one row per thread.
        if (t > i) {
            for (int j = 0; j < i; j++)
                tile[t][i] -= tile[t][j] * tile[j][i];
            tile[t][i] /= tile[i][i];
        }
        __syncthreads();
        // Row i + 1 of U right of the diagonal: one column per thread.
        if (t > i) {
            for (int j = 0; j < i + 1; j++)
                tile[i + 1][t] -= tile[i + 1][j] * tile[j][t];
        }
        __syncthreads();
    }

    at = (offset + 1) * matrix_dim + offset;
    for (int r = 1; r < BLOCK_SIZE; r++) {
        m[at + t] = tile[r][t];
        at += matrix_dim;
    }
}

extern "C" __global__ void lud_perimeter(float *m, int matrix_dim, int offset)
{
    __shared__ float diag[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float row[BLOCK_SIZE][BLOCK_SIZE];  // the tile right of the diagonal one
    __shared__ float col[BLOCK_SIZE][BLOCK_SIZE];  // the tile below it

    int tile = (blockIdx.x + 1) * BLOCK_SIZE;  // distance of this CTA's tiles from `offset`
    int at;

    // Loads: the first 16 threads take the diagonal tile's upper half and the row tile, the
    // other 16 the diagonal tile's lower half and the column tile.
    if (threadIdx.x < BLOCK_SIZE) {
        int c = threadIdx.x;
        at = offset * matrix_dim + offset;
        for (int r = 0; r < BLOCK_SIZE / 2; r++) {
            diag[r][c] = m[at + c];
            at += matrix_dim;
        }
        at = offset * matrix_dim + offset;
        for (int r = 0; r < BLOCK_SIZE; r++) {
            row[r][c] = m[at + tile + c];
            at += matrix_dim;
        }
    } else {
        int c = threadIdx.x - BLOCK_SIZE;
        at = (offset + BLOCK_SIZE / 2) * matrix_dim + offset;
        for (int r = BLOCK_SIZE / 2; r < BLOCK_SIZE; r++) {
            diag[r][c] = m[at + c];
            at += matrix_dim;
        }
        at = (offset + tile) * matrix_dim + offset;
        for (int r = 0; r < BLOCK_SIZE; r++) {
            col[r][c] = m[at + c];
            at += matrix_dim;
        }
    }
    __syncthreads();

    if (threadIdx.x < BLOCK_SIZE) {
        // U part: forward substitution with the unit lower triangle, one column per thread.
        int c = threadIdx.x;
        for (int i = 1; i < BLOCK_SIZE; i++)
            for (int j = 0; j < i; j++)
                row[i][c] -= diag[i][j] * row[j][c];
    } else {
        // L part: solve against the upper triangle, one row per thread.
        int r = threadIdx.x - BLOCK_SIZE;
        for (int i = 0; i < BLOCK_SIZE; i++) {
            for (int j = 0; j < i; j++)
                col[r][i] -= col[r][j] * diag[j][i];
            col[r][i] /= diag[i][i];
        }
    }
    __syncthreads();

    if (threadIdx.x < BLOCK_SIZE) {
        int c = threadIdx.x;
        at = (offset + 1) * matrix_dim + offset;
        for (int i = 1; i < BLOCK_SIZE; i++) {
            m[at + tile + c] = row[i][c];
            at += matrix_dim;
        }
    } else {
        int c = threadIdx.x - BLOCK_SIZE;
        at = (offset + tile) * matrix_dim + offset;
        for (int i = 0; i < BLOCK_SIZE; i++) {
            m[at + c] = col[i][c];
            at += matrix_dim;
        }
    }
}

extern "C" __global__ void lud_internal(float *m, int matrix_dim, int offset)
{
    __shared__ float row[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float col[BLOCK_SIZE][BLOCK_SIZE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int global_row = offset + (blockIdx.y + 1) * BLOCK_SIZE;
    int global_col = offset + (blockIdx.x + 1) * BLOCK_SIZE;

    row[ty][tx] = m[(offset + ty) * matrix_dim + global_col + tx];
    col[ty][tx] = m[(global_row + ty) * matrix_dim + offset + tx];
    __syncthreads();

    float sum = 0;
    for (int i = 0; i < BLOCK_SIZE; i++)
        sum += col[ty][i] * row[i][tx];
    m[(global_row + ty) * matrix_dim + global_col + tx] -= sum;
}
