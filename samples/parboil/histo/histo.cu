// Parboil histo (the `cuda` version), written for warpsim.
//
// A saturating histogram: every input word is a bin index, and the output is one byte per bin,
// min(count, 255). Parboil's four-kernel pipeline, one pass per iteration:
//
// 1. histo_prescan_kernel: 64 CTAs of 512 threads sample 1/8 of the input, estimate its mean
//    and standard deviation, and atomically narrow [min, max] to the 8K-bin blocks within
//    mean -/+ 10 sigma: the "middle" of the histogram, where most inputs fall.
// 2. histo_intermediates_kernel: converts each bin index into a uchar4 mapping (8K-bin block,
//    and the word, row and byte of that bin in a block's shared-memory sub-histogram), 16
//    image rows per CTA, each thread handling two adjacent pixels (a uint2) per row.
// 3. histo_main_kernel: a BLOCK_X x (max - min + 1) grid; CTA (x, y) scans every
//    BLOCK_X-th chunk of the mappings and counts the inputs of middle block min + y in a
//    shared-memory sub-histogram of 8-bit counters packed four to a word (atomicAdd of
//    1 << byte, so a counter passing 255 carries into its neighbour; overflows are recorded in
//    global_overflow), then adds its counters to global_subhisto. The CTAs of row 0 also count
//    the inputs outside the middle in global_histo, 16-bit counters packed two to a word that
//    stop being incremented at 255.
// 4. histo_final_kernel: writes min(count, 255) of each bin to the byte histogram (from
//    global_histo outside the middle, from global_subhisto inside it) and clears global_histo
//    and global_overflow for the next iteration.
//
// Changed from Parboil: the prescan's last reduction steps (strides 16 .. 2) rely on implicit
// warp synchrony on a non-volatile shared array, which is not guaranteed (and not what
// independent thread scheduling does); here every step is separated by __syncthreads(), which
// adds the same values in the same order.

#define KB 8
#define BINS_PER_BLOCK (KB * 1024)
#define BLOCK_X 14
#define THREADS 512
#define PRESCAN_THREADS 512
#define UNROLL 16

extern "C" __global__ void histo_prescan_kernel(const unsigned int *input, int size,
                                                unsigned int *minmax)
{
    __shared__ float Avg[PRESCAN_THREADS];
    __shared__ float StdDev[PRESCAN_THREADS];

    // This CTA samples the first eighth of its share of the input.
    int share = size / gridDim.x;
    int begin = blockIdx.x * share + threadIdx.x;
    int end = blockIdx.x * share + share / 8;

    float avg = 0.0f;
    unsigned int count = 0;
    for (int a = begin; a < end; a += blockDim.x) {
        avg += input[a];
        count++;
    }
    avg /= count;
    Avg[threadIdx.x] = avg;

    float var = 0.0f;
    for (int a = begin; a < end; a += blockDim.x)
        var += (input[a] - avg) * (input[a] - avg);
    var /= count;
    StdDev[threadIdx.x] = sqrtf(var);

    // Tree sum of the per-thread estimates down to two entries.
    for (int stride = PRESCAN_THREADS / 2; stride >= 2; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride) {
            Avg[threadIdx.x] += Avg[threadIdx.x + stride];
            StdDev[threadIdx.x] += StdDev[threadIdx.x + stride];
        }
    }
    __syncthreads();

    if (threadIdx.x == 0) {
        float mean = (Avg[0] + Avg[1]) / PRESCAN_THREADS;
        float sigma = (StdDev[0] + StdDev[1]) / PRESCAN_THREADS;
        // Ten sigma either side of the mean (Parboil's empirical choice), in 8K-bin blocks.
        atomicMin(minmax, ((unsigned int)(mean - 10 * sigma)) / BINS_PER_BLOCK);
        atomicMax(minmax + 1, ((unsigned int)(mean + 10 * sigma)) / BINS_PER_BLOCK);
    }
}

// The shared-memory position of a bin: (8K-bin block, row of 256 words, word, bit offset).
__device__ uchar4 bin_mapping(unsigned int bin)
{
    uchar4 sm;
    sm.x = bin / BINS_PER_BLOCK;
    sm.y = (bin >> 10) % KB;
    sm.z = (bin >> 2) % 256;
    sm.w = (bin % 4) * 8;
    return sm;
}

extern "C" __global__ void histo_intermediates_kernel(const uint2 *input, unsigned int height,
                                                      unsigned int width,
                                                      unsigned int input_pitch,
                                                      uchar4 *sm_mappings)
{
    (void)height;
    unsigned int line = UNROLL * blockIdx.x;
    const uint2 *load = input + line * input_pitch + threadIdx.x;
    unsigned int store = line * width + threadIdx.x;
    // With an odd width the last thread's second pixel is padding.
    bool skip = (width % 2) && (threadIdx.x == blockDim.x - 1);

#pragma unroll
    for (int r = 0; r < UNROLL; r++) {
        uint2 pair = *load;
        sm_mappings[store] = bin_mapping(pair.x);
        if (!skip)
            sm_mappings[store + blockDim.x] = bin_mapping(pair.y);
        load += input_pitch;
        store += width;
    }
}

// Counts a middle input of this CTA's block in the packed 8-bit sub-histogram, recording an
// overflow (and how it carried into the neighbouring counters) in global_overflow.
__device__ void count_local(unsigned int *global_overflow, unsigned int sub[KB][256],
                            unsigned int my_range, uchar4 sm)
{
    unsigned int range = sm.x, hi = sm.y, lo = sm.z, offset = sm.w;
    if (range != my_range)
        return;
    unsigned int prev = atomicAdd(&sub[hi][lo], 1u << offset);
    unsigned int prev0 = (prev >> offset) & 0xFF;
    if (prev0 == 0xFF) {
        unsigned int bin = range * BINS_PER_BLOCK + offset / 8 + (lo << 2) + (hi << 10);
        unsigned int prev1 = (prev >> (offset + 8)) & 0xFF;
        unsigned int prev2 = (prev >> (offset + 16)) & 0xFF;
        // The carry reaches counter +1 (if there is one), and +2, +3 while the counters
        // before them were also full.
        bool into1 = offset < 24;
        bool into2 = offset < 16 && prev1 == 0xFF;
        bool into3 = offset < 8 && prev2 == 0xFF;
        atomicAdd(&global_overflow[bin], 256);
        if (into1)
            atomicAdd(&global_overflow[bin + 1], prev1 < 0xFF ? 0xFFFFFFFFu : 0xFFu);
        if (into2)
            atomicAdd(&global_overflow[bin + 2], prev2 < 0xFF ? 0xFFFFFFFFu : 0xFFu);
        if (into3) {
            unsigned int prev3 = (prev >> (offset + 24)) & 0xFF;
            atomicAdd(&global_overflow[bin + 3], prev3 < 0xFF ? 0xFFFFFFFFu : 0xFFu);
        }
    }
}

// Counts an input outside the middle in global_histo's 16-bit counters, up to 255.
__device__ void count_global(unsigned int *global_histo, unsigned int range_min,
                             unsigned int range_max, uchar4 sm)
{
    unsigned int range = sm.x, hi = sm.y, lo = sm.z, offset = sm.w;
    if (range >= range_min && range <= range_max)
        return;
    unsigned int bin = range * BINS_PER_BLOCK + offset / 8 + (lo << 2) + (hi << 10);
    unsigned int half = (bin % 2 == 1) ? 16 : 0;
    unsigned int old = global_histo[bin / 2];
    if (((old >> half) & 0xFFFF) < 255)
        atomicAdd(&global_histo[bin / 2], 1u << half);
}

extern "C" __global__ void histo_main_kernel(const uchar4 *sm_mappings,
                                             unsigned int num_elements,
                                             unsigned int range_min, unsigned int range_max,
                                             unsigned int histo_height,
                                             unsigned int histo_width,
                                             unsigned int *global_subhisto,
                                             unsigned int *global_histo,
                                             unsigned int *global_overflow)
{
    (void)histo_height;
    (void)histo_width;
    __shared__ unsigned int sub[KB][256];

    unsigned int my_range = range_min + blockIdx.y;
    unsigned int *flat = (unsigned int *)sub;
    for (int w = threadIdx.x; w < BINS_PER_BLOCK / 4; w += blockDim.x)
        flat[w] = 0;
    __syncthreads();

    unsigned int stride = blockDim.x * gridDim.x;
    if (blockIdx.y == 0) {
        for (unsigned int e = blockIdx.x * blockDim.x + threadIdx.x; e < num_elements;
             e += stride) {
            uchar4 sm = sm_mappings[e];
            count_local(global_overflow, sub, my_range, sm);
            count_global(global_histo, range_min, range_max, sm);
        }
    } else {
        for (unsigned int e = blockIdx.x * blockDim.x + threadIdx.x; e < num_elements;
             e += stride)
            count_local(global_overflow, sub, my_range, sm_mappings[e]);
    }
    __syncthreads();

    // Add the four byte counters of each word to this block's bins.
    unsigned int *dst = global_subhisto + my_range * BINS_PER_BLOCK;
    for (int w = threadIdx.x; w < BINS_PER_BLOCK / 4; w += blockDim.x) {
        unsigned int word = flat[w];
        atomicAdd(dst + w * 4, word & 0xFF);
        atomicAdd(dst + w * 4 + 1, (word >> 8) & 0xFF);
        atomicAdd(dst + w * 4 + 2, (word >> 16) & 0xFF);
        atomicAdd(dst + w * 4 + 3, (word >> 24) & 0xFF);
    }
}

extern "C" __global__ void histo_final_kernel(unsigned int range_min, unsigned int range_max,
                                              unsigned int histo_height,
                                              unsigned int histo_width,
                                              const unsigned int *global_subhisto,
                                              unsigned int *global_histo,
                                              unsigned int *global_overflow,
                                              unsigned int *final_histo)
{
    unsigned int first = threadIdx.x + blockIdx.x * blockDim.x;
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int low_end = range_min * BINS_PER_BLOCK / 4;                // in groups of 4 bins
    unsigned int mid_end = (range_max + 1) * BINS_PER_BLOCK / 4;
    unsigned int all_end = histo_height * histo_width / 4;
    const ushort4 zero_short = {0, 0, 0, 0};
    const uint4 zero_int = {0, 0, 0, 0};

    // Below the middle: saturate global_histo's 16-bit counters, and clear them.
    for (unsigned int i = first; i < low_end; i += stride) {
        ushort4 h = ((ushort4 *)global_histo)[i];
        ((ushort4 *)global_histo)[i] = zero_short;
        uchar4 out = {(unsigned char)min(h.x, 255), (unsigned char)min(h.y, 255),
                      (unsigned char)min(h.z, 255), (unsigned char)min(h.w, 255)};
        ((uchar4 *)final_histo)[i] = out;
    }

    // The middle: saturate the sub-histogram sums, and clear the overflow records (which,
    // as in Parboil, do not enter the result).
    for (unsigned int i = low_end + first; i < mid_end; i += stride) {
        ((uint4 *)global_overflow)[i] = zero_int;
        uchar4 out = {(unsigned char)min(global_subhisto[i * 4], 255u),
                      (unsigned char)min(global_subhisto[i * 4 + 1], 255u),
                      (unsigned char)min(global_subhisto[i * 4 + 2], 255u),
                      (unsigned char)min(global_subhisto[i * 4 + 3], 255u)};
        ((uchar4 *)final_histo)[i] = out;
    }

    // Above the middle: as below it.
    for (unsigned int i = mid_end + first; i < all_end; i += stride) {
        ushort4 h = ((ushort4 *)global_histo)[i];
        ((ushort4 *)global_histo)[i] = zero_short;
        uchar4 out = {(unsigned char)min(h.x, 255), (unsigned char)min(h.y, 255),
                      (unsigned char)min(h.z, 255), (unsigned char)min(h.w, 255)};
        ((uchar4 *)final_histo)[i] = out;
    }
}
