// Polybench-GPU 1.0 gramschmidt (Grauer-Gray et al.), rewritten for warpsim.
//
// QR decomposition of A (m × n) by classical Gram-Schmidt. For each column k the host launches
// three kernels, 256 × 1 threads per block: `gramschmidt_kernel1` (one block; thread 0 alone
// computes R[k][k] = sqrt(sum A[i][k]^2), the suite's serial step), `gramschmidt_kernel2`
// (Q[i][k] = A[i][k] / R[k][k], one thread per row) and `gramschmidt_kernel3` (one thread per
// column j > k: R[k][j] = Q[:,k] . A[:,j] accumulated in global memory, then
// A[:,j] -= Q[:,k] R[k][j]). Changed: sizes are kernel arguments, and kernel 2's grid covers
// the m rows (the suite sizes it by n, which misses rows when m > n).

extern "C" __global__ void gramschmidt_kernel1(const float *a, float *r, const float *q, int k,
                                               int m, int n)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid == 0) {
        float nrm = 0.0f;
        for (int i = 0; i < m; i++)
            nrm += a[i * n + k] * a[i * n + k];
        r[k * n + k] = sqrtf(nrm);
    }
}

extern "C" __global__ void gramschmidt_kernel2(const float *a, const float *r, float *q, int k,
                                               int m, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        q[i * n + k] = a[i * n + k] / r[k * n + k];
}

extern "C" __global__ void gramschmidt_kernel3(float *a, float *r, const float *q, int k, int m,
                                               int n)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > k && j < n) {
        r[k * n + j] = 0.0f;
        for (int i = 0; i < m; i++)
            r[k * n + j] += q[i * n + k] * a[i * n + j];
        for (int i = 0; i < m; i++)
            a[i * n + j] -= q[i * n + k] * r[k * n + j];
    }
}
