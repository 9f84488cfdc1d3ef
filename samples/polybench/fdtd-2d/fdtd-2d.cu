// Polybench-GPU 1.0 fdtd-2d (Grauer-Gray et al.), rewritten for warpsim.
//
// 2-D finite-difference time domain: per time step t the host launches three kernels, each a
// 2-D grid of 32 × 8 blocks with one thread per (i, j) of the nx × ny field:
// `fdtd_step1_kernel` updates ey (row 0 takes the source value fict[t]), `fdtd_step2_kernel`
// updates ex (column 0 untouched) and `fdtd_step3_kernel` updates hz from both. ex is
// nx × (ny + 1) and ey (nx + 1) × ny, as Polybench-GPU allocates them, so that step 3 reads one
// column/row beyond the field. Changed: sizes are kernel arguments instead of macros.

extern "C" __global__ void fdtd_step1_kernel(const float *fict, float *ex, float *ey,
                                             const float *hz, int t, int nx, int ny)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j < ny) {
        if (i == 0)
            ey[j] = fict[t];
        else
            ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
    }
}

extern "C" __global__ void fdtd_step2_kernel(float *ex, const float *ey, const float *hz, int t,
                                             int nx, int ny)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j > 0 && j < ny)
        ex[i * (ny + 1) + j] = ex[i * (ny + 1) + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

extern "C" __global__ void fdtd_step3_kernel(const float *ex, const float *ey, float *hz, int t,
                                             int nx, int ny)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j < ny)
        hz[i * ny + j] = hz[i * ny + j]
                         - 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j]
                                   + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
