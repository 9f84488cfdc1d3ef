// Rodinia 3.1 srad_v1 (Speckle Reducing Anisotropic Diffusion, the "v1" CUDA version), written
// for warpsim. One thread per pixel, 512 threads per block, a 1-D grid of ceil(Ne / 512) blocks;
// the image is stored column-major (element ei = row + Nr * col) as in Rodinia.
//
// Host sequence (as in Rodinia's main.cu): extract once; then per iteration prepare, reduce
// (launched repeatedly by the host on a shrinking grid until one block remains), a copy of the
// two totals to the host, which computes q0sqr, srad and srad2; finally compress.
//
// The reduce kernel keeps Rodinia's behaviour exactly, including its remainder loop in the last,
// partially filled block, which indexes d_sums[i] without the d_mul stride: from the second
// reduction stage on, it adds raw per-pixel values from the first stage instead of the block
// sums it means to add. The CPU reference reproduces the same arithmetic.

#define fp float
#define NUMBER_THREADS 512

// I = exp(I / 255): the 0..255 image to the [1, e] range.
extern "C" __global__ void extract(long d_Ne, fp *d_I)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int ei = (bx * NUMBER_THREADS) + tx;
    if (ei < d_Ne) {
        d_I[ei] = exp(d_I[ei] / 255);
    }
}

// The values and squares to be summed for the image statistics.
extern "C" __global__ void prepare(long d_Ne, fp *d_I, fp *d_sums, fp *d_sums2)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int ei = (bx * NUMBER_THREADS) + tx;
    if (ei < d_Ne) {
        d_sums[ei] = d_I[ei];
        d_sums2[ei] = d_I[ei] * d_I[ei];
    }
}

// One stage of the sum: each block adds up to 512 of the d_no values spaced d_mul apart and
// stores its sum at the position of its first value (index bx * d_mul * 512).
extern "C" __global__ void reduce(long d_Ne, int d_no, int d_mul, fp *d_sums, fp *d_sums2)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int ei = (bx * NUMBER_THREADS) + tx;
    // values held by the last block
    int nf = NUMBER_THREADS - (gridDim.x * NUMBER_THREADS - d_no);
    // largest power of two not above nf (the part of the last block reduced as a tree)
    int df = 0;

    __shared__ fp d_psum[NUMBER_THREADS];
    __shared__ fp d_psum2[NUMBER_THREADS];

    int i;

    if (ei < d_no) {
        d_psum[tx] = d_sums[ei * d_mul];
        d_psum2[tx] = d_sums2[ei * d_mul];
    }
    __syncthreads();

    if (nf == NUMBER_THREADS) {
        // every block is full: pairwise tree, the sum ends in the last thread
        for (i = 2; i <= NUMBER_THREADS; i = 2 * i) {
            if ((tx + 1) % i == 0) {
                d_psum[tx] = d_psum[tx] + d_psum[tx - i / 2];
                d_psum2[tx] = d_psum2[tx] + d_psum2[tx - i / 2];
            }
            __syncthreads();
        }
        if (tx == (NUMBER_THREADS - 1)) {
            d_sums[bx * d_mul * NUMBER_THREADS] = d_psum[tx];
            d_sums2[bx * d_mul * NUMBER_THREADS] = d_psum2[tx];
        }
    } else {
        if (bx != (gridDim.x - 1)) {
            // full blocks
            for (i = 2; i <= NUMBER_THREADS; i = 2 * i) {
                if ((tx + 1) % i == 0) {
                    d_psum[tx] = d_psum[tx] + d_psum[tx - i / 2];
                    d_psum2[tx] = d_psum2[tx] + d_psum2[tx - i / 2];
                }
                __syncthreads();
            }
            if (tx == (NUMBER_THREADS - 1)) {
                d_sums[bx * d_mul * NUMBER_THREADS] = d_psum[tx];
                d_sums2[bx * d_mul * NUMBER_THREADS] = d_psum2[tx];
            }
        } else {
            // the last, partial block: a tree over the first df values ...
            for (i = 2; i <= NUMBER_THREADS; i = 2 * i) {
                if (nf >= i) {
                    df = i;
                }
            }
            for (i = 2; i <= df; i = 2 * i) {
                if ((tx + 1) % i == 0 && tx < df) {
                    d_psum[tx] = d_psum[tx] + d_psum[tx - i / 2];
                    d_psum2[tx] = d_psum2[tx] + d_psum2[tx - i / 2];
                }
                __syncthreads();
            }
            // ... then the rest added one by one by the thread holding the tree's sum
            // (Rodinia's indexing: no d_mul stride here)
            if (tx == (df - 1)) {
                for (i = (bx * NUMBER_THREADS) + df; i < (bx * NUMBER_THREADS) + nf; i++) {
                    d_psum[tx] = d_psum[tx] + d_sums[i];
                    d_psum2[tx] = d_psum2[tx] + d_sums2[i];
                }
                d_sums[bx * d_mul * NUMBER_THREADS] = d_psum[tx];
                d_sums2[bx * d_mul * NUMBER_THREADS] = d_psum2[tx];
            }
        }
    }
}

// Directional derivatives and the saturated diffusion coefficient of every pixel. The
// neighbours' rows and columns come from the clamped index tables d_iN, d_iS, d_jE, d_jW.
extern "C" __global__ void srad(fp d_lambda, int d_Nr, int d_Nc, long d_Ne, int *d_iN, int *d_iS,
                                int *d_jE, int *d_jW, fp *d_dN, fp *d_dS, fp *d_dE, fp *d_dW,
                                fp d_q0sqr, fp *d_c, fp *d_I)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int ei = bx * NUMBER_THREADS + tx;
    int row, col;

    fp d_Jc;
    fp d_dN_loc, d_dS_loc, d_dW_loc, d_dE_loc;
    fp d_c_loc;
    fp d_G2, d_L, d_num, d_den, d_qsqr;

    // position of element ei in the column-major image
    row = (ei + 1) % d_Nr - 1;
    col = (ei + 1) / d_Nr + 1 - 1;
    if ((ei + 1) % d_Nr == 0) {
        row = d_Nr - 1;
        col = col - 1;
    }

    if (ei < d_Ne) {
        d_Jc = d_I[ei];

        d_dN_loc = d_I[d_iN[row] + d_Nr * col] - d_Jc;
        d_dS_loc = d_I[d_iS[row] + d_Nr * col] - d_Jc;
        d_dW_loc = d_I[row + d_Nr * d_jW[col]] - d_Jc;
        d_dE_loc = d_I[row + d_Nr * d_jE[col]] - d_Jc;

        // normalized gradient magnitude squared and Laplacian
        d_G2 = (d_dN_loc * d_dN_loc + d_dS_loc * d_dS_loc + d_dW_loc * d_dW_loc +
                d_dE_loc * d_dE_loc) / (d_Jc * d_Jc);
        d_L = (d_dN_loc + d_dS_loc + d_dW_loc + d_dE_loc) / d_Jc;

        // instantaneous coefficient of variation (double constants, as in Rodinia)
        d_num = (0.5 * d_G2) - ((1.0 / 16.0) * (d_L * d_L));
        d_den = 1 + (0.25 * d_L);
        d_qsqr = d_num / (d_den * d_den);

        // diffusion coefficient, saturated to [0, 1]
        d_den = (d_qsqr - d_q0sqr) / (d_q0sqr * (1 + d_q0sqr));
        d_c_loc = 1.0 / (1.0 + d_den);
        if (d_c_loc < 0) {
            d_c_loc = 0;
        } else if (d_c_loc > 1) {
            d_c_loc = 1;
        }

        d_dN[ei] = d_dN_loc;
        d_dS[ei] = d_dS_loc;
        d_dW[ei] = d_dW_loc;
        d_dE[ei] = d_dE_loc;
        d_c[ei] = d_c_loc;
    }
}

// Divergence and image update.
extern "C" __global__ void srad2(fp d_lambda, int d_Nr, int d_Nc, long d_Ne, int *d_iN, int *d_iS,
                                 int *d_jE, int *d_jW, fp *d_dN, fp *d_dS, fp *d_dE, fp *d_dW,
                                 fp *d_c, fp *d_I)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int ei = bx * NUMBER_THREADS + tx;
    int row, col;

    fp d_cN, d_cS, d_cW, d_cE;
    fp d_D;

    row = (ei + 1) % d_Nr - 1;
    col = (ei + 1) / d_Nr + 1 - 1;
    if ((ei + 1) % d_Nr == 0) {
        row = d_Nr - 1;
        col = col - 1;
    }

    if (ei < d_Ne) {
        // north and west coefficients are the pixel's own, south and east the neighbours'
        d_cN = d_c[ei];
        d_cS = d_c[d_iS[row] + d_Nr * col];
        d_cW = d_c[ei];
        d_cE = d_c[row + d_Nr * d_jE[col]];

        d_D = d_cN * d_dN[ei] + d_cS * d_dS[ei] + d_cW * d_dW[ei] + d_cE * d_dE[ei];

        // 0.25 is a double constant, as in Rodinia
        d_I[ei] = d_I[ei] + 0.25 * d_lambda * d_D;
    }
}

// I = log(I) * 255: back to the 0..255 range.
extern "C" __global__ void compress(long d_Ne, fp *d_I)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int ei = (bx * NUMBER_THREADS) + tx;
    if (ei < d_Ne) {
        d_I[ei] = log(d_I[ei]) * 255;
    }
}
