// Holdout kernel: integer ALU bound: 12 rounds of a multiply-xor-shift mix per element
// (mul.lo, mul.hi, shifts, xors), written as 32-bit hashes.
extern "C" __global__ void int_hash(const unsigned* in, unsigned* out, int n, unsigned seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = in[i] ^ seed;
    for (int r = 0; r < 12; ++r) {
        h ^= h >> 16;
        h *= 0x85ebca6bu;
        h ^= __umulhi(h, 0xc2b2ae35u);
        h += (unsigned)r * 0x9e3779b9u;
    }
    out[i] = h;
}
