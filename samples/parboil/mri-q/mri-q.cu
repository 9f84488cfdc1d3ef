// Parboil mri-q (the `cuda` version), written for warpsim.
//
// The Q matrix of non-Cartesian MRI reconstruction: for every voxel x,
//   Q(x) = sum_k |phi(k)|^2 * exp(i 2 pi k.x),
// computed in two kernels, as in Parboil:
//  - ComputePhiMag_GPU: |phi(k)|^2 = phiR^2 + phiI^2 for every trajectory sample k
//    (512 threads per CTA);
//  - ComputeQ_GPU: one thread per voxel (256 per CTA) accumulates Qr and Qi over a tile of
//    KERNEL_Q_K_ELEMS_PER_GRID = 1024 samples held in constant memory (ck); the host copies
//    tile after tile into ck and launches once per tile, each launch adding to Qr and Qi.
//    The loop is unrolled by two; with an odd sample count the first sample is taken alone
//    (as in Parboil, which is therefore only correct for odd counts of up to one tile).
//
// Parboil uses the fast intrinsics __sinf and __cosf (sin.approx.f32 / cos.approx.f32), and so
// does this port.

#define PIx2 6.2831853071795864769252867665590058f
#define KERNEL_PHI_MAG_THREADS_PER_BLOCK 512
#define KERNEL_Q_THREADS_PER_BLOCK 256
#define KERNEL_Q_K_ELEMS_PER_GRID 1024

struct kValues {
    float Kx;
    float Ky;
    float Kz;
    float PhiMag;
};

__constant__ kValues ck[KERNEL_Q_K_ELEMS_PER_GRID];

extern "C" __global__ void ComputePhiMag_GPU(const float *phiR, const float *phiI,
                                             float *phiMag, int numK)
{
    int k = blockIdx.x * KERNEL_PHI_MAG_THREADS_PER_BLOCK + threadIdx.x;
    if (k < numK) {
        float re = phiR[k];
        float im = phiI[k];
        phiMag[k] = re * re + im * im;
    }
}

// Adds sample `s` of the tile to (qr, qi) for the voxel at (x, y, z).
__device__ void accumulate(int s, float x, float y, float z, float &qr, float &qi)
{
    float arg = PIx2 * (ck[s].Kx * x + ck[s].Ky * y + ck[s].Kz * z);
    qr += ck[s].PhiMag * __cosf(arg);
    qi += ck[s].PhiMag * __sinf(arg);
}

extern "C" __global__ void ComputeQ_GPU(int numK, int kGlobalIndex, const float *x,
                                        const float *y, const float *z, float *Qr, float *Qi)
{
    int v = blockIdx.x * KERNEL_Q_THREADS_PER_BLOCK + threadIdx.x;
    float vx = x[v], vy = y[v], vz = z[v];
    float qr = Qr[v], qi = Qi[v];

    int s = 0;
    if (numK % 2) {
        accumulate(0, vx, vy, vz, qr, qi);
        s++;
        kGlobalIndex++;
    }
    for (; s < KERNEL_Q_K_ELEMS_PER_GRID && kGlobalIndex < numK; s += 2, kGlobalIndex += 2) {
        accumulate(s, vx, vy, vz, qr, qi);
        accumulate(s + 1, vx, vy, vz, qr, qi);
    }

    Qr[v] = qr;
    Qi[v] = qi;
}
