// Holdout kernel: sparse matrix-vector product in CSR, one thread per row (rows of very
// different lengths: the warp runs as long as its longest row).
extern "C" __global__ void spmv_csr(int rows, const int* row_start, const int* col,
                                    const float* val, const float* x, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int e = row_start[r]; e < row_start[r + 1]; ++e)
        s += val[e] * x[col[e]];
    y[r] = s;
}
