// Rodinia 3.1 hybridsort, written for warpsim: a bucket sort into 1024 buckets of about equal
// size followed by a merge sort of float4 runs inside every bucket.
//
//   histogram1024Kernel (64 blocks of 96 threads): a 1024-bin histogram of the input, one
//       sub-histogram per warp in shared memory updated with the tagged-write trick of the
//       CUDA SDK's histogram256 (warp-synchronous, no atomics), merged into global memory with
//       atomicAdd. The host derives 1024 pivots from it.
//   bucketcount (blocks of 32 threads, 128 elements per thread): each element's bucket by
//       binary search over the pivots, and its rank within its warp's bucket counter.
//   bucketprefixoffset (8 blocks of 128 threads, one thread per bucket): scan of the
//       per-block counters across blocks, and each bucket's size.
//   bucketsort: scatters the elements to their buckets (each bucket padded to a multiple of 4
//       with zeros by the host's offsets).
//   mergeSortFirst (256 threads): sorts every float4; mergeSortPass (208 threads, or fewer in
//       at least 8 blocks), once per doubling run length: merges pairs of sorted runs of
//       float4s inside each bucket; mergepack (256 threads, a grid row per bucket): drops the
//       padding zeros and writes the final list.
//
// Texture replacement: Rodinia reads the pivots (texPivot) and the merge input (tex, float4)
// through texture references, which CUDA 12 no longer has. Here they are read with __ldg
// (ld.global.nc, the read-only data path textures use) from pointers passed as an extra, last
// kernel parameter. mergeSortPass's look-ahead fetch may read one float4 past its bucket (or
// past the list, where the texture returned 0); that value is never used, and the host's
// buffers hold 4 x 1024 floats beyond the list as Rodinia's do. hybridsort_tex.cu compiles this
// file with RODINIA_TEXTURES under NVRTC 11.8: Rodinia's texture references and arguments.

#ifdef RODINIA_TEXTURES
texture<float, 1, cudaReadModeElementType> texPivot;
texture<float4, 1, cudaReadModeElementType> tex;
#define PIVOT(i) tex1Dfetch(texPivot, i)
#define MERGE_INPUT(i) tex1Dfetch(tex, i)
#define PIVOTS_PARAM
#define MERGE_INPUT_PARAM
#else
#define PIVOT(i) __ldg(&pivots[i])
#define MERGE_INPUT(i) __ldg(&orig[i])
#define PIVOTS_PARAM , const float *pivots
#define MERGE_INPUT_PARAM , const float4 *orig
#endif

#define LOG_DIVISIONS 10
#define DIVISIONS (1 << LOG_DIVISIONS)

// ---- histogram1024 ----

#define BIN_COUNT 1024
#define WARP_LOG_SIZE 5
#define WARP_N 3
#define BLOCK_MEMORY (WARP_N * BIN_COUNT)

// Increments s_WarpHist[data]: every lane writes its tagged count, lanes whose write was lost
// to another lane of the warp (the tag tells) retry.
__device__ void addData1024(volatile unsigned int *s_WarpHist, unsigned int data,
                            unsigned int threadTag)
{
    unsigned int count;
    do {
        count = s_WarpHist[data] & 0x07FFFFFFU;
        count = threadTag | (count + 1);
        s_WarpHist[data] = count;
    } while (s_WarpHist[data] != count);
}

extern "C" __global__ void histogram1024Kernel(unsigned int *d_Result, float *d_Data,
                                               float minimum, float maximum, int dataN)
{
    const int globalTid = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    const int numThreads = __mul24(blockDim.x, gridDim.x);
    // the lane index in the 5 high bits of the counter
    const unsigned int threadTag = threadIdx.x << (32 - WARP_LOG_SIZE);
    volatile __shared__ unsigned int s_Hist[BLOCK_MEMORY];
    const int warpBase = __mul24(threadIdx.x >> WARP_LOG_SIZE, BIN_COUNT);

    for (int pos = threadIdx.x; pos < BLOCK_MEMORY; pos += blockDim.x)
        s_Hist[pos] = 0;
    __syncthreads();

    for (int pos = globalTid; pos < dataN; pos += numThreads) {
        unsigned int bin = ((d_Data[pos] - minimum) / (maximum - minimum)) * BIN_COUNT;
        addData1024(s_Hist + warpBase, bin & 0x3FFU, threadTag);
    }
    __syncthreads();

    // the block's sum of its warps' histograms
    for (int pos = threadIdx.x; pos < BIN_COUNT; pos += blockDim.x) {
        unsigned int sum = 0;
        for (int base = 0; base < BLOCK_MEMORY; base += BIN_COUNT)
            sum += s_Hist[base + pos] & 0x07FFFFFFU;
        atomicAdd(d_Result + pos, sum);
    }
}

// ---- bucket sort ----

#define BUCKET_WARP_LOG_SIZE 5
#define BUCKET_WARP_N 1
#define BUCKET_BLOCK_MEMORY (DIVISIONS * BUCKET_WARP_N)

// histogram1024's tagged increment, returning the counter's previous value
__device__ int addOffset(volatile unsigned int *s_offset, unsigned int data,
                         unsigned int threadTag)
{
    unsigned int count;
    do {
        count = s_offset[data] & 0x07FFFFFFU;
        count = threadTag | (count + 1);
        s_offset[data] = count;
    } while (s_offset[data] != count);
    return (count & 0x07FFFFFFU) - 1;
}

extern "C" __global__ void bucketcount(float *input, int *indice, unsigned int *d_prefixoffsets,
                                       int size PIVOTS_PARAM)
{
    volatile __shared__ unsigned int s_offset[BUCKET_BLOCK_MEMORY];
    const unsigned int threadTag = threadIdx.x << (32 - BUCKET_WARP_LOG_SIZE);
    const int warpBase = (threadIdx.x >> BUCKET_WARP_LOG_SIZE) * DIVISIONS;
    const int numThreads = blockDim.x * gridDim.x;

    for (int i = threadIdx.x; i < BUCKET_BLOCK_MEMORY; i += blockDim.x)
        s_offset[i] = 0;
    __syncthreads();

    for (int tid = blockIdx.x * blockDim.x + threadIdx.x; tid < size; tid += numThreads) {
        float elem = input[tid];
        // binary search: the first pivot above elem
        int idx = DIVISIONS / 2 - 1;
        int jump = DIVISIONS / 4;
        float piv = PIVOT(idx);
        while (jump >= 1) {
            idx = (elem < piv) ? (idx - jump) : (idx + jump);
            piv = PIVOT(idx);
            jump /= 2;
        }
        idx = (elem < piv) ? idx : (idx + 1);
        // rank within the block's bucket in the high bits, the bucket in the low ones
        indice[tid] = (addOffset(s_offset + warpBase, idx, threadTag) << LOG_DIVISIONS) + idx;
    }
    __syncthreads();

    int prefixBase = blockIdx.x * BUCKET_BLOCK_MEMORY;
    for (int i = threadIdx.x; i < BUCKET_BLOCK_MEMORY; i += blockDim.x)
        d_prefixoffsets[prefixBase + i] = s_offset[i] & 0x07FFFFFFU;
}

// one thread per bucket: exclusive scan of the bucket's per-block counts, and its total
extern "C" __global__ void bucketprefixoffset(unsigned int *d_prefixoffsets,
                                              unsigned int *d_offsets, int blocks)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int size = blocks * BUCKET_BLOCK_MEMORY;
    int sum = 0;
    for (int i = tid; i < size; i += DIVISIONS) {
        int x = d_prefixoffsets[i];
        d_prefixoffsets[i] = sum;
        sum += x;
    }
    d_offsets[tid] = sum;
}

extern "C" __global__ void bucketsort(float *input, int *indice, float *output, int size,
                                      unsigned int *d_prefixoffsets, unsigned int *l_offsets)
{
    volatile __shared__ unsigned int s_offset[BUCKET_BLOCK_MEMORY];
    int prefixBase = blockIdx.x * BUCKET_BLOCK_MEMORY;
    const int warpBase = (threadIdx.x >> BUCKET_WARP_LOG_SIZE) * DIVISIONS;
    const int numThreads = blockDim.x * gridDim.x;

    // where this block's elements of every bucket start
    for (int i = threadIdx.x; i < BUCKET_BLOCK_MEMORY; i += blockDim.x)
        s_offset[i] = l_offsets[i & (DIVISIONS - 1)] + d_prefixoffsets[prefixBase + i];
    __syncthreads();

    for (int tid = blockIdx.x * blockDim.x + threadIdx.x; tid < size; tid += numThreads) {
        float elem = input[tid];
        int id = indice[tid];
        output[s_offset[warpBase + (id & (DIVISIONS - 1))] + (id >> LOG_DIVISIONS)] = elem;
    }
}

// ---- merge sort ----

// sorts the four values of a float4
__device__ float4 sortElem(float4 r)
{
    float4 nr;
    nr.x = (r.x > r.y) ? r.y : r.x;
    nr.y = (r.y > r.x) ? r.y : r.x;
    nr.z = (r.z > r.w) ? r.w : r.z;
    nr.w = (r.w > r.z) ? r.w : r.z;

    r.x = (nr.x > nr.z) ? nr.z : nr.x;
    r.y = (nr.y > nr.w) ? nr.w : nr.y;
    r.z = (nr.z > nr.x) ? nr.z : nr.x;
    r.w = (nr.w > nr.y) ? nr.w : nr.y;

    nr.x = r.x;
    nr.y = (r.y > r.z) ? r.z : r.y;
    nr.z = (r.z > r.y) ? r.z : r.y;
    nr.w = r.w;
    return nr;
}

// of two sorted float4s, the four lowest values (unsorted) ...
__device__ float4 getLowest(float4 a, float4 b)
{
    a.x = (a.x < b.w) ? a.x : b.w;
    a.y = (a.y < b.z) ? a.y : b.z;
    a.z = (a.z < b.y) ? a.z : b.y;
    a.w = (a.w < b.x) ? a.w : b.x;
    return a;
}

// ... and the four highest
__device__ float4 getHighest(float4 a, float4 b)
{
    b.x = (a.w >= b.x) ? a.w : b.x;
    b.y = (a.z >= b.y) ? a.z : b.y;
    b.z = (a.y >= b.z) ? a.y : b.z;
    b.w = (a.x >= b.w) ? a.x : b.w;
    return b;
}

// bucket starts in the padded list (float4 units), in the final list (floats), and padding
__constant__ int constStartAddr[DIVISIONS + 1];
__constant__ int finalStartAddr[DIVISIONS + 1];
__constant__ int nullElems[DIVISIONS];

extern "C" __global__ void mergeSortFirst(float4 *result, int listsize MERGE_INPUT_PARAM)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < listsize / 4)
        result[i] = sortElem(MERGE_INPUT(i));
}

// one thread merges two sorted runs of nrElems / 2 float4s of a bucket
extern "C" __global__ void mergeSortPass(float4 *result, int nrElems,
                                         int threadsPerDiv MERGE_INPUT_PARAM)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int division = tid / threadsPerDiv;
    if (division >= DIVISIONS)
        return;
    int int_tid = tid - division * threadsPerDiv;
    int Astart = constStartAddr[division] + int_tid * nrElems;
    int Bstart = Astart + nrElems / 2;
    float4 *resStart = &result[Astart];

    if (Astart >= constStartAddr[division + 1])
        return;
    if (Bstart >= constStartAddr[division + 1]) {
        // no second run: copy the first
        for (int i = 0; i < constStartAddr[division + 1] - Astart; i++)
            resStart[i] = MERGE_INPUT(Astart + i);
        return;
    }

    int aidx = 0;
    int bidx = 0;
    int outidx = 0;
    float4 a = MERGE_INPUT(Astart + aidx);
    float4 b = MERGE_INPUT(Bstart + bidx);
    while (true) {
        // fetched ahead of the merge, as Rodinia does
        float4 nextA = MERGE_INPUT(Astart + aidx + 1);
        float4 nextB = MERGE_INPUT(Bstart + bidx + 1);

        float4 na = getLowest(a, b);
        float4 nb = getHighest(a, b);
        a = sortElem(na);
        b = sortElem(nb);
        resStart[outidx++] = a;  // the four lowest, sorted

        bool elemsLeftInA = aidx + 1 < nrElems / 2;
        bool elemsLeftInB =
            (bidx + 1 < nrElems / 2) && (Bstart + bidx + 1 < constStartAddr[division + 1]);
        if (elemsLeftInA) {
            if (elemsLeftInB) {
                if (nextA.x < nextB.x) {
                    aidx += 1;
                    a = nextA;
                } else {
                    bidx += 1;
                    a = nextB;
                }
            } else {
                aidx += 1;
                a = nextA;
            }
        } else {
            if (elemsLeftInB) {
                bidx += 1;
                a = nextB;
            } else {
                break;
            }
        }
    }
    resStart[outidx++] = b;
}

// copies bucket blockIdx.y without its leading padding zeros
extern "C" __global__ void mergepack(float *orig, float *result)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int division = blockIdx.y;
    if (finalStartAddr[division] + idx >= finalStartAddr[division + 1])
        return;
    result[finalStartAddr[division] + idx] =
        orig[constStartAddr[division] * 4 + nullElems[division] + idx];
}
