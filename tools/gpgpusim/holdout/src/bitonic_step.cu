// Holdout kernel: one compare-exchange step (j, k) of a bitonic sort over global memory.
extern "C" __global__ void bitonic_step(float* data, unsigned j, unsigned k)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = i ^ j;
    if (p <= i) return;
    float a = data[i], b = data[p];
    bool up = (i & k) == 0;
    if ((a > b) == up) {
        data[i] = b;
        data[p] = a;
    }
}
