// Rodinia 3.1 lavaMD (CUDA), written for warpsim.
//
// Particles interact with every particle of their own box and of the (up to 26) neighbouring
// boxes of a boxes1d^3 grid of boxes, 100 particles per box. One block of 128 threads per home
// box: the home box's positions are staged in shared memory, then for each box of the
// neighbourhood its positions and charges are staged too and each thread accumulates, for one
// home particle, the potential and the force from the 100 particles of that box (Rodinia's
// exp(-a2 * r2) interaction, in double precision).

#define fp double
#define NUMBER_PAR_PER_BOX 100
#define NUMBER_THREADS 128

#define DOT(A, B) ((A.x) * (B.x) + (A.y) * (B.y) + (A.z) * (B.z))

struct THREE_VECTOR {
    fp x, y, z;
};

struct FOUR_VECTOR {
    fp v, x, y, z;
};

struct nei_str {
    int x, y, z;
    int number;
    long offset;
};

struct box_str {
    int x, y, z;
    int number;
    long offset;
    int nn;
    nei_str nei[26];
};

struct par_str {
    fp alpha;
};

struct dim_str {
    int cur_arg;
    int arch_arg;
    int cores_arg;
    int boxes1d_arg;
    long number_boxes;
    long box_mem;
    long space_elem;
    long space_mem;
    long space_mem2;
};

extern "C" __global__ void kernel_gpu_cuda(par_str d_par_gpu, dim_str d_dim_gpu,
                                           box_str *d_box_gpu, FOUR_VECTOR *d_rv_gpu,
                                           fp *d_qv_gpu, FOUR_VECTOR *d_fv_gpu)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int wtx = tx;

    if (bx < d_dim_gpu.number_boxes) {
        fp a2 = 2.0 * d_par_gpu.alpha * d_par_gpu.alpha;

        __shared__ FOUR_VECTOR rA_shared[NUMBER_PAR_PER_BOX];
        __shared__ FOUR_VECTOR rB_shared[NUMBER_PAR_PER_BOX];
        __shared__ double qB_shared[NUMBER_PAR_PER_BOX];

        // Home box: its particles' positions go to shared memory.
        int first_i = d_box_gpu[bx].offset;
        FOUR_VECTOR *rA = &d_rv_gpu[first_i];
        FOUR_VECTOR *fA = &d_fv_gpu[first_i];
        while (wtx < NUMBER_PAR_PER_BOX) {
            rA_shared[wtx] = rA[wtx];
            wtx = wtx + NUMBER_THREADS;
        }
        wtx = tx;
        __syncthreads();

        // The home box itself, then each neighbour box.
        for (int k = 0; k < (1 + d_box_gpu[bx].nn); k++) {
            int pointer;
            if (k == 0) {
                pointer = bx;
            } else {
                pointer = d_box_gpu[bx].nei[k - 1].number;
            }
            int first_j = d_box_gpu[pointer].offset;
            FOUR_VECTOR *rB = &d_rv_gpu[first_j];
            fp *qB = &d_qv_gpu[first_j];

            while (wtx < NUMBER_PAR_PER_BOX) {
                rB_shared[wtx] = rB[wtx];
                qB_shared[wtx] = qB[wtx];
                wtx = wtx + NUMBER_THREADS;
            }
            wtx = tx;
            __syncthreads();

            // Each thread: one home particle against every particle of box `pointer`.
            while (wtx < NUMBER_PAR_PER_BOX) {
                for (int j = 0; j < NUMBER_PAR_PER_BOX; j++) {
                    fp r2 = rA_shared[wtx].v + rB_shared[j].v - DOT(rA_shared[wtx], rB_shared[j]);
                    fp u2 = a2 * r2;
                    fp vij = exp(-u2);
                    fp fs = 2 * vij;
                    THREE_VECTOR d;
                    d.x = rA_shared[wtx].x - rB_shared[j].x;
                    fp fxij = fs * d.x;
                    d.y = rA_shared[wtx].y - rB_shared[j].y;
                    fp fyij = fs * d.y;
                    d.z = rA_shared[wtx].z - rB_shared[j].z;
                    fp fzij = fs * d.z;
                    fA[wtx].v += qB_shared[j] * vij;
                    fA[wtx].x += qB_shared[j] * fxij;
                    fA[wtx].y += qB_shared[j] * fyij;
                    fA[wtx].z += qB_shared[j] * fzij;
                }
                wtx = wtx + NUMBER_THREADS;
            }
            wtx = tx;
            // Everyone is done with this box before the next one overwrites shared memory.
            __syncthreads();
        }
    }
}
