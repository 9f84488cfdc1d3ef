// Rodinia 3.1 streamcluster (CUDA), written for warpsim.
//
// Streamcluster solves online k-median clustering (from PARSEC). The host runs the local
// search (speedy, feasible-center selection, facility-location passes); each gain evaluation
// (`pgain`) launches `kernel_compute_cost` with one thread per point and 512 threads per block:
// a thread computes the weighted squared distance from its point to the candidate center `x`
// and records in its own row of `work_mem` either the saving of switching to `x` (column K)
// or the cost of closing its current center (that center's column). The host then sums the
// columns. The grid is two-dimensional when the number of blocks exceeds 65536.

// A point as the host lays it out (64-bit): weight, coordinate pointer (host only), the
// index of its center, and its current cost. 32 bytes.
struct Point {
    float weight;
    float *coord;
    long assign;
    float cost;
};

// Squared Euclidean distance between points p1 and p2; coordinates are stored
// dimension-major (coord_d[i * num + point]) so that neighbouring threads read
// neighbouring addresses.
__device__ float d_dist(int p1, int p2, int num, int dim, float *coord_d)
{
    float sum = 0.0f;
    for (int i = 0; i < dim; i++) {
        float diff = coord_d[(i * num) + p1] - coord_d[(i * num) + p2];
        sum += diff * diff;
    }
    return sum;
}

extern "C" __global__ void kernel_compute_cost(int num, int dim, long x, Point *p, int K,
                                               int stride, float *coord_d, float *work_mem_d,
                                               int *center_table_d, bool *switch_membership_d)
{
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    const int tid = blockDim.x * bid + threadIdx.x;
    if (tid < num) {
        float *row = &work_mem_d[tid * stride];
        // Weighted cost of serving this point from x.
        float x_cost = d_dist(tid, x, num, dim, coord_d) * p[tid].weight;
        if (x_cost < p[tid].cost) {
            // Cheaper from x: the point would switch, saving the difference.
            switch_membership_d[tid] = 1;
            row[K] += x_cost - p[tid].cost;
        } else {
            // Otherwise closing its current center would cost the difference.
            row[center_table_d[p[tid].assign]] += p[tid].cost - x_cost;
        }
    }
}
