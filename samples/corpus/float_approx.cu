// nvrtc-flags: -use_fast_math --gpu-architecture=compute_75
//
// Approximate transcendental instructions and the code NVRTC produces under
// -use_fast_math (which implies -ftz=true -prec-div=false -prec-sqrt=false):
// sin/cos/ex2/lg2 .approx(.ftz), div.approx, rcp/sqrt/rsqrt .approx,
// and tanh.approx.f32, which needs sm_75 (hence compute_75 for this file).

extern "C" __global__ void fast_math(const float *a, const float *b, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i], y = b[i];
    float *o = out + 16 * i;
    o[0] = __sinf(x);           // sin.approx.ftz.f32
    o[1] = __cosf(x);           // cos.approx.ftz.f32
    o[2] = exp2f(x);            // ex2.approx.ftz.f32
    o[3] = __expf(x);           // mul + ex2.approx.ftz.f32
    o[4] = __log2f(x);          // lg2.approx.ftz.f32
    o[5] = __logf(x);           // lg2.approx.ftz.f32 + mul
    o[6] = x / y;               // div.approx.ftz.f32 (fast division)
    o[7] = __fdividef(x, y);    // div.approx.ftz.f32
    o[8] = 1.0f / x;            // rcp.approx.ftz.f32
    o[9] = sqrtf(x);            // sqrt.approx.ftz.f32
    o[10] = rsqrtf(x);          // rsqrt.approx.ftz.f32
    o[11] = __tanf(x);          // sin/cos + div
    o[12] = __powf(x, y);       // lg2 + mul + ex2
    o[13] = x * y + o[13];      // fma.rn.ftz.f32
    o[14] = fabsf(x) + fminf(x, y); // abs.ftz / min.ftz
}

extern "C" __global__ void approx_asm(const float *a, float *out)
{
    int i = threadIdx.x;
    float x = a[i], r;
    float *o = out + 8 * i;
    // the non-.ftz forms, which fast math never emits (div.full is in float_f32)
    asm volatile("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[0] = r;
    asm volatile("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[1] = r;
    asm volatile("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[2] = r;
    asm volatile("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[3] = r;
    asm volatile("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[4] = r;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    o[5] = r;
}
