// Integer arithmetic: add/sub (incl. .sat and 16-bit), mul/mad .lo/.hi/.wide,
// mul24/mad24, div/rem (32 and 64 bit), abs/neg/min/max.
//
// Plain C is used where NVRTC emits the instruction on its own; inline PTX
// forces the variants it never chooses (mad.hi, .sat, 16-bit, mul24.hi, ...).

extern "C" __global__ void int_add_sub_mul(const int *a, const int *b, int *out32,
                                           long long *out64, unsigned *outu)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = a[i];
    int y = b[i];
    long long X = ((long long)x << 20) + y;
    long long Y = ((long long)y << 12) - x;
    unsigned ux = (unsigned)x, uy = (unsigned)y;

    out32[8 * i + 0] = x + y;                    // add.s32
    out32[8 * i + 1] = x - y;                    // sub.s32
    out32[8 * i + 2] = x * y;                    // mul.lo.s32
    out32[8 * i + 3] = x * y + out32[8 * i + 3]; // mad.lo.s32
    out32[8 * i + 4] = __mulhi(x, y);            // mul.hi.s32
    outu[4 * i + 0] = __umulhi(ux, uy);          // mul.hi.u32

    out64[8 * i + 0] = X + Y;                           // add.s64
    out64[8 * i + 1] = X - Y;                           // sub.s64
    out64[8 * i + 2] = X * Y;                           // mul.lo.s64
    out64[8 * i + 3] = (long long)x * (long long)y;     // mul.wide.s32
    out64[8 * i + 4] = (long long)((unsigned long long)ux * (unsigned long long)uy); // mul.wide.u32
    out64[8 * i + 5] = __mul64hi(X, Y);                 // mul.hi.s64
    out64[8 * i + 6] = (long long)__umul64hi((unsigned long long)X, (unsigned long long)Y); // mul.hi.u64
    out64[8 * i + 7] = X * Y + out64[8 * i + 7];        // mul.lo.s64 + add.s64

    int r;
    unsigned ur;
    long long R;
    // saturating add/sub (only defined for .s32)
    asm volatile("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    out32[8 * i + 5] = r;
    asm volatile("sub.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    out32[8 * i + 6] = r;
    // mad .hi / .wide / .hi.sat
    asm volatile("mad.hi.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(r));
    asm volatile("mad.hi.u32 %0, %1, %2, %3;" : "=r"(ur) : "r"(ux), "r"(uy), "r"(ur));
    asm volatile("mad.hi.sat.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(r));
    asm volatile("mad.wide.s32 %0, %1, %2, %3;" : "=l"(R) : "r"(x), "r"(y), "l"(X));
    asm volatile("mad.wide.u32 %0, %1, %2, %3;" : "=l"(R) : "r"(ux), "r"(uy), "l"(R));
    asm volatile("mad.hi.u64 %0, %1, %2, %3;" : "=l"(R) : "l"(X), "l"(Y), "l"(R));
    asm volatile("mad.lo.s64 %0, %1, %2, %0;" : "+l"(R) : "l"(X), "l"(Y));
    asm volatile("mad.hi.s64 %0, %1, %2, %0;" : "+l"(R) : "l"(X), "l"(Y));
    out32[8 * i + 7] = r;
    outu[4 * i + 1] = ur;
    out64[8 * i + 7] += R;

    // 16-bit arithmetic (NVRTC promotes short to 32 bits, so force it)
    unsigned short hx = (unsigned short)x, hy = (unsigned short)y, hr;
    unsigned wide16;
    asm volatile("add.u16 %0, %1, %2;" : "=h"(hr) : "h"(hx), "h"(hy));
    asm volatile("sub.u16 %0, %1, %0;" : "+h"(hr) : "h"(hx));
    asm volatile("mul.lo.u16 %0, %1, %0;" : "+h"(hr) : "h"(hy));
    asm volatile("mul.wide.u16 %0, %1, %2;" : "=r"(wide16) : "h"(hr), "h"(hx));
    unsigned wide16s;
    asm volatile("mul.wide.s16 %0, %1, %2;" : "=r"(wide16s) : "h"(hy), "h"(hr));
    wide16 ^= wide16s;
    asm volatile("mad.lo.s16 %0, %1, %2, %0;" : "+h"(hr) : "h"(hx), "h"(hy));
    outu[4 * i + 2] = wide16 + hr;
}

extern "C" __global__ void int_mul24(const int *a, const int *b, int *out)
{
    int i = threadIdx.x;
    int x = a[i], y = b[i], r;
    unsigned ux = (unsigned)x, uy = (unsigned)y, ur;
    // __mul24/__umul24 are lowered to a plain mul.lo.s32 by NVRTC when the
    // operands are known to fit, so force the instruction as well.
    out[8 * i + 0] = __mul24(x, y);
    asm volatile("mul24.lo.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    out[8 * i + 1] = r;
    asm volatile("mul24.lo.u32 %0, %1, %2;" : "=r"(ur) : "r"(ux), "r"(uy));
    out[8 * i + 1] += ur;
    asm volatile("mul24.hi.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    out[8 * i + 2] = r;
    asm volatile("mul24.hi.u32 %0, %1, %2;" : "=r"(ur) : "r"(ux), "r"(uy));
    out[8 * i + 3] = ur;
    asm volatile("mad24.lo.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(r));
    out[8 * i + 4] = r;
    asm volatile("mad24.lo.u32 %0, %1, %2, %3;" : "=r"(ur) : "r"(ux), "r"(uy), "r"(ur));
    out[8 * i + 5] = ur;
    asm volatile("mad24.hi.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(r));
    out[8 * i + 6] = r;
    asm volatile("mad24.hi.sat.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(r));
    asm volatile("mad24.hi.u32 %0, %1, %2, %3;" : "=r"(ur) : "r"(ux), "r"(uy), "r"(ur));
    out[8 * i + 7] = r ^ ur;
}

extern "C" __global__ void int_div_rem(const int *a, const int *b, int *out32,
                                       long long *out64, unsigned long long *outu64)
{
    int i = threadIdx.x;
    // Quotient and remainder use different divisors: with the same operands
    // NVRTC derives the remainder from the quotient (x - (x/y)*y).
    int x = a[i], y = b[i] | 1, z = b[i + 64] | 2;
    unsigned ux = (unsigned)a[i + 32], uy = (unsigned)b[i + 32] | 1u, uz = uy + 2u;
    long long X = ((long long)x << 33) | ux, Y = (long long)y * 3, Z = Y + 5;
    unsigned long long UX = (unsigned long long)X, UY = (unsigned long long)(Y | 1),
                       UZ = UY + 7;

    out32[4 * i + 0] = x / y;            // div.s32
    out32[4 * i + 1] = x % z;            // rem.s32
    out32[4 * i + 2] = (int)(ux / uy);   // div.u32
    out32[4 * i + 3] = (int)(ux % uz);   // rem.u32
    out64[2 * i + 0] = X / Y;            // div.s64
    out64[2 * i + 1] = X % Z;            // rem.s64
    outu64[2 * i + 0] = UX / UY;         // div.u64
    outu64[2 * i + 1] = UX % UZ;         // rem.u64
}

extern "C" __global__ void int_abs_neg_min_max(const int *a, const int *b, int *out32,
                                               long long *out64)
{
    int i = threadIdx.x;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    long long X = (long long)x * 1000003, Y = (long long)y * -77;
    unsigned long long UX = (unsigned long long)X, UY = (unsigned long long)Y;

    out32[6 * i + 0] = abs(x);                 // abs.s32
    out32[6 * i + 1] = -x;                     // neg.s32
    out32[6 * i + 2] = min(x, y);              // min.s32
    out32[6 * i + 3] = max(x, y);              // max.s32
    out32[6 * i + 4] = (int)min(ux, uy);       // min.u32
    out32[6 * i + 5] = (int)max(ux, uy);       // max.u32
    out64[6 * i + 0] = llabs(X);               // abs.s64
    out64[6 * i + 1] = -X;                     // neg.s64
    out64[6 * i + 2] = min(X, Y);              // min.s64
    out64[6 * i + 3] = max(X, Y);              // max.s64
    out64[6 * i + 4] = (long long)min(UX, UY); // min.u64
    out64[6 * i + 5] = (long long)max(UX, UY); // max.u64

    short hx = (short)x, hr;
    asm volatile("abs.s16 %0, %1;" : "=h"(hr) : "h"(hx));
    asm volatile("neg.s16 %0, %0;" : "+h"(hr));
    asm volatile("min.s16 %0, %0, %1;" : "+h"(hr) : "h"(hx));
    asm volatile("max.u16 %0, %0, %1;" : "+h"(hr) : "h"(hx));
    out32[6 * i + 0] += hr;
}
