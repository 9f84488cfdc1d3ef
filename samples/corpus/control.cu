// Control flow: nested divergent branches, loops with break/continue,
// early return, a switch, non-inlined device functions (call/ret with
// parameters and return values, including a recursive one and a call
// through a function pointer), exit and trap.

__device__ __noinline__ int collatz_steps(unsigned n, int limit)
{
    int steps = 0;
    while (n != 1 && steps < limit) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        ++steps;
    }
    return steps;
}

__device__ __noinline__ float2 polar(float r, float theta)
{
    return make_float2(r * cosf(theta), r * sinf(theta));  // returns an aggregate
}

__device__ __noinline__ void store_pair(int *p, int a, long long b)
{
    p[0] = a;
    p[1] = (int)(b >> 32);
}

__device__ __noinline__ unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);           // recursion (stack frame)
}

extern "C" __global__ void branches_loops(const int *in, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;                                            // early return
    int v = in[t];
    int acc = 0;
    for (int k = 0; k < (v & 63); ++k) {                   // per-thread trip count
        if (k % 3 == 0)
            continue;                                      // continue
        if (acc > 1000)
            break;                                         // break
        if (k & 1) {
            if (v & 2)
                acc += k;
            else
                acc -= k;
        } else {
            acc ^= k * v;
        }
    }
    int j = 0;
    do {                                                   // do/while
        acc += j;
        j += (v & 3) + 1;
    } while (j < 16);
    switch (v & 7) {                                       // switch
    case 0: acc += 10; break;
    case 1: acc *= 3; break;
    case 2: acc -= 7; break;
    case 3: acc ^= 0x55; break;
    case 5: acc = -acc; break;
    default: acc += v; break;
    }
    out[t] = acc;
}

extern "C" __global__ void calls(const unsigned *in, int *out, float *outf)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[t];
    int steps = collatz_steps(v | 1, 200);                 // call.uni (retval0), ..., (param0, param1)
    float2 p = polar((float)steps, (float)v * 0.01f);
    store_pair(out + 2 * t, steps, (long long)v << 40);
    outf[2 * t] = p.x;
    outf[2 * t + 1] = p.y;
    if (v < 20)
        out[2 * t] += (int)fib(v);                         // call inside a divergent branch
}

typedef int (*binop_t)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }

extern "C" __global__ void indirect_call(const int *in, int *out)
{
    int t = threadIdx.x;
    binop_t ops[3] = {op_add, op_mul, op_max};
    binop_t f = ops[in[t] % 3 < 0 ? 0 : in[t] % 3];
    out[t] = f(in[t], t);                                  // call through a register + .callprototype
}

extern "C" __global__ void exit_trap(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[t];
    if (v < 0)
        asm volatile("exit;");                             // this thread stops here
    if (v == 0x7fffffff)
        __trap();                                          // trap: aborts the kernel
    out[t] = v * 2;
}

// Branches written in PTX: a negated-predicate branch (@!p bra; NVRTC
// always inverts the comparison instead) and a predicated bra.uni.  The
// labels live inside the asm block's { } scope.
extern "C" __global__ void ptx_branches(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[t], r = 0;
    asm volatile("{\n\t.reg .pred p, u;\n\t"
                 "setp.gt.s32 p, %1, 0;\n\t"
                 "@!p bra NEG_OR_ZERO;\n\t"
                 "add.s32 %0, %1, 100;\n\t"
                 "bra.uni JOIN;\n\t"
                 "NEG_OR_ZERO:\n\t"
                 "sub.s32 %0, 0, %1;\n\t"
                 "JOIN:\n\t"
                 "setp.ne.s32 u, %2, 0;\n\t"       // same value in every lane
                 "@u bra.uni DONE;\n\t"
                 "add.s32 %0, %0, 1;\n\t"
                 "DONE:\n\t}"
                 : "+r"(r) : "r"(v), "r"(in[0]));
    out[t] = r;
}
