// Loads and stores in every state space: global (scalar of each width and
// .v2/.v4 vectors), shared (static, dynamic extern, vectors), local (a
// dynamically indexed array), const, param (by-value struct, call
// arguments), volatile accesses, ld.global.nc (__ldg), ldu, and generic
// addressing with cvta / cvta.to in both directions.

struct Params {
    int n;
    float scale;
    double bias;
    int4 tag;
};

__constant__ float c_coeffs[16];

extern "C" __global__ void global_widths(const unsigned char *u8, const signed char *s8,
                                         const unsigned short *u16, const short *s16,
                                         const unsigned *u32, const unsigned long long *u64,
                                         const float *f32, const double *f64,
                                         unsigned char *o8, short *o16, unsigned long long *o64,
                                         double *od)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long acc = u8[i];          // ld.global.u8
    acc += (long long)s8[i];                 // ld.global.s8
    acc += u16[i];                           // ld.global.u16
    acc += (long long)s16[i];                // ld.global.s16
    acc += u32[i];                           // ld.global.u32
    acc += u64[i];                           // ld.global.u64
    double d = f32[i] + f64[i];              // ld.global.f32 / .f64
    o8[i] = (unsigned char)acc;              // st.global.u8
    o16[i] = (short)acc;                     // st.global.u16
    o64[i] = acc;                            // st.global.u64
    od[i] = d;                               // st.global.f64
}

extern "C" __global__ void global_vectors(const float2 *a2, const float4 *a4, const int4 *i4,
                                          const double2 *d2, const uchar4 *c4, const short2 *s2,
                                          float4 *o4, double2 *od2, int2 *oi2, uchar4 *oc4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float2 v2 = a2[i];                      // ld.global.v2.f32
    float4 v4 = a4[i];                      // ld.global.v4.f32
    int4 w4 = i4[i];                        // ld.global.v4.u32
    double2 dd = d2[i];                     // ld.global.v2.f64
    uchar4 c = c4[i];                       // ld.global.v4.u8
    short2 s = s2[i];                       // ld.global.v2.u16
    o4[i] = make_float4(v4.x + v2.x, v4.y + v2.y, v4.z + w4.z, v4.w + w4.w); // st.global.v4.f32
    od2[i] = make_double2(dd.x * 2.0, dd.y + c.x);                            // st.global.v2.f64
    oi2[i] = make_int2(w4.x + s.x, w4.y + s.y);                               // st.global.v2.u32
    oc4[i] = make_uchar4(c.w, c.z, c.y, c.x);                                 // st.global.v4.u8
}

// Static and dynamically sized shared memory.
extern "C" __global__ void shared_static_dynamic(const float *in, float *out)
{
    __shared__ float tile[256];
    __shared__ float4 vtile[64];
    __shared__ double2 dtile[32];
    extern __shared__ float dyn[];          // size given at launch
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 256 + t];     // st.shared.f32
    dyn[t] = 2.0f * in[t];
    if (t < 64)
        vtile[t] = make_float4(t, t + 1, t + 2, t + 3); // st.shared.v4.f32
    if (t < 32)
        dtile[t] = make_double2(t, -t);                 // st.shared.v2.f64
    __syncthreads();
    float4 v = vtile[t & 63];               // ld.shared.v4.f32
    double2 d = dtile[t & 31];              // ld.shared.v2.f64
    float2 p = reinterpret_cast<float2 *>(tile)[t & 127]; // ld.shared.v2.f32
    out[blockIdx.x * 256 + t] = tile[255 - t] + dyn[(t * 7) & 255] + v.x + v.w + (float)d.y + p.x + p.y;
}

// A per-thread array indexed with a runtime value lives in .local memory.
extern "C" __global__ void local_array(const int *idx, int *out)
{
    int buf[32];
    int t = threadIdx.x;
    for (int k = 0; k < 32; ++k)
        buf[k] = k * t;                      // st.local.u32
    int j = idx[t] & 31;
    buf[j] += 7;
    out[t] = buf[(j * 5) & 31] + buf[idx[t + 32] & 31]; // ld.local.u32
}

// Kernel parameters (a struct by value), constant memory, __ldg, volatile.
extern "C" __global__ void const_param_nc(Params p, const float *__restrict__ in,
                                          volatile int *flag, float *out)
{
    int t = threadIdx.x;
    if (t >= p.n)                            // ld.param.u32
        return;
    float v = __ldg(in + t);                 // ld.global.nc.f32
    float4 v4 = __ldg(reinterpret_cast<const float4 *>(in) + (t >> 2)); // ld.global.nc.v4.f32
    float c = c_coeffs[t & 15];              // ld.const.f32
    int f = flag[t];                         // ld.volatile.global.u32
    flag[t] = f + 1;                         // st.volatile.global.u32
    unsigned u;
    asm volatile("ldu.global.u32 %0, [%1];" : "=r"(u) : "l"(in));          // uniform load
    float2 u2;
    asm volatile("ldu.global.v2.f32 {%0, %1}, [%2];" : "=f"(u2.x), "=f"(u2.y) : "l"(in + 2));
    out[t] = v * p.scale + c + (float)p.bias + p.tag.z + f + v4.y + (float)u + u2.x + u2.y;
}

// Volatile shared memory (classic warp-synchronous reduction style).
extern "C" __global__ void volatile_shared(const int *in, int *out)
{
    __shared__ int s[64];
    volatile int *vs = s;
    int t = threadIdx.x;
    vs[t] = in[t];                            // st.volatile.shared.u32
    __syncthreads();
    if (t < 32) {
        vs[t] += vs[t + 32];                  // ld.volatile.shared.u32
        vs[t] += vs[t + 16];
        __syncwarp();
        vs[t] += vs[t + 8];
    }
    if (t == 0)
        out[blockIdx.x] = vs[0];
}

// Generic addressing: the callee cannot know which space the pointer refers
// to, so it uses generic ld/st, and the callers convert with cvta.
__device__ __noinline__ float sum_generic(const float *p, int n, float *dst)
{
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
        s += p[k];                            // ld.f32 (generic)
    *dst = s;                                 // st.f32 (generic)
    return s;
}

extern "C" __global__ void generic_addressing(const float *g, float *out, int sel)
{
    __shared__ float sh[32];
    float loc[8];
    int t = threadIdx.x;
    sh[t & 31] = g[t];
    for (int k = 0; k < 8; ++k)
        loc[k] = g[t + k];
    __syncthreads();
    float r = 0.0f;
    r += sum_generic(sh, 32, out + t);        // cvta.shared.u64
    r += sum_generic(loc, 8, out + t);        // cvta.local.u64 (via %SP)
    r += sum_generic(c_coeffs, 16, out + t);  // cvta.const.u64
    const float *p = sel ? (const float *)sh : g;
    r += p[t & 31];                           // generic ld after selp
    out[t] = r;

    // explicit conversions in both directions
    unsigned long long gen, spc;
    asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(spc) : "l"((unsigned long long)&sh[t & 31]));
    asm volatile("cvta.shared.u64 %0, %1;" : "=l"(gen) : "l"(spc));
    asm volatile("cvta.to.global.u64 %0, %1;" : "=l"(spc) : "l"((unsigned long long)(out + t)));
    asm volatile("cvta.global.u64 %0, %1;" : "=l"(gen) : "l"(spc));
    asm volatile("cvta.to.local.u64 %0, %1;" : "=l"(spc) : "l"((unsigned long long)&loc[t & 7]));
    asm volatile("cvta.local.u64 %0, %1;" : "=l"(gen) : "l"(spc));
    asm volatile("cvta.to.const.u64 %0, %1;" : "=l"(spc) : "l"((unsigned long long)c_coeffs));
    out[t + 32] = (float)(gen + spc);
}

// Direct space-qualified accesses written in PTX, including the shared
// window via a 32-bit address and st.global.v4 of mixed registers.
extern "C" __global__ void explicit_spaces(float *g)
{
    __shared__ float4 sv[32];
    int t = threadIdx.x;
    float a = g[t], b, c, d;
    unsigned saddr = (unsigned)__cvta_generic_to_shared(&sv[t & 31]);
    asm volatile("st.shared.v4.f32 [%0], {%1, %1, %1, %1};" :: "r"(saddr), "f"(a) : "memory");
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2+8];" : "=f"(b), "=f"(c) : "r"(saddr) : "memory");
    asm volatile("ld.shared.f32 %0, [%1+4];" : "=f"(d) : "r"(saddr) : "memory");
    asm volatile("st.global.v2.f32 [%0], {%1, %2};" :: "l"(g + 2 * t), "f"(b), "f"(d) : "memory");
    asm volatile("{\n\t.local .align 8 .b8 scratch[16];\n\t"
                 ".reg .u64 p;\n\t"
                 "st.local.f32 [scratch], %1;\n\t"
                 "st.local.f32 [scratch+4], %2;\n\t"
                 "ld.local.v2.f32 {%0, %1}, [scratch];\n\t"
                 "mov.u64 p, scratch;\n\t"
                 "ld.local.f32 %0, [p];\n\t}"
                 : "=f"(a), "+f"(b) : "f"(c) : "memory");
    g[t] = a + b;
}
