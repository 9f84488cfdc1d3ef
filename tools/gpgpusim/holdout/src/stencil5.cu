// Holdout kernel: 2-D five-point stencil (Jacobi step); edge cells are copied unchanged.
extern "C" __global__ void stencil5(const float* in, float* out, int w, int h,
                                    float centre, float side)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
        return;
    }
    float s = in[i - 1] + in[i + 1] + in[i - w] + in[i + w];
    out[i] = centre * in[i] + side * s;
}
