// Holdout kernel: inclusive prefix sum of each block's 256 integers (Hillis-Steele with two
// shared buffers), and each block's total.
#define B 256
extern "C" __global__ void block_scan(const int* in, int* out, int* totals, int n)
{
    __shared__ int buf[2][B];
    int t = threadIdx.x;
    int i = blockIdx.x * B + t;
    int cur = 0;
    buf[0][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int d = 1; d < B; d <<= 1) {
        int v = buf[cur][t];
        if (t >= d) v += buf[cur][t - d];
        buf[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[cur][t];
    if (t == B - 1) totals[blockIdx.x] = buf[cur][t];
}
