// Packed-integer dot products (sm_61): __dp4a and __dp2a_lo/__dp2a_hi in their signed and
// unsigned forms. samples/tests/integration/dot_corpus.rs checks every output exactly.
extern "C" __global__ void dot_products(const int *a, const int *b, const int *c, int *out,
                                        int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[4 * i] = __dp4a(a[i], b[i], c[i]);
    out[4 * i + 1] = (int)__dp4a((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
    out[4 * i + 2] = __dp2a_lo(a[i], b[i], c[i]);
    out[4 * i + 3] = (int)__dp2a_hi((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
}
