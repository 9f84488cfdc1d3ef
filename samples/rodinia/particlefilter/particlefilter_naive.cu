// Rodinia 3.1 particlefilter, the "naive" CUDA version (ex_particle_CUDA_naive_seq.cu), written
// for warpsim. The host runs the whole particle filter (motion model, likelihoods, weights, CDF
// and the resampling thresholds u) and offloads only the resampling search: per video frame it
// copies arrayX, arrayY, xj, yj, CDF and u to the device, launches `kernel` on
// ceil(Nparticles / 128) blocks of 128 threads, and copies xj and yj back.
//
// Each thread takes one particle i and scans the CDF sequentially for the first entry >= u[i]
// (the last particle when none is), then copies that particle's position to xj[i], yj[i].

extern "C" __global__ void kernel(double *arrayX, double *arrayY, double *CDF, double *u,
                                  double *xj, double *yj, int Nparticles)
{
    int block_id = blockIdx.x;
    int i = blockDim.x * block_id + threadIdx.x;

    if (i < Nparticles) {
        int index = -1;
        int x;
        for (x = 0; x < Nparticles; x++) {
            if (CDF[x] >= u[i]) {
                index = x;
                break;
            }
        }
        if (index == -1) {
            index = Nparticles - 1;
        }
        xj[i] = arrayX[index];
        yj[i] = arrayY[index];
    }
}
