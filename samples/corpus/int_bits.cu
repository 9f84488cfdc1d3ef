// Bit manipulation: popc, clz, bfind, brev, bfe, bfi, prmt (all modes),
// shf (l/r, wrap/clamp), bmsk, logical ops (and/or/xor/not/cnot on integers
// and predicates) and shifts (shl, shr signed/unsigned, 32/64-bit).

extern "C" __global__ void bit_count(const unsigned *a, const unsigned long long *b, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = a[i];
    unsigned long long X = b[i];
    out[8 * i + 0] = __popc(x);       // popc.b32
    out[8 * i + 1] = __popcll(X);     // popc.b64
    out[8 * i + 2] = __clz((int)x);   // clz.b32
    out[8 * i + 3] = __clzll((long long)X); // clz.b64
    out[8 * i + 4] = __ffs((int)x);   // brev + bfind.shiftamt
    out[8 * i + 5] = __ffsll((long long)X);
    int r;
    asm volatile("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
    out[8 * i + 6] = r;
    asm volatile("bfind.s32 %0, %1;" : "=r"(r) : "r"((int)x));
    out[8 * i + 7] = r;
    asm volatile("bfind.u64 %0, %1;" : "=r"(r) : "l"(X));
    out[8 * i + 0] += r;
    asm volatile("bfind.s64 %0, %1;" : "=r"(r) : "l"((long long)X));
    out[8 * i + 1] += r;
    asm volatile("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(x));
    out[8 * i + 2] += r;
    asm volatile("bfind.shiftamt.s64 %0, %1;" : "=r"(r) : "l"((long long)X));
    out[8 * i + 3] += r;
}

extern "C" __global__ void bit_fields(const unsigned *a, const unsigned long long *b,
                                      unsigned *out, unsigned long long *out64)
{
    int i = threadIdx.x;
    unsigned x = a[i], y = a[i + 32];
    unsigned long long X = b[i], Y = b[i + 32];
    unsigned pos = i & 15, len = (i >> 2) + 1;

    out[8 * i + 0] = __brev(x);          // brev.b32
    out64[4 * i + 0] = __brevll(X);      // brev.b64
    out[8 * i + 1] = (x >> 5) & 0x3ffu;  // NVRTC: shr.u32 + and.b32, not bfe

    unsigned r;
    int s;
    unsigned long long R;
    asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
    out[8 * i + 2] = r;
    asm volatile("bfe.s32 %0, %1, %2, %3;" : "=r"(s) : "r"((int)x), "r"(pos), "r"(len));
    out[8 * i + 3] = (unsigned)s;
    asm volatile("bfe.u64 %0, %1, %2, %3;" : "=l"(R) : "l"(X), "r"(pos * 3), "r"(len * 2));
    out64[4 * i + 1] = R;
    asm volatile("bfe.s64 %0, %1, %2, %3;" : "=l"(R) : "l"(X), "r"(pos), "r"(len));
    out64[4 * i + 2] = R;
    asm volatile("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(x), "r"(y), "r"(pos), "r"(len));
    out[8 * i + 4] = r;
    asm volatile("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(R) : "l"(X), "l"(Y), "r"(pos * 2), "r"(len));
    out64[4 * i + 3] = R;
    // bmsk: a mask of b ones starting at bit a (sm_70+)
    asm volatile("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r) : "r"(pos), "r"(len));
    out[8 * i + 5] = r;
    asm volatile("bmsk.wrap.b32 %0, %1, %2;" : "=r"(r) : "r"(pos + 20), "r"(len + 16));
    out[8 * i + 6] = r;
}

extern "C" __global__ void bit_permute(const unsigned *a, unsigned *out)
{
    int i = threadIdx.x;
    unsigned x = a[i], y = a[i + 32], sel = a[i + 64], r;
    out[16 * i + 0] = __byte_perm(x, y, sel);    // prmt.b32 (register selector)
    out[16 * i + 1] = __byte_perm(x, y, 0x3210u ^ (i & 7u)); // prmt.b32
    asm volatile("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    out[16 * i + 2] = r;
    asm volatile("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    out[16 * i + 3] = r;
    asm volatile("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    out[16 * i + 4] = r;
    asm volatile("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    out[16 * i + 5] = r;
    asm volatile("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    out[16 * i + 6] = r;
    asm volatile("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    out[16 * i + 7] = r;

    // funnel shifts
    out[16 * i + 8] = __funnelshift_l(x, y, sel);   // shf.l.wrap.b32
    out[16 * i + 9] = __funnelshift_r(x, y, sel);   // shf.r.wrap.b32
    out[16 * i + 10] = __funnelshift_lc(x, y, sel); // shf.l.clamp.b32
    out[16 * i + 11] = __funnelshift_rc(x, y, sel); // shf.r.clamp.b32
}

extern "C" __global__ void bit_logic(const unsigned *a, const unsigned long long *b,
                                     unsigned *out, unsigned long long *out64)
{
    int i = threadIdx.x;
    unsigned x = a[i], y = a[i + 32];
    int sx = (int)x;
    unsigned long long X = b[i], Y = b[i + 32];
    long long SX = (long long)X;
    unsigned sh = y & 31;

    out[16 * i + 0] = x & y;     // and.b32
    out[16 * i + 1] = x | y;     // or.b32
    out[16 * i + 2] = x ^ y;     // xor.b32
    out[16 * i + 3] = ~x;        // not.b32
    out[16 * i + 4] = x << sh;   // shl.b32
    out[16 * i + 5] = x >> sh;   // shr.u32
    out[16 * i + 6] = (unsigned)(sx >> sh); // shr.s32
    out64[8 * i + 0] = X & Y;    // and.b64
    out64[8 * i + 1] = X | Y;    // or.b64
    out64[8 * i + 2] = X ^ Y;    // xor.b64
    out64[8 * i + 3] = ~X;       // not.b64
    out64[8 * i + 4] = X << sh;  // shl.b64
    out64[8 * i + 5] = X >> sh;  // shr.u64
    out64[8 * i + 6] = (unsigned long long)(SX >> sh); // shr.s64

    unsigned r;
    asm volatile("cnot.b32 %0, %1;" : "=r"(r) : "r"(x));
    out[16 * i + 7] = r;
    unsigned long long R;
    asm volatile("cnot.b64 %0, %1;" : "=l"(R) : "l"(X));
    out64[8 * i + 7] = R;
    unsigned short h;
    asm volatile("{\n\t.reg .b16 t;\n\t"
                 "and.b16 t, %1, %2;\n\t"
                 "or.b16 t, t, %1;\n\t"
                 "xor.b16 t, t, %2;\n\t"
                 "not.b16 t, t;\n\t"
                 "cnot.b16 t, t;\n\t"
                 "shl.b16 t, t, 3;\n\t"
                 "shr.u16 t, t, 1;\n\t"
                 "shr.s16 %0, t, 1;\n\t}"
                 : "=h"(h) : "h"((unsigned short)x), "h"((unsigned short)y));
    out[16 * i + 8] = h;

    // predicate logic
    asm volatile("{\n\t.reg .pred p, q, t;\n\t"
                 "setp.ne.u32 p, %1, 0;\n\t"
                 "setp.ne.u32 q, %2, 0;\n\t"
                 "and.pred t, p, q;\n\t"
                 "or.pred t, t, p;\n\t"
                 "xor.pred t, t, q;\n\t"
                 "not.pred t, t;\n\t"
                 "selp.u32 %0, 1, 0, t;\n\t}"
                 : "=r"(r) : "r"(x), "r"(y));
    out[16 * i + 9] = r;
    // shift amounts >= width are clamped by PTX (shl by 40 gives 0)
    asm volatile("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    out[16 * i + 10] = r;
    asm volatile("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(sx), "r"(y));
    out[16 * i + 11] = r;
}
