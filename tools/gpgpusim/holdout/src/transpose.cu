// Holdout kernel: matrix transpose through a padded 32x32 shared-memory tile, 32x8 threads a
// tile (four rows each); width and height multiples of 32.
extern "C" __global__ void transpose_tiled(const float* in, float* out, int w, int h)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int r = 0; r < 32; r += 8)
        tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int r = 0; r < 32; r += 8)
        out[(y + r) * h + x] = tile[threadIdx.x][threadIdx.y + r];
}
