// nvrtc-flags: --gpu-architecture=compute_80
//
// Warp-level primitives: vote.sync (all/any/uni/ballot), shfl.sync in all
// four modes (idx/up/down/bfly, with the optional predicate output),
// match.sync (any/all, b32/b64), activemask, and redux.sync (sm_80).

extern "C" __global__ void warp_vote(const int *in, unsigned *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unsigned full = 0xffffffffu;
    unsigned r = 0;
    r += __all_sync(full, v > 0);             // vote.sync.all.pred
    r += __any_sync(full, v < 0) << 1;        // vote.sync.any.pred
    r += __uni_sync(full, v & 1) << 2;        // vote.sync.uni.pred
    r ^= __ballot_sync(full, v & 2);          // vote.sync.ballot.b32
    unsigned active = __activemask();         // activemask.b32
    if (v & 4)                                // vote within a diverged subset
        r ^= __ballot_sync(__activemask(), v & 8);
    unsigned b;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "setp.ne.s32 p, %1, 0;\n\t"
                 "vote.sync.ballot.b32 %0, !p, %2;\n\t}"
                 : "=r"(b) : "r"(v & 16), "r"(full));
    out[t] = r ^ active ^ b;
}

extern "C" __global__ void warp_shuffle(const float *in, const int *idx, float *out, int *outi)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[t];
    int lane = threadIdx.x & 31;
    unsigned full = 0xffffffffu;
    float a = __shfl_sync(full, v, idx[t]);          // shfl.sync.idx.b32
    float b = __shfl_up_sync(full, v, 1);            // shfl.sync.up.b32
    float c = __shfl_down_sync(full, v, 2);          // shfl.sync.down.b32
    float d = __shfl_xor_sync(full, v, 4);           // shfl.sync.bfly.b32
    float e = __shfl_sync(full, v, lane + 1, 8);     // idx with width 8 (segment clamp)
    float f = __shfl_down_sync(full, v, 3, 16);      // down within 16-lane segments
    double g = __shfl_xor_sync(full, (double)v, 1);  // 64-bit: two 32-bit shuffles
    long long h = __shfl_up_sync(full, (long long)t << 33, 2, 4);
    out[t] = a + b + c + d + e + f + (float)g;
    // predicate output: p is true when the source lane is in range
    int r, valid;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "shfl.sync.up.b32 %0|p, %2, 5, 0, %3;\n\t"
                 "selp.s32 %1, 1, 0, p;\n\t}"
                 : "=r"(r), "=r"(valid) : "r"(t), "r"(full));
    int s;
    asm volatile("shfl.sync.bfly.b32 %0, %1, 0x1f, 0x1f, 0xffffffff;" : "=r"(s) : "r"(r));
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "shfl.sync.idx.b32 %0|p, %0, %1, 0x1c1f, %2;\n\t"
                 "@!p mov.b32 %0, 0;\n\t}"
                 : "+r"(s) : "r"(lane ^ 3), "r"(full));
    outi[t] = r + valid + s + (int)(h >> 33);
}

extern "C" __global__ void warp_match(const int *in, const long long *in64, unsigned *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    long long w = in64[t];
    unsigned full = 0xffffffffu;
    int pred32, pred64;
    unsigned any32 = __match_any_sync(full, v);            // match.any.sync.b32
    unsigned any64 = __match_any_sync(full, w);            // match.any.sync.b64
    unsigned all32 = __match_all_sync(full, v, &pred32);   // match.all.sync.b32
    unsigned all64 = __match_all_sync(full, w, &pred64);   // match.all.sync.b64
    out[t] = any32 ^ (any64 << 1) ^ all32 ^ all64 ^ (pred32 << 2) ^ (pred64 << 3);
}

extern "C" __global__ void warp_redux(const int *in, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unsigned u = (unsigned)v;
    unsigned full = 0xffffffffu;
    int *o = out + 8 * t;
    o[0] = (int)__reduce_add_sync(full, u);   // redux.sync.add.u32
    o[1] = __reduce_add_sync(full, v);        // redux.sync.add.s32
    o[2] = __reduce_min_sync(full, v);        // redux.sync.min.s32
    o[3] = __reduce_max_sync(full, v);        // redux.sync.max.s32
    o[4] = (int)__reduce_min_sync(full, u);   // redux.sync.min.u32
    o[5] = (int)__reduce_max_sync(full, u);   // redux.sync.max.u32
    o[6] = (int)(__reduce_and_sync(full, u) ^ __reduce_or_sync(full, u)); // redux.sync.and/or.b32
    o[7] = (int)__reduce_xor_sync(full, u);   // redux.sync.xor.b32
}
