// Rodinia 3.1 huffman (PAVLE, the parallel variable-length encoder), written for warpsim.
//
// The host builds a Huffman codebook from the input's byte histogram; then
//   vlc_encode_kernel_sm64huff  (256 threads per block, one 32-bit input word = 4 byte
//       symbols per thread, codebook cached in shared memory) encodes each block's words into
//       a block-local bitstream in `out` and writes the block's length in bits to `outidx`;
//   the prescan kernels (work-efficient Blelloch scan of 2 elements per thread with padded
//       shared memory against bank conflicts, recursive over block sums with uniformAdd) turn
//       the per-block bit lengths into bit offsets;
//   pack2 (16 threads per block, one thread per encoded block) concatenates the block-local
//       bitstreams at those offsets.
// Rodinia's build defines TESTING, CACHECWLUT and SMATOMICS: the encoder takes the three
// (unused) cw32 arrays and caches the codebook (2 x 256 words) before the 256-word scan buffer
// in dynamic shared memory. Its templated prescan<storeSum, isNP2> is instantiated here as four
// extern "C" kernels.

#define NUM_SYMBOLS 256
#define NUM_BANKS 16
#define LOG_NUM_BANKS 4
#define CONFLICT_FREE_OFFSET(index) ((index) >> LOG_NUM_BANKS)

extern "C" __global__ void vlc_encode_kernel_sm64huff(unsigned int *data,
                                                      const unsigned int *gm_codewords,
                                                      const unsigned int *gm_codewordlens,
                                                      unsigned int *cw32, unsigned int *cw32len,
                                                      unsigned int *cw32idx, unsigned int *out,
                                                      unsigned int *outidx)
{
    unsigned int k = threadIdx.x;
    unsigned int kn = blockIdx.x * blockDim.x + k;

    extern __shared__ unsigned int sm[];
    __shared__ unsigned int kcmax;
    unsigned int *codewords = sm;
    unsigned int *codewordlens = sm + NUM_SYMBOLS;
    unsigned int *as = sm + 2 * NUM_SYMBOLS;

    // the codebook (one entry per thread: 256 threads) and this thread's word
    codewords[k] = gm_codewords[k];
    codewordlens[k] = gm_codewordlens[k];
    unsigned int val32 = data[kn];
    __syncthreads();

    // concatenate the codewords of the word's 4 bytes, most significant byte first
    unsigned long long cw64 = 0;
    unsigned int codewordlen = 0;
    for (unsigned int i = 0; i < 4; i++) {
        unsigned char sym = (unsigned char)(val32 >> ((3 - i) * 8));
        unsigned int cw = codewords[sym];
        unsigned char len = codewordlens[sym];
        cw64 = (cw64 << len) | cw;
        codewordlen += len;
    }
    as[k] = codewordlen;
    __syncthreads();

    // exclusive prefix sum of the bit lengths, in place (up-sweep, then down-sweep)
    unsigned int offset = 1;
    for (unsigned int d = blockDim.x >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (k < d) {
            unsigned char ai = offset * (2 * k + 1) - 1;
            unsigned char bi = offset * (2 * k + 2) - 1;
            as[bi] += as[ai];
        }
        offset *= 2;
    }
    if (k == 0)
        as[blockDim.x - 1] = 0;
    for (unsigned int d = 1; d < blockDim.x; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (k < d) {
            unsigned char ai = offset * (2 * k + 1) - 1;
            unsigned char bi = offset * (2 * k + 2) - 1;
            unsigned int t = as[ai];
            as[ai] = as[bi];
            as[bi] += t;
        }
    }
    __syncthreads();

    if (k == blockDim.x - 1) {
        // the block's total length in bits, and its last output word
        outidx[blockIdx.x] = as[k] + codewordlen;
        kcmax = (as[k] + codewordlen) / 32;
    }

    // this thread's first output word and bit; the scan buffer becomes the output buffer
    unsigned int kc = as[k] / 32;
    unsigned int startbit = as[k] % 32;
    as[k] = 0U;
    __syncthreads();

    // up to 64 bits spread over at most three words, OR-ed in with shared-memory atomics
    unsigned int wrbits = codewordlen > (32 - startbit) ? (32 - startbit) : codewordlen;
    unsigned int piece = (unsigned int)(cw64 >> (codewordlen - wrbits));
    atomicOr(&as[kc], piece << (32 - startbit - wrbits));
    codewordlen -= wrbits;

    if (codewordlen) {
        wrbits = codewordlen > 32 ? 32 : codewordlen;
        piece = (unsigned int)(cw64 >> (codewordlen - wrbits)) & ((1 << wrbits) - 1);
        atomicOr(&as[kc + 1], piece << (32 - wrbits));
        codewordlen -= wrbits;
    }

    if (codewordlen) {
        piece = (unsigned int)(cw64 & ((1 << codewordlen) - 1));
        atomicOr(&as[kc + 2], piece << (32 - codewordlen));
    }
    __syncthreads();

    if (k <= kcmax)
        out[kn] = as[k];
}

// ---- prescan (scanLargeArray) ----

template <bool isNP2>
__device__ static void load_shared_chunk(unsigned int *s_data, const unsigned int *g_idata,
                                         int n, int baseIndex, int &ai, int &bi, int &mem_ai,
                                         int &mem_bi, int &bankOffsetA, int &bankOffsetB)
{
    int thid = threadIdx.x;
    mem_ai = baseIndex + thid;
    mem_bi = mem_ai + blockDim.x;
    ai = thid;
    bi = thid + blockDim.x;
    bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    s_data[ai + bankOffsetA] = g_idata[mem_ai];
    if (isNP2)
        s_data[bi + bankOffsetB] = (bi < n) ? g_idata[mem_bi] : 0;  // zero padding
    else
        s_data[bi + bankOffsetB] = g_idata[mem_bi];
}

template <bool isNP2>
__device__ static void store_shared_chunk(unsigned int *g_odata, const unsigned int *s_data,
                                          int n, int ai, int bi, int mem_ai, int mem_bi,
                                          int bankOffsetA, int bankOffsetB)
{
    __syncthreads();
    g_odata[mem_ai] = s_data[ai + bankOffsetA];
    if (isNP2) {
        if (bi < n)
            g_odata[mem_bi] = s_data[bi + bankOffsetB];
    } else {
        g_odata[mem_bi] = s_data[bi + bankOffsetB];
    }
}

template <bool storeSum>
__device__ static void clear_last_element(unsigned int *s_data, unsigned int *g_blockSums,
                                          int blockIndex)
{
    if (threadIdx.x == 0) {
        int index = (blockDim.x << 1) - 1;
        index += CONFLICT_FREE_OFFSET(index);
        if (storeSum)
            g_blockSums[blockIndex] = s_data[index];  // the block's total
        s_data[index] = 0;
    }
}

__device__ static unsigned int build_sum(unsigned int *s_data)
{
    unsigned int thid = threadIdx.x;
    unsigned int stride = 1;
    for (int d = blockDim.x; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int i = __mul24(__mul24(2, stride), thid);
            int ai = i + stride - 1;
            int bi = ai + stride;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            s_data[bi] += s_data[ai];
        }
        stride *= 2;
    }
    return stride;
}

__device__ static void scan_root_to_leaves(unsigned int *s_data, unsigned int stride)
{
    unsigned int thid = threadIdx.x;
    for (int d = 1; d <= blockDim.x; d *= 2) {
        stride >>= 1;
        __syncthreads();
        if (thid < d) {
            int i = __mul24(__mul24(2, stride), thid);
            int ai = i + stride - 1;
            int bi = ai + stride;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            unsigned int t = s_data[ai];
            s_data[ai] = s_data[bi];
            s_data[bi] += t;
        }
    }
}

template <bool storeSum, bool isNP2>
__device__ static void prescan(unsigned int *g_odata, const unsigned int *g_idata,
                               unsigned int *g_blockSums, int n, int blockIndex, int baseIndex)
{
    int ai, bi, mem_ai, mem_bi, bankOffsetA, bankOffsetB;
    extern __shared__ unsigned int s_data[];
    load_shared_chunk<isNP2>(s_data, g_idata, n,
                             (baseIndex == 0) ? __mul24(blockIdx.x, (blockDim.x << 1))
                                              : baseIndex,
                             ai, bi, mem_ai, mem_bi, bankOffsetA, bankOffsetB);
    unsigned int stride = build_sum(s_data);
    clear_last_element<storeSum>(s_data, g_blockSums, (blockIndex == 0) ? blockIdx.x : blockIndex);
    scan_root_to_leaves(s_data, stride);
    store_shared_chunk<isNP2>(g_odata, s_data, n, ai, bi, mem_ai, mem_bi, bankOffsetA,
                              bankOffsetB);
}

// prescan<storeSum, isNP2>
extern "C" __global__ void prescan_false_false(unsigned int *g_odata,
                                               const unsigned int *g_idata,
                                               unsigned int *g_blockSums, int n, int blockIndex,
                                               int baseIndex)
{
    prescan<false, false>(g_odata, g_idata, g_blockSums, n, blockIndex, baseIndex);
}

extern "C" __global__ void prescan_false_true(unsigned int *g_odata, const unsigned int *g_idata,
                                              unsigned int *g_blockSums, int n, int blockIndex,
                                              int baseIndex)
{
    prescan<false, true>(g_odata, g_idata, g_blockSums, n, blockIndex, baseIndex);
}

extern "C" __global__ void prescan_true_false(unsigned int *g_odata, const unsigned int *g_idata,
                                              unsigned int *g_blockSums, int n, int blockIndex,
                                              int baseIndex)
{
    prescan<true, false>(g_odata, g_idata, g_blockSums, n, blockIndex, baseIndex);
}

extern "C" __global__ void prescan_true_true(unsigned int *g_odata, const unsigned int *g_idata,
                                             unsigned int *g_blockSums, int n, int blockIndex,
                                             int baseIndex)
{
    prescan<true, true>(g_odata, g_idata, g_blockSums, n, blockIndex, baseIndex);
}

// adds the scanned block sums to every element of the blocks (two per thread)
extern "C" __global__ void uniformAdd(unsigned int *g_data, unsigned int *uniforms, int n,
                                      int blockOffset, int baseIndex)
{
    __shared__ unsigned int uni;
    if (threadIdx.x == 0)
        uni = uniforms[blockIdx.x + blockOffset];
    unsigned int address = __mul24(blockIdx.x, (blockDim.x << 1)) + baseIndex + threadIdx.x;
    __syncthreads();
    g_data[address] += uni;
    g_data[address + blockDim.x] += (threadIdx.x + blockDim.x < n) * uni;
}

// ---- pack2: one thread per encoded block ----

extern "C" __global__ void pack2(unsigned int *srcData, unsigned int *cindex,
                                 unsigned int *cindex2, unsigned int *dstData,
                                 unsigned int original_num_block_elements)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int offset = tid * original_num_block_elements;  // the block's bitstream
    unsigned int bitsize = cindex[tid];
    unsigned int pos = cindex2[tid];  // where it goes, in bits
    unsigned int dword = pos / 32;
    unsigned int bit = pos % 32;

    // the first word shares its destination with the previous block: atomic
    unsigned int dw = srcData[offset];
    atomicOr(&dstData[dword], dw >> bit);
    unsigned int carry = dw << (32 - bit);
    unsigned int i;
    // whole words in between belong to this block alone
    for (i = 1; i < bitsize / 32; i++) {
        dw = srcData[offset + i];
        dstData[dword + i] = carry | (dw >> bit);
        carry = dw << (32 - bit);
    }
    // the tail shares its destination with the next block: atomic again
    if (bit != 0 || bitsize % 32 != 0)
        atomicOr(&dstData[dword + i], carry);
    if (bitsize % 32 != 0) {
        dw = srcData[offset + i];
        atomicOr(&dstData[dword + i], dw >> bit);
        atomicOr(&dstData[dword + i + 1], dw << (32 - bit));
    }
}
