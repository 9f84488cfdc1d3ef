// The math library as Rodinia kernels use it, with NVRTC's default (precise) flags:
// expf/logf/powf/sinf/cosf/sqrtf/fabsf and their double versions expand into inline
// libdevice code, and double sin/cos call the out-of-line
// __internal_trig_reduction_slowpathd (a .func with .local arrays and .param passing).
// libdevice_fast.cu is the same code under -use_fast_math.

extern "C" __global__ void math_f32(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float r = expf(x) + logf(fabsf(x) + 1.0f) + powf(fabsf(x), 1.5f);
    r += sinf(x) * cosf(x) + sqrtf(fabsf(x)) + tanhf(x) + exp2f(x) + log2f(x + 2.0f);
    r += x / (r + 3.0f) + rsqrtf(fabsf(x) + 1.0f) + floorf(x) + ceilf(x) + truncf(x) + roundf(x);
    out[i] = fminf(fmaxf(r, -1e30f), 1e30f);
}

extern "C" __global__ void math_f64(const double *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = in[i];
    double r = exp(x) + log(fabs(x) + 1.0) + pow(fabs(x), 1.5);
    r += sin(x) * cos(x) + sqrt(fabs(x)) + x / (r + 3.0);
    out[i] = r;
}

extern "C" __global__ void math_mixed(const float *in, float *out, int n)
{
    // Rodinia style: float data with double literals (cvt.f64.f32 ... cvt.rn.f32.f64).
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    out[i] = (float)(x * 0.5 + 1.0 / (x + 2.0)) + (float)exp((double)x * 0.25);
}
