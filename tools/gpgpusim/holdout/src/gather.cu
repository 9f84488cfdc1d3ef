// Holdout kernel: uncoalesced reads: each element gathers through an index array and reads a
// second element at a large stride (n a power of two).
extern "C" __global__ void gather_strided(const float* src, const int* idx, float* dst,
                                          int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    dst[i] = src[idx[i]] + 0.5f * src[(unsigned)(i * stride) & (unsigned)(n - 1)];
}
