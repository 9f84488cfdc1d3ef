// Rodinia 3.1 bfs (breadth-first search, Harish & Narayanan, HiPC'07), rewritten for warpsim.
//
// Level-synchronous BFS over a CSR graph, one thread per node, MAX_THREADS_PER_BLOCK = 512.
// The host loops until a level adds no node: it clears the `over` flag, launches `Kernel`
// (expand the frontier: mark unvisited neighbours in the updating mask and set their cost)
// then `Kernel2` (the updating mask becomes the next frontier and sets `over`), and copies
// the flag back. Masks and flags are C++ `bool` (one byte).

#define MAX_THREADS_PER_BLOCK 512

struct Node {
    int starting;    // first edge in the edge array
    int no_of_edges; // number of edges
};

extern "C" __global__ void Kernel(const Node *g_graph_nodes, const int *g_graph_edges,
                                  bool *g_graph_mask, bool *g_updating_graph_mask,
                                  const bool *g_graph_visited, int *g_cost, int no_of_nodes)
{
    const int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid >= no_of_nodes || !g_graph_mask[tid])
        return;
    g_graph_mask[tid] = false;
    // The bound is re-read every trip, as in Rodinia: the cost stores may alias the nodes.
    const Node *node = &g_graph_nodes[tid];
    for (int e = node->starting; e < node->starting + node->no_of_edges; e++) {
        const int neighbour = g_graph_edges[e];
        if (!g_graph_visited[neighbour]) {
            // Every frontier node has the same cost, so concurrent writers agree.
            g_cost[neighbour] = g_cost[tid] + 1;
            g_updating_graph_mask[neighbour] = true;
        }
    }
}

extern "C" __global__ void Kernel2(bool *g_graph_mask, bool *g_updating_graph_mask,
                                   bool *g_graph_visited, bool *g_over, int no_of_nodes)
{
    const int tid = blockIdx.x * MAX_THREADS_PER_BLOCK + threadIdx.x;
    if (tid >= no_of_nodes || !g_updating_graph_mask[tid])
        return;
    g_graph_mask[tid] = true;
    g_graph_visited[tid] = true;
    *g_over = true;
    g_updating_graph_mask[tid] = false;
}
