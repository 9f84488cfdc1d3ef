// nvrtc-flags: --gpu-architecture=compute_80
// Warp matrix multiply-accumulate of sm_72 and sm_80 (mma.h): .bf16, .tf32, .f64, .s8 and .u8
// fragments. One warp per block; block b works on the b-th matrices of each array.
// samples/tests/integration/wmma_corpus.rs checks every output exactly.
#include <mma.h>
#include <cuda_bf16.h>

using namespace nvcuda;

// d (16x16, f32, row-major) = a (bf16, row-major) . b (bf16, row-major) + c (f32, col-major).
extern "C" __global__ void mma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                    const float *c, float *d)
{
    int t = blockIdx.x * 256;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a + t, 16);
    wmma::load_matrix_sync(fb, b + t, 16);
    wmma::load_matrix_sync(fc, c + t, 16, wmma::mem_col_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + t, fc, 16, wmma::mem_row_major);
}

// d (16x16, f32) = tf32(a) (16x8, row-major) . tf32(b) (8x16, col-major), the inputs rounded to
// tf32 in the fragments.
extern "C" __global__ void mma_tf32(const float *a, const float *b, float *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a + blockIdx.x * 128, 8);
    wmma::load_matrix_sync(fb, b + blockIdx.x * 128, 8);
    for (int i = 0; i < fa.num_elements; i++) {
        fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    }
    for (int i = 0; i < fb.num_elements; i++) {
        fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    }
    wmma::fill_fragment(fc, 0.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + blockIdx.x * 256, fc, 16, wmma::mem_row_major);
}

// d (8x8, f64, row-major) = a (8x4, row-major) . b (4x8, col-major) + c (row-major).
extern "C" __global__ void mma_f64(const double *a, const double *b, const double *c, double *d)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, a + blockIdx.x * 32, 4);
    wmma::load_matrix_sync(fb, b + blockIdx.x * 32, 4);
    wmma::load_matrix_sync(fc, c + blockIdx.x * 64, 8, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + blockIdx.x * 64, fc, 8, wmma::mem_row_major);
}

// d (16x16, s32, row-major) = a (s8, row-major) . b (s8, col-major); du (32x8) = au (u8,
// row-major) . bu (u8, col-major) + d's first 256 values, with saturation.
extern "C" __global__ void mma_int8(const signed char *a, const signed char *b,
                                    const unsigned char *au, const unsigned char *bu, int *d,
                                    int *du)
{
    int t = blockIdx.x * 256;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a + t, 16);
    wmma::load_matrix_sync(fb, b + t, 16);
    wmma::fill_fragment(fc, 0);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + t, fc, 16, wmma::mem_row_major);
    wmma::fragment<wmma::matrix_a, 32, 8, 16, unsigned char, wmma::row_major> ua;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::col_major> ub;
    wmma::fragment<wmma::accumulator, 32, 8, 16, int> uc;
    wmma::load_matrix_sync(ua, au + blockIdx.x * 512, 16);
    wmma::load_matrix_sync(ub, bu + blockIdx.x * 128, 16);
    wmma::load_matrix_sync(uc, d + t, 8, wmma::mem_row_major);
    wmma::mma_sync(uc, ua, ub, uc, true);
    wmma::store_matrix_sync(du + t, uc, 8, wmma::mem_row_major);
}
