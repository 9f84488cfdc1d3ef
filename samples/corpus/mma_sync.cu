// nvrtc-flags: --gpu-architecture=compute_80
// mma.sync with the fragment layouts the PTX manual specifies, as CUTLASS-style code writes it
// (inline PTX: NVRTC emits mma.sync only from asm), with fragments loaded by ldmatrix or by
// each thread from the manual's row/column formulas. One warp per block; block b works on the
// b-th matrices. samples/tests/integration/wmma_corpus.rs checks every output exactly.
#include <cuda_fp16.h>

__device__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// d (16x8, f32, row-major) = a (16x16 f16, row-major) . b (16x8 f16) + c (f32, row-major),
// twice: B from column-major storage through ldmatrix.x2 (d), and from row-major storage
// through ldmatrix.x2.trans (d2). A comes through ldmatrix.x4.
extern "C" __global__ void mma_m16n8k16_ldmatrix(const half *a, const half *b_colmajor,
                                                 const half *b_rowmajor, const float *c,
                                                 float *d, float *d2)
{
    __shared__ __align__(16) half sa[16 * 16];
    __shared__ __align__(16) half sb[8 * 16];
    __shared__ __align__(16) half sbr[16 * 8];
    int l = threadIdx.x, g = l / 4, t = l % 4;
    a += blockIdx.x * 256;
    b_colmajor += blockIdx.x * 128;
    b_rowmajor += blockIdx.x * 128;
    c += blockIdx.x * 128;
    for (int i = l; i < 256; i += 32) sa[i] = a[i];
    for (int i = l; i < 128; i += 32) { sb[i] = b_colmajor[i]; sbr[i] = b_rowmajor[i]; }
    __syncwarp();
    unsigned ra[4], rb[2], rb2[2];
    // Matrix j of A: rows (j % 2) * 8 + r, columns from (j / 2) * 8.
    int j = l / 8, r = l % 8;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
                 : "r"(smem_addr(&sa[((j % 2) * 8 + r) * 16 + (j / 2) * 8])));
    // B column-major is B^T row-major: matrix j holds k = 8j..8j+7 of the 8 columns.
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(rb[0]), "=r"(rb[1])
                 : "r"(smem_addr(&sb[(l % 8) * 16 + ((l / 8) % 2) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(rb2[0]), "=r"(rb2[1])
                 : "r"(smem_addr(&sbr[(((l / 8) % 2) * 8 + l % 8) * 8])));
    float acc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
                    c[(g + 8) * 8 + 2 * t + 1]};
    float out[4], out2[4];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(acc[0]), "f"(acc[1]), "f"(acc[2]), "f"(acc[3]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(out2[0]), "=f"(out2[1]), "=f"(out2[2]), "=f"(out2[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb2[0]), "r"(rb2[1]),
                   "f"(acc[0]), "f"(acc[1]), "f"(acc[2]), "f"(acc[3]));
    d += blockIdx.x * 128;
    d2 += blockIdx.x * 128;
    d[g * 8 + 2 * t] = out[0];
    d[g * 8 + 2 * t + 1] = out[1];
    d[(g + 8) * 8 + 2 * t] = out[2];
    d[(g + 8) * 8 + 2 * t + 1] = out[3];
    d2[g * 8 + 2 * t] = out2[0];
    d2[g * 8 + 2 * t + 1] = out2[1];
    d2[(g + 8) * 8 + 2 * t] = out2[2];
    d2[(g + 8) * 8 + 2 * t + 1] = out2[3];
}

// d (16x8, f32, row-major) = a (16x8 tf32, row-major) . b (8x8 tf32, row-major), fragments
// from the manual's m16n8k8 .tf32 formulas: a0 (g, t), a1 (g+8, t), a2 (g, t+4),
// a3 (g+8, t+4); b0 (t, g), b1 (t+4, g).
extern "C" __global__ void mma_m16n8k8_tf32(const float *a, const float *b, float *d)
{
    int l = threadIdx.x, g = l / 4, t = l % 4;
    a += blockIdx.x * 128;
    b += blockIdx.x * 64;
    d += blockIdx.x * 128;
    unsigned ra[4] = {__float_as_uint(a[g * 8 + t]), __float_as_uint(a[(g + 8) * 8 + t]),
                      __float_as_uint(a[g * 8 + t + 4]), __float_as_uint(a[(g + 8) * 8 + t + 4])};
    unsigned rb[2] = {__float_as_uint(b[t * 8 + g]), __float_as_uint(b[(t + 4) * 8 + g])};
    float out[4];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %10, %10, %10};"
                 : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(0.0f));
    d[g * 8 + 2 * t] = out[0];
    d[g * 8 + 2 * t + 1] = out[1];
    d[(g + 8) * 8 + 2 * t] = out[2];
    d[(g + 8) * 8 + 2 * t + 1] = out[3];
}

// d (16x8, s32, row-major) = a (16x32 s8, row-major) . b (32x8 s8, column-major), saturated;
// the manual's m16n8k32 formulas: a register i holds row g (i even) or g+8 (i odd), columns
// 4t..4t+3 (+16 for i >= 2); b register i holds rows 4t..4t+3 (+16 for i = 1) of column g.
extern "C" __global__ void mma_m16n8k32_s8(const signed char *a, const signed char *b, int *d)
{
    int l = threadIdx.x, g = l / 4, t = l % 4;
    a += blockIdx.x * 512;
    b += blockIdx.x * 256;
    d += blockIdx.x * 128;
    const unsigned *a32 = (const unsigned *)a, *b32 = (const unsigned *)b;
    unsigned ra[4] = {a32[(g * 32 + 4 * t) / 4], a32[((g + 8) * 32 + 4 * t) / 4],
                      a32[(g * 32 + 4 * t + 16) / 4], a32[((g + 8) * 32 + 4 * t + 16) / 4]};
    unsigned rb[2] = {b32[(g * 32 + 4 * t) / 4], b32[(g * 32 + 4 * t + 16) / 4]};
    int out[4];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %10, %10, %10};"
                 : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "r"(0));
    d[g * 8 + 2 * t] = out[0];
    d[g * 8 + 2 * t + 1] = out[1];
    d[(g + 8) * 8 + 2 * t] = out[2];
    d[(g + 8) * 8 + 2 * t + 1] = out[3];
}

// d (8x8, f64, row-major) = a (8x4, row-major) . b (4x8, row-major) + c (row-major); the
// manual's m8n8k4 .f64 formulas: a0 (g, t), b0 (t, g), c0 and c1 (g, 2t), (g, 2t+1).
extern "C" __global__ void mma_m8n8k4_f64(const double *a, const double *b, const double *c,
                                          double *d)
{
    int l = threadIdx.x, g = l / 4, t = l % 4;
    a += blockIdx.x * 32;
    b += blockIdx.x * 32;
    c += blockIdx.x * 64;
    d += blockIdx.x * 64;
    double out[2];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                 "{%4, %5};"
                 : "=d"(out[0]), "=d"(out[1])
                 : "d"(a[g * 4 + t]), "d"(b[t * 8 + g]), "d"(c[g * 8 + 2 * t]),
                   "d"(c[g * 8 + 2 * t + 1]));
    d[g * 8 + 2 * t] = out[0];
    d[g * 8 + 2 * t + 1] = out[1];
}
