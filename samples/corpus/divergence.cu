// SIMT divergence stress: nested if/else inside loops whose trip counts
// differ per thread, so lanes of one warp leave loops at different
// iterations and take different sides of branches that reconverge at
// several nesting levels.  Results are deterministic and easy to compute
// on the host: see the comments for the per-lane values.

extern "C" __global__ void nested_divergence(const int *trip, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int n = trip[t];                        // per-thread outer trip count
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        if ((i + lane) & 1) {               // level 1: alternates per lane and iteration
            if (lane < 16) {                // level 2: half-warp split
                acc += i;
            } else {
                for (int j = 0; j <= (lane & 3); ++j)   // inner loop, per-lane count
                    acc += j * i;
            }
        } else {
            if (i % 3 == 0) {               // level 2 on the other side
                acc -= 1;
                if (lane & 4)               // level 3
                    acc *= 2;
            } else {
                acc ^= lane;
            }
        }
        if (acc > 1 << 20)                  // data-dependent early exit from the loop
            break;
    }
    out[t] = acc;
}

// Divergent while loop with a per-lane exit and a warp-uniform outer loop.
extern "C" __global__ void divergent_while(const unsigned *seed, unsigned *out, int rounds)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = seed[t];
    unsigned total = 0;
    for (int r = 0; r < rounds; ++r) {       // uniform trip count
        unsigned steps = 0;
        while (x > 1 && steps < 64) {        // divergent: depends on x
            x = (x & 1) ? x * 3 + 1 : x >> 1;
            ++steps;
        }
        total += steps;
        x = seed[t] + (unsigned)r * 7919u;
    }
    out[t] = total;
}

// Divergent branches that each contain a warp-synchronous operation with a
// member mask computed from the branch condition.
extern "C" __global__ void divergent_vote(const int *in, unsigned *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unsigned mask = __ballot_sync(0xffffffffu, v > 0);
    unsigned r;
    if (v > 0)
        r = __popc(__ballot_sync(mask, v & 1));
    else
        r = __popc(__ballot_sync(~mask, v & 2)) + 100;
    out[t] = r;
}
