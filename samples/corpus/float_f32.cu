// Single-precision arithmetic with IEEE rounding modifiers (.rn/.rz/.rm/.rp),
// .ftz and .sat, compiled without fast math: add/sub/mul/fma/mad, IEEE div,
// rcp and sqrt, abs/neg/min/max/copysign.  Intrinsics such as __fadd_rz map
// one-to-one onto the rounded instructions; the rest is inline PTX.

extern "C" __global__ void f32_add_sub_mul(const float *a, const float *b, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i], y = b[i];
    float *o = out + 16 * i;
    o[0] = x + y;             // add.f32 (default rounding, may fuse)
    o[1] = __fadd_rn(x, y);   // add.rn.f32
    o[2] = __fadd_rz(x, y);   // add.rz.f32
    o[3] = __fadd_rd(x, y);   // add.rm.f32
    o[4] = __fadd_ru(x, y);   // add.rp.f32
    o[5] = x - y;             // sub.f32
    o[6] = __fsub_rn(x, y);   // sub.rn.f32
    o[7] = __fsub_rz(x, y);   // sub.rz.f32
    o[8] = __fsub_rd(x, y);   // sub.rm.f32
    o[9] = __fsub_ru(x, y);   // sub.rp.f32
    o[10] = x * y;            // mul.f32
    o[11] = __fmul_rn(x, y);  // mul.rn.f32
    o[12] = __fmul_rz(x, y);  // mul.rz.f32
    o[13] = __fmul_rd(x, y);  // mul.rm.f32
    o[14] = __fmul_ru(x, y);  // mul.rp.f32

    float r;
    asm volatile("add.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    asm volatile("add.rn.ftz.sat.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    asm volatile("add.sat.f32 %0, %0, %1;" : "+f"(r) : "f"(x));
    asm volatile("sub.rz.ftz.f32 %0, %0, %1;" : "+f"(r) : "f"(x));
    asm volatile("sub.sat.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    asm volatile("mul.rm.ftz.f32 %0, %0, %1;" : "+f"(r) : "f"(x));
    asm volatile("mul.rp.sat.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    asm volatile("mul.ftz.sat.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    o[15] = r;
}

extern "C" __global__ void f32_fma_mad(const float *a, const float *b, const float *c, float *out)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + 8 * i;
    o[0] = fmaf(x, y, z);          // fma.rn.f32
    o[1] = __fmaf_rz(x, y, z);     // fma.rz.f32
    o[2] = __fmaf_rd(x, y, z);     // fma.rm.f32
    o[3] = __fmaf_ru(x, y, z);     // fma.rp.f32
    o[4] = x * y + z;              // contracted to fma.rn.f32
    o[5] = __fmul_rn(x, y) + z;    // not contracted: mul.rn + add

    float r;
    asm volatile("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z));
    asm volatile("fma.rn.sat.f32 %0, %1, %2, %0;" : "+f"(r) : "f"(x), "f"(y));
    asm volatile("fma.rz.ftz.sat.f32 %0, %1, %2, %0;" : "+f"(r) : "f"(x), "f"(y));
    o[6] = r;
    // mad.f32 requires a rounding modifier for sm_20+; it is the same as fma
    asm volatile("mad.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z));
    asm volatile("mad.rz.ftz.f32 %0, %1, %2, %0;" : "+f"(r) : "f"(x), "f"(y));
    asm volatile("mad.rm.sat.f32 %0, %1, %2, %0;" : "+f"(r) : "f"(x), "f"(y));
    asm volatile("mad.rp.ftz.sat.f32 %0, %1, %2, %0;" : "+f"(r) : "f"(x), "f"(y));
    o[7] = r;
}

extern "C" __global__ void f32_div_rcp_sqrt(const float *a, const float *b, float *out)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    float *o = out + 24 * i;
    o[0] = x / y;                 // div.rn.f32 (IEEE, -prec-div=true)
    o[1] = __fdiv_rn(x, y);       // div.rn.f32
    o[2] = __fdiv_rz(x, y);       // div.rz.f32
    o[3] = __fdiv_rd(x, y);       // div.rm.f32
    o[4] = __fdiv_ru(x, y);       // div.rp.f32
    o[5] = __fdividef(x, y);      // div.approx.f32
    o[6] = 1.0f / x;              // rcp.rn.f32
    o[7] = __frcp_rn(x);          // rcp.rn.f32
    o[8] = __frcp_rz(x);          // rcp.rz.f32
    o[9] = __frcp_rd(x);          // rcp.rm.f32
    o[10] = __frcp_ru(x);         // rcp.rp.f32
    o[11] = sqrtf(x);             // sqrt.rn.f32
    o[12] = __fsqrt_rn(x);        // sqrt.rn.f32
    o[13] = __fsqrt_rz(x);        // sqrt.rz.f32
    o[14] = __fsqrt_rd(x);        // sqrt.rm.f32
    o[15] = __fsqrt_ru(x);        // sqrt.rp.f32
    o[16] = rsqrtf(x);            // rsqrt.approx.f32

    float r;
    asm volatile("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    asm volatile("div.approx.ftz.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    asm volatile("div.full.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    asm volatile("div.full.ftz.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    asm volatile("div.rn.ftz.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    asm volatile("div.rz.ftz.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    o[17] = r;
    asm volatile("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm volatile("rcp.rn.ftz.f32 %0, %0;" : "+f"(r));
    asm volatile("rcp.rm.ftz.f32 %0, %0;" : "+f"(r));
    o[18] = r;
    asm volatile("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm volatile("sqrt.rn.ftz.f32 %0, %0;" : "+f"(r));
    asm volatile("sqrt.rp.ftz.f32 %0, %0;" : "+f"(r));
    o[19] = r;
    asm volatile("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(r));
    o[20] = r;
}

extern "C" __global__ void f32_abs_neg_min_max(const float *a, const float *b, float *out)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    float *o = out + 12 * i;
    o[0] = fabsf(x);              // abs.f32
    o[1] = -x;                    // neg.f32
    o[2] = fminf(x, y);           // min.f32
    o[3] = fmaxf(x, y);           // max.f32
    o[4] = copysignf(x, y);       // copysign.f32 (operands swapped)
    o[5] = __saturatef(x);        // cvt.sat.f32.f32

    float r;
    asm volatile("abs.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[6] = r;
    asm volatile("neg.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[7] = r;
    asm volatile("min.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    o[8] = r;
    asm volatile("max.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    o[9] = r;
    // copysign.f32 d, a, b: d = |b| with the sign of a
    asm volatile("copysign.f32 %0, %1, %2;" : "=f"(r) : "f"(y), "f"(x));
    o[10] = r;
}
