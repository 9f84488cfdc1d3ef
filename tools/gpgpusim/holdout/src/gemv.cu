// Holdout kernel: dense matrix-vector product y = A x + beta y, one warp a row, the dot
// product finished with warp shuffles.
extern "C" __global__ void gemv_warp(const float* a, const float* x, float* y,
                                     int rows, int cols, float beta)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += a[(size_t)row * cols + c] * x[c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = s + beta * y[row];
}
