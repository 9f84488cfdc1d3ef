// Rodinia 3.1 gaussian (Gaussian elimination, forward phase), rewritten for warpsim.
//
// For t = 0 .. Size-2 the host launches
//   Fan1 <<<ceil(Size/512), 512>>>          multipliers m[i][t] = a[i][t] / a[t][t], i > t
//   Fan2 <<<(ceil(Size/4))^2, (4, 4)>>>      a[i][j] -= m[i][t] * a[t][j] for i > t, j >= t,
//                                            and b[i] -= m[i][t] * b[t] (threads with y == 0)
// and back-substitution runs on the host. Matrices are row-major Size x Size floats.
// `j1` (Size - t) is passed as in Rodinia and unused by the kernel.

#define MAXBLOCKSIZE 512
#define BLOCK_SIZE_XY 4

extern "C" __global__ void Fan1(float *m_cuda, float *a_cuda, int Size, int t)
{
    // Unsigned comparison, as in Rodinia (the thread index is unsigned).
    if (blockIdx.x * blockDim.x + threadIdx.x >= Size - 1 - t)
        return;
    const int row = blockIdx.x * blockDim.x + threadIdx.x + t + 1;
    m_cuda[Size * row + t] = a_cuda[Size * row + t] / a_cuda[Size * t + t];
}

extern "C" __global__ void Fan2(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1,
                                int t)
{
    if (blockIdx.x * blockDim.x + threadIdx.x >= Size - 1 - t)
        return;
    if (blockIdx.y * blockDim.y + threadIdx.y >= Size - t)
        return;
    const int xidx = blockIdx.x * blockDim.x + threadIdx.x; // row t + 1 + xidx
    const int yidx = blockIdx.y * blockDim.y + threadIdx.y; // column t + yidx
    const int row = xidx + 1 + t;
    const int col = yidx + t;
    a_cuda[Size * row + col] -= m_cuda[Size * row + t] * a_cuda[Size * t + col];
    if (yidx == 0)
        b_cuda[row] -= m_cuda[Size * row + col] * b_cuda[t];
}
