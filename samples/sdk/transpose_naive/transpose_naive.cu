// CUDA SDK transpose, naive kernel, written for warpsim.
//
// odata = transpose(idata) for a row-major height x width matrix. Blocks of TILE_DIM x
// BLOCK_ROWS threads each transpose one TILE_DIM x TILE_DIM tile, every thread copying
// TILE_DIM / BLOCK_ROWS elements a column apart: reads are coalesced along rows, writes are
// strided by `height` (uncoalesced), which is what the coalesced variant fixes. 32 x 8 threads
// per 32 x 32 tile, the tiling of the SDK's original transpose (the current SDK uses 16 x 16);
// width and height must be multiples of TILE_DIM.

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
    const int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    const int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    const int index_in = xIndex + width * yIndex;
    const int index_out = yIndex + height * xIndex;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index_out + i] = idata[index_in + i * width];
}
