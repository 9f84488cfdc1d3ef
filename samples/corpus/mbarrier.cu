// nvrtc-flags: --gpu-architecture=compute_80 -std=c++17
// Arrive/wait barriers (sm_80): libcu++'s cuda::barrier in shared memory, which NVRTC lowers to
// mbarrier.init, mbarrier.arrive (its state token), mbarrier.test_wait in a nanosleep back-off
// loop, and cuda::memcpy_async's cp.async with cp.async.mbarrier.arrive.
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#pragma nv_diag_suppress static_var_with_dynamic_init

// out[i] = the sum of the block's inputs t, t+1, t+2, t+3 (wrapping within the block), read
// from a tile that memcpy_async fills; the barrier completes twice (two phases).
extern "C" __global__ void barrier_sum(const int *in, int *out)
{
    __shared__ int tile[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());                       // mbarrier.init
    block.sync();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::memcpy_async(&tile[threadIdx.x], &in[i], sizeof(int), bar); // cp.async + its arrive
    bar.arrive_and_wait();                              // mbarrier.arrive, test_wait
    int s = 0;
    for (int k = 0; k < 4; k++)
        s += tile[(threadIdx.x + k) % blockDim.x];
    auto token = bar.arrive();                          // the second phase
    bar.wait(std::move(token));
    out[i] = s;
}
