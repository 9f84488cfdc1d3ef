// Parboil cutcp (cutoff Coulombic potential), written for warpsim after Parboil's CUDA
// version (`cutoff6overlap`).
//
// The electrostatic potential of a set of point charges is evaluated on a 3-D lattice of
// spacing h, counting only atoms within a cutoff distance and smoothing the potential to zero
// there: each atom at squared distance r2 < cutoff2 contributes q / r * (1 - r2/cutoff2)^2.
//
// Structure as in Parboil: the host sorts the atoms into 4 A cubic bins of at most BIN_DEPTH
// = 8 atoms (float4 x, y, z, q; an empty slot has q = 0), padded by c = ceil(cutoff / 4)
// bins on every side, and puts the list of bin offsets within reach of a region into constant
// memory. The lattice is cut into 8 x 8 x 8 point regions, stored region after region. One
// launch per z plane of regions; one 8 x 2 x 8 CTA (128 threads) per region, each thread
// computing four points along y (y, y + 2h, y + 4h, y + 6h). The CTA walks the neighbour list
// 32 bins at a time: each half-warp copies up to four bins (32 floats each) into shared
// memory, then every thread loops over the cached bins' atoms, stopping at a bin's first empty
// slot.
//
// Changed from Parboil: the region's address and its centre bin are per-thread values instead
// of `__shared__` variables that every thread writes with the same value (a benign race in
// Parboil), and `__mul24` is a plain multiplication. The arithmetic is Parboil's, including
// `rsqrtf`.

#define NBRLIST_DIM 11
#define NBRLIST_MAXLEN (NBRLIST_DIM * NBRLIST_DIM * NBRLIST_DIM)

// The neighbour list: bin offsets (i, j, k) around a region's centre bin.
__constant__ int NbrListLen;
__constant__ int3 NbrList[NBRLIST_MAXLEN];

#define BIN_DEPTH 8          // atoms per bin
#define BIN_SIZE 32          // floats per bin
#define BIN_SHIFT 5          // log2(BIN_SIZE)
#define BIN_CACHE_MAXLEN 32  // bins cached in shared memory at a time
#define BIN_LENGTH 4.f       // bin side in Angstroms
#define BIN_INVLEN (1.f / BIN_LENGTH)
#define REGION_SIZE 512      // lattice points per region

extern "C" __global__ void cuda_cutoff_potential_lattice6overlap(
    int binDim_x, int binDim_y,
    float4 *binZeroAddr,   // bins, shifted so that bin (0, 0, 0) is the lattice origin's
    float h,               // lattice spacing
    float cutoff2,         // square of the cutoff distance
    float inv_cutoff2,
    float *regionZeroAddr, // lattice regions
    int zRegionIndex)
{
    __shared__ float AtomBinCache[BIN_CACHE_MAXLEN * BIN_DEPTH * 4];

    const int xRegionIndex = blockIdx.x;
    const int yRegionIndex = blockIdx.y;

    // blockDim = (8, 2, 8)
    const int tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;

    float *myRegionAddr = regionZeroAddr +
        ((zRegionIndex * gridDim.y + yRegionIndex) * gridDim.x + xRegionIndex) * REGION_SIZE;

    // Coordinates of this thread's first lattice point.
    float x = (8 * xRegionIndex + threadIdx.x) * h;
    float y = (8 * yRegionIndex + threadIdx.y) * h;
    float z = (8 * zRegionIndex + threadIdx.z) * h;

    // The bin holding the region's centre.
    int3 myBinIndex;
    myBinIndex.x = (int)floorf((8 * xRegionIndex + 4) * h * BIN_INVLEN);
    myBinIndex.y = (int)floorf((8 * yRegionIndex + 4) * h * BIN_INVLEN);
    myBinIndex.z = (int)floorf((8 * zRegionIndex + 4) * h * BIN_INVLEN);

    // First neighbour-list entry this half-warp copies.
    int nbrid = tid >> 4;
    int numbins = BIN_CACHE_MAXLEN;

    float energy0 = 0.f;
    float energy1 = 0.f;
    float energy2 = 0.f;
    float energy3 = 0.f;

    for (int totalbins = 0; totalbins < NbrListLen; totalbins += numbins) {
        int startoff = BIN_SIZE * (tid >> 4);

        // Each half-warp caches up to four bins, one float per thread and half.
        for (int bincnt = 0; bincnt < 4 && nbrid < NbrListLen; bincnt++, nbrid += 8) {
            int i = myBinIndex.x + NbrList[nbrid].x;
            int j = myBinIndex.y + NbrList[nbrid].y;
            int k = myBinIndex.z + NbrList[nbrid].z;

            const float *p_global =
                ((const float *)binZeroAddr) + (((k * binDim_y + j) * binDim_x + i) << BIN_SHIFT);

            int binIndex = startoff + (bincnt << (3 + BIN_SHIFT));
            int tidmask = tid & 15;
            AtomBinCache[binIndex + tidmask] = p_global[tidmask];
            AtomBinCache[binIndex + tidmask + 16] = p_global[tidmask + 16];
        }
        __syncthreads();

        // The last round may cache fewer bins (uniform across the CTA).
        if (totalbins + BIN_CACHE_MAXLEN > NbrListLen) {
            numbins = NbrListLen - totalbins;
        }

        int stopbin = numbins << BIN_SHIFT;
        for (int bincnt = 0; bincnt < stopbin; bincnt += BIN_SIZE) {
            for (int i = 0; i < BIN_DEPTH; i++) {
                int off = bincnt + (i << 2);

                float aq = AtomBinCache[off + 3];
                if (0.f == aq)
                    break; // no more atoms in this bin

                float dx = AtomBinCache[off] - x;
                float dz = AtomBinCache[off + 2] - z;
                float dxdz2 = dx * dx + dz * dz;
                float dy = AtomBinCache[off + 1] - y;
                float r2 = dy * dy + dxdz2;

                if (r2 < cutoff2) {
                    float s = (1.f - r2 * inv_cutoff2);
                    energy0 += aq * rsqrtf(r2) * s * s;
                }
                dy -= 2.0f * h;
                r2 = dy * dy + dxdz2;
                if (r2 < cutoff2) {
                    float s = (1.f - r2 * inv_cutoff2);
                    energy1 += aq * rsqrtf(r2) * s * s;
                }
                dy -= 2.0f * h;
                r2 = dy * dy + dxdz2;
                if (r2 < cutoff2) {
                    float s = (1.f - r2 * inv_cutoff2);
                    energy2 += aq * rsqrtf(r2) * s * s;
                }
                dy -= 2.0f * h;
                r2 = dy * dy + dxdz2;
                if (r2 < cutoff2) {
                    float s = (1.f - r2 * inv_cutoff2);
                    energy3 += aq * rsqrtf(r2) * s * s;
                }
            }
        }
        __syncthreads();
    }

    // Region layout: point (x, y, z) of the region at (z * 8 + y) * 8 + x.
    myRegionAddr[(tid >> 4) * 64 + (tid & 15)] = energy0;
    myRegionAddr[(tid >> 4) * 64 + (tid & 15) + 16] = energy1;
    myRegionAddr[(tid >> 4) * 64 + (tid & 15) + 32] = energy2;
    myRegionAddr[(tid >> 4) * 64 + (tid & 15) + 48] = energy3;
}
