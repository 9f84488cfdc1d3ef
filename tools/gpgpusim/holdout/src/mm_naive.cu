// Holdout kernel: naive matrix multiply, one thread per output element, operands from global
// memory (A read along a row by a whole warp at once, B down a column coalesced across x).
extern "C" __global__ void mm_naive(const float* a, const float* b, float* c,
                                    int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int t = 0; t < k; ++t)
        acc += a[row * k + t] * b[t * n + col];
    c[row * n + col] = acc;
}
