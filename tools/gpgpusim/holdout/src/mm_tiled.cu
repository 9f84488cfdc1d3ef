// Holdout kernel: matrix multiply through 16x16 shared-memory tiles (M, N, K multiples of 16).
#define T 16
extern "C" __global__ void mm_tiled(const float* a, const float* b, float* c,
                                    int m, int n, int k)
{
    __shared__ float as[T][T];
    __shared__ float bs[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty;
    int col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int base = 0; base < k; base += T) {
        as[ty][tx] = a[row * k + base + tx];
        bs[ty][tx] = b[(base + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int t = 0; t < T; ++t)
            acc += as[ty][t] * bs[t][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}
