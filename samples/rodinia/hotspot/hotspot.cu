// Rodinia 3.1 hotspot, written for warpsim.
//
// Thermal simulation of a chip: every cell's temperature is advanced with a five-point
// stencil plus its power dissipation and leakage to the ambient temperature. Each CTA of
// BLOCK_SIZE x BLOCK_SIZE threads loads a tile into shared memory and advances it
// `iteration` time steps (the "pyramid"): the tile shrinks by one cell per side and step, so
// neighbouring CTAs overlap by 2 * pyramid_height cells and only the inner
// (BLOCK_SIZE - 2 * iteration)^2 cells are written back. The host launches
// calculate_temp ceil(sim_time / pyramid_height) times, swapping the two temperature
// buffers between launches.
//
// As in Rodinia, the constant 2.0 is a double, so the two neighbour terms and everything
// added to them are evaluated in double precision and rounded to float at the end; the
// CPU reference in samples/src/rodinia/hotspot.rs mirrors that (and NVRTC's contractions).

#define BLOCK_SIZE 16

#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

extern "C" __global__ void calculate_temp(int iteration,      // time steps in this launch
                                          const float *power,  // power per cell
                                          const float *temp_src,
                                          float *temp_dst,
                                          int grid_cols, int grid_rows,
                                          int border_cols, int border_rows,
                                          float Cap, float Rx, float Ry, float Rz,
                                          float step, float time_elapsed)
{
    __shared__ float t_tile[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float p_tile[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float t_next[BLOCK_SIZE][BLOCK_SIZE];

    const float amb_temp = 80.0f;
    (void)time_elapsed;

    int tx = threadIdx.x;
    int ty = threadIdx.y;

    float step_div_cap = step / Cap;
    float rx_inv = 1 / Rx;
    float ry_inv = 1 / Ry;
    float rz_inv = 1 / Rz;

    // The part of the tile this CTA finally owns, and the tile's origin in the grid.
    int owned = BLOCK_SIZE - iteration * 2;
    int tile_y = owned * blockIdx.y - border_rows;
    int tile_x = owned * blockIdx.x - border_cols;
    int tile_y_last = tile_y + BLOCK_SIZE - 1;
    int tile_x_last = tile_x + BLOCK_SIZE - 1;

    int gy = tile_y + ty;
    int gx = tile_x + tx;
    int index = grid_cols * gy + gx;

    if (IN_RANGE(gy, 0, grid_rows - 1) && IN_RANGE(gx, 0, grid_cols - 1)) {
        t_tile[ty][tx] = temp_src[index];
        p_tile[ty][tx] = power[index];
    }
    __syncthreads();

    // Rows and columns of the tile that lie inside the grid.
    int valid_y_min = (tile_y < 0) ? -tile_y : 0;
    int valid_y_max = (tile_y_last > grid_rows - 1)
                          ? BLOCK_SIZE - 1 - (tile_y_last - grid_rows + 1)
                          : BLOCK_SIZE - 1;
    int valid_x_min = (tile_x < 0) ? -tile_x : 0;
    int valid_x_max = (tile_x_last > grid_cols - 1)
                          ? BLOCK_SIZE - 1 - (tile_x_last - grid_cols + 1)
                          : BLOCK_SIZE - 1;

    // Neighbours, clamped at the grid's edges (the edge cell stands in for the missing one).
    int n = ty - 1, s = ty + 1, w = tx - 1, e = tx + 1;
    if (n < valid_y_min) n = valid_y_min;
    if (s > valid_y_max) s = valid_y_max;
    if (w < valid_x_min) w = valid_x_min;
    if (e > valid_x_max) e = valid_x_max;

    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && IN_RANGE(ty, i + 1, BLOCK_SIZE - i - 2) &&
            IN_RANGE(tx, valid_x_min, valid_x_max) && IN_RANGE(ty, valid_y_min, valid_y_max)) {
            computed = true;
            float c = t_tile[ty][tx];
            t_next[ty][tx] = c + step_div_cap * (p_tile[ty][tx] +
                                                 (t_tile[s][tx] + t_tile[n][tx] - 2.0 * c) * ry_inv +
                                                 (t_tile[ty][e] + t_tile[ty][w] - 2.0 * c) * rx_inv +
                                                 (amb_temp - c) * rz_inv);
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            t_tile[ty][tx] = t_next[ty][tx];
        __syncthreads();
    }

    // After the last step only the cells of the owned part are still "computed".
    if (computed)
        temp_dst[index] = t_next[ty][tx];
}
