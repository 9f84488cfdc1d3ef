// Parboil tpacf (two-point angular correlation function), written for warpsim after
// Parboil's CUDA version.
//
// Points on the celestial sphere are unit vectors; the angular distance between two points is
// binned by their dot product (its cosine) into NUM_BINS logarithmic bins whose boundaries
// dev_binb[] (decreasing cosines) are in constant memory. One launch of gen_hists with
// 2 * NUM_SETS + 1 CTAs of 256 threads, all sets stored one after another in x, y and z
// arrays (set 0 the observed data, sets 1..NUM_SETS random catalogues):
//   - CTA 0 histograms the data set against itself (DD, pairs i < j),
//   - CTAs 1..NUM_SETS each random set against itself (RR),
//   - CTAs NUM_SETS+1..2*NUM_SETS the data set against one random set (DR, all pairs).
// A CTA stages 256 "data" points at a time in shared memory; each thread holds one "random"
// point and walks the staged points, finding the bin by binary search over dev_binb and
// incrementing one of 128 per-CTA sub-histograms (two threads share one) with a shared-memory
// atomicAdd. The sub-histograms are then summed by a tree in shared memory and written out.
//
// Changed from Parboil: hist_t is spelled `unsigned long long` (Parboil's `unsigned long`, 64
// bits on its Linux hosts).

#define WARP_SIZE 32
#define BLOCK_SIZE 256
#define NUM_WARPS (BLOCK_SIZE / WARP_SIZE)
#define HISTS_PER_WARP 16
#define NUM_HISTOGRAMS (NUM_WARPS * HISTS_PER_WARP)
#define NUM_BINS 20

typedef unsigned long long hist_t;

struct cartesian {
    float x, y, z;
};

// Bin boundaries: cosines of the angular bin edges, decreasing.
__constant__ float dev_binb[NUM_BINS + 1];

extern "C" __global__ void gen_hists(hist_t *histograms, float *all_x_data, float *all_y_data,
                                     float *all_z_data, int NUM_SETS, int NUM_ELEMENTS)
{
    unsigned int bx = blockIdx.x;
    unsigned int tid = threadIdx.x;
    bool do_self = (bx < (NUM_SETS + 1));

    float *data_x, *data_y, *data_z;
    float *random_x, *random_y, *random_z;

    __shared__ struct cartesian data_s[BLOCK_SIZE];
    __shared__ unsigned int warp_hists[NUM_BINS][NUM_HISTOGRAMS];

    for (unsigned int w = 0; w < NUM_BINS * NUM_HISTOGRAMS; w += BLOCK_SIZE) {
        if (w + tid < NUM_BINS * NUM_HISTOGRAMS)
            warp_hists[(w + tid) / NUM_HISTOGRAMS][(w + tid) % NUM_HISTOGRAMS] = 0;
    }

    if (!do_self) {
        data_x = all_x_data;
        data_y = all_y_data;
        data_z = all_z_data;
        random_x = all_x_data + NUM_ELEMENTS * (bx - NUM_SETS);
        random_y = all_y_data + NUM_ELEMENTS * (bx - NUM_SETS);
        random_z = all_z_data + NUM_ELEMENTS * (bx - NUM_SETS);
    } else {
        random_x = all_x_data + NUM_ELEMENTS * bx;
        random_y = all_y_data + NUM_ELEMENTS * bx;
        random_z = all_z_data + NUM_ELEMENTS * bx;
        data_x = random_x;
        data_y = random_y;
        data_z = random_z;
    }

    // Tiles of BLOCK_SIZE data points.
    for (unsigned int i = 0; i < NUM_ELEMENTS; i += BLOCK_SIZE) {
        if (tid + i < NUM_ELEMENTS) {
            data_s[tid].x = data_x[tid + i];
            data_s[tid].y = data_y[tid + i];
            data_s[tid].z = data_z[tid + i];
        }
        __syncthreads();

        // Tiles of random points, one per thread (self pairs start after the data tile's
        // first point).
        for (unsigned int j = (do_self ? i + 1 : 0); j < NUM_ELEMENTS; j += BLOCK_SIZE) {
            float random_x_s = 0.f, random_y_s = 0.f, random_z_s = 0.f;
            if (tid + j < NUM_ELEMENTS) {
                random_x_s = random_x[tid + j];
                random_y_s = random_y[tid + j];
                random_z_s = random_z[tid + j];
            }

            for (unsigned int k = 0; (k < BLOCK_SIZE) && (k + i < NUM_ELEMENTS); k += 1) {
                float distance = data_s[k].x * random_x_s +
                                 data_s[k].y * random_y_s +
                                 data_s[k].z * random_z_s;

                // Binary search for the bin: dev_binb[min] > distance >= dev_binb[max].
                unsigned int min = 0;
                unsigned int max = NUM_BINS;
                while (max > min + 1) {
                    unsigned int k2 = (min + max) / 2;
                    if (distance >= dev_binb[k2])
                        max = k2;
                    else
                        min = k2;
                }
                unsigned int bin_index = max - 1;

                unsigned int warpnum = tid / (WARP_SIZE / HISTS_PER_WARP);
                if ((distance < dev_binb[min]) && (distance >= dev_binb[max]) &&
                    (!do_self || (tid + j > i + k)) && (tid + j < NUM_ELEMENTS)) {
                    atomicAdd(&warp_hists[bin_index][warpnum], 1U);
                }
            }
        }
        // Parboil has no barrier here: the next tile's store to data_s could overtake a
        // slower warp still reading this tile. One is needed for a deterministic result.
        __syncthreads();
    }

    // Sum the NUM_HISTOGRAMS sub-histograms of each bin by a tree.
    unsigned int warp_index = tid & ((NUM_HISTOGRAMS >> 1) - 1);
    unsigned int bin_index = tid / (NUM_HISTOGRAMS >> 1);
    for (unsigned int offset = NUM_HISTOGRAMS >> 1; offset > 0; offset >>= 1) {
        for (unsigned int bin_base = 0; bin_base < NUM_BINS;
             bin_base += BLOCK_SIZE / (NUM_HISTOGRAMS >> 1)) {
            __syncthreads();
            if (warp_index < offset && bin_base + bin_index < NUM_BINS) {
                unsigned long long sum = warp_hists[bin_base + bin_index][warp_index] +
                                         warp_hists[bin_base + bin_index][warp_index + offset];
                warp_hists[bin_base + bin_index][warp_index] = sum;
            }
        }
    }
    __syncthreads();

    hist_t *hist_base = histograms + NUM_BINS * bx;
    if (tid < NUM_BINS)
        hist_base[tid] = warp_hists[tid][0];
}
