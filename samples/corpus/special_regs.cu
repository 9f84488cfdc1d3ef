// Special registers: %tid/%ntid/%ctaid/%nctaid (.x/.y/.z), %laneid,
// %warpid, %nwarpid, %smid, %nsmid, %gridid, %clock, %clock_hi, %clock64,
// %globaltimer and the %lanemask_{eq,le,lt,ge,gt} masks.

extern "C" __global__ void geometry(unsigned *out)
{
    unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
    unsigned linear_block = (bz * gridDim.y + by) * gridDim.x + bx;
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned linear_thread = (tz * blockDim.y + ty) * blockDim.x + tx;
    unsigned gid = linear_block * threads + linear_thread;
    unsigned *o = out + 12 * gid;
    o[0] = tx;  o[1] = ty;  o[2] = tz;
    o[3] = blockDim.x;  o[4] = blockDim.y;  o[5] = blockDim.z;
    o[6] = bx;  o[7] = by;  o[8] = bz;
    o[9] = gridDim.x;  o[10] = gridDim.y;  o[11] = gridDim.z;
}

extern "C" __global__ void hardware_ids(unsigned *out, unsigned long long *out64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane, warp, nwarp, sm, nsm;
    unsigned eq, le, lt, ge, gt;
    unsigned long long grid, gtimer;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(nwarp));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
    asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gtimer));
    unsigned *o = out + 12 * gid;
    o[0] = lane;  o[1] = warp;  o[2] = nwarp;  o[3] = sm;  o[4] = nsm;
    o[5] = eq;  o[6] = le;  o[7] = lt;  o[8] = ge;  o[9] = gt;
    out64[2 * gid] = grid;
    out64[2 * gid + 1] = gtimer;
}

extern "C" __global__ void timing(const float *in, float *out, long long *cycles)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    clock_t c0 = clock();                     // clock_t is 64-bit: mov.u64 %rd, %clock64
    long long c1 = clock64();                 // mov.u64 %rd, %clock64
    float v = in[t];
    for (int k = 0; k < 16; ++k)
        v = v * 1.0001f + 0.5f;
    out[t] = v;
    long long c2 = clock64();
    unsigned c3, c4;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(c4));     // 32-bit counter
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(c3));  // upper half of %clock64
    c3 += c4;
    cycles[2 * t] = (long long)(clock() - c0);
    cycles[2 * t + 1] = c2 - c1 + c3;
}
