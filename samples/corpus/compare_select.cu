// Comparison and selection: setp with every comparison operator (signed,
// unsigned, bit-size, ordered and unordered float, .num/.nan, .ftz),
// combining forms setp.CMP.{and,or,xor} with a third (possibly negated)
// predicate, the two-destination form p|q, set, selp and slct.

// setp.<cmp>.<type> p, a, b; followed by selp to accumulate the result.
// cons is the operand constraint string: "r" "l" "h" "f" "d".
#define SETP(cmp, ty, cons, a, b)                                     \
    asm volatile("{\n\t.reg .pred p;\n\t"                             \
                 "setp." cmp "." ty " p, %1, %2;\n\t"                 \
                 "selp.u32 %0, 1, 0, p;\n\t}"                         \
                 : "=r"(t) : cons(a), cons(b));                       \
    acc = (acc << 1) ^ t;


extern "C" __global__ void setp_int(const int *a, const int *b, unsigned *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    long long X = (long long)x * 3, Y = (long long)y - 5;
    short hx = (short)x, hy = (short)y;
    unsigned acc = 0, t;

    // Plain C: NVRTC picks setp + selp or branches on its own.
    acc += (x == y) + 2 * (x != y) + 4 * (x < y) + 8 * (x <= y);
    acc += 16 * (x > y) + 32 * (x >= y);
    acc += 64 * (ux < uy) + 128 * (ux <= uy) + 256 * (ux > uy) + 512 * (ux >= uy);
    acc += 1024 * (X < Y) + 2048 * ((unsigned long long)X > (unsigned long long)Y);

    SETP("eq", "s32", "r", x, y)
    SETP("ne", "s32", "r", x, y)
    SETP("lt", "s32", "r", x, y)
    SETP("le", "s32", "r", x, y)
    SETP("gt", "s32", "r", x, y)
    SETP("ge", "s32", "r", x, y)
    SETP("eq", "u32", "r", ux, uy)
    SETP("lo", "u32", "r", ux, uy)
    SETP("ls", "u32", "r", ux, uy)
    SETP("hi", "u32", "r", ux, uy)
    SETP("hs", "u32", "r", ux, uy)
    SETP("lt", "u32", "r", ux, uy)
    SETP("ge", "u32", "r", ux, uy)
    SETP("eq", "b32", "r", ux, uy)
    SETP("ne", "b32", "r", ux, uy)
    SETP("lt", "s64", "l", X, Y)
    SETP("ge", "s64", "l", X, Y)
    SETP("lo", "u64", "l", X, Y)
    SETP("hs", "u64", "l", X, Y)
    SETP("ne", "b64", "l", X, Y)
    SETP("lt", "s16", "h", hx, hy)
    SETP("hi", "u16", "h", hx, hy)
    out[i] = acc;
}

extern "C" __global__ void setp_float(const float *a, const float *b, const double *c,
                                      const double *d, unsigned *out)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    double X = c[i], Y = d[i];
    unsigned acc = 0, t;

    // Plain C: ordered compares, negated compares become unordered ones.
    acc += (x < y) + 2 * (x == y) + 4 * !(x < y) + 8 * !(x >= y);
    acc += 16 * (x != y) + 32 * isnan(x) + 64 * (X <= Y) + 128 * !(X > Y);

    SETP("eq", "f32", "f", x, y)
    SETP("ne", "f32", "f", x, y)
    SETP("lt", "f32", "f", x, y)
    SETP("le", "f32", "f", x, y)
    SETP("gt", "f32", "f", x, y)
    SETP("ge", "f32", "f", x, y)
    SETP("equ", "f32", "f", x, y)
    SETP("neu", "f32", "f", x, y)
    SETP("ltu", "f32", "f", x, y)
    SETP("leu", "f32", "f", x, y)
    SETP("gtu", "f32", "f", x, y)
    SETP("geu", "f32", "f", x, y)
    SETP("num", "f32", "f", x, y)
    SETP("nan", "f32", "f", x, y)
    SETP("lt.ftz", "f32", "f", x, y)
    SETP("gtu.ftz", "f32", "f", x, y)
    SETP("eq", "f64", "d", X, Y)
    SETP("ne", "f64", "d", X, Y)
    SETP("lt", "f64", "d", X, Y)
    SETP("le", "f64", "d", X, Y)
    SETP("gt", "f64", "d", X, Y)
    SETP("ge", "f64", "d", X, Y)
    SETP("equ", "f64", "d", X, Y)
    SETP("neu", "f64", "d", X, Y)
    SETP("ltu", "f64", "d", X, Y)
    SETP("leu", "f64", "d", X, Y)
    SETP("gtu", "f64", "d", X, Y)
    SETP("geu", "f64", "d", X, Y)
    SETP("num", "f64", "d", X, Y)
    SETP("nan", "f64", "d", X, Y)
    out[i] = acc;
}

// setp with a boolean combining operator and a third predicate, and the
// two-destination form (q receives the complement of the comparison, combined
// with the same third predicate).
extern "C" __global__ void setp_combine(const int *a, const int *b, const float *f, unsigned *out)
{
    int i = threadIdx.x;
    int x = a[i], y = b[i], z = a[i + 32];
    float fx = f[i], fy = f[i + 32];
    unsigned r0, r1, r2, r3, r4, r5 = 0;
    asm volatile("{\n\t.reg .pred c, p, q;\n\t"
                 "setp.ne.s32 c, %6, 0;\n\t"
                 "setp.lt.and.s32 p, %7, %8, c;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t"
                 "setp.ge.or.s32 p, %7, %8, !c;\n\t"
                 "selp.u32 %1, 1, 0, p;\n\t"
                 "setp.eq.xor.u32 p, %7, %8, c;\n\t"
                 "selp.u32 %2, 1, 0, p;\n\t"
                 "setp.gt.and.s32 p|q, %7, %8, c;\n\t"
                 "selp.u32 %3, 1, 0, p;\n\t"
                 "selp.u32 %4, 1, 0, q;\n\t"
                 "setp.ltu.or.ftz.f32 p|q, %9, %10, !c;\n\t"
                 "setp.nan.xor.f32 q, %9, %10, p;\n\t"
                 "setp.ne.s32 p|q, %7, %8;\n\t"
                 "@q add.u32 %5, %5, 1;\n\t"
                 "@!p add.u32 %5, %5, 2;\n\t}"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3), "=r"(r4), "+r"(r5)
                 : "r"(z), "r"(x), "r"(y), "f"(fx), "f"(fy));
    out[i] = r0 | (r1 << 1) | (r2 << 2) | (r3 << 3) | (r4 << 4) | (r5 << 5);
}

// set: like setp but writes a value (all ones / 1.0f for true, 0 for false).
extern "C" __global__ void set_kernel(const int *a, const float *f, unsigned *out, float *outf)
{
    int i = threadIdx.x;
    int x = a[i], y = a[i + 32];
    float fx = f[i], fy = f[i + 32];
    unsigned u0, u1, u2;
    int s0;
    float f0, f1;
    asm volatile("set.lt.u32.s32 %0, %1, %2;" : "=r"(u0) : "r"(x), "r"(y));
    asm volatile("set.ge.s32.s32 %0, %1, %2;" : "=r"(s0) : "r"(x), "r"(y));
    asm volatile("set.hi.u32.u32 %0, %1, %2;" : "=r"(u1) : "r"(x), "r"(y));
    asm volatile("set.neu.u32.f32 %0, %1, %2;" : "=r"(u2) : "f"(fx), "f"(fy));
    asm volatile("set.gt.f32.f32 %0, %1, %2;" : "=f"(f0) : "f"(fx), "f"(fy));
    asm volatile("{\n\t.reg .pred c;\n\t"
                 "setp.ne.s32 c, %3, 0;\n\t"
                 "set.le.and.ftz.f32.f32 %0, %1, %2, c;\n\t"
                 "set.eq.or.u32.s32 %4, %3, %5, !c;\n\t"
                 "set.ltu.xor.s32.f64 %4, %6, %7, c;\n\t}"
                 : "=f"(f1) : "f"(fx), "f"(fy), "r"(x), "r"(u2), "r"(y),
                   "d"((double)fx), "d"((double)fy));
    out[4 * i + 0] = u0;
    out[4 * i + 1] = (unsigned)s0;
    out[4 * i + 2] = u1;
    out[4 * i + 3] = u2;
    outf[2 * i + 0] = f0;
    outf[2 * i + 1] = f1;
}

// selp (predicate select) and slct (select on the sign of a third operand).
extern "C" __global__ void select_kernel(const int *a, const float *f, const double *d,
                                         int *out, float *outf, double *outd, long long *out64)
{
    int i = threadIdx.x;
    int x = a[i], y = a[i + 32], c = a[i + 64];
    float fx = f[i], fy = f[i + 32], fc = f[i + 64];
    double dx = d[i], dy = d[i + 32];
    long long X = (long long)x << 31, Y = (long long)y;

    out[4 * i + 0] = c > 0 ? x : y;        // selp.b32
    outf[2 * i + 0] = fc < 0.0f ? fx : fy; // selp.f32
    outd[i] = c & 1 ? dx : dy;             // selp.f64
    out64[i] = c == 3 ? X : Y;             // selp.b64

    int r;
    float fr;
    asm volatile("slct.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(c));
    out[4 * i + 1] = r;
    asm volatile("slct.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(c));
    out[4 * i + 2] = r;
    asm volatile("slct.f32.f32 %0, %1, %2, %3;" : "=f"(fr) : "f"(fx), "f"(fy), "f"(fc));
    outf[2 * i + 1] = fr;
    asm volatile("slct.ftz.s32.f32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "f"(fc));
    out[4 * i + 3] = r;
    long long R;
    asm volatile("slct.b64.s32 %0, %1, %2, %3;" : "=l"(R) : "l"(X), "l"(Y), "r"(c));
    out64[i] += R;
}
