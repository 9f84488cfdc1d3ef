// Extended-precision arithmetic through the carry flag:
// add.cc / addc(.cc) / sub.cc / subc(.cc) / mad.lo.cc / madc.{lo,hi}(.cc),
// plus sad (sum of absolute differences).  NVRTC never emits carry-chain
// instructions for plain C, so they are written as inline PTX.

// 128-bit a + b and a - b, each as four 32-bit limbs.
extern "C" __global__ void add_sub_u128(const uint4 *a, const uint4 *b, uint4 *sum, uint4 *diff)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uint4 x = a[i], y = b[i], s, d;
    asm volatile(
        "add.cc.u32  %0, %4, %8;\n\t"
        "addc.cc.u32 %1, %5, %9;\n\t"
        "addc.cc.u32 %2, %6, %10;\n\t"
        "addc.u32    %3, %7, %11;"
        : "=r"(s.x), "=r"(s.y), "=r"(s.z), "=r"(s.w)
        : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
    asm volatile(
        "sub.cc.u32  %0, %4, %8;\n\t"
        "subc.cc.u32 %1, %5, %9;\n\t"
        "subc.cc.u32 %2, %6, %10;\n\t"
        "subc.u32    %3, %7, %11;"
        : "=r"(d.x), "=r"(d.y), "=r"(d.z), "=r"(d.w)
        : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
    sum[i] = s;
    diff[i] = d;
}

// Signed and 64-bit carry chains.
extern "C" __global__ void carry_s32_u64(const long long *a, const long long *b, long long *out)
{
    int i = threadIdx.x;
    long long x = a[i], y = b[i], lo, hi;
    int xs = (int)x, ys = (int)y, r0, r1;
    // 128-bit add from two 64-bit limbs: {x, y} + {y, x}
    asm volatile("add.cc.u64 %0, %2, %3;\n\t"
                 "addc.u64   %1, %3, %2;"
                 : "=l"(lo), "=l"(hi) : "l"(x), "l"(y));
    out[4 * i + 0] = lo;
    out[4 * i + 1] = hi;
    asm volatile("sub.cc.s64 %0, %2, %3;\n\t"
                 "subc.s64   %1, %3, %2;"
                 : "=l"(lo), "=l"(hi) : "l"(x), "l"(y));
    out[4 * i + 2] = lo ^ hi;
    asm volatile("add.cc.s32 %0, %2, %3;\n\t"
                 "addc.cc.s32 %1, %3, %2;\n\t"
                 "subc.s32   %1, %1, %0;"
                 : "=r"(r0), "=r"(r1) : "r"(xs), "r"(ys));
    out[4 * i + 3] = r0 + r1;
}

// 64x64 -> 128-bit multiply from 32-bit limbs using the mad carry chain.
extern "C" __global__ void mul_u64x64(const unsigned long long *a, const unsigned long long *b,
                                      uint4 *out)
{
    int i = threadIdx.x;
    unsigned a0 = (unsigned)a[i], a1 = (unsigned)(a[i] >> 32);
    unsigned b0 = (unsigned)b[i], b1 = (unsigned)(b[i] >> 32);
    unsigned r0, r1, r2, r3;
    asm volatile(
        "mul.lo.u32      %0, %4, %6;\n\t"     // r0 = lo(a0*b0)
        "mul.hi.u32      %1, %4, %6;\n\t"     // r1 = hi(a0*b0)
        "mad.lo.cc.u32   %1, %5, %6, %1;\n\t" // r1 += lo(a1*b0)
        "madc.hi.u32     %2, %5, %6, 0;\n\t"  // r2  = hi(a1*b0) + c
        "mad.lo.cc.u32   %1, %4, %7, %1;\n\t" // r1 += lo(a0*b1)
        "madc.hi.cc.u32  %2, %4, %7, %2;\n\t" // r2 += hi(a0*b1) + c
        "addc.u32        %3, 0, 0;\n\t"       // r3  = c
        "mad.lo.cc.u32   %2, %5, %7, %2;\n\t" // r2 += lo(a1*b1)
        "madc.hi.u32     %3, %5, %7, %3;"     // r3 += hi(a1*b1) + c
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
        : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    unsigned t;
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;\n\t"
                 "madc.lo.cc.u32 %0, %1, %2, %0;\n\t"
                 "madc.lo.u32 %0, %0, %2, %1;"
                 : "=r"(t) : "r"(a0), "r"(b1), "r"(r3));
    long long w;
    asm volatile("mad.lo.cc.s64 %0, %1, %2, %1;\n\t"
                 "madc.hi.s64   %0, %1, %2, %0;"
                 : "=l"(w) : "l"((long long)a[i]), "l"((long long)b[i]));
    out[i] = make_uint4(r0, r1, r2, r3 ^ t ^ (unsigned)w);
}

// Sum of absolute differences: d = c + |a - b|.
extern "C" __global__ void sad_kernel(const int *a, const int *b, int *out)
{
    int i = threadIdx.x;
    int x = a[i], y = b[i];
    out[4 * i + 0] = __sad(x, y, out[4 * i + 0]);                  // signed
    out[4 * i + 1] = (int)__usad((unsigned)x, (unsigned)y, 7u);    // unsigned
    int r;
    asm volatile("sad.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(i));
    out[4 * i + 2] = r;
    asm volatile("sad.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(r));
    long long R;
    asm volatile("sad.u64 %0, %1, %2, %3;" : "=l"(R) : "l"((long long)x), "l"((long long)y), "l"((long long)r));
    unsigned short h;
    asm volatile("sad.s16 %0, %1, %2, %1;" : "=h"(h) : "h"((unsigned short)x), "h"((unsigned short)y));
    out[4 * i + 3] = r + (int)R + h;
}
