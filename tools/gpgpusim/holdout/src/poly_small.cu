// Holdout kernel: few warps over many elements (a small grid of one wave walking the array
// with a grid-stride loop): Horner evaluation of a degree-8 polynomial.
extern "C" __global__ void poly_small(const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = x[i];
        float p = 0.03125f;
        p = p * v - 0.0625f;
        p = p * v + 0.125f;
        p = p * v - 0.25f;
        p = p * v + 0.5f;
        p = p * v - 1.0f;
        p = p * v + 1.5f;
        p = p * v - 2.0f;
        p = p * v + 3.0f;
        y[i] = p;
    }
}
