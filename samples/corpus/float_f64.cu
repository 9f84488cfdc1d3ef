// Double-precision arithmetic: add/sub/mul/fma/mad with .rn/.rz/.rm/.rp,
// IEEE div/rcp/sqrt with every rounding mode, rcp.approx.ftz.f64,
// rsqrt.approx.f64, abs/neg/min/max/copysign.

extern "C" __global__ void f64_add_sub_mul(const double *a, const double *b, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double x = a[i], y = b[i];
    double *o = out + 16 * i;
    o[0] = x + y;             // add.f64
    o[1] = __dadd_rn(x, y);   // add.rn.f64
    o[2] = __dadd_rz(x, y);   // add.rz.f64
    o[3] = __dadd_rd(x, y);   // add.rm.f64
    o[4] = __dadd_ru(x, y);   // add.rp.f64
    o[5] = x - y;             // sub.f64
    o[6] = __dsub_rn(x, y);   // sub.rn.f64
    o[7] = __dsub_rz(x, y);   // sub.rz.f64
    o[8] = __dsub_rd(x, y);   // sub.rm.f64
    o[9] = __dsub_ru(x, y);   // sub.rp.f64
    o[10] = x * y;            // mul.f64
    o[11] = __dmul_rn(x, y);  // mul.rn.f64
    o[12] = __dmul_rz(x, y);  // mul.rz.f64
    o[13] = __dmul_rd(x, y);  // mul.rm.f64
    o[14] = __dmul_ru(x, y);  // mul.rp.f64
}

extern "C" __global__ void f64_fma_mad(const double *a, const double *b, const double *c, double *out)
{
    int i = threadIdx.x;
    double x = a[i], y = b[i], z = c[i];
    double *o = out + 8 * i;
    o[0] = fma(x, y, z);        // fma.rn.f64
    o[1] = __fma_rz(x, y, z);   // fma.rz.f64
    o[2] = __fma_rd(x, y, z);   // fma.rm.f64
    o[3] = __fma_ru(x, y, z);   // fma.rp.f64
    o[4] = x * y + z;           // contracted to fma.rn.f64
    double r;
    asm volatile("mad.rn.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(x), "d"(y), "d"(z));
    asm volatile("mad.rz.f64 %0, %1, %2, %0;" : "+d"(r) : "d"(x), "d"(y));
    asm volatile("mad.rm.f64 %0, %1, %2, %0;" : "+d"(r) : "d"(x), "d"(y));
    asm volatile("mad.rp.f64 %0, %1, %2, %0;" : "+d"(r) : "d"(x), "d"(y));
    o[5] = r;
}

extern "C" __global__ void f64_div_rcp_sqrt(const double *a, const double *b, double *out)
{
    int i = threadIdx.x;
    double x = a[i], y = b[i];
    double *o = out + 20 * i;
    o[0] = x / y;               // div.rn.f64
    o[1] = __ddiv_rn(x, y);     // div.rn.f64
    o[2] = __ddiv_rz(x, y);     // div.rz.f64
    o[3] = __ddiv_rd(x, y);     // div.rm.f64
    o[4] = __ddiv_ru(x, y);     // div.rp.f64
    o[5] = 1.0 / x;             // rcp.rn.f64
    o[6] = __drcp_rn(x);        // rcp.rn.f64
    o[7] = __drcp_rz(x);        // rcp.rz.f64
    o[8] = __drcp_rd(x);        // rcp.rm.f64
    o[9] = __drcp_ru(x);        // rcp.rp.f64
    o[10] = sqrt(x);            // sqrt.rn.f64
    o[11] = __dsqrt_rn(x);      // sqrt.rn.f64
    o[12] = __dsqrt_rz(x);      // sqrt.rz.f64
    o[13] = __dsqrt_rd(x);      // sqrt.rm.f64
    o[14] = __dsqrt_ru(x);      // sqrt.rp.f64
    double r;
    asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    o[15] = r;
    asm volatile("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(x));
    o[16] = r;
    asm volatile("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    o[17] = r;
    o[18] = rsqrt(x);           // rsqrt.approx.f64 (libdevice maps it directly)
}

extern "C" __global__ void f64_abs_neg_min_max(const double *a, const double *b, double *out)
{
    int i = threadIdx.x;
    double x = a[i], y = b[i];
    double *o = out + 8 * i;
    o[0] = fabs(x);             // abs.f64
    o[1] = -x;                  // neg.f64
    o[2] = fmin(x, y);          // min.f64
    o[3] = fmax(x, y);          // max.f64
    o[4] = copysign(x, y);      // copysign.f64
    double r;
    asm volatile("copysign.f64 %0, %1, %2;" : "=d"(r) : "d"(y), "d"(x));
    o[5] = r;
}
