// nvrtc-flags: --gpu-architecture=compute_80
// bfloat16 through cuda_bf16.h, and the sm_80 half-precision forms (fma.relu, min/max.NaN).
// As in half.cu, each kernel checks the intrinsics against f32/f64 arithmetic rounded once
// and counts disagreements in errors[0].
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ void expect_bf16(int *errors, __nv_bfloat16 got, float want) {
    if (__bfloat16_as_ushort(got) != __bfloat16_as_ushort(__float2bfloat16_rn(want))) {
        atomicAdd(errors, 1);
    }
}

__device__ void expect_half(int *errors, __half got, float want) {
    if (__half_as_ushort(got) != __half_as_ushort(__float2half_rn(want))) {
        atomicAdd(errors, 1);
    }
}

// An f64 result rounded once (an fma's exact value may need more than f32's 24 bits, and
// rounding it to f32 first could round twice).
__device__ void expect_bf16_exact(int *errors, __nv_bfloat16 got, double want) {
    if (__bfloat16_as_ushort(got) != __bfloat16_as_ushort(__double2bfloat16(want))) {
        atomicAdd(errors, 1);
    }
}

__device__ void expect_half_exact(int *errors, __half got, double want) {
    if (__half_as_ushort(got) != __half_as_ushort(__double2half(want))) {
        atomicAdd(errors, 1);
    }
}

// `.relu` as the PTX manual defines it: negative results (and -0) to +0, NaN stays NaN.
__device__ double relu(double x) {
    return isnan(x) ? x : x > 0.0 ? x : 0.0;
}

extern "C" __global__ void bf16_arith(const float *in, float *out, int *errors, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 a = __float2bfloat16_rn(in[3 * i]);
    __nv_bfloat16 b = __float2bfloat16_rn(in[3 * i + 1]);
    __nv_bfloat16 c = __float2bfloat16_rn(in[3 * i + 2]);
    float x = __bfloat162float(a), y = __bfloat162float(b), z = __bfloat162float(c);
    __nv_bfloat16 f = __hfma(a, b, c);
    double exact = fma((double)x, (double)y, (double)z);
    expect_bf16_exact(errors, f, exact);
    expect_bf16_exact(errors, __hfma_relu(a, b, c), relu(exact));
    expect_bf16(errors, __hmax(a, b), fmaxf(x, y));
    expect_bf16(errors, __hmin(a, b), fminf(x, y));
    expect_bf16(errors, __hneg(a), -x);
    expect_bf16(errors, __habs(a), fabsf(x));
    if (__hlt(a, b) != (x < y)) {
        atomicAdd(errors, 1);
    }
    __nv_bfloat162 p = __floats2bfloat162_rn(x, z);
    __nv_bfloat162 q = __hmul2(p, p);
    expect_bf16(errors, __low2bfloat16(q), x * x);
    expect_bf16(errors, __high2bfloat16(q), z * z);
    out[i] = __bfloat162float(f);
}

extern "C" __global__ void half_sm80(const float *in, float *out, int *errors, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = __float2half_rn(in[3 * i]);
    __half b = __float2half_rn(in[3 * i + 1]);
    __half c = __float2half_rn(in[3 * i + 2]);
    float x = __half2float(a), y = __half2float(b), z = __half2float(c);
    double exact = fma((double)x, (double)y, (double)z);
    expect_half_exact(errors, __hfma_relu(a, b, c), relu(exact));
    __half m = __hmax_nan(a, b);
    if (!((__hisnan(a) || __hisnan(b)) ? __hisnan(m) : __half_as_ushort(m) == __half_as_ushort(__float2half_rn(fmaxf(x, y))))) {
        atomicAdd(errors, 1);
    }
    out[i] = (float)exact;
}
