// Holdout kernel: branch divergence: each thread loops a data-dependent number of times, and
// takes one of two bodies depending on its count's low bit.
extern "C" __global__ void divergent_loop(const unsigned* trips, const float* in, float* out,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned t = trips[i];
    float v = in[i];
    if (t & 1u) {
        for (unsigned k = 0; k < (t >> 1); ++k) v = v * 0.75f + 0.25f;
    } else {
        for (unsigned k = 0; k < (t >> 2); ++k) v = v * v * 0.5f + 0.125f;
    }
    out[i] = v;
}
