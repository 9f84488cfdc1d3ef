// Memory-consistency qualifiers and cache operators on ld/st:
// .weak, .volatile, .relaxed/.acquire (ld) and .relaxed/.release (st) with
// .cta/.gpu/.sys scopes in the global, shared and generic spaces; the
// cache operators .ca/.cg/.cs/.lu/.cv (loads) and .wb/.cg/.cs/.wt (stores);
// and the fences membar.{cta,gl,sys} / fence.{sc,acq_rel}.{cta,gpu,sys}.

extern "C" __global__ void cache_operators(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = __ldca(in + i);          // ld.global.ca.f32
    float b = __ldcg(in + i + 32);     // ld.global.cg.f32
    float c = __ldcs(in + i + 64);     // ld.global.cs.f32
    float d = __ldlu(in + i + 96);     // ld.global.lu.f32
    float e = __ldcv(in + i + 128);    // ld.global.cv.f32
    float4 v = __ldcg(reinterpret_cast<const float4 *>(in) + i); // ld.global.cg.v4.f32
    __stwb(out + i, a + b);            // st.global.wb.f32
    __stcg(out + i + 32, c);           // st.global.cg.f32
    __stcs(out + i + 64, d);           // st.global.cs.f32
    __stwt(out + i + 96, e);           // st.global.wt.f32
    __stcs(reinterpret_cast<float4 *>(out) + 64 + i, v); // st.global.cs.v4.f32
    unsigned u;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(u) : "l"(in + i));
    asm volatile("ld.ca.u32 %0, [%1];" : "+r"(u) : "l"(in + i));          // generic .ca
    asm volatile("ld.global.nc.cs.u32 %0, [%1];" : "+r"(u) : "l"(in + i)); // nc + cache op
    asm volatile("st.wt.u32 [%0], %1;" :: "l"(out + i + 160), "r"(u) : "memory");
}

// Message passing with release/acquire, written in PTX.
extern "C" __global__ void release_acquire(int *data, int *flags, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int *f = flags + blockIdx.x;
    int v, r;
    if (threadIdx.x == 0) {
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(data + blockIdx.x), "r"(i) : "memory");
        asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(f), "r"(1) : "memory");
    }
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(f) : "memory");
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(r) : "l"(data + blockIdx.x) : "memory");
    out[i] = v + r;

    // the other scopes and generic addressing
    asm volatile("ld.relaxed.cta.u32 %0, [%1];" : "=r"(r) : "l"(data + i) : "memory");
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(*(long long *)&out[64]) : "l"(data) : "memory");
    asm volatile("ld.relaxed.sys.global.v2.u32 {%0, %1}, [%2];" : "=r"(v), "+r"(r) : "l"(data + 2 * i) : "memory");
    asm volatile("st.relaxed.sys.u32 [%0], %1;" :: "l"(out + i + 128), "r"(v + r) : "memory");
    asm volatile("st.release.cta.global.f32 [%0], %1;" :: "l"(out + i + 256), "f"(1.0f) : "memory");
    asm volatile("st.release.sys.u32 [%0], %1;" :: "l"(out + i + 384), "r"(v) : "memory");
    asm volatile("ld.weak.global.u32 %0, [%1];" : "=r"(v) : "l"(data + i) : "memory");
    asm volatile("st.weak.global.u32 [%0], %1;" :: "l"(out + i + 512), "r"(v) : "memory");
    asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(v), "=r"(r) : "l"(data + 2 * i) : "memory");
    asm volatile("st.volatile.u32 [%0], %1;" :: "l"(out + i + 640), "r"(v ^ r) : "memory");
}

extern "C" __global__ void shared_ordering(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x, v, r;
    unsigned sa = (unsigned)__cvta_generic_to_shared(&s[t & 63]);
    asm volatile("st.relaxed.cta.shared.u32 [%0], %1;" :: "r"(sa), "r"(t) : "memory");
    asm volatile("st.release.cta.shared.u32 [%0], %1;" :: "r"(sa), "r"(t + 1) : "memory");
    __syncthreads();
    asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(sa ^ 4u) : "memory");
    asm volatile("ld.relaxed.gpu.shared.u32 %0, [%1];" : "=r"(r) : "r"(sa) : "memory");
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "+r"(r) : "r"(sa) : "memory");
    out[t] = v + r;
}

extern "C" __global__ void fences(int *data, int *out)
{
    int t = threadIdx.x;
    data[t] = t;
    __threadfence_block();              // fence / membar at CTA scope
    data[t + 32] = t;
    __threadfence();                    // GPU scope
    data[t + 64] = t;
    __threadfence_system();             // system scope
    asm volatile("membar.cta;" ::: "memory");
    asm volatile("membar.gl;" ::: "memory");
    asm volatile("membar.sys;" ::: "memory");
    asm volatile("fence.sc.cta;" ::: "memory");
    asm volatile("fence.sc.gpu;" ::: "memory");
    asm volatile("fence.sc.sys;" ::: "memory");
    asm volatile("fence.acq_rel.cta;" ::: "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    out[t] = data[(t + 1) & 31];
}
