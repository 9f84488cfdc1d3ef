// nvrtc-flags: --gpu-architecture=compute_80
//
// Cooperative groups on thread-block tiles: cg::tiled_partition<1, 2, 4, 8, 16, 32> of the
// block (and a tile of a tile), the dynamic cg::tiled_partition(block, n), and on each tile
// cg::reduce, cg::inclusive_scan / cg::exclusive_scan, any / all / ballot, match_any /
// match_all, shfl / shfl_up / shfl_down / shfl_xor, thread_rank / meta_group_rank and sync.
// For compute_80, cg::reduce of 32-bit integers on tiles of 16 and 32 threads is
// `redux.sync` with the tile's member mask; smaller tiles and floats reduce through
// `shfl.sync`; votes are `vote.sync.ballot` and matches `match.sync` with the tile's mask.
// Every result is checked exactly against a host model of the CUDA programming guide's
// semantics by samples/tests/integration/cg_corpus.rs.
//
// Every kernel writes its results slot-major: slot k of thread t (of n = gridDim.x *
// blockDim.x) at out[k * n + t], 32 bits each (floats and doubles by their bits), in the
// order the kernel's comment lists.
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
    __device__ void put(double v)
    {
        unsigned long long b = __double_as_longlong(v);
        put((unsigned)b);
        put((unsigned)(b >> 32));
    }
};

__device__ unsigned global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Twelve slots: plus, less, greater, bit_and, bit_or, bit_xor over int, then the same over
// unsigned. `and_in` has few bits clear, so a tile's bitwise and depends on which lanes take
// part; bitwise or reduces its complement.
template <unsigned S>
__device__ void reduce_ints(const cg::thread_block &block, int v, unsigned and_in, Out &o)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    unsigned u = (unsigned)v;
    o.put(cg::reduce(tile, v, cg::plus<int>()));
    o.put(cg::reduce(tile, v, cg::less<int>()));
    o.put(cg::reduce(tile, v, cg::greater<int>()));
    o.put(cg::reduce(tile, (int)and_in, cg::bit_and<int>()));
    o.put(cg::reduce(tile, (int)~and_in, cg::bit_or<int>()));
    o.put(cg::reduce(tile, v, cg::bit_xor<int>()));
    o.put(cg::reduce(tile, u, cg::plus<unsigned>()));
    o.put(cg::reduce(tile, u, cg::less<unsigned>()));
    o.put(cg::reduce(tile, u, cg::greater<unsigned>()));
    o.put(cg::reduce(tile, and_in, cg::bit_and<unsigned>()));
    o.put(cg::reduce(tile, ~and_in, cg::bit_or<unsigned>()));
    o.put(cg::reduce(tile, u, cg::bit_xor<unsigned>()));
}

// Integer reductions on tiles of 1, 2, 4, 8, 16 and 32 threads: 12 slots per size, sizes in
// that order (72 slots).
extern "C" __global__ void tile_reduce_int(const int *v, const unsigned *and_in, unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    int x = v[global_id()];
    unsigned a = and_in[global_id()];
    reduce_ints<1>(block, x, a, o);
    reduce_ints<2>(block, x, a, o);
    reduce_ints<4>(block, x, a, o);
    reduce_ints<8>(block, x, a, o);
    reduce_ints<16>(block, x, a, o);
    reduce_ints<32>(block, x, a, o);
}

// Five slots: float plus, less, greater; double plus (two slots, low word first).
template <unsigned S>
__device__ void reduce_floats(const cg::thread_block &block, float f, Out &o)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    o.put(cg::reduce(tile, f, cg::plus<float>()));
    o.put(cg::reduce(tile, f, cg::less<float>()));
    o.put(cg::reduce(tile, f, cg::greater<float>()));
    o.put(cg::reduce(tile, (double)f, cg::plus<double>()));
}

// Floating-point reductions (shuffles on every architecture) on tiles of 1 ... 32 threads:
// 5 slots per size (30 slots). The inputs are small multiples of 1/4, so every sum is exact
// in any order.
extern "C" __global__ void tile_reduce_float(const float *f, unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    float x = f[global_id()];
    reduce_floats<1>(block, x, o);
    reduce_floats<2>(block, x, o);
    reduce_floats<4>(block, x, o);
    reduce_floats<8>(block, x, o);
    reduce_floats<16>(block, x, o);
    reduce_floats<32>(block, x, o);
}

// Seven slots: inclusive and exclusive plus over int, inclusive greater (running maximum)
// over int, exclusive bit_or over unsigned, inclusive plus over unsigned (the two-argument
// form), inclusive plus over float, exclusive less (running minimum) over float.
template <unsigned S>
__device__ void scans(const cg::thread_block &block, int v, unsigned bits, float f, Out &o)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    o.put(cg::inclusive_scan(tile, v, cg::plus<int>()));
    o.put(cg::exclusive_scan(tile, v, cg::plus<int>()));
    o.put(cg::inclusive_scan(tile, v, cg::greater<int>()));
    o.put(cg::exclusive_scan(tile, bits, cg::bit_or<unsigned>()));
    o.put(cg::inclusive_scan(tile, (unsigned)v));
    o.put(cg::inclusive_scan(tile, f, cg::plus<float>()));
    o.put(cg::exclusive_scan(tile, f, cg::less<float>()));
}

// Scans on tiles of 1 ... 32 threads: 7 slots per size (42 slots). `bits` is one set bit per
// thread.
extern "C" __global__ void tile_scan(const int *v, const unsigned *bits, const float *f,
                                     unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    unsigned i = global_id();
    scans<1>(block, v[i], bits[i], f[i], o);
    scans<2>(block, v[i], bits[i], f[i], o);
    scans<4>(block, v[i], bits[i], f[i], o);
    scans<8>(block, v[i], bits[i], f[i], o);
    scans<16>(block, v[i], bits[i], f[i], o);
    scans<32>(block, v[i], bits[i], f[i], o);
}

// Seven slots: any, all, ballot of the predicate; match_any of the key; match_all of the key
// and its predicate; match_any of a 64-bit key whose words split the 32-bit key (the low bit
// in the high word), so lanes agree in one word and differ in the other.
template <unsigned S>
__device__ void votes(const cg::thread_block &block, int pred, int key, Out &o)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    o.put(tile.any(pred));
    o.put(tile.all(pred));
    o.put(tile.ballot(pred));
    o.put(tile.match_any(key));
    int all_pred;
    unsigned all = tile.match_all(key, all_pred);
    o.put(all);
    o.put(all_pred);
    long long key64 = ((long long)(key & 1) << 32) | (unsigned)(key >> 1);
    o.put(tile.match_any(key64));
}

// Votes and matches on tiles of 1 ... 32 threads: 7 slots per size (42 slots). The
// predicate and key of size k (0 for 1 thread ... 5 for 32) are pred[k * n + t] and
// key[k * n + t].
extern "C" __global__ void tile_vote(const int *pred, const int *key, unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    unsigned i = global_id(), n = o.n;
    votes<1>(block, pred[i], key[i], o);
    votes<2>(block, pred[n + i], key[n + i], o);
    votes<4>(block, pred[2 * n + i], key[2 * n + i], o);
    votes<8>(block, pred[3 * n + i], key[3 * n + i], o);
    votes<16>(block, pred[4 * n + i], key[4 * n + i], o);
    votes<32>(block, pred[5 * n + i], key[5 * n + i], o);
}

// Ten slots: shfl from rank src (in [0, S)), shfl_up by 1 and 3, shfl_down by 1 and 3,
// shfl_xor by 1 and S - 1 (0 for a tile of one thread: the only lane mask inside it), a float
// shfl_xor by S / 2, and a 64-bit shfl_down by 2 (two slots, low word first).
template <unsigned S>
__device__ void shuffles(const cg::thread_block &block, int v, int src, Out &o)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    constexpr unsigned one = S > 1 ? 1 : 0;
    o.put(tile.shfl(v, src));
    o.put(tile.shfl_up(v, 1));
    o.put(tile.shfl_up(v, 3));
    o.put(tile.shfl_down(v, 1));
    o.put(tile.shfl_down(v, 3));
    o.put(tile.shfl_xor(v, one));
    o.put(tile.shfl_xor(v, S - 1));
    o.put(tile.shfl_xor((float)v * 0.5f, S / 2));
    unsigned long long w = ((unsigned long long)(unsigned)v << 32) | (unsigned)~v;
    unsigned long long d = tile.shfl_down(w, 2);
    o.put((unsigned)d);
    o.put((unsigned)(d >> 32));
}

// Shuffles on tiles of 1 ... 32 threads: 10 slots per size (60 slots). The source rank of
// size k is src[k * n + t].
extern "C" __global__ void tile_shfl(const int *v, const int *src, unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    unsigned i = global_id(), n = o.n;
    shuffles<1>(block, v[i], src[i], o);
    shuffles<2>(block, v[i], src[n + i], o);
    shuffles<4>(block, v[i], src[2 * n + i], o);
    shuffles<8>(block, v[i], src[3 * n + i], o);
    shuffles<16>(block, v[i], src[4 * n + i], o);
    shuffles<32>(block, v[i], src[5 * n + i], o);
}

// Five slots: thread_rank, size, meta_group_rank, meta_group_size, and the value of the next
// rank of the tile (cyclically), exchanged through shared memory between two tile.sync().
template <unsigned S>
__device__ void ranks_and_sync(const cg::thread_block &block, int v, int *s, Out &o)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    o.put(tile.thread_rank());
    o.put(tile.size());
    o.put(tile.meta_group_rank());
    o.put(tile.meta_group_size());
    unsigned me = block.thread_rank();
    unsigned base = me - tile.thread_rank();
    s[me] = v;
    tile.sync();
    o.put(s[base + (tile.thread_rank() + 1) % S]);
    tile.sync();
}

// Tile geometry and tile.sync() on tiles of 1 ... 32 threads (5 slots per size, 30 slots),
// then a tile of 4 threads of a tile of 16 (6 slots: thread_rank, meta_group_rank,
// meta_group_size, reduce plus over int, ballot of v < 0, shfl_down by 1). Blocks of at most
// 256 threads, a multiple of 32.
extern "C" __global__ void tile_sync(const int *v, unsigned *out)
{
    __shared__ int s[256];
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    int x = v[global_id()];
    ranks_and_sync<1>(block, x, s, o);
    ranks_and_sync<2>(block, x, s, o);
    ranks_and_sync<4>(block, x, s, o);
    ranks_and_sync<8>(block, x, s, o);
    ranks_and_sync<16>(block, x, s, o);
    ranks_and_sync<32>(block, x, s, o);
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    auto t4 = cg::tiled_partition<4>(t16);
    o.put(t4.thread_rank());
    o.put(t4.meta_group_rank());
    o.put(t4.meta_group_size());
    o.put(cg::reduce(t4, x, cg::plus<int>()));
    o.put(t4.ballot(x < 0));
    o.put(t4.shfl_down(x, 1));
}

// Tiles of which only some are active: tile k of size 4, 8 and 16 takes part when bit k % 32
// of `active` is set (4 slots per size, 12 slots): reduce plus over int, ballot of v < 0,
// all(v < 0), match_any(v & 3). Threads of other tiles write nothing (the host's fill stays).
template <unsigned S>
__device__ void some_tiles(const cg::thread_block &block, int v, unsigned active, Out &o)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    unsigned k = global_id() / S;
    if (active >> (k % 32) & 1) {
        o.put(cg::reduce(tile, v, cg::plus<int>()));
        o.put(tile.ballot(v < 0));
        o.put(tile.all(v < 0));
        o.put(tile.match_any(v & 3));
    } else {
        o.slot += 4;
    }
}

extern "C" __global__ void tile_divergent(const int *v, unsigned active, unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    int x = v[global_id()];
    some_tiles<4>(block, x, active, o);
    some_tiles<8>(block, x, active, o);
    some_tiles<16>(block, x, active, o);
}

// The dynamic cg::tiled_partition(block, n), a thread_group (n a power of two up to 32, any
// block size up to 256, so the block's last tile may be short): 3 slots: thread_rank, size,
// and the value of the next rank of the tile (cyclically), exchanged through shared memory
// between two tile.sync().
extern "C" __global__ void dynamic_tiles(const int *v, unsigned n, unsigned *out)
{
    __shared__ int s[256];
    cg::thread_block block = cg::this_thread_block();
    Out o(out);
    cg::thread_group tile = cg::tiled_partition(block, n);
    unsigned rank = (unsigned)tile.thread_rank();
    unsigned size = (unsigned)tile.size();
    o.put(rank);
    o.put(size);
    unsigned me = block.thread_rank();
    s[me] = v[global_id()];
    tile.sync();
    o.put(s[me - rank + (rank + 1) % size]);
    tile.sync();
}
