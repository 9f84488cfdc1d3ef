// CUDA SDK vectorAdd, written for warpsim.
//
// C = A + B element by element: one thread per element, 256 threads per block and
// ceil(n / 256) blocks, the last block partly idle (the `i < numElements` guard), as the SDK's
// sample launches it.

extern "C" __global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements)
        C[i] = A[i] + B[i];
}
