// Conversions (cvt) between integer and floating-point types:
// integer widening/narrowing (with .sat), float->int with .rni/.rzi/.rmi/.rpi
// (and .ftz), int->float with .rn/.rz/.rm/.rp, float<->float including
// integral rounding of floats (cvt.rni.f32.f32 ...), .sat, .ftz and f16.
// cvt.rna exists only for .tf32.f32 (sm_80); see cvt_sm80.cu.

extern "C" __global__ void cvt_int_int(const long long *a, int *out32, long long *out64)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    long long X = a[i];
    int x = (int)X;                          // cvt.u32.u64 (truncate)
    signed char c = (signed char)a[i + 32];
    unsigned short h = (unsigned short)a[i + 64];
    out32[8 * i + 0] = x;
    out32[8 * i + 1] = c;                    // cvt.s32.s8 (sign-extend)
    out32[8 * i + 2] = h;                    // cvt.u32.u16 (zero-extend)
    out64[4 * i + 0] = (long long)(x * 3);   // cvt.s64.s32
    out64[4 * i + 1] = (unsigned)(x * 5);    // cvt.u64.u32

    int r;
    unsigned u;
    long long R;
    asm volatile("cvt.sat.s8.s32 %0, %1;" : "=r"(r) : "r"(x));
    out32[8 * i + 3] = r;
    asm volatile("cvt.sat.u8.s32 %0, %1;" : "=r"(r) : "r"(x));
    out32[8 * i + 4] = r;
    asm volatile("cvt.sat.u16.s64 %0, %1;" : "=h"(h) : "l"(X));
    out32[8 * i + 5] = h;
    asm volatile("cvt.sat.s32.u32 %0, %1;" : "=r"(r) : "r"(x));
    out32[8 * i + 6] = r;
    asm volatile("cvt.sat.u32.s64 %0, %1;" : "=r"(u) : "l"(X));
    out32[8 * i + 7] = (int)u;
    asm volatile("cvt.sat.s64.u64 %0, %1;" : "=l"(R) : "l"(X));
    out64[4 * i + 2] = R;
    // plain widenings that NVRTC tends to fold into loads or mul.wide
    asm volatile("cvt.s32.s8 %0, %1;" : "=r"(r) : "r"(x));
    out32[8 * i + 1] ^= r;
    asm volatile("cvt.u32.u8 %0, %1;" : "=r"(r) : "r"(x));
    out32[8 * i + 2] ^= r;
    asm volatile("cvt.s64.s32 %0, %1;" : "=l"(R) : "r"(x));
    out64[4 * i + 0] ^= R;
    asm volatile("cvt.u64.u32 %0, %1;" : "=l"(R) : "r"(x));
    out64[4 * i + 1] ^= R;
    asm volatile("cvt.s16.s8 %0, %1;" : "=h"(h) : "h"(h));
    asm volatile("cvt.s64.s16 %0, %1;" : "=l"(R) : "h"(h));
    out64[4 * i + 3] = R;
}

extern "C" __global__ void cvt_float_int(const float *f, const double *d, int *out32,
                                         long long *out64)
{
    int i = threadIdx.x;
    float x = f[i];
    double X = d[i];
    int *o = out32 + 16 * i;
    long long *O = out64 + 8 * i;
    o[0] = (int)x;                          // cvt.rzi.s32.f32
    o[1] = __float2int_rn(x);               // cvt.rni.s32.f32
    o[2] = __float2int_rd(x);               // cvt.rmi.s32.f32
    o[3] = __float2int_ru(x);               // cvt.rpi.s32.f32
    o[4] = (int)(unsigned)x;                // cvt.rzi.u32.f32
    o[5] = (int)__float2uint_rn(x);         // cvt.rni.u32.f32
    o[6] = (int)X;                          // cvt.rzi.s32.f64
    o[7] = __double2int_rn(X);              // cvt.rni.s32.f64
    o[8] = __double2int_rd(X);              // cvt.rmi.s32.f64
    o[9] = __double2int_ru(X);              // cvt.rpi.s32.f64
    O[0] = (long long)X;                    // cvt.rzi.s64.f64
    O[1] = (long long)(unsigned long long)X; // cvt.rzi.u64.f64
    O[2] = __float2ll_rn(x);                // cvt.rni.s64.f32
    O[3] = (long long)__double2ull_rd(X);   // cvt.rmi.u64.f64
    O[4] = __float2ll_ru(x);                // cvt.rpi.s64.f32

    int r;
    asm volatile("cvt.rzi.ftz.s32.f32 %0, %1;" : "=r"(r) : "f"(x));
    o[10] = r;
    asm volatile("cvt.rni.ftz.sat.s32.f32 %0, %1;" : "=r"(r) : "f"(x));
    o[11] = r;
    asm volatile("cvt.rmi.sat.u32.f64 %0, %1;" : "=r"(r) : "d"(X));
    o[12] = r;
    unsigned short h;
    asm volatile("cvt.rzi.sat.s16.f32 %0, %1;" : "=h"(h) : "f"(x));
    o[13] = (short)h;
    asm volatile("cvt.rpi.u8.f32 %0, %1;" : "=r"(r) : "f"(x));
    o[14] = r;
}

extern "C" __global__ void cvt_int_float(const int *a, const long long *b, float *outf,
                                         double *outd)
{
    int i = threadIdx.x;
    int x = a[i];
    unsigned ux = (unsigned)a[i + 32];
    long long X = b[i];
    unsigned long long UX = (unsigned long long)b[i + 32];
    float *o = outf + 12 * i;
    double *O = outd + 6 * i;
    o[0] = (float)x;                 // cvt.rn.f32.s32
    o[1] = __int2float_rz(x);        // cvt.rz.f32.s32
    o[2] = __int2float_rd(x);        // cvt.rm.f32.s32
    o[3] = __int2float_ru(x);        // cvt.rp.f32.s32
    o[4] = (float)ux;                // cvt.rn.f32.u32
    o[5] = __uint2float_rz(ux);      // cvt.rz.f32.u32
    o[6] = __uint2float_rd(ux);      // cvt.rm.f32.u32
    o[7] = __uint2float_ru(ux);      // cvt.rp.f32.u32
    o[8] = (float)X;                 // cvt.rn.f32.s64
    o[9] = (float)UX;                // cvt.rn.f32.u64
    o[10] = __ll2float_rz(X);        // cvt.rz.f32.s64
    O[0] = (double)x;                // cvt.rn.f64.s32
    O[1] = (double)X;                // cvt.rn.f64.s64
    O[2] = (double)UX;               // cvt.rn.f64.u64
    O[3] = __ll2double_rd(X);        // cvt.rm.f64.s64
    O[4] = __ull2double_ru(UX);      // cvt.rp.f64.u64
    float r;
    asm volatile("cvt.rn.f32.s16 %0, %1;" : "=f"(r) : "h"((short)x));
    o[11] = r;
    double R;
    asm volatile("cvt.rz.f64.u8 %0, %1;" : "=d"(R) : "r"(ux));
    O[5] = R;
}

extern "C" __global__ void cvt_float_float(const float *f, const double *d, float *outf,
                                           double *outd, unsigned short *outh)
{
    int i = threadIdx.x;
    float x = f[i];
    double X = d[i];
    float *o = outf + 16 * i;
    double *O = outd + 8 * i;
    O[0] = (double)x;                // cvt.f64.f32 (exact)
    o[0] = (float)X;                 // cvt.rn.f32.f64
    o[1] = __double2float_rz(X);     // cvt.rz.f32.f64
    o[2] = __double2float_rd(X);     // cvt.rm.f32.f64
    o[3] = __double2float_ru(X);     // cvt.rp.f32.f64
    o[4] = rintf(x);                 // cvt.rni.f32.f32
    o[5] = truncf(x);                // cvt.rzi.f32.f32
    o[6] = floorf(x);                // cvt.rmi.f32.f32
    o[7] = ceilf(x);                 // cvt.rpi.f32.f32
    o[8] = __saturatef(x);           // cvt.sat.f32.f32
    O[1] = rint(X);                  // cvt.rni.f64.f64
    O[2] = trunc(X);                 // cvt.rzi.f64.f64
    O[3] = floor(X);                 // cvt.rmi.f64.f64
    O[4] = ceil(X);                  // cvt.rpi.f64.f64

    float r;
    double R;
    unsigned short h;
    asm volatile("cvt.ftz.f64.f32 %0, %1;" : "=d"(R) : "f"(x));
    O[5] = R;
    asm volatile("cvt.rn.ftz.f32.f64 %0, %1;" : "=f"(r) : "d"(X));
    o[9] = r;
    asm volatile("cvt.rz.ftz.sat.f32.f64 %0, %1;" : "=f"(r) : "d"(X));
    o[10] = r;
    asm volatile("cvt.rni.ftz.f32.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[11] = r;
    asm volatile("cvt.ftz.sat.f32.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[12] = r;
    asm volatile("cvt.sat.f64.f64 %0, %1;" : "=d"(R) : "d"(X));
    O[6] = R;
    // half precision (values in .b16 registers)
    asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    outh[4 * i + 0] = h;
    asm volatile("cvt.rz.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    outh[4 * i + 1] = h;
    asm volatile("cvt.rm.f16.f64 %0, %1;" : "=h"(h) : "d"(X));
    outh[4 * i + 2] = h;
    asm volatile("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    o[13] = r;
    asm volatile("cvt.f64.f16 %0, %1;" : "=d"(R) : "h"(h));
    O[7] = R;
    int n;
    asm volatile("cvt.rni.s32.f16 %0, %1;" : "=r"(n) : "h"(h));
    asm volatile("cvt.rn.f16.s32 %0, %1;" : "=h"(h) : "r"(n));
    outh[4 * i + 3] = h;
}

// mov: bit casts between register classes, vector pack/unpack of 64-bit
// values to/from two 32-bit halves (mov.b64 %rd, {%r1, %r2} and back),
// 32-bit pack of two 16-bit halves, and immediates.
extern "C" __global__ void mov_pack(const double *d, const float *f, double *outd,
                                    unsigned *outu, unsigned long long *out64)
{
    int i = threadIdx.x;
    double x = d[i];
    int hi = __double2hiint(x);               // mov.b64 {%r_lo, %r_hi}, %fd
    int lo = __double2loint(x);
    outd[2 * i] = __hiloint2double(hi, lo ^ 1); // mov.b64 %fd, {%r_lo, %r_hi}
    outu[4 * i + 0] = (unsigned)__float_as_int(f[i]);  // mov.b32 %r, %f
    float g = __int_as_float(hi ^ lo);                 // mov.b32 %f, %r
    outd[2 * i + 1] = (double)g + __longlong_as_double(0x3ff0000000000000ll);
    unsigned long long packed, p2;
    unsigned a, b, p32;
    asm volatile("mov.b64 %0, {%1, %2};" : "=l"(packed) : "r"(lo), "r"(hi));
    asm volatile("mov.b64 {%0, %1}, %2;" : "=r"(a), "=r"(b) : "l"(packed + 1));
    asm volatile("{\n\t.reg .b16 h0, h1;\n\t"
                 "mov.b32 {h0, h1}, %1;\n\t"
                 "mov.b32 %0, {h1, h0};\n\t}"
                 : "=r"(p32) : "r"(a));
    asm volatile("{\n\t.reg .b16 q0, q1, q2, q3;\n\t"
                 "mov.b64 {q0, q1, q2, q3}, %1;\n\t"
                 "mov.b64 %0, {q3, q2, q1, q0};\n\t}"
                 : "=l"(p2) : "l"(packed));
    float imm;
    asm volatile("mov.f32 %0, 0f3F800000;" : "=f"(imm));
    double dimm;
    asm volatile("mov.f64 %0, 0d400921FB54442D18;" : "=d"(dimm));
    outu[4 * i + 1] = a;
    outu[4 * i + 2] = b ^ p32;
    outu[4 * i + 3] = __float_as_uint(imm) + (unsigned)(dimm * 1000.0);
    out64[i] = packed ^ p2;
}
