// CUDA SDK reduction, written for warpsim: the classic sequence of parallel-sum kernels of
// Mark Harris's "Optimizing Parallel Reduction in CUDA", on int data.
//
// Every kernel sums a block's share of g_idata into g_odata[blockIdx.x]; the host relaunches
// the same kernel on the partial sums until one value is left (the SDK's GPU final reduction).
// All use dynamically sized shared memory of blockDim.x ints and need a power-of-two block of
// at least 64 threads (reduce5 and reduce6 exactly 256); the host always launches 256.
//
//   reduce0: interleaved addressing, `tid % (2 * s) == 0` (divergent warps, slow modulo)
//   reduce1: interleaved addressing with a strided index (no divergence, bank conflicts)
//   reduce2: sequential addressing (conflict free)
//   reduce3: as reduce2 with the first add during the global load (2 elements per thread)
//   reduce4: as reduce3 with the last warp reduced by warp shuffles
//   reduce5: as reduce4, the block-size loop completely unrolled (block size a template)
//   reduce6: as reduce5, each thread first summing many elements in a grid-stride loop
//
// Changed from the SDK: reduce4-6 are templated on the block size in the SDK, which
// instantiates every power of two and picks the block size per pass; here they are
// instantiated for 256 threads (the SDK's default maxThreads), the host launching every pass
// with 256 threads. reduce6's `nIsPow2` template parameter is dropped (the bound check is always
// made). The last-warp step uses __shfl_down_sync, as the current SDK's cooperative-groups
// shfl_down does.

// The dynamically sized shared memory of every kernel: one int per thread.
extern __shared__ int sdata[];

extern "C" __global__ void reduce0(const int *g_idata, int *g_odata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if ((tid % (2 * s)) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce1(const int *g_idata, int *g_odata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce2(const int *g_idata, int *g_odata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce3(const int *g_idata, int *g_odata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n)
        mySum += g_idata[i + blockDim.x];
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = mySum;
}

// The last 64 values of sdata (warp 0 holding mySum = sdata[tid]) summed by warp 0: one add
// from shared memory, then five shuffles down.
__device__ inline int warpReduceLast(const int *sdata, unsigned tid, int mySum)
{
    mySum += sdata[tid + 32];
    for (int offset = 16; offset > 0; offset /= 2)
        mySum += __shfl_down_sync(0xffffffffu, mySum, offset);
    return mySum;
}

extern "C" __global__ void reduce4(const int *g_idata, int *g_odata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n)
        mySum += g_idata[i + blockDim.x];
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        mySum = warpReduceLast(sdata, tid, mySum);
        if (tid == 0)
            g_odata[blockIdx.x] = mySum;
    }
}

// The completely unrolled tree of reduce5 and reduce6, down to the last warp.
template <unsigned blockSize> __device__ inline int blockReduce(int *sdata, unsigned tid, int mySum)
{
    static_assert((blockSize & (blockSize - 1)) == 0, "block size must be a power of two");
    sdata[tid] = mySum;
    __syncthreads();
    if (blockSize >= 512 && tid < 256)
        sdata[tid] = mySum = mySum + sdata[tid + 256];
    if (blockSize >= 512)
        __syncthreads();
    if (blockSize >= 256 && tid < 128)
        sdata[tid] = mySum = mySum + sdata[tid + 128];
    if (blockSize >= 256)
        __syncthreads();
    if (blockSize >= 128 && tid < 64)
        sdata[tid] = mySum = mySum + sdata[tid + 64];
    if (blockSize >= 128)
        __syncthreads();
    if (tid < 32)
        mySum = warpReduceLast(sdata, tid, mySum);
    return mySum;
}

template <unsigned blockSize> __device__ void reduce5_body(const int *g_idata, int *g_odata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    int mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockSize < n)
        mySum += g_idata[i + blockSize];
    mySum = blockReduce<blockSize>(sdata, tid, mySum);
    if (tid == 0)
        g_odata[blockIdx.x] = mySum;
}

template <unsigned blockSize> __device__ void reduce6_body(const int *g_idata, int *g_odata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned gridSize = blockSize * 2 * gridDim.x;
    int mySum = 0;
    // Many elements per thread: the number of blocks is capped, each thread strides the grid.
    for (unsigned i = blockIdx.x * blockSize * 2 + threadIdx.x; i < n; i += gridSize) {
        mySum += g_idata[i];
        if (i + blockSize < n)
            mySum += g_idata[i + blockSize];
    }
    mySum = blockReduce<blockSize>(sdata, tid, mySum);
    if (tid == 0)
        g_odata[blockIdx.x] = mySum;
}

extern "C" __global__ void reduce5(const int *g_idata, int *g_odata, unsigned n)
{
    reduce5_body<256>(g_idata, g_odata, n);
}

extern "C" __global__ void reduce6(const int *g_idata, int *g_odata, unsigned n)
{
    reduce6_body<256>(g_idata, g_odata, n);
}
