// CUDA SDK transpose, coalesced kernel, written for warpsim.
//
// odata = transpose(idata) for a row-major height x width matrix. Each block of TILE_DIM x
// BLOCK_ROWS threads reads a TILE_DIM x TILE_DIM tile with coalesced row reads into shared
// memory, synchronises, and writes the tile's columns as coalesced rows of the output. The tile
// is padded to TILE_DIM + 1 columns so the column reads from shared memory fall in different
// banks. 32 x 8 threads per 32 x 32 tile, the tiling of the SDK's original transpose (the
// current SDK uses 16 x 16); width and height must be multiples of TILE_DIM.

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transposeCoalesced(float *odata, const float *idata, int width,
                                              int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    const int index_in = xIndex + yIndex * width;

    // The output tile is the input tile's mirror: swap the block coordinates.
    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    const int index_out = xIndex + yIndex * height;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
    __syncthreads();
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}
