// Holdout kernel: a large grid of small blocks (many waves): y = max(x + bias[column], 0).
extern "C" __global__ void bias_relu(const float* x, const float* bias, float* y, int n,
                                     int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = fmaxf(x[i] + bias[i % cols], 0.0f);
}
