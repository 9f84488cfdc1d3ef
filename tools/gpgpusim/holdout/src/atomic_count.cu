// Holdout kernel: global atomics on a few hot counters: each key increments its class's
// counter, and odd keys add their low byte to one total.
extern "C" __global__ void atomic_count(const unsigned* keys, int n, unsigned* counts,
                                        unsigned* total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = keys[i];
    atomicAdd(&counts[k % 48u], 1u);
    if (k & 1u) atomicAdd(total, k & 0xffu);
}
