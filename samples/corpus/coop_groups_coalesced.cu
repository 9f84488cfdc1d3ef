// nvrtc-flags: --gpu-architecture=compute_80
//
// Cooperative groups of the threads a branch left active: cg::coalesced_threads() (size,
// thread_rank, meta groups, any / all / ballot, match_any / match_all, cg::reduce over int
// (`redux.sync` with the group's mask on compute_80) and float (a shuffle scan over the
// group's lanes), cg::inclusive_scan / cg::exclusive_scan, shfl from rank 0, sync), the
// dynamic cg::tiled_partition of such a group, cg::labeled_partition and cg::binary_partition
// of block tiles and of coalesced groups, and the coalesced group's shuffles by rank (`fns`:
// the n-th set bit of the mask). Every result is checked exactly against a host model of the
// CUDA programming guide's semantics by samples/tests/integration/cg_corpus.rs.
//
// Every kernel writes its results slot-major: slot k of thread t (of n = gridDim.x *
// blockDim.x) at out[k * n + t], 32 bits each (floats by their bits), in the order the
// kernel's comment lists. Threads outside the branch write nothing (the host's fill stays).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

// Slot-major output of one thread.
struct Out {
    unsigned *p;
    unsigned n, t, slot;
    __device__ Out(unsigned *p) : p(p), slot(0)
    {
        n = gridDim.x * blockDim.x;
        t = blockIdx.x * blockDim.x + threadIdx.x;
    }
    __device__ void put(unsigned v) { p[slot++ * n + t] = v; }
    __device__ void put(int v) { put((unsigned)v); }
    __device__ void put(float v) { put(__float_as_uint(v)); }
};

__device__ unsigned global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Inside `if (sel)`: the group of the threads that took the branch (19 slots): size,
// thread_rank, meta_group_rank, meta_group_size, ballot(p), any(p), all(p), match_any(key),
// match_all(key) and its predicate, reduce plus / greater / bit_xor over int, reduce plus over
// float, inclusive and exclusive plus scans over int, inclusive plus scan over float, shfl of
// v from rank 0, the value of the next rank (cyclically) exchanged through shared memory
// between two g.sync(); then its dynamic tiles of 4 threads (6 slots): size, thread_rank,
// meta_group_rank, meta_group_size, reduce plus over int, ballot(p).
extern "C" __global__ void coalesced(const int *v, const int *sel, const int *p, const int *key,
                                     const float *f, unsigned *out)
{
    __shared__ int s[256];
    Out o(out);
    unsigned i = global_id();
    int x = v[i], pred = p[i], k = key[i];
    float y = f[i];
    if (sel[i]) {
        cg::coalesced_group g = cg::coalesced_threads();
        o.put(g.size());
        o.put(g.thread_rank());
        o.put(g.meta_group_rank());
        o.put(g.meta_group_size());
        o.put(g.ballot(pred));
        o.put(g.any(pred));
        o.put(g.all(pred));
        o.put(g.match_any(k));
        int all_pred;
        o.put(g.match_all(k, all_pred));
        o.put(all_pred);
        o.put(cg::reduce(g, x, cg::plus<int>()));
        o.put(cg::reduce(g, x, cg::greater<int>()));
        o.put(cg::reduce(g, x, cg::bit_xor<int>()));
        o.put(cg::reduce(g, y, cg::plus<float>()));
        o.put(cg::inclusive_scan(g, x, cg::plus<int>()));
        o.put(cg::exclusive_scan(g, x, cg::plus<int>()));
        o.put(cg::inclusive_scan(g, y, cg::plus<float>()));
        o.put(g.shfl(x, 0));
        // The warp's 32 words of shared memory, indexed by rank in the group.
        unsigned warp_base = threadIdx.x - threadIdx.x % 32;
        s[warp_base + g.thread_rank()] = x;
        g.sync();
        o.put(s[warp_base + (g.thread_rank() + 1) % g.size()]);
        g.sync();
        cg::coalesced_group t4 = cg::tiled_partition(g, 4);
        o.put(t4.size());
        o.put(t4.thread_rank());
        o.put(t4.meta_group_rank());
        o.put(t4.meta_group_size());
        o.put(cg::reduce(t4, x, cg::plus<int>()));
        o.put(t4.ballot(pred));
    }
}

// labeled_partition and binary_partition (5 slots each: size, thread_rank, meta_group_rank,
// meta_group_size, reduce plus over int): of a tile of 16 threads by `label`; of a tile of 32
// threads by `label`; of a tile of 8 threads by the predicate p (binary_partition); of a tile
// of 16 threads by p (labeled_partition with a bool label, also a binary partition); then,
// inside `if (sel)`, of the coalesced group by `label` (5 slots and an inclusive plus scan
// over float, 6 slots).
extern "C" __global__ void labeled(const int *v, const int *label, const int *p, const int *sel,
                                   const float *f, unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    unsigned i = global_id();
    int x = v[i], l = label[i];
    bool pred = p[i] != 0;
    auto part = [&](const cg::coalesced_group &g) {
        o.put(g.size());
        o.put(g.thread_rank());
        o.put(g.meta_group_rank());
        o.put(g.meta_group_size());
        o.put(cg::reduce(g, x, cg::plus<int>()));
    };
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    part(cg::labeled_partition(t16, l));
    part(cg::labeled_partition(t32, l));
    part(cg::binary_partition(t8, pred));
    part(cg::labeled_partition(t16, pred));
    if (sel[i]) {
        cg::coalesced_group g = cg::labeled_partition(cg::coalesced_threads(), l);
        part(g);
        o.put(cg::inclusive_scan(g, f[i], cg::plus<float>()));
    }
}

// The coalesced group's shuffles by rank, inside `if (sel)` (5 slots): shfl from rank src % size,
// shfl_up by 1 and 2, shfl_down by 1 and 3. For a group of fewer than 32 threads these find
// their source lane with __fns (the PTX `fns` instruction).
extern "C" __global__ void coalesced_shfl(const int *v, const int *sel, const int *src,
                                          unsigned *out)
{
    Out o(out);
    unsigned i = global_id();
    int x = v[i];
    if (sel[i]) {
        cg::coalesced_group g = cg::coalesced_threads();
        o.put(g.shfl(x, (unsigned)src[i] % g.size()));
        o.put(g.shfl_up(x, 1));
        o.put(g.shfl_up(x, 2));
        o.put(g.shfl_down(x, 1));
        o.put(g.shfl_down(x, 3));
    }
}
