// Volta's mma.sync.aligned.m8n8k4 with .f16 multiplicands (sm_70; inline PTX, as CUTLASS's
// sm70 mma writes it: NVRTC emits mma.sync only from asm). One warp computes four independent
// 8x8x4 products, one per quad pair: product q (0-3) belongs to lanes 4q..4q+3 (the low
// group) and 16+4q..16+4q+3 (the high group). Block blk's product q is number m = 4 blk + q:
// its A (8x4) and B (4x8) are the 32 halves from m * 32, its C and D (8x8) the 64 elements
// from m * 64. Every thread loads its fragments from the manual's formulas (l = lane % 4,
// h = 4 in the high group, else 0):
//
//   A .row: row l + h, column i    (A stored row-major: a thread's elements are contiguous)
//   A .col: row i + h, column l    (A stored column-major)
//   B .row: row l, column i + h    (B stored row-major)
//   B .col: row i, column l + h    (B stored column-major)
//   C/D .f16: row l + h, column i                                 (row-major)
//   C/D .f32: row (lane & 1) + (i & 2) + h, column (i & 4) + (lane & 2) + (i & 1)
//
// samples/tests/integration/wmma_corpus.rs checks every output exactly.

// The halves of a thread's A or B fragment: four contiguous 16-bit elements, two registers.
__device__ uint2 fragment(const unsigned short *m, int at)
{
    return *(const uint2 *)(m + at);
}

__device__ int lane() { return threadIdx.x % 32; }

// The first element of the thread's A fragment, in elements from A's start.
__device__ int a_at(bool row)
{
    int l = lane() % 4, h = lane() >= 16 ? 4 : 0;
    return row ? (l + h) * 4 : l * 8 + h;
}

// The first element of the thread's B fragment.
__device__ int b_at(bool row)
{
    int l = lane() % 4, h = lane() >= 16 ? 4 : 0;
    return row ? l * 8 + h : (l + h) * 4;
}

// Where element i of the thread's .f32 accumulator lies in the row-major 8x8 matrix.
__device__ int f32_at(int i)
{
    int h = lane() >= 16 ? 4 : 0;
    int row = (lane() & 1) + (i & 2) + h, col = (i & 4) + (lane() & 2) + (i & 1);
    return row * 8 + col;
}

// The thread's .f16 accumulator: row l + h of the row-major 8x8 matrix, four .f16x2 registers.
__device__ int f16_row(void)
{
    return (lane() % 4 + (lane() >= 16 ? 4 : 0)) * 4;
}

__device__ int product(void) { return blockIdx.x * 4 + (lane() / 4) % 4; }

// D = A . B + C with .f32 accumulators (c and d: row-major f32).
#define MMA_F32_F32(NAME, AL, BL, AROW, BROW)                                                 \
    extern "C" __global__ void NAME(const unsigned short *a, const unsigned short *b,         \
                                    const float *c, float *d)                                 \
    {                                                                                         \
        int m = product();                                                                    \
        uint2 ra = fragment(a + m * 32, a_at(AROW)), rb = fragment(b + m * 32, b_at(BROW));   \
        float acc[8], out[8];                                                                 \
        for (int i = 0; i < 8; i++) acc[i] = c[m * 64 + f32_at(i)];                           \
        asm volatile("mma.sync.aligned.m8n8k4." AL "." BL ".f32.f16.f16.f32 "                 \
                     "{%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, {%10, %11}, "               \
                     "{%12, %13, %14, %15, %16, %17, %18, %19};"                              \
                     : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3]), "=f"(out[4]),  \
                       "=f"(out[5]), "=f"(out[6]), "=f"(out[7])                               \
                     : "r"(ra.x), "r"(ra.y), "r"(rb.x), "r"(rb.y), "f"(acc[0]), "f"(acc[1]),  \
                       "f"(acc[2]), "f"(acc[3]), "f"(acc[4]), "f"(acc[5]), "f"(acc[6]),       \
                       "f"(acc[7]));                                                          \
        for (int i = 0; i < 8; i++) d[m * 64 + f32_at(i)] = out[i];                           \
    }

// D = A . B + C with .f16 accumulators (c and d: row-major halves, two to a word).
#define MMA_F16_F16(NAME, AL, BL, AROW, BROW)                                                 \
    extern "C" __global__ void NAME(const unsigned short *a, const unsigned short *b,         \
                                    const unsigned *c, unsigned *d)                           \
    {                                                                                         \
        int m = product();                                                                    \
        uint2 ra = fragment(a + m * 32, a_at(AROW)), rb = fragment(b + m * 32, b_at(BROW));   \
        uint4 acc = *(const uint4 *)(c + m * 32 + f16_row()), out;                            \
        asm volatile("mma.sync.aligned.m8n8k4." AL "." BL ".f16.f16.f16.f16 "                 \
                     "{%0, %1, %2, %3}, {%4, %5}, {%6, %7}, {%8, %9, %10, %11};"              \
                     : "=r"(out.x), "=r"(out.y), "=r"(out.z), "=r"(out.w)                     \
                     : "r"(ra.x), "r"(ra.y), "r"(rb.x), "r"(rb.y), "r"(acc.x), "r"(acc.y),    \
                       "r"(acc.z), "r"(acc.w));                                               \
        *(uint4 *)(d + m * 32 + f16_row()) = out;                                             \
    }

MMA_F32_F32(mma_m8n8k4_row_col_f32, "row", "col", true, false)
MMA_F32_F32(mma_m8n8k4_row_row_f32, "row", "row", true, true)
MMA_F32_F32(mma_m8n8k4_col_col_f32, "col", "col", false, false)
MMA_F32_F32(mma_m8n8k4_col_row_f32, "col", "row", false, true)
MMA_F16_F16(mma_m8n8k4_row_col_f16, "row", "col", true, false)
MMA_F16_F16(mma_m8n8k4_row_row_f16, "row", "row", true, true)
MMA_F16_F16(mma_m8n8k4_col_col_f16, "col", "col", false, false)
MMA_F16_F16(mma_m8n8k4_col_row_f16, "col", "row", false, true)

// Mixed accumulators: .f16 C into .f32 D (the manual allows no .f16 D from an .f32 C).
extern "C" __global__ void mma_m8n8k4_f32_from_f16(const unsigned short *a,
                                                   const unsigned short *b, const unsigned *c,
                                                   float *d)
{
    int m = product();
    uint2 ra = fragment(a + m * 32, a_at(true)), rb = fragment(b + m * 32, b_at(false));
    uint4 acc = *(const uint4 *)(c + m * 32 + f16_row());
    float out[8];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, {%10, %11}, {%12, %13, %14, %15};"
                 : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3]), "=f"(out[4]),
                   "=f"(out[5]), "=f"(out[6]), "=f"(out[7])
                 : "r"(ra.x), "r"(ra.y), "r"(rb.x), "r"(rb.y), "r"(acc.x), "r"(acc.y),
                   "r"(acc.z), "r"(acc.w));
    for (int i = 0; i < 8; i++) d[m * 64 + f32_at(i)] = out[i];
}
