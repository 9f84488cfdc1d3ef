// nvrtc-flags: --gpu-architecture=compute_80
// Asynchronous copies (cp.async, sm_80) through cuda_pipeline_primitives.h and cooperative
// groups, and cooperative-groups reductions. Each kernel's result is checked exactly by
// samples/tests/integration/async_corpus.rs.
#include <cuda_pipeline_primitives.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// Block b, thread t (128 threads): out = sum over k < tiles of in[(b * tiles + k) * 128 +
// (t + 1) % 128]. Tiles are double-buffered: tile k + 1 is copied while tile k is summed
// (cp.async.wait_group 1).
extern "C" __global__ void pipelined_sum(const float *in, float *out, int tiles)
{
    __shared__ float buf[2][128];
    int t = threadIdx.x;
    const float *base = in + blockIdx.x * tiles * 128;
    __pipeline_memcpy_async(&buf[0][t], base + t, sizeof(float));
    __pipeline_commit();
    float acc = 0.0f;
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) {
            __pipeline_memcpy_async(&buf[(k + 1) & 1][t], base + (k + 1) * 128 + t,
                                    sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += buf[k & 1][(t + 1) % 128];
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = acc;
}

// 16-byte copies whose last (t % 5) * 4 bytes are zero-filled (cp.async's src-size operand),
// then 8-byte copies.
extern "C" __global__ void zero_fill(const float4 *in, float4 *out, float2 *out2)
{
    __shared__ float4 s[128];
    __shared__ float2 s2[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    __pipeline_memcpy_async(&s[t], &in[i], sizeof(float4), (t % 5) * 4);
    __pipeline_memcpy_async(&s2[t], reinterpret_cast<const float2 *>(&in[i]) + 1, sizeof(float2));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[i] = s[t];
    out2[i] = s2[t];
}

// A block's 256 integers copied to shared memory by the whole block at once, then read back
// reversed.
extern "C" __global__ void group_copy(const int *in, int *out)
{
    __shared__ int s[256];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, s, in + blockIdx.x * 256, sizeof(int) * 256);
    cg::wait(block);
    out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}

// Warp reductions of cooperative groups (redux.sync on sm_80): each warp adds its sum into
// out[0], its maximum into out[1] and its bitwise or into out[2].
extern "C" __global__ void group_reduce(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int sum = cg::reduce(warp, v, cg::plus<int>());
    int max = cg::reduce(warp, v, cg::greater<int>());
    unsigned bits = cg::reduce(warp, (unsigned)v, cg::bit_or<unsigned>());
    if (warp.thread_rank() == 0) {
        atomicAdd(&out[0], sum);
        atomicMax(&out[1], max);
        atomicOr((unsigned *)&out[2], bits);
    }
}
