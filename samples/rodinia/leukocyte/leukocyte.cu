// Rodinia 3.1 leukocyte (detection and tracking of white blood cells in intravital microscopy
// video), written for warpsim. Detection, on the first frame: GICOV_kernel scores every pixel
// by the gradient inverse coefficient of variation along 7 sample circles around it (one block
// per image column, one thread per image row, both without the 22-pixel margin), then
// dilate_kernel takes the maximum GICOV score over a disk-shaped structuring element (176
// threads per block). Tracking, per later frame: IMGVF_kernel computes the motion gradient
// vector flow of each cell's sub-image (one 320-thread block per cell) by iterating until the
// mean change falls below a cutoff.
//
// Rodinia reads the gradients and the GICOV matrix through textures (removed in CUDA 12); here
// the kernels get them as plain pointers. The stencils and the structuring element are in
// constant memory, uploaded by the host as in Rodinia. leukocyte_tex.cu compiles this file with
// RODINIA_TEXTURES under NVRTC 11.8: Rodinia's texture references and arguments.

#ifdef RODINIA_TEXTURES
texture<float, 1, cudaReadModeElementType> t_grad_x;
texture<float, 1, cudaReadModeElementType> t_grad_y;
texture<float, 1, cudaReadModeElementType> t_img;
#define GRAD_X(addr) tex1Dfetch(t_grad_x, addr)
#define GRAD_Y(addr) tex1Dfetch(t_grad_y, addr)
#define IMG(addr) tex1Dfetch(t_img, addr)
#define GRAD_PARAMS
#define IMG_PARAM
#else
#define GRAD_X(addr) grad_x[addr]
#define GRAD_Y(addr) grad_y[addr]
#define IMG(addr) img[addr]
#define GRAD_PARAMS , const float *grad_x, const float *grad_y
#define IMG_PARAM , const float *img
#endif

// The number of sample points in each ellipse (stencil)
#define NPOINTS 150
// The maximum radius of a sample ellipse
#define MAX_RAD 20
// The total number of sample ellipses
#define NCIRCLES 7
// The size of the structuring element used in dilation
#define STREL_SIZE (12 * 2 + 1)

__constant__ float c_sin_angle[NPOINTS];
__constant__ float c_cos_angle[NPOINTS];
__constant__ int c_tX[NCIRCLES * NPOINTS];
__constant__ int c_tY[NCIRCLES * NPOINTS];
__constant__ float c_strel[STREL_SIZE * STREL_SIZE];

// Matrices are stored column by column (element (row, col) at col * rows + row).
extern "C" __global__ void GICOV_kernel(int grad_m GRAD_PARAMS, float *gicov)
{
    // this thread's pixel: column i, row j
    int i = blockIdx.x + MAX_RAD + 2;
    int j = threadIdx.x + MAX_RAD + 2;

    float max_GICOV = 0.f;

    for (int k = 0; k < NCIRCLES; k++) {
        // running mean and variance (Welford) of the outward gradient along circle k
        float sum = 0.f, M2 = 0.f, mean = 0.f;
        for (int n = 0; n < NPOINTS; n++) {
            int y = j + c_tY[(k * NPOINTS) + n];
            int x = i + c_tX[(k * NPOINTS) + n];
            int addr = x * grad_m + y;
            float p = GRAD_X(addr) * c_cos_angle[n] + GRAD_Y(addr) * c_sin_angle[n];
            sum += p;
            float delta = p - mean;
            mean = mean + (delta / (float)(n + 1));
            M2 = M2 + (delta * (p - mean));
        }
        mean = sum / ((float)NPOINTS);
        float var = M2 / ((float)(NPOINTS - 1));
        if (((mean * mean) / var) > max_GICOV) {
            max_GICOV = (mean * mean) / var;
        }
    }

    gicov[(i * grad_m) + j] = max_GICOV;
}

// Each output element is the maximum of the input over the structuring element around it.
// The input is column-major, the output row-major (as in Rodinia).
extern "C" __global__ void dilate_kernel(int img_m, int img_n, int strel_m, int strel_n IMG_PARAM,
                                         float *dilated)
{
    int el_center_i = strel_m / 2;
    int el_center_j = strel_n / 2;

    int thread_id = (blockIdx.x * blockDim.x) + threadIdx.x;
    int i = thread_id % img_m;
    int j = thread_id / img_m;

    float max = 0.0;
    for (int el_i = 0; el_i < strel_m; el_i++) {
        int y = i - el_center_i + el_i;
        if ((y >= 0) && (y < img_m)) {
            for (int el_j = 0; el_j < strel_n; el_j++) {
                int x = j - el_center_j + el_j;
                if ((x >= 0) && (x < img_n) && (c_strel[(el_i * strel_n) + el_j] != 0)) {
                    int addr = (x * img_m) + y;
                    float temp = IMG(addr);
                    if (temp > max) {
                        max = temp;
                    }
                }
            }
        }
    }

    dilated[(i * img_n) + j] = max;
}

// Constants used in the MGVF computation
#define PI 3.14159265358979
#define ONE_OVER_PI (1.0 / PI)
#define MU 0.5
#define LAMBDA (8.0 * MU + 1.0)

// The number of threads per thread block
#define THREADS_PER_BLOCK 320
// 2^floor(log2(THREADS_PER_BLOCK))
#define NEXT_LOWEST_POWER_OF_TWO 256

// Regularised Heaviside step function: atan(x) / pi + 1/2
__device__ float heaviside(float x)
{
    return (atan(x) * ONE_OVER_PI) + 0.5;
}

// One block per cell: the cell's IMGVF matrix (at most 41 x 81, row-major) is iterated in
// shared memory, each thread updating one element per "virtual block" of 320 elements.
extern "C" __global__ void IMGVF_kernel(float **IMGVF_array, float **I_array, int *m_array,
                                        int *n_array, float vx, float vy, float e,
                                        int max_iterations, float cutoff)
{
    __shared__ float IMGVF[41 * 81];
    // new values of the previous virtual block, then the partial sums of the reduction
    __shared__ float buffer[THREADS_PER_BLOCK];
    __shared__ int cell_converged;

    int cell_num = blockIdx.x;
    float *IMGVF_global = IMGVF_array[cell_num];
    float *I = I_array[cell_num];
    int m = m_array[cell_num];
    int n = n_array[cell_num];

    // number of virtual blocks
    int max = (m * n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;

    int thread_id = threadIdx.x, thread_block, i, j;
    for (thread_block = 0; thread_block < max; thread_block++) {
        int offset = thread_block * THREADS_PER_BLOCK;
        i = (thread_id + offset) / n;
        j = (thread_id + offset) % n;
        if (i < m) {
            IMGVF[(i * n) + j] = IMGVF_global[(i * n) + j];
        }
    }
    __syncthreads();

    if (threadIdx.x == 0) {
        cell_converged = 0;
    }
    __syncthreads();

    const float one_nth = 1.f / (float)n;
    const int tid_mod = thread_id % n;
    const int tbsize_mod = THREADS_PER_BLOCK % n;
    float one_over_e = 1.0 / e;

    int iterations = 0;
    while ((!cell_converged) && (iterations < max_iterations)) {
        float total_diff = 0.0f;
        int old_i = 0, old_j = 0;
        j = tid_mod - tbsize_mod;

        for (thread_block = 0; thread_block < max; thread_block++) {
            old_i = i;
            old_j = j;

            // this thread's element in the virtual block (row through a float reciprocal,
            // column incrementally, as in Rodinia)
            int offset = thread_block * THREADS_PER_BLOCK;
            i = (thread_id + offset) * one_nth;
            j += tbsize_mod;
            if (j >= n) {
                j -= n;
            }

            float new_val = 0.0, old_val = 0.0;
            if (i < m) {
                int rowU = (i == 0) ? 0 : i - 1;
                int rowD = (i == m - 1) ? m - 1 : i + 1;
                int colL = (j == 0) ? 0 : j - 1;
                int colR = (j == n - 1) ? n - 1 : j + 1;

                old_val = IMGVF[(i * n) + j];
                float U = IMGVF[(rowU * n) + j] - old_val;
                float D = IMGVF[(rowD * n) + j] - old_val;
                float L = IMGVF[(i * n) + colL] - old_val;
                float R = IMGVF[(i * n) + colR] - old_val;
                float UR = IMGVF[(rowU * n) + colR] - old_val;
                float DR = IMGVF[(rowD * n) + colR] - old_val;
                float UL = IMGVF[(rowU * n) + colL] - old_val;
                float DL = IMGVF[(rowD * n) + colL] - old_val;

                float UHe = heaviside((U * -vy) * one_over_e);
                float DHe = heaviside((D * vy) * one_over_e);
                float LHe = heaviside((L * -vx) * one_over_e);
                float RHe = heaviside((R * vx) * one_over_e);
                float URHe = heaviside((UR * (vx - vy)) * one_over_e);
                float DRHe = heaviside((DR * (vx + vy)) * one_over_e);
                float ULHe = heaviside((UL * (-vx - vy)) * one_over_e);
                float DLHe = heaviside((DL * (-vx + vy)) * one_over_e);

                // IMGVF += (mu / lambda) (sum of He .* differences)
                new_val = old_val + (MU / LAMBDA) * (UHe * U + DHe * D + LHe * L + RHe * R +
                                                     URHe * UR + DRHe * DR + ULHe * UL +
                                                     DLHe * DL);
                // IMGVF -= (1 / lambda) (I .* (IMGVF - I))
                float vI = I[(i * n) + j];
                new_val -= ((1.0 / LAMBDA) * vI * (new_val - vI));
            }

            // Not in Rodinia: every thread finishes reading this virtual block's neighbours
            // before any thread stores the previous block's new values (Rodinia races here,
            // so its result would depend on warp scheduling).
            __syncthreads();

            if (thread_block > 0) {
                if (old_i < m) {
                    IMGVF[(old_i * n) + old_j] = buffer[thread_id];
                }
            }
            if (thread_block < max - 1) {
                buffer[thread_id] = new_val;
            } else {
                if (i < m) {
                    IMGVF[(i * n) + j] = new_val;
                }
            }

            total_diff += fabs(new_val - old_val);
            __syncthreads();
        }

        // tree reduction of the total change over the block
        buffer[thread_id] = total_diff;
        __syncthreads();
        if (thread_id >= NEXT_LOWEST_POWER_OF_TWO) {
            buffer[thread_id - NEXT_LOWEST_POWER_OF_TWO] += buffer[thread_id];
        }
        __syncthreads();
        for (int th = NEXT_LOWEST_POWER_OF_TWO / 2; th > 0; th /= 2) {
            if (thread_id < th) {
                buffer[thread_id] += buffer[thread_id + th];
            }
            __syncthreads();
        }

        if (thread_id == 0) {
            float mean = buffer[thread_id] / (float)(m * n);
            if (mean < cutoff) {
                cell_converged = 1;
            }
        }
        __syncthreads();

        iterations++;
    }

    for (thread_block = 0; thread_block < max; thread_block++) {
        int offset = thread_block * THREADS_PER_BLOCK;
        i = (thread_id + offset) / n;
        j = (thread_id + offset) % n;
        if (i < m) {
            IMGVF_global[(i * n) + j] = IMGVF[(i * n) + j];
        }
    }
}
