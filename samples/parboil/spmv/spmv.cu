// Parboil spmv (the JDS kernel `spmv_jds` of the `cuda` version), written for warpsim.
//
// y = A x for a sparse A in JDS (jagged diagonal storage) form: the rows are sorted by
// decreasing length (`perm` maps a sorted position back to its row), and the k-th nonzeros of
// all rows form the k-th jagged diagonal, stored contiguously from jds_ptr[k] and indexed by
// sorted position, so that consecutive threads read consecutive words. Rows are grouped in
// warps of 32 sorted positions; sh_zcnt[w] is the number of diagonals warp w walks (the length
// of its longest row; shorter rows of the warp meet zero padding). As in Parboil, jds_ptr and
// sh_zcnt live in constant memory and each thread computes one row.
//
// Changed from Parboil: x is read with an ordinary global load instead of a texture fetch
// (tex1Dfetch), and the loop is written plainly instead of Parboil's hand-pipelined version
// that prefetches two diagonals ahead; the loads, the multiply-adds and their order are the
// same.

#define WARP_BITS 5
#define MAX_DIAGONALS 4096
#define MAX_WARPS 8192

__constant__ int jds_ptr_int[MAX_DIAGONALS];
__constant__ int sh_zcnt_int[MAX_WARPS];

extern "C" __global__ void spmv_jds(float *dst_vector, const float *d_data,
                                    const int *d_index, const int *d_perm,
                                    const float *x_vec, const int dim)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int warp_id = ix >> WARP_BITS;
    if (ix < dim) {
        float sum = 0.0f;
        int bound = sh_zcnt_int[warp_id];
        for (int k = 0; k < bound; k++) {
            int j = jds_ptr_int[k] + ix;
            float d = d_data[j];
            int in = d_index[j];
            float t = x_vec[in];
            sum += d * t;
        }
        dst_vector[d_perm[ix]] = sum;
    }
}
