// Module-scope variables: __constant__ and __device__ scalars and arrays
// with initializers (.const / .global with = {...}), a device-side lookup
// table, a struct-typed constant, a pointer-valued global initialised with
// the address of another global (generic(...) initializer), and
// uninitialised device state updated by the kernel.

struct Coeffs {
    float gain;
    int shift;
    double offset;
};

__constant__ float c_weights[8] = {0.5f, 0.25f, 0.125f, 0.0625f, -1.0f, 2.0f, 3.5f, 1e-3f};
__constant__ int c_scale = 3;
__constant__ Coeffs c_coeffs = {1.5f, 2, -0.75};
__constant__ double c_dtable[4] = {1.0, -2.5, 3.25e10, 0.0};
__constant__ unsigned char c_bytes[5] = {1, 2, 3, 250, 255};

__device__ int d_counter = 0;
__device__ unsigned long long d_seed = 0x9e3779b97f4a7c15ull;
__device__ float d_state[32];                   // zero-initialised .global
__device__ const unsigned short d_crc_nibble[16] = {
    0x0000, 0x1081, 0x2102, 0x3183, 0x4204, 0x5285, 0x6306, 0x7387,
    0x8408, 0x9489, 0xa50a, 0xb58b, 0xc60c, 0xd68d, 0xe70e, 0xf78f,
};
__device__ int d_squares[10] = {0, 1, 4, 9, 16, 25, 36, 49, 64, 81};
__device__ int *d_table_ptr = d_squares;        // address of another global
__device__ short d_halfway[3] = {-1, 0};        // partially initialised

// CRC-16 over bytes with a 4-bit table in device memory.
__device__ unsigned short crc16_nibbles(const unsigned char *p, int n)
{
    unsigned short crc = 0xffff;
    for (int k = 0; k < n; ++k) {
        crc = (crc >> 4) ^ d_crc_nibble[(crc ^ p[k]) & 0xf];
        crc = (crc >> 4) ^ d_crc_nibble[(crc ^ (p[k] >> 4)) & 0xf];
    }
    return crc;
}

extern "C" __global__ void use_globals(const float *in, float *out, unsigned *crc,
                                       const unsigned char *bytes, int nbytes)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[t];
    float acc = 0.0f;
    for (int k = 0; k < 8; ++k)
        acc += c_weights[k] * x;               // ld.const.f32 (unrolled, constant offsets)
    acc *= c_weights[t & 7];                   // ld.const.f32 with a register index
    acc = acc * c_coeffs.gain + (float)c_coeffs.offset;
    acc += (float)(c_dtable[t & 3] * c_scale) + c_bytes[t % 5];
    acc += (float)(d_table_ptr[t % 10] + d_squares[(t + 1) % 10] + d_halfway[t % 3]);
    out[t] = acc;
    d_state[t & 31] = acc;                     // st.global.f32 to a module variable
    atomicAdd(&d_counter, 1);
    if (t == 0) {
        d_seed = d_seed * 6364136223846793005ull + 1442695040888963407ull;
        crc[0] = crc16_nibbles(bytes, nbytes);
    }
}
