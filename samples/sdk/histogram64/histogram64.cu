// CUDA SDK histogram64, written for warpsim.
//
// A 64-bin histogram of a byte array (each byte's bits 7..2 select its bin). histogram64Kernel:
// each of the 64 threads of a block keeps its own histogram of byte-sized counters in shared
// memory (64 threads x 64 bins = 4 KiB), reads 16 bytes (a uint4) per iteration of a
// grid-stride loop, and increments one counter per byte; at the end the first 64 threads each
// sum one bin over the block's 64 sub-histograms and write the block's partial histogram.
// mergeHistogram64Kernel: one block of 256 threads per bin sums that bin over all partial
// histograms with a shared-memory tree reduction.
//
// As in the SDK, the host launches ceil(bytes / (64 threads * 240 bytes)) blocks so that no
// thread counts more than 240 bytes (15 uint4s) and a byte counter cannot overflow; the
// counters of a thread are interleaved with its neighbours' (threadPos) so that 16 consecutive
// threads hit 16 different banks.

typedef unsigned int uint;
typedef unsigned char uchar;

#define HISTOGRAM64_BIN_COUNT 64
#define SHARED_MEMORY_BANKS 16
#define HISTOGRAM64_THREADBLOCK_SIZE (4 * SHARED_MEMORY_BANKS)
#define MERGE_THREADBLOCK_SIZE 256

__device__ inline void addByte(uchar *s_ThreadBase, uint data)
{
    s_ThreadBase[data * HISTOGRAM64_THREADBLOCK_SIZE]++;
}

__device__ inline void addWord(uchar *s_ThreadBase, uint data)
{
    // The bin of each byte is its six high bits.
    addByte(s_ThreadBase, (data >> 2) & 0x3FU);
    addByte(s_ThreadBase, (data >> 10) & 0x3FU);
    addByte(s_ThreadBase, (data >> 18) & 0x3FU);
    addByte(s_ThreadBase, (data >> 26) & 0x3FU);
}

extern "C" __global__ void histogram64Kernel(uint *d_PartialHistograms, const uint4 *d_Data,
                                             uint dataCount)
{
    // Thread position within the sub-histogram rows: groups of SHARED_MEMORY_BANKS threads
    // touch consecutive banks and the same byte within each bank.
    const uint threadPos = ((threadIdx.x & ~(SHARED_MEMORY_BANKS * 4 - 1)) << 0) |
                           ((threadIdx.x & (SHARED_MEMORY_BANKS - 1)) << 2) |
                           ((threadIdx.x & (SHARED_MEMORY_BANKS * 3)) >> 4);

    __shared__ __align__(4) uchar s_Hist[HISTOGRAM64_THREADBLOCK_SIZE * HISTOGRAM64_BIN_COUNT];
    uchar *s_ThreadBase = s_Hist + threadPos;

    // Clear the sub-histograms, a 32-bit word per store.
#pragma unroll
    for (uint i = 0; i < (HISTOGRAM64_BIN_COUNT / 4); i++)
        ((uint *)s_Hist)[threadIdx.x + i * HISTOGRAM64_THREADBLOCK_SIZE] = 0;
    __syncthreads();

    for (uint pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
         pos += blockDim.x * gridDim.x) {
        const uint4 data = d_Data[pos];
        addWord(s_ThreadBase, data.x);
        addWord(s_ThreadBase, data.y);
        addWord(s_ThreadBase, data.z);
        addWord(s_ThreadBase, data.w);
    }
    __syncthreads();

    // Thread b < 64 sums bin b over the block's sub-histograms (row b of s_Hist), starting at a
    // bank of its own and wrapping around.
    if (threadIdx.x < HISTOGRAM64_BIN_COUNT) {
        const uchar *s_HistBase = s_Hist + threadIdx.x * HISTOGRAM64_THREADBLOCK_SIZE;
        uint sum = 0;
        uint pos = 4 * (threadIdx.x & (SHARED_MEMORY_BANKS - 1));
#pragma unroll
        for (uint i = 0; i < (HISTOGRAM64_THREADBLOCK_SIZE / 4); i++) {
            sum += s_HistBase[pos + 0] + s_HistBase[pos + 1] + s_HistBase[pos + 2] +
                   s_HistBase[pos + 3];
            pos = (pos + 4) & (HISTOGRAM64_THREADBLOCK_SIZE - 1);
        }
        d_PartialHistograms[blockIdx.x * HISTOGRAM64_BIN_COUNT + threadIdx.x] = sum;
    }
}

extern "C" __global__ void mergeHistogram64Kernel(uint *d_Histogram,
                                                  const uint *d_PartialHistograms,
                                                  uint histogramCount)
{
    __shared__ uint data[MERGE_THREADBLOCK_SIZE];

    // Block b merges bin b.
    uint sum = 0;
    for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE)
        sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM64_BIN_COUNT];
    data[threadIdx.x] = sum;

    for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride)
            data[threadIdx.x] += data[threadIdx.x + stride];
    }
    if (threadIdx.x == 0)
        d_Histogram[blockIdx.x] = data[0];
}
