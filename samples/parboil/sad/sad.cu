// Parboil sad (sum of absolute differences for H.264 motion estimation), written for warpsim
// after Parboil's CUDA version (sad4.cu, largerBlocks.cu).
//
// For every 16 x 16 macroblock of the current frame and every search position within +-16
// pixels (33 x 33 = 1089 positions, padded to 1096 per vector), the SAD against the reference
// frame is computed for the 41 H.264 partitions: 16 4x4 blocks, 8 4x8 (4 wide, 8 tall), 8 8x4,
// 4 8x8, 2 8x16, 2 16x8 and the 16x16 block. Three launches, as in Parboil:
//   - mb_sad_calc: one CTA of 61 threads per 4x4 block (grid = width/4 x height/4); the 16
//     current pixels go to shared memory, each thread computes 18 search positions, three
//     horizontally adjacent ones at a time sharing the reference pixels it loads, into a
//     shared-memory SAD vector that 32 threads then copy out 8 bytes at a time;
//   - larger_sad_calc_8: one CTA of 32 x 4 threads per macroblock, each y thread one 8x8
//     block, summing 4x4 SADs into 4x8, 8x4 and 8x8 SADs, two positions per 32-bit add (the
//     16-bit SADs cannot carry into each other);
//   - larger_sad_calc_16: one CTA of 32 threads per macroblock, summing 8x8 SADs into 8x16,
//     16x8 and 16x16 SADs the same way.
// Output layout (Parboil's): all vectors of one partition type together, types 16x16, 16x8,
// 8x16, 8x8, 8x4, 4x8, 4x4 at vector offsets 0, 1, 3, 5, 9, 17, 25 times the macroblock count.
//
// Changed from Parboil: the reference frame is read from global memory with explicit
// clamping of the coordinates to the frame, which is what Parboil's texture fetch (clamp
// addressing, point filtering) returns (warpsim has no texture unit); __umul24/__mul24 are
// plain multiplications.

#define SEARCH_RANGE 16
#define SEARCH_DIMENSION (2 * SEARCH_RANGE + 1) // 33
#define MAX_POS (SEARCH_DIMENSION * SEARCH_DIMENSION) // 1089
#define MAX_POS_PADDED 1096

#define CEIL(x, y) (((x) + ((y)-1)) / (y))
#define TIMES_DIM_POS(x) (((x) << 5) + (x)) // x * 33

#define POS_PER_THREAD 18
#define THREADS_W 1
#define THREADS_H 1

struct vec8b {
    int fst;
    int snd;
};

#define FRAME_GET(n, x, y) (frame_loc[((n) << 4) + ((y) << 2) + (x)])
#define FRAME_PUT_1(n, x, value) (frame_loc[((n) << 4) + (x)] = value)
#define SAD_LOC_PUT(blocknum, pos, value) (sad_loc[(blocknum) * MAX_POS_PADDED + (pos)] = (value))
#define SAD_LOC_8B_GET(blocknum, ix) (sad_loc_8b[(blocknum) * (MAX_POS_PADDED / 4) + (ix)])
#define SAD_LOC_8B_ROW_SIZE (MAX_POS_PADDED / 4)

// A reference pixel, coordinates clamped to the frame (the texture's clamp addressing).
__device__ __forceinline__ int ref_pixel(const unsigned short *ref, int width, int height,
                                         int x, int y)
{
    x = min(max(x, 0), width - 1);
    y = min(max(y, 0), height - 1);
    return ref[y * width + x];
}

// The SADs of one 4x4 block at every search position.
extern "C" __global__ void mb_sad_calc(unsigned short *blk_sad, const unsigned short *frame,
                                       const unsigned short *ref, int mb_width, int mb_height)
{
    __shared__ unsigned short frame_loc[THREADS_W * THREADS_H * 16];
    extern __shared__ vec8b sad_loc_8b[];
    unsigned short *sad_loc = (unsigned short *)sad_loc_8b;

    int img_width = mb_width * 16;
    int img_height = mb_height * 16;

    int txy_tmp = threadIdx.x / CEIL(MAX_POS, POS_PER_THREAD);
    int ty = txy_tmp / THREADS_W;
    int tx = txy_tmp - ty * THREADS_W;
    int bx = blockIdx.x;
    int by = blockIdx.y;

    // Macroblock and 4x4 sub-block coordinates.
    int mb_x = (tx + bx * THREADS_W) >> 2;
    int mb_y = (ty + by * THREADS_H) >> 2;
    int block_x = (tx + bx * THREADS_W) & 0x03;
    int block_y = (ty + by * THREADS_H) & 0x03;

    // Copy the current 4x4 block into shared memory, 16 threads per block.
    if ((threadIdx.x >> 4) < (THREADS_W * THREADS_H)) {
        int ty = (threadIdx.x >> 4) / THREADS_W;
        int tx = (threadIdx.x >> 4) - ty * THREADS_W;
        int tgroup = threadIdx.x & 15;

        int frame_x = (tx + bx * THREADS_W) << 2;
        int frame_y = (ty + by * THREADS_H) << 2;
        int cur_o = frame_y * img_width + frame_x;

        if (((frame_x >> 4) < mb_width) && ((frame_y >> 4) < mb_height)) {
            FRAME_PUT_1(ty * THREADS_W + tx, tgroup,
                        frame[cur_o + (tgroup >> 2) * img_width + (tgroup & 3)]);
        }
    }
    __syncthreads();

    if ((mb_x < mb_width) && (mb_y < mb_height)) {
        int frame_x = ((mb_x << 2) + block_x) << 2;
        int frame_y = ((mb_y << 2) + block_y) << 2;

        // Origin of the search area.
        int ref_x = frame_x - SEARCH_RANGE;
        int ref_y = frame_y - SEARCH_RANGE;

        int cur_o = ty * THREADS_W + tx;

        int search_pos_base = (threadIdx.x % CEIL(MAX_POS, POS_PER_THREAD)) * POS_PER_THREAD;
        int search_pos_end = search_pos_base + POS_PER_THREAD;

        int sotmp = search_pos_base / SEARCH_DIMENSION;
        int local_search_off_x = search_pos_base - TIMES_DIM_POS(sotmp);
        int search_off_y = ref_y + sotmp;

        if (search_pos_end > MAX_POS)
            search_pos_end = MAX_POS;

        // Three horizontally adjacent positions at a time (1089 and 18 are multiples of 3,
        // and so is every row's start).
        for (int search_pos = search_pos_base; search_pos < search_pos_end; search_pos += 3) {
            unsigned short sad1 = 0, sad2 = 0, sad3 = 0;
            int search_off_x = ref_x + local_search_off_x;

            for (int y = 0; y < 4; y++) {
                int t;
                t = ref_pixel(ref, img_width, img_height, search_off_x, search_off_y + y);
                sad1 += abs(t - FRAME_GET(cur_o, 0, y));

                t = ref_pixel(ref, img_width, img_height, search_off_x + 1, search_off_y + y);
                sad1 += abs(t - FRAME_GET(cur_o, 1, y));
                sad2 += abs(t - FRAME_GET(cur_o, 0, y));

                t = ref_pixel(ref, img_width, img_height, search_off_x + 2, search_off_y + y);
                sad1 += abs(t - FRAME_GET(cur_o, 2, y));
                sad2 += abs(t - FRAME_GET(cur_o, 1, y));
                sad3 += abs(t - FRAME_GET(cur_o, 0, y));

                t = ref_pixel(ref, img_width, img_height, search_off_x + 3, search_off_y + y);
                sad1 += abs(t - FRAME_GET(cur_o, 3, y));
                sad2 += abs(t - FRAME_GET(cur_o, 2, y));
                sad3 += abs(t - FRAME_GET(cur_o, 1, y));

                t = ref_pixel(ref, img_width, img_height, search_off_x + 4, search_off_y + y);
                sad2 += abs(t - FRAME_GET(cur_o, 3, y));
                sad3 += abs(t - FRAME_GET(cur_o, 2, y));

                t = ref_pixel(ref, img_width, img_height, search_off_x + 5, search_off_y + y);
                sad3 += abs(t - FRAME_GET(cur_o, 3, y));
            }

            SAD_LOC_PUT(ty * THREADS_W + tx, search_pos, sad1);
            SAD_LOC_PUT(ty * THREADS_W + tx, search_pos + 1, sad2);
            SAD_LOC_PUT(ty * THREADS_W + tx, search_pos + 2, sad3);

            local_search_off_x += 3;
            if (local_search_off_x >= SEARCH_DIMENSION) {
                local_search_off_x -= SEARCH_DIMENSION;
                search_off_y++;
            }
        }
    }
    __syncthreads();

    // Copy the SAD vector to global memory, 32 threads per 4x4 block, 8 bytes each. (The
    // vector's padding, positions 1089..1095, is copied as it lies in shared memory.)
    if ((threadIdx.x >> 5) < (THREADS_W * THREADS_H)) {
        int tgroup = threadIdx.x & 31;
        int ty = (threadIdx.x >> 5) / THREADS_W;
        int tx = (threadIdx.x >> 5) - ty * THREADS_W;

        int mb_x = (tx + bx * THREADS_W) >> 2;
        int mb_y = (ty + by * THREADS_H) >> 2;
        int block_x = (tx + bx * THREADS_W) & 0x03;
        int block_y = (ty + by * THREADS_H) & 0x03;

        if ((mb_x < mb_width) && (mb_y < mb_height)) {
            blk_sad += (mb_width * mb_height * 25 + (mb_y * mb_width + mb_x) * 16 +
                        (4 * block_y + block_x)) *
                       MAX_POS_PADDED;
            for (int index = tgroup; index < SAD_LOC_8B_ROW_SIZE; index += 32)
                ((vec8b *)blk_sad)[index] = SAD_LOC_8B_GET(ty * THREADS_W + tx, index);
        }
    }
}

// 4x8, 8x4 and 8x8 SADs from the 4x4 ones; threadIdx.y picks the 8x8 block.
extern "C" __global__ void larger_sad_calc_8(unsigned short *blk_sad, int mb_width,
                                             int mb_height)
{
    int tx = threadIdx.y & 1;
    int ty = threadIdx.y >> 1;

    int mb_x = blockIdx.x;
    int mb_y = blockIdx.y;

    int macroblocks = mb_width * mb_height;
    int macroblock_index = (mb_y * mb_width + mb_x) * MAX_POS_PADDED;

    // The 8x8 block's top-left 4x4 block.
    unsigned short *bi =
        blk_sad + (macroblocks * 25 + (ty * 8 + tx * 2)) * MAX_POS_PADDED + macroblock_index * 16;
    // 4x8 (type 6), 8x4 (type 5) and 8x8 (type 4) outputs.
    unsigned short *bo_6 =
        blk_sad + ((macroblocks << 4) + macroblocks + (ty * 4 + tx * 2)) * MAX_POS_PADDED +
        macroblock_index * 8;
    unsigned short *bo_5 =
        blk_sad + ((macroblocks << 3) + macroblocks + (ty * 4 + tx)) * MAX_POS_PADDED +
        macroblock_index * 8;
    unsigned short *bo_4 =
        blk_sad + ((macroblocks << 2) + macroblocks + (ty * 2 + tx)) * MAX_POS_PADDED +
        macroblock_index * 4;

    for (int search_pos = threadIdx.x; search_pos < (MAX_POS + 1) / 2; search_pos += 32) {
        // Two 16-bit SADs per 32-bit word; sums of up to 16 4x4 SADs of 8-bit pixels stay
        // below 2^16, so the halves never carry into each other.
        unsigned int i00 = ((unsigned int *)bi)[search_pos];
        unsigned int i01 = ((unsigned int *)bi)[search_pos + MAX_POS_PADDED / 2];
        unsigned int i10 = ((unsigned int *)bi)[search_pos + 4 * MAX_POS_PADDED / 2];
        unsigned int i11 = ((unsigned int *)bi)[search_pos + 5 * MAX_POS_PADDED / 2];

        ((unsigned int *)bo_6)[search_pos] = i00 + i10;
        ((unsigned int *)bo_6)[search_pos + MAX_POS_PADDED / 2] = i01 + i11;
        ((unsigned int *)bo_5)[search_pos] = i00 + i01;
        ((unsigned int *)bo_5)[search_pos + 2 * MAX_POS_PADDED / 2] = i10 + i11;
        ((unsigned int *)bo_4)[search_pos] = (i00 + i01) + (i10 + i11);
    }
}

// 8x16, 16x8 and 16x16 SADs from the 8x8 ones.
extern "C" __global__ void larger_sad_calc_16(unsigned short *blk_sad, int mb_width,
                                              int mb_height)
{
    int mb_x = blockIdx.x;
    int mb_y = blockIdx.y;

    int macroblocks = mb_width * mb_height * MAX_POS_PADDED;
    int macroblock_index = (mb_y * mb_width + mb_x) * MAX_POS_PADDED;

    // 8x8 (type 4) input; 8x16 (type 3), 16x8 (type 2) and 16x16 (type 1) outputs.
    unsigned short *bi = blk_sad + ((macroblocks + macroblock_index) << 2) + macroblocks;
    unsigned short *bo_3 = blk_sad + ((macroblocks + macroblock_index) << 1) + macroblocks;
    unsigned short *bo_2 = blk_sad + macroblocks + macroblock_index * 2;
    unsigned short *bo_1 = blk_sad + macroblock_index;

    for (int search_pos = threadIdx.x; search_pos < (MAX_POS + 1) / 2; search_pos += 32) {
        unsigned int i00 = ((unsigned int *)bi)[search_pos];
        unsigned int i01 = ((unsigned int *)bi)[search_pos + MAX_POS_PADDED / 2];
        unsigned int i10 = ((unsigned int *)bi)[search_pos + 2 * MAX_POS_PADDED / 2];
        unsigned int i11 = ((unsigned int *)bi)[search_pos + 3 * MAX_POS_PADDED / 2];

        ((unsigned int *)bo_3)[search_pos] = i00 + i10;
        ((unsigned int *)bo_3)[search_pos + MAX_POS_PADDED / 2] = i01 + i11;
        ((unsigned int *)bo_2)[search_pos] = i00 + i01;
        ((unsigned int *)bo_2)[search_pos + MAX_POS_PADDED / 2] = i10 + i11;
        ((unsigned int *)bo_1)[search_pos] = (i00 + i01) + (i10 + i11);
    }
}
