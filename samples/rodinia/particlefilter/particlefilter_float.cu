// Rodinia 3.1 particlefilter, the "float" CUDA version (ex_particle_CUDA_float_seq.cu; despite
// the name, all of its particle state is double), written for warpsim. Everything after the
// upload of the video stays on the device: per video frame k = 1 .. Nfr-1 the host launches, on
// ceil(Nparticles / 512) blocks of 512 threads,
//
//   likelihood_kernel         moves each particle with the random-walk model (the device LCG
//                             and Box-Muller, per-particle seeds), computes its likelihood over
//                             the disk of countOnes pixels in frame k, weights it, and reduces
//                             the block's weights in shared memory into partial_sums[block];
//   sum_kernel                one thread adds the partial sums into partial_sums[0];
//   normalize_weights_kernel  divides the weights by the sum and sets the resampling
//                             thresholds u[i] = u1 + i / Nparticles;
//   find_index_kernel         the sequential CDF search of the naive version: xj, yj;
//
// and copies arrayX, arrayY and the weights back after the last frame.
//
// One change from Rodinia (see particlefilter.rs): Rodinia's normalize_weights_kernel has thread
// 0 of block 0 build the CDF from every particle's normalised weight and draw u1 from seed[0]
// while the other blocks are still normalising their weights and already reading u[0] - a race
// between blocks, so its CDF and thresholds depend on block scheduling. Here sum_kernel's single
// thread, which runs in the launch before, builds the CDF from weights[x] / sum (bit for bit the
// normalised weight) and draws u1 into u[0]; normalize_weights_kernel then only normalises and
// spreads u1 (block 0 rewriting u[0] with the same value u1 + 0).

#define INT_MAX 2147483647

#define PI 3.1415926535897932

const int threads_per_block = 512;

// The likelihood sum over the particle's disk: SUM((I - 100)^2 - (I - 228)^2) / 50.
__device__ double calcLikelihoodSum(unsigned char *I, int *ind, int numOnes, int index)
{
    double likelihoodSum = 0.0;
    int x;
    for (x = 0; x < numOnes; x++)
        likelihoodSum += (pow((double)(I[ind[index * numOnes + x]] - 100), 2) -
                          pow((double)(I[ind[index * numOnes + x]] - 228), 2)) / 50.0;
    return likelihoodSum;
}

// GCC's LCG on a per-particle seed: uniform in [0, 1).
__device__ double d_randu(int *seed, int index)
{
    int M = INT_MAX;
    int A = 1103515245;
    int C = 12345;
    int num = A * seed[index] + C;
    seed[index] = num % M;
    return fabs(seed[index] / ((double)M));
}

// Box-Muller: a standard normal from two uniforms.
__device__ double d_randn(int *seed, int index)
{
    double pi = 3.14159265358979323846;
    double u = d_randu(seed, index);
    double v = d_randu(seed, index);
    double cosine = cos(2 * pi * v);
    double rt = -2 * log(u);
    return sqrt(rt) * cosine;
}

// Rodinia's rounding, which truncates (the post-increment returns the old value).
__device__ double dev_round_double(double value)
{
    int newValue = (int)(value);
    if (value - newValue < .5f)
        return newValue;
    else
        return newValue++;
}

extern "C" __global__ void find_index_kernel(double *arrayX, double *arrayY, double *CDF,
                                             double *u, double *xj, double *yj,
                                             double *weights, int Nparticles)
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
    __syncthreads();
}

extern "C" __global__ void normalize_weights_kernel(double *weights, int Nparticles,
                                                    double *partial_sums, double *CDF,
                                                    double *u, int *seed)
{
    int block_id = blockIdx.x;
    int i = blockDim.x * block_id + threadIdx.x;
    __shared__ double u1, sumWeights;

    if (0 == threadIdx.x)
        sumWeights = partial_sums[0];

    __syncthreads();

    if (i < Nparticles) {
        weights[i] = weights[i] / sumWeights;
    }

    __syncthreads();

    // u[0] = u1 was written by sum_kernel (Rodinia draws it here, see the header)
    if (0 == threadIdx.x)
        u1 = u[0];

    __syncthreads();

    if (i < Nparticles) {
        u[i] = u1 + i / ((double)(Nparticles));
    }
}

extern "C" __global__ void sum_kernel(double *partial_sums, int Nparticles, double *weights,
                                      double *CDF, double *u, int *seed)
{
    int block_id = blockIdx.x;
    int i = blockDim.x * block_id + threadIdx.x;

    if (i == 0) {
        int x;
        double sum = 0.0;
        int num_blocks = ceil((double)Nparticles / (double)threads_per_block);
        for (x = 0; x < num_blocks; x++) {
            sum += partial_sums[x];
        }
        partial_sums[0] = sum;

        // Rodinia's cdfCalc and u1, moved here from normalize_weights_kernel (see the header)
        CDF[0] = weights[0] / sum;
        for (x = 1; x < Nparticles; x++) {
            CDF[x] = weights[x] / sum + CDF[x - 1];
        }
        u[0] = (1 / ((double)(Nparticles))) * d_randu(seed, 0);
    }
}

extern "C" __global__ void likelihood_kernel(double *arrayX, double *arrayY, double *xj,
                                             double *yj, double *CDF, int *ind, int *objxy,
                                             double *likelihood, unsigned char *I, double *u,
                                             double *weights, int Nparticles, int countOnes,
                                             int max_size, int k, int IszY, int Nfr, int *seed,
                                             double *partial_sums)
{
    int block_id = blockIdx.x;
    int i = blockDim.x * block_id + threadIdx.x;
    int y;

    int indX, indY;
    __shared__ double buffer[512];
    if (i < Nparticles) {
        arrayX[i] = xj[i];
        arrayY[i] = yj[i];

        weights[i] = 1 / ((double)(Nparticles));

        arrayX[i] = arrayX[i] + 1.0 + 5.0 * d_randn(seed, i);
        arrayY[i] = arrayY[i] - 2.0 + 2.0 * d_randn(seed, i);
    }

    __syncthreads();

    if (i < Nparticles) {
        for (y = 0; y < countOnes; y++) {
            indX = dev_round_double(arrayX[i]) + objxy[y * 2 + 1];
            indY = dev_round_double(arrayY[i]) + objxy[y * 2];

            ind[i * countOnes + y] = abs(indX * IszY * Nfr + indY * Nfr + k);
            if (ind[i * countOnes + y] >= max_size)
                ind[i * countOnes + y] = 0;
        }
        likelihood[i] = calcLikelihoodSum(I, ind, countOnes, i);

        likelihood[i] = likelihood[i] / countOnes;

        weights[i] = weights[i] * exp(likelihood[i]);
    }

    buffer[threadIdx.x] = 0.0;

    __syncthreads();

    if (i < Nparticles) {
        buffer[threadIdx.x] = weights[i];
    }

    __syncthreads();

    // the last, partial block adds the zeros of its idle threads
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            buffer[threadIdx.x] += buffer[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial_sums[blockIdx.x] = buffer[0];
    }

    __syncthreads();
}
