// nvrtc-flags: --gpu-architecture=compute_70
// Warp matrix multiply-accumulate (mma.h, sm_70): the three .f16 shapes, row- and column-major
// loads and stores, f32 and f16 accumulators, element-wise work on a fragment, fragments
// loaded from shared memory and accumulated over K. One warp per block; block b works on the
// b-th matrices of each array. samples/tests/integration/wmma_corpus.rs checks every output
// exactly (the inputs are small multiples of 1/4, so every sum is exact).
#include <mma.h>
#include <cuda_fp16.h>

using namespace nvcuda;

// d = a (row-major) . b (col-major) + 2 c (row-major), stored column-major; dh = a . b in f16,
// stored row-major.
extern "C" __global__ void mma_m16n16k16(const half *a, const half *b, const float *c,
                                         float *d, half *dh)
{
    int t = blockIdx.x * 256;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> fh;
    wmma::load_matrix_sync(fa, a + t, 16);
    wmma::load_matrix_sync(fb, b + t, 16);
    wmma::load_matrix_sync(fc, c + t, 16, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; i++) {
        fc.x[i] *= 2.0f;
    }
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + t, fc, 16, wmma::mem_col_major);
    wmma::fill_fragment(fh, 0.0f);
    wmma::mma_sync(fh, fa, fb, fh);
    wmma::store_matrix_sync(dh + t, fh, 16, wmma::mem_row_major);
}

// d (32x8, f16, row-major) = a (32x16, col-major) . b (16x8, row-major) + c (f16, row-major).
extern "C" __global__ void mma_m32n8k16(const half *a, const half *b, const half *c, half *d)
{
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
    wmma::load_matrix_sync(fa, a + blockIdx.x * 512, 32);
    wmma::load_matrix_sync(fb, b + blockIdx.x * 128, 8);
    wmma::load_matrix_sync(fc, c + blockIdx.x * 256, 8, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + blockIdx.x * 256, fc, 8, wmma::mem_row_major);
}

// d (8x32, f32, row-major, leading dimension 32) = a (8 x 16k, row-major) . b (16k x 32,
// row-major): k tiles of B staged through shared memory, accumulated in one fragment.
extern "C" __global__ void mma_m8n32k16_tiled(const half *a, const half *b, float *d, int k)
{
    __shared__ half tile[16 * 32];
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    const half *ab = a + blockIdx.x * 8 * 16 * k;
    const half *bb = b + blockIdx.x * 16 * k * 32;
    for (int kt = 0; kt < k; kt++) {
        for (int i = threadIdx.x; i < 16 * 32; i += 32) {
            tile[i] = bb[kt * 16 * 32 + i];
        }
        __syncwarp();
        wmma::load_matrix_sync(fa, ab + kt * 16, 16 * k);
        wmma::load_matrix_sync(fb, tile, 32);
        wmma::mma_sync(fc, fa, fb, fc);
        __syncwarp();
    }
    wmma::store_matrix_sync(d + blockIdx.x * 256, fc, 32, wmma::mem_row_major);
}
