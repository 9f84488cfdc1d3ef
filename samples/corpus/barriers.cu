// CTA barriers: bar.sync (__syncthreads), bar.red.{popc,and,or}
// (__syncthreads_count/_and/_or), named barriers with thread counts
// (bar.sync / bar.arrive producer-consumer), barrier.sync / barrier.arrive /
// barrier.red (the non-.aligned forms), and bar.warp.sync (__syncwarp).

extern "C" __global__ void block_reduce(const float *in, float *out)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();                                   // bar.sync 0
    for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t] + s[t + 32];
        for (int off = 16; off > 0; off >>= 1) {
            s[t] = v;
            __syncwarp();                              // bar.warp.sync -1
            v += s[t ^ off];
            __syncwarp(0xffffffffu);
        }
        if (t == 0)
            out[blockIdx.x] = v;
    }
}

extern "C" __global__ void barrier_reductions(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    int count = __syncthreads_count(v > 0);            // bar.red.popc.u32
    int all = __syncthreads_and(v != 0);               // bar.red.and.pred
    int any = __syncthreads_or(v < 0);                 // bar.red.or.pred
    out[blockIdx.x * blockDim.x + t] = count * 4 + all * 2 + any;
}

// Warp 0 produces into shared memory and signals with bar.arrive; warps 1..3
// wait on the same named barrier with bar.sync.  Both name barrier 1 with a
// thread count of 128 (all four warps).
extern "C" __global__ void producer_consumer(const float *in, float *out)
{
    __shared__ float buf[32];
    int t = threadIdx.x;
    int warp = t / 32;
    if (warp == 0) {
        buf[t] = in[blockIdx.x * 32 + t] * 2.0f;
        asm volatile("bar.arrive 1, 128;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        out[blockIdx.x * 96 + t - 32] = buf[t & 31] + (float)warp;
    }
}

extern "C" __global__ void barrier_forms(const int *in, int *out, int nthreads)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int id = in[0] & 7;                                // barrier id from a register
    s[t] = in[t];
    asm volatile("barrier.sync 0;" ::: "memory");
    asm volatile("barrier.sync 2, 128;" ::: "memory");    // with thread count
    asm volatile("barrier.sync.aligned 3;" ::: "memory");
    asm volatile("barrier.sync.aligned 4, %0;" :: "r"(nthreads) : "memory");
    asm volatile("bar.sync %0;" :: "r"(id) : "memory");   // register id
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(nthreads) : "memory");
    int v = s[(t + 1) & 127];
    if (t < 64)
        asm volatile("barrier.arrive 5, 128;" ::: "memory");
    else
        asm volatile("barrier.sync 5, 128;" ::: "memory");
    asm volatile("barrier.arrive.aligned 6, 128;" ::: "memory");
    asm volatile("bar.sync 6, 128;" ::: "memory");
    int cnt, any;
    asm volatile("{\n\t.reg .pred p, q;\n\t"
                 "setp.ne.s32 p, %2, 0;\n\t"
                 "barrier.red.popc.u32 %0, 7, p;\n\t"
                 "bar.red.or.pred q, 8, 128, !p;\n\t"
                 "barrier.red.and.pred q, 9, q;\n\t"
                 "selp.s32 %1, 1, 0, q;\n\t}"
                 : "=r"(cnt), "=r"(any) : "r"(v));
    out[t] = v + cnt + any;
}
