// nvrtc-flags: --gpu-architecture=compute_89
// fp8 conversions through cuda_fp8.h (cvt ... e4m3x2/e5m2x2, sm_89). Each thread takes a pair
// of inputs and checks, counting disagreements in errors[0]: the float2 and half2 paths give
// the same fp8 (the values are halves, so neither rounds twice); widening back is exact, so
// converting the widened pair again gives the same bytes; the result lies within half an fp8
// step of the input (or saturates at the largest finite value).
#include <cuda_fp16.h>
#include <cuda_fp8.h>

__device__ void check_format(const float2 v, __nv_fp8_interpretation_t format, float top, int *errors) {
    __nv_fp8x2_storage_t q = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, format);
    __half2 h = __floats2half2_rn(v.x, v.y);
    __nv_fp8x2_storage_t r = __nv_cvt_halfraw2_to_fp8x2(*(__half2_raw *)&h, __NV_SATFINITE, format);
    __half2_raw back = __nv_cvt_fp8x2_to_halfraw2(q, format);
    __half2 wide = *(__half2 *)&back;
    __nv_fp8x2_storage_t again = __nv_cvt_halfraw2_to_fp8x2(back, __NV_SATFINITE, format);
    float2 w = __half22float2(wide);
    bool ok = q == r && q == again;
    float in[2] = {v.x, v.y}, out[2] = {w.x, w.y};
    for (int k = 0; k < 2; k++) {
        float x = in[k], y = out[k];
        if (fabsf(x) >= top) {
            ok = ok && y == copysignf(top, x);
        } else {
            // Within a relative 2^-3 (E5M2) or 2^-4 (E4M3) step, or an absolute subnormal one.
            float step = format == __NV_E4M3 ? 0.0625f : 0.125f;
            ok = ok && fabsf(y - x) <= fmaxf(fabsf(x) * step, format == __NV_E4M3 ? 0.001953125f : 1.52587890625e-05f);
        }
    }
    if (!ok) {
        atomicAdd(errors, 1);
    }
}

extern "C" __global__ void fp8_convert(const float *in, float *out, int *errors, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // Halves, so that the float2 and half2 paths round the same values.
    float2 v = make_float2(__half2float(__float2half_rn(in[2 * i])),
                           __half2float(__float2half_rn(in[2 * i + 1])));
    if (isnan(v.x) || isnan(v.y)) return;
    check_format(v, __NV_E4M3, 448.0f, errors);
    check_format(v, __NV_E5M2, 57344.0f, errors);
    __half2_raw w = __nv_cvt_fp8x2_to_halfraw2(__nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3), __NV_E4M3);
    out[i] = __half2float(*(__half *)&w.x);
}
