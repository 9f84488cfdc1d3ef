// DNN inference layers for warpsim's dnn suite, written after the Tango benchmark suite
// (Karki et al., "Tango: A Deep Neural Network Benchmark Suite for Various Accelerators",
// ISPASS 2019): every layer type is one kernel, every network a host-side sequence of launches,
// as in Tango's CUDA networks (CifarNet, AlexNet, MobileNet, LSTM, GRU). Our own code, not
// Tango's; one module shared by all dnn samples.
//
// Layout: activations are NCHW float tensors (batch, channel, row, column); a fully connected
// layer's weights are stored transposed, [inputs][outputs], so that the threads of a warp (one
// output each) read consecutive weights. Every convolution, pooling and fully connected kernel
// computes one output element per thread, accumulating from the bias in a fixed order
// (channel, kernel row, kernel column, skipping taps in the padding; NVRTC contracts each step
// to one fma.rn.f32), which the Rust references mirror bit for bit.
//
// ReLU is fused as a flag into the layers it follows (conv2d, depthwise_conv3x3,
// pointwise_conv, fc), as Tango's kernels apply the activation before the store; it is written
// `v > 0 ? v : 0` so that it is a plain compare and select.
//
// softmax, lstm_cell and gru_cell call expf and tanhf. Without -use_fast_math NVRTC inlines
// them as range reductions around ex2.approx.ftz.f32 (tanhf: a polynomial below |x| = 0.6,
// else 1 - 2 / (2^(2|x| log2 e) + 1) with ex2.approx.ftz and rcp.approx.ftz), and 1 / (1 + e)
// as rcp.rn.f32; the CUDA Programming Guide bounds expf and tanhf at 2 ulp, which is what the
// host-side tolerances are derived from.

#define TILE 16              // convolution and pooling blocks: TILE x TILE outputs of one plane
#define SOFTMAX_THREADS 128  // softmax: one block of this many threads per batch row

__device__ __forceinline__ float activate(float v, int relu)
{
    return relu && !(v > 0.0f) ? 0.0f : v;
}

// Direct convolution with zero padding and channel groups (AlexNet's two-GPU split of conv2,
// conv4 and conv5). Grid (ceil(OW/16), ceil(OH/16), N*K), block 16 x 16: the block's z index
// is one output plane (image n, filter k), so every thread of a block reads the same weights.
// Weights are [K][C/groups][R][R], bias [K].
extern "C" __global__ void conv2d(const float *in, const float *weight, const float *bias,
                                  float *out, int C, int H, int W, int K, int R, int stride,
                                  int pad, int groups, int OH, int OW, int relu)
{
    const int ox = blockIdx.x * TILE + threadIdx.x;
    const int oy = blockIdx.y * TILE + threadIdx.y;
    if (ox >= OW || oy >= OH)
        return;
    const int n = blockIdx.z / K;
    const int k = blockIdx.z % K;
    const int cpg = C / groups;           // input channels per group
    const int c0 = (k / (K / groups)) * cpg;
    const float *w = weight + (size_t)k * cpg * R * R;
    // The window's top-left input pixel, and the taps that fall inside the image: the loops
    // visit only those (the padding contributes zeros), in row-major order.
    const int iy0 = oy * stride - pad, ix0 = ox * stride - pad;
    const int ky0 = max(0, -iy0), ky1 = min(R, H - iy0);
    const int kx0 = max(0, -ix0), kx1 = min(R, W - ix0);
    float sum = bias[k];
    for (int c = 0; c < cpg; ++c) {
        const float *plane = in + ((size_t)n * C + c0 + c) * H * W;
        const float *wc = w + c * R * R;
        for (int ky = ky0; ky < ky1; ++ky)
            for (int kx = kx0; kx < kx1; ++kx)
                sum += plane[(iy0 + ky) * W + ix0 + kx] * wc[ky * R + kx];
    }
    out[(size_t)blockIdx.z * OH * OW + oy * OW + ox] = activate(sum, relu);
}

// Max pooling over R x R windows at `stride`, without padding; windows that run past the
// input's edge are clipped to it (Caffe's ceil-mode output size, which Tango's networks use).
// Grid (ceil(OW/16), ceil(OH/16), planes), block 16 x 16.
extern "C" __global__ void maxpool(const float *in, float *out, int H, int W, int R, int stride,
                                   int OH, int OW)
{
    const int ox = blockIdx.x * TILE + threadIdx.x;
    const int oy = blockIdx.y * TILE + threadIdx.y;
    if (ox >= OW || oy >= OH)
        return;
    const float *plane = in + (size_t)blockIdx.z * H * W;
    const int y0 = oy * stride, x0 = ox * stride;
    const int y1 = min(y0 + R, H), x1 = min(x0 + R, W);
    float m = plane[y0 * W + x0];
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            m = fmaxf(m, plane[y * W + x]);
    out[(size_t)blockIdx.z * OH * OW + oy * OW + ox] = m;
}

// Depthwise 3 x 3 convolution (MobileNet): each channel convolved with its own filter, padding
// 1, stride 1 or 2. Grid (ceil(OW/16), ceil(OH/16), N*C), block 16 x 16. Weights [C][3][3].
// The 3 x 3 loop is unrolled; out-of-image taps are skipped as in conv2d.
extern "C" __global__ void depthwise_conv3x3(const float *in, const float *weight,
                                             const float *bias, float *out, int C, int H, int W,
                                             int stride, int OH, int OW, int relu)
{
    const int ox = blockIdx.x * TILE + threadIdx.x;
    const int oy = blockIdx.y * TILE + threadIdx.y;
    if (ox >= OW || oy >= OH)
        return;
    const int c = blockIdx.z % C;
    const float *plane = in + (size_t)blockIdx.z * H * W;
    const float *w = weight + c * 9;
    float sum = bias[c];
#pragma unroll
    for (int ky = 0; ky < 3; ++ky) {
        const int iy = oy * stride - 1 + ky;
#pragma unroll
        for (int kx = 0; kx < 3; ++kx) {
            const int ix = ox * stride - 1 + kx;
            if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                sum += plane[iy * W + ix] * w[ky * 3 + kx];
        }
    }
    out[(size_t)blockIdx.z * OH * OW + oy * OW + ox] = activate(sum, relu);
}

// Pointwise (1 x 1) convolution (MobileNet): out[n][k][p] = bias[k] + sum_c w[k][c] in[n][c][p]
// over the HW pixels p of a plane. Grid (ceil(HW/256), K, N), block 256: consecutive threads
// read consecutive pixels, the whole block the same weight.
extern "C" __global__ void pointwise_conv(const float *in, const float *weight,
                                          const float *bias, float *out, int C, int HW, int K,
                                          int relu)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= HW)
        return;
    const int k = blockIdx.y, n = blockIdx.z;
    const float *x = in + (size_t)n * C * HW + p;
    const float *w = weight + (size_t)k * C;
    float sum = bias[k];
    for (int c = 0; c < C; ++c)
        sum += x[(size_t)c * HW] * w[c];
    out[((size_t)n * K + k) * HW + p] = activate(sum, relu);
}

// Global average pooling (MobileNet's last pooling): one thread per plane sums its HW values in
// order and divides by HW. Grid ceil(planes/256), block 256.
extern "C" __global__ void avgpool_global(const float *in, float *out, int planes, int HW)
{
    const int plane = blockIdx.x * blockDim.x + threadIdx.x;
    if (plane >= planes)
        return;
    const float *x = in + (size_t)plane * HW;
    float sum = 0.0f;
    for (int i = 0; i < HW; ++i)
        sum += x[i];
    out[plane] = sum / (float)HW;
}

// Fully connected layer: out[n][o] = bias[o] + sum_i in[n][i] wt[i][o], one output per thread.
// Grid (ceil(OUT/256), N), block 256. Weights transposed ([IN][OUT]) for coalesced reads;
// the input row is the same for the whole block (a broadcast).
extern "C" __global__ void fc(const float *in, const float *wt, const float *bias, float *out,
                              int IN, int OUT, int relu)
{
    const int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= OUT)
        return;
    const float *x = in + (size_t)blockIdx.y * IN;
    float sum = bias[o];
    for (int i = 0; i < IN; ++i)
        sum += x[i] * wt[(size_t)i * OUT + o];
    out[(size_t)blockIdx.y * OUT + o] = activate(sum, relu);
}

// Softmax over each row of `classes` logits: one block of SOFTMAX_THREADS per batch row. Each
// thread takes a strided share of the row (its max, then its sum of exp(x - max)); shared-
// memory tree reductions combine the shares; the exponentials are kept in `out` and divided
// by the row's sum at the end.
extern "C" __global__ void softmax(const float *in, float *out, int classes)
{
    __shared__ float part[SOFTMAX_THREADS];
    const int t = threadIdx.x;
    const float *x = in + (size_t)blockIdx.x * classes;
    float *y = out + (size_t)blockIdx.x * classes;

    float m = __int_as_float(0xff800000);  // -infinity (NVRTC has no math.h INFINITY)
    for (int i = t; i < classes; i += SOFTMAX_THREADS)
        m = fmaxf(m, x[i]);
    part[t] = m;
    __syncthreads();
    for (int s = SOFTMAX_THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] = fmaxf(part[t], part[t + s]);
        __syncthreads();
    }
    m = part[0];
    __syncthreads();

    float sum = 0.0f;
    for (int i = t; i < classes; i += SOFTMAX_THREADS) {
        const float e = expf(x[i] - m);
        y[i] = e;
        sum += e;
    }
    part[t] = sum;
    __syncthreads();
    for (int s = SOFTMAX_THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    sum = part[0];
    for (int i = t; i < classes; i += SOFTMAX_THREADS)
        y[i] = y[i] / sum;
}

__device__ __forceinline__ float sigmoid(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

// One LSTM time step for every (sequence, hidden unit), after the input and recurrent
// projections: gx = W x_t + b_x and gh = U h_{t-1} + b_h (both from `fc`), each [batch][4H] in
// gate order i, f, g, o. Updates c and writes h (both [batch][H]). Grid ceil(batch*H/256),
// block 256.
extern "C" __global__ void lstm_cell(const float *gx, const float *gh, float *c, float *h,
                                     int H, int batch)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * H)
        return;
    const int b = idx / H, j = idx % H;
    const float *ax = gx + (size_t)b * 4 * H, *ah = gh + (size_t)b * 4 * H;
    const float i = sigmoid(ax[j] + ah[j]);
    const float f = sigmoid(ax[H + j] + ah[H + j]);
    const float g = tanhf(ax[2 * H + j] + ah[2 * H + j]);
    const float o = sigmoid(ax[3 * H + j] + ah[3 * H + j]);
    const float cn = f * c[idx] + i * g;
    c[idx] = cn;
    h[idx] = o * tanhf(cn);
}

// One GRU time step (the cuDNN / PyTorch formulation, reset gate applied to the recurrent
// projection): gx = W x_t + b_x, gh = U h_{t-1} + b_h, each [batch][3H] in gate order r, z, n;
// r = sigmoid(gx_r + gh_r), z = sigmoid(gx_z + gh_z), n = tanh(gx_n + r gh_n),
// h = (1 - z) n + z h. Grid ceil(batch*H/256), block 256.
extern "C" __global__ void gru_cell(const float *gx, const float *gh, float *h, int H, int batch)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * H)
        return;
    const int b = idx / H, j = idx % H;
    const float *ax = gx + (size_t)b * 3 * H, *ah = gh + (size_t)b * 3 * H;
    const float r = sigmoid(ax[j] + ah[j]);
    const float z = sigmoid(ax[H + j] + ah[H + j]);
    const float n = tanhf(ax[2 * H + j] + r * ah[2 * H + j]);
    h[idx] = (1.0f - z) * n + z * h[idx];
}
