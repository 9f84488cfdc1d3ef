// Holdout kernel: softmax of each row, one warp a row; the row's maximum and sum are reduced
// with warp shuffles (butterfly).
extern "C" __global__ void softmax_rows(const float* in, float* out, int rows, int cols)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    const float* r = in + (size_t)warp * cols;
    float m = -3.0e38f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, r[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(r[c] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32) out[(size_t)warp * cols + c] = expf(r[c] - m) * inv;
}
