// Half precision through cuda_fp16.h: arithmetic, packed pairs, comparisons and conversions.
// Each kernel checks the intrinsics against the same computation done in f32 (exact for sums
// and products of halves, or rounded so that rounding again to half is innocuous) or in f64
// (fma) and rounded to half once, and counts disagreements in errors[0]; out[] keeps the
// results for inspection.
#include <cuda_fp16.h>

__device__ void expect(int *errors, __half got, float want) {
    if (__half_as_ushort(got) != __half_as_ushort(__float2half_rn(want))) {
        atomicAdd(errors, 1);
    }
}

// An f64 result rounded once (an fma's exact value may need more than f32's 24 bits, and
// rounding it to f32 first could round twice).
__device__ void expect_exact(int *errors, __half got, double want) {
    if (__half_as_ushort(got) != __half_as_ushort(__double2half(want))) {
        atomicAdd(errors, 1);
    }
}

extern "C" __global__ void half_arith(const float *in, float *out, int *errors, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = __float2half_rn(in[3 * i]);
    __half b = __float2half_rn(in[3 * i + 1]);
    __half c = __float2half_rn(in[3 * i + 2]);
    float x = __half2float(a), y = __half2float(b), z = __half2float(c);
    __half s = __hadd(a, b);
    __half d = __hsub(a, b);
    __half p = __hmul(a, b);
    __half f = __hfma(a, b, c);
    expect(errors, s, x + y);
    expect(errors, d, x - y);
    expect(errors, p, x * y);
    expect_exact(errors, f, fma((double)x, (double)y, (double)z));
    expect(errors, __hneg(a), -x);
    expect(errors, __habs(b), fabsf(y));
    expect(errors, __hmin(a, b), fminf(x, y));
    expect(errors, __hmax(a, b), fmaxf(x, y));
    expect(errors, __hadd_sat(a, b), fminf(fmaxf(x + y, 0.0f), 1.0f));
    if (__hlt(a, b) != (x < y) || __hge(a, c) != (x >= z) || __hequ(a, b) != (x == y)) {
        atomicAdd(errors, 1);
    }
    out[4 * i] = __half2float(s);
    out[4 * i + 1] = __half2float(d);
    out[4 * i + 2] = __half2float(p);
    out[4 * i + 3] = __half2float(f);
}

extern "C" __global__ void half2_arith(const float *in, float *out, int *errors, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 u = make_float2(in[4 * i], in[4 * i + 1]);
    float2 v = make_float2(in[4 * i + 2], in[4 * i + 3]);
    __half2 a = __float22half2_rn(u);
    __half2 b = __floats2half2_rn(v.x, v.y);
    __half2 s = __hadd2(a, b);
    __half2 p = __hmul2(a, b);
    __half2 f = __hfma2(a, b, s);
    __half2 m = __hmax2(a, b);
    float2 ux = __half22float2(a), vx = __half22float2(b), sx = __half22float2(s);
    expect(errors, __low2half(s), ux.x + vx.x);
    expect(errors, __high2half(s), ux.y + vx.y);
    expect(errors, __low2half(p), ux.x * vx.x);
    expect(errors, __high2half(p), ux.y * vx.y);
    expect_exact(errors, __low2half(f), fma((double)ux.x, (double)vx.x, (double)sx.x));
    expect_exact(errors, __high2half(f), fma((double)ux.y, (double)vx.y, (double)sx.y));
    expect(errors, __high2half(m), fmaxf(ux.y, vx.y));
    __half2 lt = __hlt2(a, b);  // 1.0 or 0.0 per half
    if (__low2float(lt) != (ux.x < vx.x ? 1.0f : 0.0f) ||
        __high2float(lt) != (ux.y < vx.y ? 1.0f : 0.0f)) {
        atomicAdd(errors, 1);
    }
    if (__hbeq2(a, a) != (ux.x == ux.x && ux.y == ux.y)) {
        atomicAdd(errors, 1);
    }
    out[2 * i] = __low2float(f);
    out[2 * i + 1] = __high2float(f);
}

extern "C" __global__ void half_convert(const float *in, float *out, int *errors, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    // Directed roundings bracket the value; round to nearest is one of them.
    float rz = __half2float(__float2half_rz(x));
    float rd = __half2float(__float2half_rd(x));
    float ru = __half2float(__float2half_ru(x));
    float rn = __half2float(__float2half_rn(x));
    if (!(rd <= x && x <= ru) || !(rn == rd || rn == ru) || !(fabsf(rz) <= fabsf(x))) {
        atomicAdd(errors, 1);
    }
    __half h = __float2half_rn(x);
    float hx = __half2float(h);
    if (fabsf(hx) < 1000.0f) {
        if (__half2int_rn(h) != __float2int_rn(hx) || __half2int_rz(h) != (int)hx ||
            __half2int_rd(h) != (int)floorf(hx) || __half2int_ru(h) != (int)ceilf(hx)) {
            atomicAdd(errors, 1);
        }
        expect(errors, __int2half_rn(__half2int_rn(h)), (float)__float2int_rn(hx));
    }
    expect(errors, __double2half((double)x), x);
    expect(errors, hexp2(__float2half_rn(0.5f * (float)(i % 8))), exp2f(0.5f * (float)(i % 8)));
    out[i] = rn;
}

// Atomic additions of halves: every thread adds 1 to a shared __half and {1, 2} to a shared
// __half2 (exact sums: integers well inside f16's range), and thread 0 checks the totals.
extern "C" __global__ void half_atomics(const float *in, float *out, int *errors, int n) {
    __shared__ __half one;
    __shared__ __half2 pair;
    if (threadIdx.x == 0) {
        one = __float2half_rn(0.0f);
        pair = __floats2half2_rn(0.0f, 0.0f);
    }
    __syncthreads();
    atomicAdd(&one, __float2half_rn(1.0f));
    atomicAdd(&pair, __floats2half2_rn(1.0f, 2.0f));
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = (float)blockDim.x;
        if (__half2float(one) != t || __low2float(pair) != t || __high2float(pair) != 2.0f * t) {
            atomicAdd(errors, 1);
        }
        out[blockIdx.x] = __half2float(one) + __high2float(pair);
    }
}
