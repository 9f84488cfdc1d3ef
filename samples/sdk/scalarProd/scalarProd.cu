// CUDA SDK scalarProd, written for warpsim.
//
// Dot products of vectorN pairs of vectors of elementN floats each. Every block handles the
// vectors vec = blockIdx.x, blockIdx.x + gridDim.x, ...: its threads first fold each vector
// into ACCUM_N partial sums (accumulator i sums the products at i, i + ACCUM_N, ... , all in
// shared memory), then a tree reduction in shared memory halves the ACCUM_N accumulators down
// to one, which thread 0 writes out. As in the SDK, elementN must be a multiple of ACCUM_N
// for the accumulators to be balanced (any size is still computed correctly).

#define ACCUM_N 1024

extern "C" __global__ void scalarProdGPU(float *d_C, const float *d_A, const float *d_B,
                                         int vectorN, int elementN)
{
    __shared__ float accumResult[ACCUM_N];

    for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
        const int vectorBase = elementN * vec;
        const int vectorEnd = vectorBase + elementN;

        // Each accumulator sums the products ACCUM_N apart.
        for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
            float sum = 0;
            for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
                sum += d_A[pos] * d_B[pos];
            accumResult[iAccum] = sum;
        }

        // Tree reduction of the accumulators: accumResult[i] += accumResult[i + stride].
        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
                accumResult[iAccum] += accumResult[stride + iAccum];
        }
        __syncthreads();
        if (threadIdx.x == 0)
            d_C[vec] = accumResult[0];
        // accumResult is rewritten for the next vector only after thread 0 has read it.
        __syncthreads();
    }
}
