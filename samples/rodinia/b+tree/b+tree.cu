// Rodinia 3.1 b+tree (CUDA), written for warpsim.
//
// The host builds a B+ tree of order 256 from the input keys and flattens it into an array of
// `knode`s in breadth-first order (Rodinia's transform_to_cuda). Each query is one block of
// `order` threads (256); at every level of the tree thread `thid` checks whether the key falls
// between keys[thid] and keys[thid + 1] of the current node, and if so moves the query to child
// indices[thid]. Command `j count rSize` launches findRangeK (a start and an end key per
// query), command `k count` launches findK (one key per query).

#define DEFAULT_ORDER 256

struct record {
    int value;
};

// A flattened tree node: keys[0] = INT_MIN, keys[num_keys - 1] = INT_MAX, the node's keys in
// between; indices are child node numbers (inner nodes) or record numbers (leaves).
struct knode {
    int location;
    int indices[DEFAULT_ORDER + 1];
    int keys[DEFAULT_ORDER + 1];
    bool is_leaf;
    int num_keys;
};

extern "C" __global__ void findK(long height, knode *knodesD, long knodes_elem,
                                 record *recordsD, long *currKnodeD, long *offsetD,
                                 int *keysD, record *ansD)
{
    int thid = threadIdx.x;
    int bid = blockIdx.x;

    for (int level = 0; level < height; level++) {
        // The thread whose key interval holds the query key picks the child.
        if (knodesD[currKnodeD[bid]].keys[thid] <= keysD[bid] &&
            knodesD[currKnodeD[bid]].keys[thid + 1] > keysD[bid]) {
            // Rodinia's guard against child numbers past the end of the node array.
            if (knodesD[offsetD[bid]].indices[thid] < knodes_elem) {
                offsetD[bid] = knodesD[offsetD[bid]].indices[thid];
            }
        }
        __syncthreads();
        // Descend.
        if (thid == 0) {
            currKnodeD[bid] = offsetD[bid];
        }
        __syncthreads();
    }

    // In the leaf: the thread holding the key returns its record.
    if (knodesD[currKnodeD[bid]].keys[thid] == keysD[bid]) {
        ansD[bid].value = recordsD[knodesD[currKnodeD[bid]].indices[thid]].value;
    }
}

extern "C" __global__ void findRangeK(long height, knode *knodesD, long knodes_elem,
                                      long *currKnodeD, long *offsetD, long *lastKnodeD,
                                      long *offset_2D, int *startD, int *endD, int *RecstartD,
                                      int *ReclenD)
{
    int thid = threadIdx.x;
    int bid = blockIdx.x;

    // Walk down twice at once: to the leaf of the start key and to the leaf of the end key.
    for (int level = 0; level < height; level++) {
        if (knodesD[currKnodeD[bid]].keys[thid] <= startD[bid] &&
            knodesD[currKnodeD[bid]].keys[thid + 1] > startD[bid]) {
            if (knodesD[currKnodeD[bid]].indices[thid] < knodes_elem) {
                offsetD[bid] = knodesD[currKnodeD[bid]].indices[thid];
            }
        }
        if (knodesD[lastKnodeD[bid]].keys[thid] <= endD[bid] &&
            knodesD[lastKnodeD[bid]].keys[thid + 1] > endD[bid]) {
            if (knodesD[lastKnodeD[bid]].indices[thid] < knodes_elem) {
                offset_2D[bid] = knodesD[lastKnodeD[bid]].indices[thid];
            }
        }
        __syncthreads();
        if (thid == 0) {
            currKnodeD[bid] = offsetD[bid];
            lastKnodeD[bid] = offset_2D[bid];
        }
        __syncthreads();
    }

    // The record number of the start key...
    if (knodesD[currKnodeD[bid]].keys[thid] == startD[bid]) {
        RecstartD[bid] = knodesD[currKnodeD[bid]].indices[thid];
    }
    __syncthreads();
    // ...and the length of the range up to the end key.
    if (knodesD[lastKnodeD[bid]].keys[thid] == endD[bid]) {
        ReclenD[bid] = knodesD[lastKnodeD[bid]].indices[thid] - RecstartD[bid] + 1;
    }
}
