// Parboil mri-gridding, written for warpsim after Parboil's CUDA version.
//
// Non-Cartesian MRI samples (k-space positions with complex values and a sampling-density
// weight) are interpolated onto a regular 3-D grid with a Kaiser-Bessel window of width
// kernelWidth: every grid point within the cutoff radius of a sample receives the sample's
// value weighted by the window, and the number of contributions is counted.
//
// Parboil's pipeline: binning_kernel assigns each sample to its unit-cube bin (counting with
// atomics; samples beyond `binsize` per bin go to the CPU), the (bin, index) pairs are radix
// sorted, reorder_kernel gathers the samples into bin order as a structure of arrays, the bin
// counts are scanned into start offsets, and gridding_GPU computes every output point by
// gathering from the bins around its tile. Each gridding_GPU CTA (8 x 4 x 2 threads) owns an
// 8 x 4 x 8 tile, each thread four points along z; the CTA walks the rows of bins within the
// cutoff of its tile, staging TILE = 64 samples at a time in shared memory.
//
// All of Parboil's GPU pipeline is ported: binning_kernel; the radix sort (sort.cu: per 4-bit
// digit, splitSort sorts each block of 1024 keys locally by split passes over the digit's bits
// and histograms the digit, the histograms are scanned, and splitRearrange scatters the keys
// to their global positions); reorder_kernel; the scan (scanLargeArray.cu: scan_L1_kernel,
// scan_inter1_kernel, scan_inter2_kernel, uniformAdd), used by the sort and for the bin
// offsets; and gridding_GPU. Not ported: Parboil's CPU pass for samples that overflow a bin
// (the driver's inputs never overflow one).
//
// Changed from Parboil: the sort's keys and values are plain global arrays (Parboil keeps them
// in 2-D surfaces of 1024-element rows, one row per sort block: the same indexing). Parboil
// pads its shared-memory indices with CONFLICT_FREE_OFFSET(i), defined as
// `(i) >> LOG_NUM_BANKS + (i) >> (2*LOG_NUM_BANKS)`, which by C precedence is
// i >> (4 + i) >> 8, zero for every index (shifts by 32 or more give 0 on the GPU); the port
// leaves the padding out.

#define TILE 64
#define LOG_TILE 6

typedef struct {
    float real;
    float imag;
    float kX;
    float kY;
    float kZ;
    float sdc;
} ReconstructionSample;

typedef struct {
    float2 *data;
    float4 *loc;
} sampleArrayStruct;

__constant__ float cutoff2_c;
__constant__ float cutoff_c;
__constant__ int gridSize_c[3];
__constant__ int size_xy_c;
__constant__ float _1overCutoff2_c;

// The bin (grid cell) of every sample; samples beyond `binsize` in a bin get the key
// gridNumElems (the CPU's bin).
extern "C" __global__ void binning_kernel(unsigned int n, ReconstructionSample *sample_g,
                                          unsigned int *idxKey_g, unsigned int *idxValue_g,
                                          unsigned int *binCount_g, unsigned int binsize,
                                          unsigned int gridNumElems)
{
    unsigned int key;
    unsigned int sampleIdx = blockIdx.x * blockDim.x + threadIdx.x;
    ReconstructionSample pt;
    unsigned int binIdx;
    unsigned int count;

    if (sampleIdx < n) {
        pt = sample_g[sampleIdx];

        binIdx = (unsigned int)(pt.kZ) * size_xy_c + (unsigned int)(pt.kY) * gridSize_c[0] +
                 (unsigned int)(pt.kX);
        if (binCount_g[binIdx] < binsize) {
            count = atomicAdd(binCount_g + binIdx, 1);
            if (count < binsize) {
                key = binIdx;
            } else {
                atomicSub(binCount_g + binIdx, 1);
                key = gridNumElems;
            }
        } else {
            key = gridNumElems;
        }

        idxKey_g[sampleIdx] = key;
        idxValue_g[sampleIdx] = sampleIdx;
    }
}

// The radix sort: SORT_BS threads per CTA, 4 keys each, BITS bits per pass.
#define SORT_BS 256
#define BITS 4
#define SORT_KEY_MAX 4294967295u

// Exclusive scan of the 4 * blockDim.x elements of s_data, pairs first, then a work-efficient
// scan of the pair sums; s_data[4 * blockDim.x] receives the total.
__device__ void split_scan(unsigned int *s_data)
{
    unsigned int thid = threadIdx.x;
    __syncthreads();

    s_data[2 * thid + 1] += s_data[2 * thid];
    s_data[2 * (blockDim.x + thid) + 1] += s_data[2 * (blockDim.x + thid)];

    unsigned int stride = 2;
    for (unsigned int d = blockDim.x; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            unsigned int ai = 2 * stride * thid + stride - 1;
            unsigned int bi = ai + stride;
            s_data[bi] += s_data[ai];
        }
        stride *= 2;
    }

    if (thid == 0) {
        unsigned int last = 4 * blockDim.x - 1;
        s_data[4 * blockDim.x] = s_data[last];
        s_data[last] = 0;
    }

    for (unsigned int d = 1; d <= blockDim.x; d *= 2) {
        stride >>= 1;
        __syncthreads();
        if (thid < d) {
            unsigned int ai = 2 * stride * thid + stride - 1;
            unsigned int bi = ai + stride;
            unsigned int t = s_data[ai];
            s_data[ai] = s_data[bi];
            s_data[bi] += t;
        }
    }
    __syncthreads();

    // Each pair's prefix is in its odd slot: spread it to both.
    unsigned int temp = s_data[2 * thid];
    s_data[2 * thid] = s_data[2 * thid + 1];
    s_data[2 * thid + 1] += temp;

    unsigned int temp2 = s_data[2 * (blockDim.x + thid)];
    s_data[2 * (blockDim.x + thid)] = s_data[2 * (blockDim.x + thid) + 1];
    s_data[2 * (blockDim.x + thid) + 1] += temp2;

    __syncthreads();
}

// The digit `iter` (bits 4 * iter .. 4 * iter + 3) of a key.
__device__ __forceinline__ unsigned int digit(unsigned int key, int iter)
{
    return (key & ((1u << (BITS * (iter + 1))) - 1)) >> (BITS * iter);
}

// Sorts each block of 4 * SORT_BS keys (and values) in place by digit `iter`, one stable split
// per bit (the flags of 0 and 1 bits packed in the low and high halves of one scanned word),
// and writes the block's digit histogram to histo[digit * gridDim.x + block].
extern "C" __global__ void splitSort(int numElems, int iter, unsigned int *keys,
                                     unsigned int *values, unsigned int *histo)
{
    __shared__ unsigned int flags[4 * SORT_BS + 1];
    __shared__ unsigned int histo_s[1 << BITS];

    const unsigned int tid = threadIdx.x;
    const unsigned int local_idx = 4 * threadIdx.x;
    const unsigned int gid = blockIdx.x * 4 * SORT_BS + local_idx;
    unsigned int *block_keys = keys + blockIdx.x * 4 * SORT_BS;
    unsigned int *block_values = values + blockIdx.x * 4 * SORT_BS;

    // Keys past the end sort last (the host pads the arrays to a multiple of 4).
    uint4 lkey = make_uint4(SORT_KEY_MAX, SORT_KEY_MAX, SORT_KEY_MAX, SORT_KEY_MAX);
    uint4 lvalue = make_uint4(0, 0, 0, 0);
    if (gid < numElems) {
        lkey = make_uint4(block_keys[local_idx], block_keys[local_idx + 1],
                          block_keys[local_idx + 2], block_keys[local_idx + 3]);
        lvalue = make_uint4(block_values[local_idx], block_values[local_idx + 1],
                            block_values[local_idx + 2], block_values[local_idx + 3]);
    }

    if (tid < (1 << BITS))
        histo_s[tid] = 0;
    __syncthreads();

    atomicAdd(histo_s + digit(lkey.x, iter), 1);
    atomicAdd(histo_s + digit(lkey.y, iter), 1);
    atomicAdd(histo_s + digit(lkey.z, iter), 1);
    atomicAdd(histo_s + digit(lkey.w, iter), 1);

    // Each key's position within the block, updated by every split.
    uint4 index = make_uint4(4 * tid, 4 * tid + 1, 4 * tid + 2, 4 * tid + 3);

    for (int i = BITS * iter; i < BITS * (iter + 1); i++) {
        const uint4 flag = make_uint4((lkey.x >> i) & 0x1, (lkey.y >> i) & 0x1,
                                      (lkey.z >> i) & 0x1, (lkey.w >> i) & 0x1);

        flags[index.x] = 1 << (16 * flag.x);
        flags[index.y] = 1 << (16 * flag.y);
        flags[index.z] = 1 << (16 * flag.z);
        flags[index.w] = 1 << (16 * flag.w);

        split_scan(flags);

        // Zeros go to the number of zeros before them, ones after all zeros.
        index.x = (flags[index.x] >> (16 * flag.x)) & 0xFFFF;
        index.y = (flags[index.y] >> (16 * flag.y)) & 0xFFFF;
        index.z = (flags[index.z] >> (16 * flag.z)) & 0xFFFF;
        index.w = (flags[index.w] >> (16 * flag.w)) & 0xFFFF;

        unsigned short offset = flags[4 * blockDim.x] & 0xFFFF;
        index.x += (flag.x) ? offset : 0;
        index.y += (flag.y) ? offset : 0;
        index.z += (flag.z) ? offset : 0;
        index.w += (flag.w) ? offset : 0;

        __syncthreads();
    }

    if (gid < numElems) {
        block_keys[index.x] = lkey.x;
        block_keys[index.y] = lkey.y;
        block_keys[index.z] = lkey.z;
        block_keys[index.w] = lkey.w;

        block_values[index.x] = lvalue.x;
        block_values[index.y] = lvalue.y;
        block_values[index.z] = lvalue.z;
        block_values[index.w] = lvalue.w;
    }
    if (tid < (1 << BITS))
        histo[gridDim.x * threadIdx.x + blockIdx.x] = histo_s[tid];
}

// Scatters each block's locally sorted keys (and values) to their global positions: the
// scanned histogram entry of (digit, block) plus the number of equal digits before the key in
// its block.
extern "C" __global__ void splitRearrange(int numElems, int iter, unsigned int *keys_i,
                                          unsigned int *keys_o, unsigned int *values_i,
                                          unsigned int *values_o, unsigned int *histo)
{
    __shared__ unsigned int histo_s[1 << BITS];
    __shared__ unsigned int array_s[4 * SORT_BS];
    int local_idx = 4 * threadIdx.x;
    int index = blockIdx.x * 4 * SORT_BS + local_idx;

    if (threadIdx.x < (1 << BITS))
        histo_s[threadIdx.x] = histo[gridDim.x * threadIdx.x + blockIdx.x];

    uint4 mine, value;
    if (index < numElems) {
        mine = make_uint4(keys_i[index], keys_i[index + 1], keys_i[index + 2], keys_i[index + 3]);
        value = make_uint4(values_i[index], values_i[index + 1], values_i[index + 2],
                           values_i[index + 3]);
    } else {
        mine = make_uint4(SORT_KEY_MAX, SORT_KEY_MAX, SORT_KEY_MAX, SORT_KEY_MAX);
    }
    uint4 masks = make_uint4(digit(mine.x, iter), digit(mine.y, iter), digit(mine.z, iter),
                             digit(mine.w, iter));

    ((uint4 *)array_s)[threadIdx.x] = masks;
    __syncthreads();

    uint4 new_index =
        make_uint4(histo_s[masks.x], histo_s[masks.y], histo_s[masks.z], histo_s[masks.w]);

    // Count the equal digits before this thread's first key (the block is sorted by digit).
    int i = 4 * threadIdx.x - 1;
    while (i >= 0) {
        if (array_s[i] == masks.x) {
            new_index.x++;
            i--;
        } else {
            break;
        }
    }

    new_index.y = (masks.y == masks.x) ? new_index.x + 1 : new_index.y;
    new_index.z = (masks.z == masks.y) ? new_index.y + 1 : new_index.z;
    new_index.w = (masks.w == masks.z) ? new_index.z + 1 : new_index.w;

    if (index < numElems) {
        keys_o[new_index.x] = mine.x;
        values_o[new_index.x] = value.x;
        keys_o[new_index.y] = mine.y;
        values_o[new_index.y] = value.y;
        keys_o[new_index.z] = mine.z;
        values_o[new_index.z] = value.z;
        keys_o[new_index.w] = mine.w;
        values_o[new_index.w] = value.w;
    }
}

// Gathers the samples into sorted (bin) order, as a structure of arrays.
extern "C" __global__ void reorder_kernel(int n, unsigned int *idxValue_g,
                                          ReconstructionSample *samples_g,
                                          sampleArrayStruct sortedSampleSoA_g)
{
    unsigned int index = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int old_index;
    ReconstructionSample pt;

    if (index < n) {
        old_index = idxValue_g[index];
        pt = samples_g[old_index];

        float2 data;
        data.x = pt.real;
        data.y = pt.imag;

        float4 loc;
        loc.x = pt.kX;
        loc.y = pt.kY;
        loc.z = pt.kZ;
        loc.w = pt.sdc;

        sortedSampleSoA_g.data[index] = data;
        sortedSampleSoA_g.loc[index] = loc;
    }
}

// Elements scanned per scan_L1_kernel CTA (of SCAN_BLOCK_SIZE / 2 threads).
#define SCAN_BLOCK_SIZE 1024

// Work-efficient exclusive scan (up-sweep, then down-sweep) of 2 * blockDim.x elements of
// s_data; `last` receives the total before it is cleared.
__device__ void block_scan(unsigned int *s_data, unsigned int *total)
{
    unsigned int thid = threadIdx.x;
    unsigned int stride = 1;
    for (unsigned int d = blockDim.x; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            unsigned int ai = 2 * stride * thid + stride - 1;
            unsigned int bi = ai + stride;
            s_data[bi] += s_data[ai];
        }
        stride *= 2;
    }

    if (thid == 0) {
        unsigned int last = blockDim.x * 2 - 1;
        *total = s_data[last];
        s_data[last] = 0;
    }

    for (unsigned int d = 1; d <= blockDim.x; d *= 2) {
        stride >>= 1;
        __syncthreads();
        if (thid < d) {
            unsigned int ai = 2 * stride * thid + stride - 1;
            unsigned int bi = ai + stride;
            unsigned int t = s_data[ai];
            s_data[ai] = s_data[bi];
            s_data[bi] += t;
        }
    }
    __syncthreads();
}

// Scans each block of SCAN_BLOCK_SIZE elements in place; inter[b] receives block b's total.
extern "C" __global__ void scan_L1_kernel(unsigned int n, unsigned int *data, unsigned int *inter)
{
    __shared__ unsigned int s_data[SCAN_BLOCK_SIZE];

    unsigned int thid = threadIdx.x;
    unsigned int g_ai = blockIdx.x * 2 * blockDim.x + threadIdx.x;
    unsigned int g_bi = g_ai + blockDim.x;

    s_data[thid] = (g_ai < n) ? data[g_ai] : 0;
    s_data[thid + blockDim.x] = (g_bi < n) ? data[g_bi] : 0;

    block_scan(s_data, &inter[blockIdx.x]);

    if (g_ai < n)
        data[g_ai] = s_data[thid];
    if (g_bi < n)
        data[g_bi] = s_data[thid + blockDim.x];
}

// One level of the up-sweep over the block totals, in place: the elements iter - 1,
// 3 * iter - 1, ... of data (the totals of the level below).
extern "C" __global__ void scan_inter1_kernel(unsigned int *data, unsigned int iter)
{
    extern __shared__ unsigned int s_inter[];

    unsigned int thid = threadIdx.x;
    unsigned int gthid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int g_ai = 2 * iter * gthid + iter - 1;
    unsigned int g_bi = g_ai + iter;

    s_inter[2 * thid] = data[g_ai];
    s_inter[2 * thid + 1] = data[g_bi];

    unsigned int stride = 1;
    for (unsigned int d = blockDim.x; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            unsigned int ai = 2 * stride * thid + stride - 1;
            unsigned int bi = ai + stride;
            s_inter[bi] += s_inter[ai];
        }
        stride *= 2;
    }
    __syncthreads();

    data[g_ai] = s_inter[2 * thid];
    data[g_bi] = s_inter[2 * thid + 1];
}

// One level of the down-sweep over the block totals (the host clears the root first).
extern "C" __global__ void scan_inter2_kernel(unsigned int *data, unsigned int iter)
{
    extern __shared__ unsigned int s_inter[];

    unsigned int thid = threadIdx.x;
    unsigned int gthid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int g_ai = 2 * iter * gthid + iter - 1;
    unsigned int g_bi = g_ai + iter;

    s_inter[2 * thid] = data[g_ai];
    s_inter[2 * thid + 1] = data[g_bi];

    unsigned int stride = blockDim.x * 2;
    for (unsigned int d = 1; d <= blockDim.x; d *= 2) {
        stride >>= 1;
        __syncthreads();
        if (thid < d) {
            unsigned int ai = 2 * stride * thid + stride - 1;
            unsigned int bi = ai + stride;
            unsigned int t = s_inter[ai];
            s_inter[ai] = s_inter[bi];
            s_inter[bi] += t;
        }
    }
    __syncthreads();

    data[g_ai] = s_inter[2 * thid];
    data[g_bi] = s_inter[2 * thid + 1];
}

// Adds each block's scanned offset to its elements.
extern "C" __global__ void uniformAdd(unsigned int n, unsigned int *data, unsigned int *inter)
{
    __shared__ unsigned int uni;
    if (threadIdx.x == 0)
        uni = inter[blockIdx.x];
    __syncthreads();

    unsigned int g_ai = blockIdx.x * 2 * blockDim.x + threadIdx.x;
    unsigned int g_bi = g_ai + blockDim.x;

    if (g_ai < n)
        data[g_ai] += uni;
    if (g_bi < n)
        data[g_bi] += uni;
}

// The Kaiser-Bessel window (a rational approximation of I0).
__device__ float kernel_value(float v)
{
    float rValue = 0;

    float z = v * v;

    float num = (z * (z * (z * (z * (z * (z * (z * (z * (z * (z * (z * (z * (z *
                (z * 0.210580722890567e-22f + 0.380715242345326e-19f) +
                0.479440257548300e-16f) + 0.435125971262668e-13f) +
                0.300931127112960e-10f) + 0.160224679395361e-7f) +
                0.654858370096785e-5f) + 0.202591084143397e-2f) +
                0.463076284721000e0f) + 0.754337328948189e2f) +
                0.830792541809429e4f) + 0.571661130563785e6f) +
                0.216415572361227e8f) + 0.356644482244025e9f) +
                0.144048298227235e10f);

    float den = (z * (z * (z - 0.307646912682801e4f) + 0.347626332405882e7f) -
                 0.144048298227235e10f);

    rValue = __fdividef(-num, den);

    return rValue;
}

// Every output point from the samples in the bins within the cutoff of its CTA's tile.
extern "C" __global__ void gridding_GPU(sampleArrayStruct sortedSampleSoA_g,
                                        unsigned int *binStartAddr_g, float2 *gridData_g,
                                        float *sampleDensity_g, float beta)
{
    __shared__ float real_s[TILE];
    __shared__ float imag_s[TILE];
    __shared__ float kx_s[TILE];
    __shared__ float ky_s[TILE];
    __shared__ float kz_s[TILE];
    __shared__ float sdc_s[TILE];

    const int flatIdx = threadIdx.z * blockDim.y * blockDim.x + threadIdx.y * blockDim.x +
                        threadIdx.x;

    // The tile's origin.
    const int z0 = (4 * blockDim.z) * (blockIdx.y / (gridSize_c[1] / blockDim.y));
    const int y0 = blockDim.y * (blockIdx.y % (gridSize_c[1] / blockDim.y));
    const int x0 = blockIdx.x * blockDim.x;

    const int X = x0 + threadIdx.x;
    const int Y = y0 + threadIdx.y;
    const int Z = z0 + threadIdx.z;
    const int Z1 = Z + blockDim.z;
    const int Z2 = Z1 + blockDim.z;
    const int Z3 = Z2 + blockDim.z;

    // The bins within the cutoff of the tile, clamped to the grid.
    const int xl = x0 - ceil(cutoff_c);
    const int xL = (xl < 0) ? 0 : xl;
    const int xh = x0 + blockDim.x + cutoff_c;
    const int xH = (xh >= gridSize_c[0]) ? gridSize_c[0] - 1 : xh;

    const int yl = y0 - ceil(cutoff_c);
    const int yL = (yl < 0) ? 0 : yl;
    const int yh = y0 + blockDim.y + cutoff_c;
    const int yH = (yh >= gridSize_c[1]) ? gridSize_c[1] - 1 : yh;

    const int zl = z0 - ceil(cutoff_c);
    const int zL = (zl < 0) ? 0 : zl;
    const int zh = z0 + (4 * blockDim.z) + cutoff_c;
    const int zH = (zh >= gridSize_c[2]) ? gridSize_c[2] - 1 : zh;

    const int idx = Z * size_xy_c + Y * gridSize_c[0] + X;
    const int idx1 = idx + blockDim.z * size_xy_c;
    const int idx2 = idx1 + blockDim.z * size_xy_c;
    const int idx3 = idx2 + blockDim.z * size_xy_c;

    float2 pt;
    pt.x = 0.0;
    pt.y = 0.0;
    float density = 0.0;

    float2 pt1;
    pt1.x = 0.0;
    pt1.y = 0.0;
    float density1 = 0.0;

    float2 pt2;
    pt2.x = 0.0;
    pt2.y = 0.0;
    float density2 = 0.0;

    float2 pt3;
    pt3.x = 0.0;
    pt3.y = 0.0;
    float density3 = 0.0;

    for (int z = zL; z <= zH; z++) {
        for (int y = yL; y <= yH; y++) {
            // The samples of bins xL..xH of this row are contiguous.
            const unsigned int *addr = binStartAddr_g + z * size_xy_c + y * gridSize_c[0];
            const unsigned int start = *(addr + xL);
            const unsigned int end = *(addr + xH + 1);
            const unsigned int delta = end - start;
            for (int x = 0; x < ((delta + TILE - 1) >> LOG_TILE); x++) {
                int tileSize = ((delta - (x << LOG_TILE)) > TILE) ? TILE : (delta - (x << LOG_TILE));
                int globalIdx = flatIdx + (x << LOG_TILE);
                __syncthreads();
                if (flatIdx < tileSize) {
                    const float2 data = sortedSampleSoA_g.data[start + globalIdx];
                    const float4 loc = sortedSampleSoA_g.loc[start + globalIdx];

                    real_s[flatIdx] = data.x;
                    imag_s[flatIdx] = data.y;
                    kx_s[flatIdx] = loc.x;
                    ky_s[flatIdx] = loc.y;
                    kz_s[flatIdx] = loc.z;
                    sdc_s[flatIdx] = loc.w;
                }
                __syncthreads();

                for (int j = 0; j < tileSize; j++) {
                    const float real = real_s[j];
                    const float imag = imag_s[j];
                    const float sdc = sdc_s[j];

                    if ((real != 0.0 || imag != 0.0) && sdc != 0.0) {
                        float v0 = (kx_s[j] - X) * (kx_s[j] - X);
                        v0 += (ky_s[j] - Y) * (ky_s[j] - Y);

                        const float v = v0 + (kz_s[j] - Z) * (kz_s[j] - Z);
                        if (v < cutoff2_c) {
                            const float w =
                                kernel_value(beta * sqrtf(1.0 - (v * _1overCutoff2_c))) * sdc;
                            pt.x += w * real;
                            pt.y += w * imag;
                            density += 1.0;
                        }

                        const float v1 = v0 + (kz_s[j] - Z1) * (kz_s[j] - Z1);
                        if (v1 < cutoff2_c) {
                            const float w =
                                kernel_value(beta * sqrtf(1.0 - (v1 * _1overCutoff2_c))) * sdc;
                            pt1.x += w * real;
                            pt1.y += w * imag;
                            density1 += 1.0;
                        }

                        const float v2 = v0 + (kz_s[j] - Z2) * (kz_s[j] - Z2);
                        if (v2 < cutoff2_c) {
                            const float w =
                                kernel_value(beta * sqrtf(1.0 - (v2 * _1overCutoff2_c))) * sdc;
                            pt2.x += w * real;
                            pt2.y += w * imag;
                            density2 += 1.0;
                        }

                        const float v3 = v0 + (kz_s[j] - Z3) * (kz_s[j] - Z3);
                        if (v3 < cutoff2_c) {
                            const float w =
                                kernel_value(beta * sqrtf(1.0 - (v3 * _1overCutoff2_c))) * sdc;
                            pt3.x += w * real;
                            pt3.y += w * imag;
                            density3 += 1.0;
                        }
                    }
                }
            }
        }
    }

    gridData_g[idx] = pt;
    sampleDensity_g[idx] = density;

    gridData_g[idx1] = pt1;
    sampleDensity_g[idx1] = density1;

    gridData_g[idx2] = pt2;
    sampleDensity_g[idx2] = density2;

    gridData_g[idx3] = pt3;
    sampleDensity_g[idx3] = density3;
}
