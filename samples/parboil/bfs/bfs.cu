// Parboil bfs (the `cuda` version: Luo, Wong and Hwu, "An Effective GPU Implementation of
// Breadth-First Search", DAC 2010), written for warpsim.
//
// Frontier-queue BFS. Each frontier node is one thread; relaxing an edge is an atomicMin on
// the neighbour's cost, and a neighbour whose cost dropped is pushed, once per level (the
// atomicExch of a per-level gray shade decides who pushes), into one of NUM_BIN warp-level
// queues in shared memory (thread t uses queue t % NUM_BIN, which spreads the atomics on the
// queue tails). The queues are then concatenated into the next frontier: by a prefix sum in
// shared memory, and in the multi-CTA kernel at an offset in the global next-frontier queue
// claimed with one atomicAdd on its tail per CTA.
//
// Two kernels, chosen by the host per launch from the frontier size:
//  - BFS_in_GPU_kernel (one CTA of 512 threads): while the frontier fits in one CTA it
//    advances level after level inside the kernel, keeping the frontier in shared memory,
//    and returns when the BFS is over or the frontier has outgrown the CTA (then written to
//    the global queue);
//  - BFS_kernel (ceil(frontier / 512) CTAs): one level per launch.
//
// Changed from Parboil: Parboil has a third kernel, BFS_kernel_multi_blk_inGPU, for frontiers
// of 2 .. NUM_SM CTAs, which advances several levels in one launch with a spinning inter-CTA
// barrier; that is only correct when every CTA is resident at once, which CUDA does not
// guarantee (nor does warpsim's functional engine, which may run CTAs one after another), so
// those frontiers use BFS_kernel here. Node and edge arrays are read with global loads
// instead of texture fetches. In BFS_in_GPU_kernel Parboil toggles the gray shade in thread 0
// only (a per-thread variable); here every thread toggles it, as intended. A full
// warp-level queue sets *overflow (the host stops, as Parboil's does) instead of writing past
// it.

#define MAX_THREADS_PER_BLOCK 512
#define NUM_BIN 8   // warp-level queues per CTA
#define EXP 3       // log2(NUM_BIN)
#define MOD_OP 7    // NUM_BIN - 1
#define W_QUEUE_SIZE 400

#define UP_LIMIT 16677216
#define WHITE 16677217
#define GRAY0 16677219
#define GRAY1 16677220
#define BLACK 16677221

// Relaxes the edges of frontier node `pid`, pushing the neighbours to visit into the
// thread's warp-level queue.
__device__ void expand(int pid, const int2 *nodes, const int2 *edges, int *color, int *cost,
                       int gray_shade, int *q_tail, int (*q)[W_QUEUE_SIZE], int *overflow)
{
    color[pid] = BLACK;
    int my_cost = cost[pid];
    int q_i = threadIdx.x & MOD_OP;
    int2 node = nodes[pid]; // (first edge, edge count)
    for (int e = node.x; e < node.x + node.y; e++) {
        int2 edge = edges[e]; // (neighbour, weight)
        int id = edge.x;
        int new_cost = my_cost + edge.y;
        if (atomicMin(&cost[id], new_cost) > new_cost && color[id] > UP_LIMIT &&
            atomicExch(&color[id], gray_shade) != gray_shade) {
            int index = atomicAdd(&q_tail[q_i], 1);
            if (index < W_QUEUE_SIZE)
                q[q_i][index] = id;
            else
                *overflow = 1;
        }
    }
}

// Empties the warp-level queue tails and counts the threads that copy each queue out.
__device__ void reset_queues(int *q_tail, int *copiers)
{
    if (threadIdx.x < NUM_BIN) {
        q_tail[threadIdx.x] = 0;
        copiers[threadIdx.x] = (blockDim.x >> EXP) + ((blockDim.x & MOD_OP) > threadIdx.x);
    }
}

// Thread 0: the start of each warp-level queue in the CTA's concatenation; returns the total.
__device__ int prefix_sum(const int *q_tail, int *prefix)
{
    prefix[0] = 0;
    for (int i = 1; i < NUM_BIN; i++)
        prefix[i] = prefix[i - 1] + q_tail[i - 1];
    return prefix[NUM_BIN - 1] + q_tail[NUM_BIN - 1];
}

// Copies the warp-level queues to `dst` (at their prefix offsets), NUM_BIN-strided.
__device__ void copy_queues(int *dst, const int *q_tail, int (*q)[W_QUEUE_SIZE],
                            const int *prefix, const int *copiers)
{
    int q_i = threadIdx.x & MOD_OP;
    for (int i = threadIdx.x >> EXP; i < q_tail[q_i]; i += copiers[q_i])
        dst[prefix[q_i] + i] = q[q_i][i];
}

extern "C" __global__ void BFS_in_GPU_kernel(const int *q1, int *q2, const int2 *nodes,
                                             const int2 *edges, int *color, int *cost,
                                             int frontier_size, int *tail, int gray_shade,
                                             int *overflow)
{
    __shared__ int q_tail[NUM_BIN];
    __shared__ int q[NUM_BIN][W_QUEUE_SIZE];
    __shared__ int prefix[NUM_BIN];
    __shared__ int copiers[NUM_BIN];
    __shared__ int next_wf[MAX_THREADS_PER_BLOCK];
    __shared__ int total;

    if (threadIdx.x == 0)
        total = 0;
    bool first_level = true;
    while (true) {
        reset_queues(q_tail, copiers);
        __syncthreads();
        if (threadIdx.x < frontier_size) {
            int pid = first_level ? q1[threadIdx.x] : next_wf[threadIdx.x];
            expand(pid, nodes, edges, color, cost, gray_shade, q_tail, q, overflow);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            total = prefix_sum(q_tail, prefix);
            *tail = total;
        }
        __syncthreads();

        if (total == 0) // the BFS is over
            return;
        if (total > MAX_THREADS_PER_BLOCK) { // outgrown the CTA: hand over to the host
            copy_queues(q2, q_tail, q, prefix, copiers);
            return;
        }
        copy_queues(next_wf, q_tail, q, prefix, copiers);
        __syncthreads();
        frontier_size = total;
        first_level = false;
        gray_shade = gray_shade == GRAY0 ? GRAY1 : GRAY0;
    }
}

extern "C" __global__ void BFS_kernel(const int *q1, int *q2, const int2 *nodes,
                                      const int2 *edges, int *color, int *cost,
                                      int frontier_size, int *tail, int gray_shade,
                                      int *overflow)
{
    __shared__ int q_tail[NUM_BIN];
    __shared__ int q[NUM_BIN][W_QUEUE_SIZE];
    __shared__ int prefix[NUM_BIN];
    __shared__ int copiers[NUM_BIN];
    __shared__ int shift;

    reset_queues(q_tail, copiers);
    __syncthreads();

    int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid < frontier_size)
        expand(q1[tid], nodes, edges, color, cost, gray_shade, q_tail, q, overflow);
    __syncthreads();

    // Claim this CTA's place in the next frontier.
    if (threadIdx.x == 0)
        shift = atomicAdd(tail, prefix_sum(q_tail, prefix));
    __syncthreads();
    copy_queues(q2 + shift, q_tail, q, prefix, copiers);
}
