// Atomics: atom and red (reduction, no result) with every operation
// (add/inc/dec/min/max/and/or/xor/exch/cas) and type (u32/s32/u64/s64/
// f32/f64, b32/b64) on global, shared and generic addresses, plus scoped
// (_block/_system) and ordered (.relaxed/.acquire/.release/.acq_rel) forms.

extern "C" __global__ void atom_global(int *si, unsigned *ui, long long *sl,
                                       unsigned long long *ul, float *f, double *d, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int r = 0;
    r += atomicAdd(ui, 1u);                  // atom.global.add.u32
    r += atomicAdd(si + 1, -t);              // atom.global.add.u32 (s32 add is the same)
    r += (int)atomicAdd(ul, 2ull);           // atom.global.add.u64
    r += (int)atomicAdd(f, 0.5f);            // atom.global.add.f32
    r += (int)atomicAdd(d, 0.25);            // atom.global.add.f64 (sm_60+)
    r += atomicInc(ui + 1, 100u);            // atom.global.inc.u32
    r += atomicDec(ui + 2, 100u);            // atom.global.dec.u32
    r += atomicMin(si + 2, t);               // atom.global.min.s32
    r += atomicMax(si + 3, t);               // atom.global.max.s32
    r += atomicMin(ui + 3, (unsigned)t);     // atom.global.min.u32
    r += atomicMax(ui + 4, (unsigned)t);     // atom.global.max.u32
    r += (int)atomicMin(sl, (long long)t);   // atom.global.min.s64
    r += (int)atomicMax(sl + 1, (long long)t); // atom.global.max.s64
    r += (int)atomicMin(ul + 1, (unsigned long long)t); // atom.global.min.u64
    r += (int)atomicMax(ul + 2, (unsigned long long)t); // atom.global.max.u64
    r += atomicAnd(si + 4, ~t);              // atom.global.and.b32
    r += atomicOr(si + 5, t);                // atom.global.or.b32
    r += atomicXor(si + 6, t);               // atom.global.xor.b32
    r += (int)atomicAnd(ul + 3, ~0ull << t); // atom.global.and.b64
    r += (int)atomicOr(ul + 4, 1ull << t);   // atom.global.or.b64
    r += (int)atomicXor(ul + 5, 3ull << t);  // atom.global.xor.b64
    r += atomicExch(si + 7, t);              // atom.global.exch.b32
    r += (int)atomicExch(ul + 6, (unsigned long long)t); // atom.global.exch.b64
    r += (int)atomicExch(f + 1, (float)t);   // atom.global.exch.b32 (float)
    r += atomicCAS(si + 8, t, t + 1);        // atom.global.cas.b32
    r += (int)atomicCAS(ul + 7, (unsigned long long)t, 7ull); // atom.global.cas.b64
    out[t] = r;
}

// Results unused.  NVRTC 12.x still emits atom.* here (the destination
// register is simply dead); the red.* forms below are written in PTX.
extern "C" __global__ void red_global(int *si, unsigned *ui, unsigned long long *ul,
                                      long long *sl, float *f, double *d)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(ui, 1u);                       // atom.global.add.u32, result unused
    atomicAdd(d, 1.0);                       // atom.global.add.f64, result unused
    atomicMin(sl, (long long)-t);            // atom.global.min.s64, result unused
    asm volatile("red.global.add.u32 [%0], %1;" :: "l"(ui), "r"(1u) : "memory");
    asm volatile("red.global.add.u64 [%0], %1;" :: "l"(ul), "l"(1ull) : "memory");
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(f), "f"(1.0f) : "memory");
    asm volatile("red.global.add.f64 [%0], %1;" :: "l"(d), "d"(1.0) : "memory");
    asm volatile("red.global.min.s32 [%0], %1;" :: "l"(si), "r"(t) : "memory");
    asm volatile("red.global.max.u32 [%0], %1;" :: "l"(ui + 1), "r"(t) : "memory");
    asm volatile("red.global.min.s64 [%0], %1;" :: "l"(sl), "l"((long long)-t) : "memory");
    asm volatile("red.global.max.u64 [%0], %1;" :: "l"(ul + 1), "l"((unsigned long long)t) : "memory");
    asm volatile("red.global.and.b32 [%0], %1;" :: "l"(si + 1), "r"(t) : "memory");
    asm volatile("red.global.or.b32 [%0], %1;" :: "l"(si + 2), "r"(t) : "memory");
    asm volatile("red.global.xor.b64 [%0], %1;" :: "l"(ul + 2), "l"((unsigned long long)t) : "memory");
    asm volatile("red.global.inc.u32 [%0], %1;" :: "l"(ui + 2), "r"(63u) : "memory");
    asm volatile("red.global.dec.u32 [%0], %1;" :: "l"(ui + 3), "r"(63u) : "memory");
}

extern "C" __global__ void atom_shared(int *out, float *outf)
{
    __shared__ int si[16];
    __shared__ unsigned long long ul[4];
    __shared__ float sf[2];
    __shared__ double sd[1];
    int t = threadIdx.x;
    if (t < 16)
        si[t] = 0;
    if (t < 4)
        ul[t] = 0;
    if (t < 2)
        sf[t] = 0.0f;
    if (t == 0)
        sd[0] = 0.0;
    __syncthreads();
    int r = 0;
    r += atomicAdd(&si[0], t);               // atom.shared.add.u32
    r += atomicSub(&si[1], t);               // atom.shared.add.u32 of -t
    r += atomicInc((unsigned *)&si[2], 9u);  // atom.shared.inc.u32
    r += atomicDec((unsigned *)&si[3], 9u);  // atom.shared.dec.u32
    r += atomicMin(&si[4], -t);              // atom.shared.min.s32
    r += atomicMax((unsigned *)&si[5], (unsigned)t); // atom.shared.max.u32
    r += atomicAnd(&si[6], t);               // atom.shared.and.b32
    r += atomicOr(&si[7], t);                // atom.shared.or.b32
    r += atomicXor(&si[8], t);               // atom.shared.xor.b32
    r += atomicExch(&si[9], t);              // atom.shared.exch.b32
    r += atomicCAS(&si[10], 0, t);           // atom.shared.cas.b32
    r += (int)atomicAdd(&ul[0], 1ull);       // atom.shared.add.u64
    r += (int)atomicCAS(&ul[1], 0ull, 5ull); // atom.shared.cas.b64
    r += (int)atomicMax((long long *)&ul[2], (long long)t); // atom.shared.max.s64
    r += (int)atomicAdd(&sf[0], 1.5f);       // atom.shared.add.f32
    r += (int)atomicAdd(&sd[0], 2.5);        // atom.shared.add.f64
    atomicAdd(&si[11], 1);                   // atom.shared.add.u32, result unused
    unsigned sa = (unsigned)__cvta_generic_to_shared(&si[12]);
    asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(sa) : "memory");
    asm volatile("red.shared.min.s32 [%0], %1;" :: "r"(sa), "r"(-t) : "memory");
    asm volatile("red.shared.or.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&ul[3])),
                 "l"(1ull << (t & 63)) : "memory");
    asm volatile("red.shared.add.f32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&sf[1])),
                 "f"(1.0f) : "memory");
    __syncthreads();
    out[t] = r + si[t & 15];
    outf[t] = sf[0] + sf[1] + (float)sd[0];
}

// Generic addresses (the callee does not know the state space).
__device__ __noinline__ int atomics_generic(int *p, unsigned long long *q, float *f)
{
    int r = atomicAdd(p, 1);                 // atom.add.u32
    r += atomicCAS(p + 1, r, 0);             // atom.cas.b32
    r += atomicExch(p + 2, r);               // atom.exch.b32
    r += atomicMin(p + 3, r);                // atom.min.s32
    r += atomicInc((unsigned *)p + 4, 17u);  // atom.inc.u32
    r += (int)atomicAdd(q, 3ull);            // atom.add.u64
    r += (int)atomicAdd(f, 1.0f);            // atom.add.f32
    atomicXor(p + 5, r);                     // atom.xor.b32, result unused
    return r;
}

extern "C" __global__ void atom_generic_scoped(int *g, unsigned long long *q, float *f, int *out)
{
    __shared__ int s[8];
    __shared__ unsigned long long sq[1];
    __shared__ float sf[1];
    int t = threadIdx.x;
    if (t < 8)
        s[t] = 0;
    __syncthreads();
    int r = atomics_generic(g, q, f) + atomics_generic(s, sq, sf);
    // scoped atomics (sm_60+): .cta and .sys variants
    r += atomicAdd_block(g + 8, 1);          // atom.global.cta.add.u32
    r += atomicAdd_system(g + 9, 1);         // atom.global.sys.add
    r += atomicCAS_block(g + 10, 0, t);
    r += (int)atomicExch_system((unsigned long long *)q + 1, 1ull);
    atomicMax_block(g + 11, t);
    // memory-ordered atomics in PTX
    int v;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(g + 12) : "memory");
    r += v;
    asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], 0, %2;" : "=r"(v) : "l"(g + 13), "r"(t) : "memory");
    r += v;
    asm volatile("atom.release.sys.global.exch.b32 %0, [%1], %2;" : "=r"(v) : "l"(g + 14), "r"(t) : "memory");
    r += v;
    asm volatile("atom.acq_rel.cta.shared.add.u32 %0, [%1], 2;" : "=r"(v)
                 : "r"((unsigned)__cvta_generic_to_shared(&s[7])) : "memory");
    r += v;
    asm volatile("atom.global.add.s32 %0, [%1], -3;" : "=r"(v) : "l"(g + 15) : "memory");
    r += v;
    asm volatile("atom.global.max.s64 %0, [%1], %2;" : "=l"(*(long long *)(out + 64)) : "l"(q + 2), "l"((long long)t) : "memory");
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" :: "l"(g + 16) : "memory");
    asm volatile("red.relaxed.sys.global.min.s64 [%0], %1;" :: "l"(q + 4), "l"((long long)t) : "memory");
    asm volatile("red.global.add.s32 [%0], %1;" :: "l"(g + 17), "r"(-t) : "memory");
    asm volatile("red.shared.add.u64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(sq)) : "memory");
    asm volatile("red.add.f64 [%0], %1;" :: "l"(g + 18), "d"(1.0) : "memory");
    out[t] = r;
}
