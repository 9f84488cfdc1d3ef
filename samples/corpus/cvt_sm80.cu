// nvrtc-flags: --gpu-architecture=compute_80
//
// Conversions that need sm_80: cvt.rna (round to nearest, ties away from
// zero), which PTX defines only for the .tf32.f32 conversion, and bf16.
// Also the NaN-propagating min/max (.NaN, sm_80).

extern "C" __global__ void cvt_tf32_bf16(const float *f, unsigned *out, unsigned short *outh,
                                         float *outf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = f[i], y = f[i + 32];
    unsigned t;
    unsigned short h;
    float r;
    asm volatile("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
    out[2 * i + 0] = t;
    asm volatile("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(t) : "f"(y));
    out[2 * i + 1] = t;
    asm volatile("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
    outh[4 * i + 0] = h;
    asm volatile("cvt.rz.relu.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
    outh[4 * i + 1] = h;
    asm volatile("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(h) : "f"(y));
    outh[4 * i + 2] = h;
    asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(y));
    out[2 * i] ^= t;
    asm volatile("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    outf[2 * i + 0] = r;
    asm volatile("max.ftz.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    outf[2 * i + 1] = r;
}
