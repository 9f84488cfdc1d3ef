// Holdout kernel: double precision y = a x + y over a grid-stride loop, and each block's
// partial dot product x . y (new y) reduced in shared memory (block of 256).
extern "C" __global__ void daxpy_dot(int n, double a, const double* x, double* y,
                                     double* partial)
{
    __shared__ double red[256];
    double d = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double v = a * x[i] + y[i];
        y[i] = v;
        d += x[i] * v;
    }
    red[threadIdx.x] = d;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = red[0];
}
